//! The event sensors' messages (the DVS camera's image and point cloud,
//! the collision event) and the Ackermann control read for a hero vehicle.

use super::{fields_at, header, image_parts, vector3, Stamp};
use crate::ros2::cdr::{Reader, Short, Writer};

/// One DVS event as the payload packs it: `x u16, y u16, t i64 (ns), pol
/// bool`, 13 bytes, after the 12-byte image header.
const DVS_EVENT: usize = 13;
/// The largest DVS image published (its size comes from the payload's
/// header, not from data received): 16.7 megapixels, 50 MB in `bgr8`.
const DVS_MAX_PIXELS: u64 = 1 << 24;

/// `sensor_msgs/PointField` datatypes.
const INT8: u8 = 1;
const UINT16: u8 = 4;

/// `sensor_msgs/Image` (`bgr8`) of a DVS payload: black, each event's
/// pixel blue (negative polarity) or red (positive), as CARLA draws it;
/// None if malformed or past [`DVS_MAX_PIXELS`]. Events outside the image
/// are left out.
pub(crate) fn dvs_image(stamp: Stamp, frame_id: &str, payload: &[u8]) -> Option<Vec<u8>> {
    let (width, height, _, events) = image_parts(payload)?;
    let pixels = u64::from(width) * u64::from(height);
    if pixels > DVS_MAX_PIXELS {
        return None;
    }
    let size = pixels as usize * 3;
    let mut w = Writer::with_capacity(size + 64 + frame_id.len());
    header(&mut w, stamp, frame_id);
    w.u32(height);
    w.u32(width);
    w.string("bgr8");
    w.u8(0); // is_bigendian
    w.u32(width * 3);
    w.byte_count(size);
    let start = w.out.len();
    w.out.resize(start + size, 0);
    for e in events.chunks_exact(DVS_EVENT) {
        let x = u32::from(u16::from_le_bytes([e[0], e[1]]));
        let y = u32::from(u16::from_le_bytes([e[2], e[3]]));
        if x < width && y < height {
            let pixel = (y as usize * width as usize + x as usize) * 3;
            let channel = if e[12] != 0 { 2 } else { 0 };
            w.out[start + pixel + channel] = 255;
        }
    }
    Some(w.out)
}

/// `sensor_msgs/PointCloud2` of a DVS payload: one 13-byte point per event
/// as the payload packs it, `x` and `y` the pixel (`UINT16`), `pol`
/// (`INT8`), and `t` (nanoseconds, an i64 at offset 4) present but not
/// described: PointField has no 64-bit integer type.
pub(crate) fn dvs_point_cloud(stamp: Stamp, frame_id: &str, payload: &[u8]) -> Option<Vec<u8>> {
    let (_, _, _, events) = image_parts(payload)?;
    let n = events.len() / DVS_EVENT;
    let mut w = Writer::with_capacity(n * DVS_EVENT + 128 + frame_id.len());
    header(&mut w, stamp, frame_id);
    w.u32(1); // height
    w.u32(n as u32); // width
    fields_at(
        &mut w,
        &[("x", 0, UINT16), ("y", 2, UINT16), ("pol", 12, INT8)],
    );
    w.u8(0); // is_bigendian
    w.u32(DVS_EVENT as u32);
    w.u32((n * DVS_EVENT) as u32); // row_step
    w.byte_count(n * DVS_EVENT);
    w.out.extend_from_slice(&events[..n * DVS_EVENT]);
    w.u8(1); // is_dense
    Some(w.out)
}

/// `carla_msgs/CarlaCollisionEvent` of a collision payload (msgpack
/// `[self_actor, other_actor, [ix iy iz]]`): the other actor's id, and the
/// normal impulse in N·s (the payload's, in Unreal's kg·cm/s, × 0.01, as
/// CARLA publishes it) in ROS's right-handed frame (y negated).
pub(crate) fn collision_event(stamp: Stamp, frame_id: &str, payload: &[u8]) -> Option<Vec<u8>> {
    let value = rmpv::decode::read_value_with_max_depth(&mut &payload[..], 16).ok()?;
    let parts = value.as_array()?;
    let [_, other, impulse] = parts.as_slice() else {
        return None;
    };
    let other_id = u32::try_from(other.as_array()?.first()?.as_u64()?).ok()?;
    let [ix, iy, iz] = impulse.as_array()?.as_slice() else {
        return None;
    };
    let (ix, iy, iz) = (ix.as_f64()?, iy.as_f64()?, iz.as_f64()?);
    let mut w = Writer::with_capacity(96 + frame_id.len());
    header(&mut w, stamp, frame_id);
    w.u32(other_id);
    vector3(&mut w, [ix * 0.01, -iy * 0.01, iz * 0.01]);
    Some(w.out)
}

/// Reads an `ackermann_msgs/AckermannDriveStamped` (header, then the
/// drive: steering angle (rad), steering angle velocity (rad/s), speed
/// (m/s), acceleration (m/s²), jerk (m/s³)) as a `carla.
/// VehicleAckermannControl`'s five values; the header is ignored, as CARLA
/// does.
pub(crate) fn ackermann_drive(data: &[u8]) -> Result<[f32; 5], Short> {
    let mut r = Reader::new(data);
    r.i32()?;
    r.u32()?;
    r.skip_string()?;
    Ok([r.f32()?, r.f32()?, r.f32()?, r.f32()?, r.f32()?])
}
