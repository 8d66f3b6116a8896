//! The ROS 2 messages the library publishes, in CDR, built from the same
//! serialized sensor payloads its TCP streams carry (LibCarla's layouts),
//! and the control message it reads. Field orders are the ROS 2 message
//! definitions'; values follow CARLA 0.9.16's `--ros2` publishers (topics,
//! frames, the y axis flipped into ROS's right-handed frame), without their
//! bugs (docs/ros2.md lists each difference).

use super::cdr::{Reader, Short, Writer};
use crate::episode::VehicleControl09;
use crate::sensor::serialize::IMAGE_HEADER_SIZE;
use crate::types::{ActorTransform, CBool, Vector3D};
use std::ops::Range;

/// `builtin_interfaces/Time` of a simulation time in seconds, truncated
/// to the nanosecond as CARLA does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) sec: i32,
    pub(crate) nanosec: u32,
}

impl Stamp {
    pub(crate) fn from_seconds(t: f64) -> Stamp {
        let t = if t.is_finite() { t.max(0.0) } else { 0.0 };
        let sec = t.trunc();
        Stamp {
            sec: sec.min(i32::MAX as f64) as i32,
            nanosec: (((t - sec) * 1e9) as u32).min(999_999_999),
        }
    }
}

fn header(w: &mut Writer, stamp: Stamp, frame_id: &str) {
    w.i32(stamp.sec);
    w.u32(stamp.nanosec);
    w.string(frame_id);
}

/// `(width, height, fov degrees)` and the pixels of an image payload.
pub(crate) fn image_parts(payload: &[u8]) -> Option<(u32, u32, f32, &[u8])> {
    let head = payload.get(..IMAGE_HEADER_SIZE)?;
    let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
    Some((
        word(0),
        word(4),
        f32::from_bits(word(8)),
        &payload[IMAGE_HEADER_SIZE..],
    ))
}

/// How an image's pixels are encoded: `bgra8` (4 bytes) for the cameras
/// whose payload is BGRA, `32FC2` (8 bytes: two floats) for optical flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PixelFormat {
    Bgra8,
    Flow32fc2,
}

impl PixelFormat {
    fn encoding(self) -> &'static str {
        match self {
            PixelFormat::Bgra8 => "bgra8",
            PixelFormat::Flow32fc2 => "32FC2",
        }
    }

    fn bytes(self) -> u32 {
        match self {
            PixelFormat::Bgra8 => 4,
            PixelFormat::Flow32fc2 => 8,
        }
    }
}

/// `sensor_msgs/Image` of an image payload in two parts, not copying the
/// pixels: the message up to them, and where they are in `payload`. The
/// message is the first part followed by those bytes (`data` is the last
/// field, a byte sequence: no padding before it). None if the payload is
/// shorter than its header says.
pub(crate) fn image_head(
    stamp: Stamp,
    frame_id: &str,
    payload: &[u8],
    format: PixelFormat,
) -> Option<(Vec<u8>, Range<usize>)> {
    let (width, height, _, pixels) = image_parts(payload)?;
    let step = width.checked_mul(format.bytes())?;
    let size = usize::try_from(u64::from(step) * u64::from(height)).ok()?;
    if pixels.len() < size {
        return None;
    }
    let mut w = Writer::with_capacity(64 + frame_id.len());
    header(&mut w, stamp, frame_id);
    w.u32(height);
    w.u32(width);
    w.string(format.encoding());
    w.u8(0); // is_bigendian
    w.u32(step);
    w.byte_count(size);
    Some((w.out, IMAGE_HEADER_SIZE..IMAGE_HEADER_SIZE + size))
}

/// `sensor_msgs/CameraInfo` of a pinhole camera with a horizontal field of
/// view of `fov` degrees: fx = fy = width / (2 tan(fov / 2)), the centre
/// in the middle, no distortion ("plumb_bob", zeros).
pub(crate) fn camera_info(
    stamp: Stamp,
    frame_id: &str,
    width: u32,
    height: u32,
    fov: f32,
) -> Vec<u8> {
    let (wf, hf) = (f64::from(width), f64::from(height));
    let f = wf / (2.0 * (f64::from(fov).to_radians() / 2.0).tan());
    let (cx, cy) = (wf / 2.0, hf / 2.0);
    let mut w = Writer::with_capacity(400);
    header(&mut w, stamp, frame_id);
    w.u32(height);
    w.u32(width);
    w.string("plumb_bob");
    w.u32(5);
    for _ in 0..5 {
        w.f64(0.0);
    }
    for v in [f, 0.0, cx, 0.0, f, cy, 0.0, 0.0, 1.0] {
        w.f64(v); // K
    }
    for v in [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0] {
        w.f64(v); // R
    }
    for v in [f, 0.0, cx, 0.0, 0.0, f, cy, 0.0, 0.0, 0.0, 1.0, 0.0] {
        w.f64(v); // P
    }
    w.u32(0); // binning_x
    w.u32(0); // binning_y
    for v in [0, 0, height, width] {
        w.u32(v); // roi
    }
    w.u8(0); // roi.do_rectify
    w.out
}

/// Which point cloud a payload becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cloud {
    /// `x y z intensity`, 16 bytes.
    Lidar,
    /// `x y z cos_inc_angle object_idx object_tag`, 24 bytes.
    SemanticLidar,
    /// `x y z velocity azimuth altitude depth`, 28 bytes, from the
    /// radar's polar detections.
    Radar,
}

/// `sensor_msgs/PointField` datatypes.
const FLOAT32: u8 = 7;
const UINT32: u8 = 6;

/// PointFields of 4 bytes each, one after the other.
fn fields(w: &mut Writer, list: &[(&str, u8)]) {
    w.u32(list.len() as u32);
    for (i, (name, datatype)) in (0..).zip(list) {
        field(w, name, 4 * i, *datatype);
    }
}

/// PointFields `(name, offset, datatype)`, one value each.
fn fields_at(w: &mut Writer, list: &[(&str, u32, u8)]) {
    w.u32(list.len() as u32);
    for (name, offset, datatype) in list {
        field(w, name, *offset, *datatype);
    }
}

fn field(w: &mut Writer, name: &str, offset: u32, datatype: u8) {
    w.string(name);
    w.u32(offset);
    w.u8(datatype);
    w.u32(1);
}

/// `sensor_msgs/PointCloud2` of a lidar, semantic lidar or radar payload,
/// y negated (ROS's y points left); None if the payload is malformed.
pub(crate) fn point_cloud(
    stamp: Stamp,
    frame_id: &str,
    cloud: Cloud,
    payload: &[u8],
) -> Option<Vec<u8>> {
    let points = match cloud {
        Cloud::Radar => payload,
        _ => {
            let channels = u32::from_le_bytes(payload.get(4..8)?.try_into().ok()?) as usize;
            payload.get(8usize.checked_add(channels.checked_mul(4)?)?..)?
        }
    };
    let (input, step, list): (usize, usize, &[(&str, u8)]) = match cloud {
        Cloud::Lidar => (
            16,
            16,
            &[
                ("x", FLOAT32),
                ("y", FLOAT32),
                ("z", FLOAT32),
                ("intensity", FLOAT32),
            ],
        ),
        Cloud::SemanticLidar => (
            24,
            24,
            &[
                ("x", FLOAT32),
                ("y", FLOAT32),
                ("z", FLOAT32),
                ("cos_inc_angle", FLOAT32),
                ("object_idx", UINT32),
                ("object_tag", UINT32),
            ],
        ),
        Cloud::Radar => (
            16,
            28,
            &[
                ("x", FLOAT32),
                ("y", FLOAT32),
                ("z", FLOAT32),
                ("velocity", FLOAT32),
                ("azimuth", FLOAT32),
                ("altitude", FLOAT32),
                ("depth", FLOAT32),
            ],
        ),
    };
    let n = points.len() / input;
    let mut w = Writer::with_capacity(n * step + 256 + frame_id.len());
    header(&mut w, stamp, frame_id);
    w.u32(1); // height
    w.u32(n as u32); // width
    fields(&mut w, list);
    w.u8(0); // is_bigendian
    w.u32(step as u32);
    w.u32((n * step) as u32); // row_step
    w.byte_count(n * step);
    let f =
        |p: &[u8], i: usize| f32::from_le_bytes(p[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    for p in points.chunks_exact(input) {
        match cloud {
            Cloud::Lidar | Cloud::SemanticLidar => {
                w.out.extend_from_slice(&p[..4]);
                w.out.extend_from_slice(&(-f(p, 1)).to_le_bytes());
                w.out.extend_from_slice(&p[8..]);
            }
            Cloud::Radar => {
                let (velocity, azimuth, altitude, depth) = (f(p, 0), f(p, 1), f(p, 2), f(p, 3));
                let xyz = [
                    depth * azimuth.cos() * altitude.cos(),
                    -depth * azimuth.sin() * altitude.cos(),
                    depth * altitude.sin(),
                ];
                for v in xyz.into_iter().chain([velocity, azimuth, altitude, depth]) {
                    w.out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
    w.u8(0); // is_dense: misses are left out, but ROS tools expect false
    Some(w.out)
}

/// The f32s or f64s of a small msgpack payload (the IMU's and GNSS's), in
/// order, flattened.
fn msgpack_numbers(payload: &[u8]) -> Option<Vec<f64>> {
    fn walk(v: &rmpv::Value, out: &mut Vec<f64>) -> Option<()> {
        match v {
            rmpv::Value::Array(items) => items.iter().try_for_each(|i| walk(i, out)),
            other => {
                out.push(other.as_f64()?);
                Some(())
            }
        }
    }
    // rmpv counts 2 levels per array and up to 3 for the innermost value.
    let value = rmpv::decode::read_value_with_max_depth(&mut &payload[..], 8).ok()?;
    let mut out = Vec::with_capacity(8);
    walk(&value, &mut out)?;
    Some(out)
}

fn vector3(w: &mut Writer, v: [f64; 3]) {
    for x in v {
        w.f64(x);
    }
}

fn zeros9(w: &mut Writer) {
    for _ in 0..9 {
        w.f64(0.0);
    }
}

/// `sensor_msgs/Imu` of an IMU payload (`[[ax ay az] [gx gy gz] compass]`):
/// acceleration and angular velocity in ROS's right-handed frame (y, and
/// the rotations about x and z, negated), orientation the heading from the
/// compass (yaw = π/2 − compass: east is 0, counter-clockwise), covariances
/// unknown (zeros).
pub(crate) fn imu(stamp: Stamp, frame_id: &str, payload: &[u8]) -> Option<Vec<u8>> {
    let n = msgpack_numbers(payload)?;
    let [ax, ay, az, gx, gy, gz, compass] = n.as_slice().try_into().ok()?;
    let yaw = std::f64::consts::FRAC_PI_2 - compass;
    let mut w = Writer::with_capacity(400);
    header(&mut w, stamp, frame_id);
    for v in [0.0, 0.0, (yaw / 2.0).sin(), (yaw / 2.0).cos()] {
        w.f64(v);
    }
    zeros9(&mut w);
    vector3(&mut w, [-gx, gy, -gz]);
    zeros9(&mut w);
    vector3(&mut w, [ax, -ay, az]);
    zeros9(&mut w);
    Some(w.out)
}

/// `sensor_msgs/NavSatFix` of a GNSS payload (`[lat lon alt]`): a fix,
/// covariance unknown.
pub(crate) fn nav_sat_fix(stamp: Stamp, frame_id: &str, payload: &[u8]) -> Option<Vec<u8>> {
    let n = msgpack_numbers(payload)?;
    let [lat, lon, alt] = n.as_slice().try_into().ok()?;
    let mut w = Writer::with_capacity(200);
    header(&mut w, stamp, frame_id);
    w.u8(0); // status.status: STATUS_FIX
    w.u16(1); // status.service: SERVICE_GPS
    for v in [lat, lon, alt] {
        w.f64(v);
    }
    zeros9(&mut w);
    w.u8(0); // COVARIANCE_TYPE_UNKNOWN
    Some(w.out)
}

/// `std_msgs/String`.
pub(crate) fn string(text: &str) -> Vec<u8> {
    let mut w = Writer::with_capacity(text.len() + 5);
    w.string(text);
    w.out
}

/// `carla_msgs/CarlaTrafficLightStatusList` of `(id, state)` pairs, the
/// state as CARLA numbers it (red 0, yellow 1, green 2, off 3, unknown
/// 4), which carla_msgs' constants follow.
pub(crate) fn traffic_light_status(lights: &[(u32, u8)]) -> Vec<u8> {
    let mut w = Writer::with_capacity(4 + 8 * lights.len());
    w.u32(lights.len() as u32);
    for &(id, state) in lights {
        w.u32(id);
        w.u8(state);
    }
    w.out
}

/// `rosgraph_msgs/Clock`.
pub(crate) fn clock(stamp: Stamp) -> Vec<u8> {
    let mut w = Writer::with_capacity(8);
    w.i32(stamp.sec);
    w.u32(stamp.nanosec);
    w.out
}

/// `tf2_msgs/TFMessage` with one transform: `child` in `parent`'s frame,
/// from a CARLA transform (metres and degrees, left-handed): y negated,
/// pitch and yaw negated, as CARLA's publisher converts them.
pub(crate) fn tf(stamp: Stamp, parent: &str, child: &str, t: &ActorTransform) -> Vec<u8> {
    let mut w = Writer::with_capacity(160);
    w.u32(1);
    header(&mut w, stamp, parent);
    w.string(child);
    pose(&mut w, t);
    w.out
}

/// A CARLA transform as ROS's position and quaternion (`geometry_msgs/
/// Transform` and `Pose` lay them out alike).
fn pose(w: &mut Writer, t: &ActorTransform) {
    let l = t.location;
    vector3(w, [f64::from(l.x), -f64::from(l.y), f64::from(l.z)]);
    quaternion(w, t);
}

/// `geometry_msgs/Quaternion` of `t`'s rotation, in ROS's axes.
fn quaternion(w: &mut Writer, t: &ActorTransform) {
    let r = t.rotation;
    let (roll, pitch, yaw) = (
        f64::from(r.roll).to_radians(),
        -f64::from(r.pitch).to_radians(),
        -f64::from(r.yaw).to_radians(),
    );
    let (cr, sr) = ((roll / 2.0).cos(), (roll / 2.0).sin());
    let (cp, sp) = ((pitch / 2.0).cos(), (pitch / 2.0).sin());
    let (cy, sy) = ((yaw / 2.0).cos(), (yaw / 2.0).sin());
    for v in [
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    ] {
        w.f64(v);
    }
}

/// `nav_msgs/Odometry` of a vehicle at `t` (in `map`) moving at
/// `velocity` (world, m/s) and turning at `angular` (deg/s, CARLA's axes):
/// the twist in the vehicle's own frame (`child`), ROS's axes, as
/// carla-ros-bridge publishes it; covariances zero (exact).
pub(crate) fn odometry(
    stamp: Stamp,
    child: &str,
    t: &ActorTransform,
    velocity: Vector3D,
    angular: Vector3D,
) -> Vec<u8> {
    let mut w = Writer::with_capacity(720);
    header(&mut w, stamp, "map");
    w.string(child);
    pose(&mut w, t);
    covariance(&mut w);
    let local = crate::sensor::rotate_to_local(&t.rotation, velocity);
    vector3(
        &mut w,
        [f64::from(local.x), -f64::from(local.y), f64::from(local.z)],
    );
    let spin = crate::sensor::rotate_to_local(&t.rotation, angular);
    let (x, y, z) = (
        spin.x.to_radians(),
        spin.y.to_radians(),
        spin.z.to_radians(),
    );
    // Left-handed to right-handed: y flips, and so do the senses of the
    // rotations about x and z.
    vector3(&mut w, [-f64::from(x), f64::from(y), -f64::from(z)]);
    covariance(&mut w);
    w.out
}

/// What `carla_msgs/CarlaEgoVehicleStatus` says of a vehicle.
pub(crate) struct VehicleStatus<'a> {
    pub(crate) transform: &'a ActorTransform,
    /// World velocity and acceleration (m/s, m/s², CARLA's axes).
    pub(crate) velocity: Vector3D,
    pub(crate) acceleration: Vector3D,
    pub(crate) control: &'a VehicleControl09,
}

/// `carla_msgs/CarlaEgoVehicleStatus` at `stamp` (frame `map`) as
/// carla-ros-bridge fills it: the speed (m/s, always positive), the
/// linear acceleration in ROS's axes (angular zero), the orientation, and
/// the control the vehicle is under (its header left empty).
pub(crate) fn vehicle_status(stamp: Stamp, v: &VehicleStatus) -> Vec<u8> {
    let mut w = Writer::with_capacity(160);
    header(&mut w, stamp, "map");
    let (d, a) = (v.velocity, v.acceleration);
    w.f32((d.x * d.x + d.y * d.y + d.z * d.z).sqrt());
    vector3(&mut w, [f64::from(a.x), -f64::from(a.y), f64::from(a.z)]);
    vector3(&mut w, [0.0; 3]);
    quaternion(&mut w, v.transform);
    let c = v.control;
    header(&mut w, Stamp::default(), "");
    w.f32(c.throttle);
    w.f32(c.steer);
    w.f32(c.brake);
    w.u8(u8::from(c.hand_brake.get()));
    w.u8(u8::from(c.reverse.get()));
    w.i32(c.gear);
    w.u8(u8::from(c.manual_gear_shift.get()));
    w.out
}

/// A 6x6 covariance of zeros.
fn covariance(w: &mut Writer) {
    for _ in 0..36 {
        w.f64(0.0);
    }
}

/// Reads a `carla_msgs/CarlaEgoVehicleControl` (header, throttle, steer,
/// brake, hand_brake, reverse, gear, manual_gear_shift); the header is
/// ignored, as CARLA does. Values out of range are clamped by the caller.
pub(crate) fn vehicle_control(data: &[u8]) -> Result<VehicleControl09, Short> {
    let mut r = Reader::new(data);
    r.i32()?;
    r.u32()?;
    r.skip_string()?;
    let (throttle, steer, brake) = (r.f32()?, r.f32()?, r.f32()?);
    let (hand_brake, reverse) = (r.u8()? != 0, r.u8()? != 0);
    let gear = r.i32()?;
    let manual_gear_shift = r.u8()? != 0;
    Ok(VehicleControl09 {
        throttle,
        steer,
        brake,
        hand_brake: CBool::from(hand_brake),
        reverse: CBool::from(reverse),
        manual_gear_shift: CBool::from(manual_gear_shift),
        gear,
    })
}

mod events;
pub(crate) use events::{ackermann_drive, collision_event, dvs_image, dvs_point_cloud};

mod world;
pub(crate) use world::{
    class, objects, rep105_frames, tf_chain, traffic_light_info, vehicle_info, LightInfo, Object,
    VehicleInfo, WheelInfo,
};

#[cfg(test)]
mod tests;
