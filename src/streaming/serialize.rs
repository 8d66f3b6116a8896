//! Payload serializers: the bytes that follow the 48-byte sensor header
//! ([`super::header`]), one function per [`super::registry::PayloadFormat`]
//! (LibCarla's layouts). Raw layouts are packed little-endian;
//! GNSS, IMU, collision and obstacle payloads are one MessagePack document.
//!
//! Every function APPENDS to `out` and does not allocate when `out` already
//! has enough spare capacity. Functions that validate their input check
//! everything before writing, so on error `out` is left unchanged.
//!
//! Formats and their functions: `Image`, `NormalsImage`, `GBufferUint8` →
//! [`image`] (or [`image_header`] for the zero-copy path); `GBufferFloat` →
//! [`gbuffer_float`]; `OpticalFlowImage` → [`optical_flow`]; `Dvs` →
//! [`dvs_events`]; `Lidar` → [`lidar`] (or [`lidar_header`] +
//! [`lidar_point`]); `SemanticLidar` → [`semantic_lidar`] (or
//! [`lidar_header`] + [`semantic_lidar_point`]); `Radar` → [`radar`];
//! `ActorIds` → [`actor_ids`]; `Gnss` → [`gnss`]; `Imu` → [`imu`];
//! `CollisionEvent` → [`collision`]; `ObstacleEvent` → [`obstacle`].

use super::header::HEADER_SIZE;
use super::msgpack as mp;
use crate::types::{Rotation3D, Vector3D};

/// Size of the image sub-header (width u32, height u32, fov f32).
pub const IMAGE_HEADER_SIZE: usize = 12;
/// Size of one packed DVS event on the wire.
pub const DVS_EVENT_SIZE: usize = 13;
/// Largest payload that fits in one message (its size field is a u32 and
/// covers the 48-byte header too).
pub const MAX_PAYLOAD: u64 = u32::MAX as u64 - HEADER_SIZE as u64;

/// Why a payload could not be serialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SerializeError {
    /// The pixel data does not match the image size (`expected` and `actual`
    /// are in bytes; `expected` saturates at `u64::MAX`).
    PixelDataLength {
        width: u32,
        height: u32,
        expected: u64,
        actual: u64,
    },
    /// The per-channel lidar counts do not add up to the number of points.
    PointCountMismatch { channel_sum: u64, points: usize },
    /// The payload would not fit in one message (see [`MAX_PAYLOAD`]).
    TooLarge { bytes: u64 },
}

impl std::fmt::Display for SerializeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            SerializeError::PixelDataLength {
                width,
                height,
                expected,
                actual,
            } => write!(
                f,
                "pixel data is {actual} bytes but a {width}x{height} image needs {expected} bytes"
            ),
            SerializeError::PointCountMismatch {
                channel_sum,
                points,
            } => write!(
                f,
                "lidar channel counts add up to {channel_sum} points but {points} points were given"
            ),
            SerializeError::TooLarge { bytes } => write!(
                f,
                "payload of {bytes} bytes exceeds the message limit of {MAX_PAYLOAD} bytes"
            ),
        }
    }
}

impl std::error::Error for SerializeError {}

// ---------------------------------------------------------------- images --

/// The 12-byte image sub-header. For the zero-copy path the engine writes
/// the pixels at offset [`IMAGE_HEADER_SIZE`] of the payload and patches
/// these bytes in front of them.
pub fn image_header(width: u32, height: u32, fov: f32) -> [u8; IMAGE_HEADER_SIZE] {
    let mut h = [0u8; IMAGE_HEADER_SIZE];
    h[0..4].copy_from_slice(&width.to_le_bytes());
    h[4..8].copy_from_slice(&height.to_le_bytes());
    h[8..12].copy_from_slice(&fov.to_le_bytes());
    h
}

/// Checks that `actual` bytes hold `width × height` pixels of
/// `pixel_size` bytes and that the payload fits in a message.
fn check_image(
    width: u32,
    height: u32,
    pixel_size: u64,
    actual: u64,
) -> Result<(), SerializeError> {
    let expected = u64::from(width)
        .saturating_mul(u64::from(height))
        .saturating_mul(pixel_size);
    if actual != expected {
        return Err(SerializeError::PixelDataLength {
            width,
            height,
            expected,
            actual,
        });
    }
    check_size(actual + IMAGE_HEADER_SIZE as u64)
}

fn check_size(bytes: u64) -> Result<(), SerializeError> {
    if bytes > MAX_PAYLOAD {
        return Err(SerializeError::TooLarge { bytes });
    }
    Ok(())
}

/// Appends f32 values little-endian (resize + fill, vectorises well).
fn extend_f32s(out: &mut Vec<u8>, values: &[f32]) {
    let start = out.len();
    out.resize(start + 4 * values.len(), 0);
    for (dst, v) in out[start..].chunks_exact_mut(4).zip(values) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
}

/// Image payload (RGB, depth, segmentation, normals, wide-angle, uint8
/// G-buffer): image header + pixels, 4 bytes each in B, G, R, A order,
/// row-major, no row padding. `pixels_bgra.len()` must be `width*height*4`.
pub fn image(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    pixels_bgra: &[u8],
) -> Result<(), SerializeError> {
    check_image(width, height, 4, pixels_bgra.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + pixels_bgra.len());
    out.extend_from_slice(&image_header(width, height, fov));
    out.extend_from_slice(pixels_bgra);
    Ok(())
}

/// Float G-buffer payload: image header + 4 × f32 per pixel in R, G, B, A
/// order (16 bytes per pixel). `pixels_rgba.len()` must be `width*height*4`.
pub fn gbuffer_float(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    pixels_rgba: &[f32],
) -> Result<(), SerializeError> {
    check_image(width, height, 16, 4 * pixels_rgba.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + 4 * pixels_rgba.len());
    out.extend_from_slice(&image_header(width, height, fov));
    extend_f32s(out, pixels_rgba);
    Ok(())
}

/// Optical-flow payload: image header + 2 × f32 (x, y) per pixel (8 bytes
/// per pixel). `flow_xy.len()` must be `width*height*2`.
pub fn optical_flow(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    flow_xy: &[f32],
) -> Result<(), SerializeError> {
    check_image(width, height, 8, 4 * flow_xy.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + 4 * flow_xy.len());
    out.extend_from_slice(&image_header(width, height, fov));
    extend_f32s(out, flow_xy);
    Ok(())
}

/// One DVS event; on the wire packed into 13 bytes: u16 x, u16 y, i64 t,
/// u8 polarity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DvsEvent {
    pub x: u16,
    pub y: u16,
    /// Timestamp (nanoseconds in CARLA).
    pub t: i64,
    /// Polarity: true for a brightness increase.
    pub pol: bool,
}

/// DVS payload: image header (camera width, height, fov) + packed events.
pub fn dvs_events(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    events: &[DvsEvent],
) -> Result<(), SerializeError> {
    let len = IMAGE_HEADER_SIZE + DVS_EVENT_SIZE * events.len();
    check_size(len as u64)?;
    out.reserve(len);
    out.extend_from_slice(&image_header(width, height, fov));
    for e in events {
        let mut b = [0u8; DVS_EVENT_SIZE];
        b[0..2].copy_from_slice(&e.x.to_le_bytes());
        b[2..4].copy_from_slice(&e.y.to_le_bytes());
        b[4..12].copy_from_slice(&e.t.to_le_bytes());
        b[12] = u8::from(e.pol);
        out.extend_from_slice(&b);
    }
    Ok(())
}

// ----------------------------------------------------------------- lidar --

/// One ray-cast lidar point, 16 bytes (x, y, z in metres in the sensor
/// frame, intensity 0..1).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LidarDetection {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub intensity: f32,
}

/// One semantic lidar point, 24 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SemanticLidarDetection {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    /// Cosine of the angle between the ray and the surface normal.
    pub cos_inc_angle: f32,
    /// Actor id of the hit actor, 0 if none.
    pub object_idx: u32,
    /// Semantic tag of the hit component.
    pub object_tag: u32,
}

/// Size in bytes of the lidar header for `channels` channels: 4 × (2 + C).
pub const fn lidar_header_size(channels: usize) -> usize {
    4 * (2 + channels)
}

/// Appends the lidar header: horizontal angle (radians, f32), channel count
/// (u32), then the point count of every channel (u32 each). The points must
/// follow in channel order and their number must equal the sum of `counts`.
///
/// # Panics
/// If there are more than `u32::MAX` channels.
pub fn lidar_header(out: &mut Vec<u8>, horizontal_angle_rad: f32, counts: &[u32]) {
    let channels = u32::try_from(counts.len()).expect("more than u32::MAX lidar channels");
    out.reserve(lidar_header_size(counts.len()));
    out.extend_from_slice(&horizontal_angle_rad.to_le_bytes());
    out.extend_from_slice(&channels.to_le_bytes());
    for c in counts {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

fn write_f32x4(out: &mut Vec<u8>, values: [f32; 4]) {
    let mut b = [0u8; 16];
    for (dst, v) in b.chunks_exact_mut(4).zip(values) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&b);
}

/// Appends one 16-byte lidar point.
pub fn lidar_point(out: &mut Vec<u8>, x: f32, y: f32, z: f32, intensity: f32) {
    write_f32x4(out, [x, y, z, intensity]);
}

/// Appends one 24-byte semantic lidar point.
pub fn semantic_lidar_point(
    out: &mut Vec<u8>,
    x: f32,
    y: f32,
    z: f32,
    cos_inc_angle: f32,
    object_idx: u32,
    object_tag: u32,
) {
    let mut b = [0u8; 24];
    for (dst, v) in b.chunks_exact_mut(4).zip([x, y, z, cos_inc_angle]) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
    b[16..20].copy_from_slice(&object_idx.to_le_bytes());
    b[20..24].copy_from_slice(&object_tag.to_le_bytes());
    out.extend_from_slice(&b);
}

fn check_points(counts: &[u32], points: usize, size: usize) -> Result<(), SerializeError> {
    let channel_sum: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if channel_sum != points as u64 {
        return Err(SerializeError::PointCountMismatch {
            channel_sum,
            points,
        });
    }
    check_size((lidar_header_size(counts.len()) + size * points) as u64)
}

/// Ray-cast lidar payload: header + points (16 bytes each).
pub fn lidar(
    out: &mut Vec<u8>,
    horizontal_angle_rad: f32,
    counts: &[u32],
    points: &[LidarDetection],
) -> Result<(), SerializeError> {
    check_points(counts, points.len(), 16)?;
    out.reserve(lidar_header_size(counts.len()) + 16 * points.len());
    lidar_header(out, horizontal_angle_rad, counts);
    for p in points {
        lidar_point(out, p.x, p.y, p.z, p.intensity);
    }
    Ok(())
}

/// Semantic lidar payload: header + points (24 bytes each).
pub fn semantic_lidar(
    out: &mut Vec<u8>,
    horizontal_angle_rad: f32,
    counts: &[u32],
    points: &[SemanticLidarDetection],
) -> Result<(), SerializeError> {
    check_points(counts, points.len(), 24)?;
    out.reserve(lidar_header_size(counts.len()) + 24 * points.len());
    lidar_header(out, horizontal_angle_rad, counts);
    for p in points {
        let (x, y, z, c) = (p.x, p.y, p.z, p.cos_inc_angle);
        semantic_lidar_point(out, x, y, z, c, p.object_idx, p.object_tag);
    }
    Ok(())
}

// ------------------------------------------------------ radar, actor ids --

/// One radar detection, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RadarDetection {
    /// m/s towards (negative) or away from the sensor.
    pub velocity: f32,
    /// Radians.
    pub azimuth: f32,
    /// Radians.
    pub altitude: f32,
    /// Metres.
    pub depth: f32,
}

/// Radar payload: the bare array of detections (count = length / 16).
pub fn radar(out: &mut Vec<u8>, detections: &[RadarDetection]) {
    out.reserve(16 * detections.len());
    for d in detections {
        write_f32x4(out, [d.velocity, d.azimuth, d.altitude, d.depth]);
    }
}

/// Safe-distance payload: the detected actor ids, u32 each.
pub fn actor_ids(out: &mut Vec<u8>, ids: &[u32]) {
    out.reserve(4 * ids.len());
    for id in ids {
        out.extend_from_slice(&id.to_le_bytes());
    }
}

// --------------------------------------------------------------- msgpack --

/// GNSS payload: msgpack `[latitude f64, longitude f64, altitude f64]`
/// (degrees, degrees, metres); always 28 bytes.
pub fn gnss(out: &mut Vec<u8>, latitude: f64, longitude: f64, altitude: f64) {
    out.reserve(28);
    mp::write_array_len(out, 3);
    for v in [latitude, longitude, altitude] {
        mp::write_f64(out, v);
    }
}

fn write_vec3(out: &mut Vec<u8>, a: f32, b: f32, c: f32) {
    mp::write_array_len(out, 3);
    for v in [a, b, c] {
        mp::write_f32(out, v);
    }
}

/// IMU payload: msgpack `[[ax, ay, az], [gx, gy, gz], compass]`, all f32
/// (m/s², rad/s, rad); always 38 bytes.
pub fn imu(out: &mut Vec<u8>, accelerometer: Vector3D, gyroscope: Vector3D, compass: f32) {
    out.reserve(38);
    mp::write_array_len(out, 3);
    write_vec3(out, accelerometer.x, accelerometer.y, accelerometer.z);
    write_vec3(out, gyroscope.x, gyroscope.y, gyroscope.z);
    mp::write_f32(out, compass);
}

/// Values of the attribute type byte in [`ActorDescription::attributes`].
pub mod attribute_type {
    pub const BOOL: u8 = 0;
    pub const INT: u8 = 1;
    pub const FLOAT: u8 = 2;
    pub const STRING: u8 = 3;
    pub const RGB_COLOR: u8 = 4;
    pub const VECTOR: u8 = 5;
}

/// What the msgpack events say about an actor (LibCarla's `rpc::Actor`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActorDescription {
    pub id: u32,
    pub parent_id: u32,
    /// Blueprint library uid; 0 when unknown.
    pub uid: u32,
    /// Blueprint id, e.g. "vehicle.tesla.model3".
    pub type_id: String,
    /// (attribute id, type (see [`attribute_type`]), value as a string).
    pub attributes: Vec<(String, u8, String)>,
    /// (location m, half extent m, rotation deg) of the bounding box.
    pub bounding_box: (Vector3D, Vector3D, Rotation3D),
    pub semantic_tags: Vec<u8>,
    /// 24 bytes for sensors, empty otherwise.
    pub stream_token: Vec<u8>,
}

/// Appends one actor: `[id, parent_id, [uid, type_id, [[id, type, value]…]],
/// [[loc×3], [extent×3], [pitch, yaw, roll]], tags bin, token bin]`.
///
/// # Panics
/// If a string, a list or a blob is longer than `u32::MAX`.
pub fn actor(out: &mut Vec<u8>, a: &ActorDescription) {
    mp::write_array_len(out, 6);
    mp::write_uint(out, u64::from(a.id));
    mp::write_uint(out, u64::from(a.parent_id));
    mp::write_array_len(out, 3);
    mp::write_uint(out, u64::from(a.uid));
    mp::write_str(out, &a.type_id);
    mp::write_array_len(out, a.attributes.len());
    for (id, ty, value) in &a.attributes {
        mp::write_array_len(out, 3);
        mp::write_str(out, id);
        mp::write_uint(out, u64::from(*ty));
        mp::write_str(out, value);
    }
    let (loc, ext, rot) = &a.bounding_box;
    mp::write_array_len(out, 3);
    write_vec3(out, loc.x, loc.y, loc.z);
    write_vec3(out, ext.x, ext.y, ext.z);
    write_vec3(out, rot.pitch, rot.yaw, rot.roll);
    mp::write_bin(out, &a.semantic_tags);
    mp::write_bin(out, &a.stream_token);
}

/// Collision payload: msgpack `[self_actor, other_actor, [ix, iy, iz]]`
/// (normal impulse as f32).
pub fn collision(
    out: &mut Vec<u8>,
    self_actor: &ActorDescription,
    other: &ActorDescription,
    normal_impulse: Vector3D,
) {
    mp::write_array_len(out, 3);
    actor(out, self_actor);
    actor(out, other);
    write_vec3(out, normal_impulse.x, normal_impulse.y, normal_impulse.z);
}

/// Obstacle payload: msgpack `[self_actor, other_actor, distance f32]`.
pub fn obstacle(
    out: &mut Vec<u8>,
    self_actor: &ActorDescription,
    other: &ActorDescription,
    distance: f32,
) {
    mp::write_array_len(out, 3);
    actor(out, self_actor);
    actor(out, other);
    mp::write_f32(out, distance);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_util::hex;

    fn v3(x: f32, y: f32, z: f32) -> Vector3D {
        Vector3D { x, y, z }
    }

    // f32 bit patterns used below (little-endian on the raw wire, big-endian
    // in msgpack): 0.25 = 3e800000, 0.5 = 3f000000, 1.0 = 3f800000,
    // -1.0 = bf800000, -2.0 = c0000000, 2.0 = 40000000, 3.0 = 40400000,
    // 10.0 = 41200000, 90.0 = 42b40000, 1000.0 = 447a0000.

    #[test]
    fn image_golden_and_zero_copy_header() {
        let mut out = vec![0xaa];
        image(&mut out, 2, 1, 90.0, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let expected = hex("aa 02000000 01000000 0000b442 0102030405060708");
        assert_eq!(out, expected);
        assert_eq!(image_header(2, 1, 90.0).to_vec(), expected[1..13]);
        // Zero-copy path: pixels written at offset 12, header patched in.
        let mut buf = vec![0u8; IMAGE_HEADER_SIZE + 8];
        buf[IMAGE_HEADER_SIZE..].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        buf[..IMAGE_HEADER_SIZE].copy_from_slice(&image_header(2, 1, 90.0));
        assert_eq!(buf, expected[1..]);
    }

    #[test]
    fn image_sizes_and_errors() {
        let mut out = Vec::new();
        image(&mut out, 800, 600, 90.0, &vec![0; 800 * 600 * 4]).unwrap();
        assert_eq!(out.len(), 1_920_012);
        assert_eq!(out.len() + HEADER_SIZE, 1_920_060);
        let mut out = vec![9];
        let err = image(&mut out, 2, 1, 90.0, &[0; 7]).unwrap_err();
        let want = SerializeError::PixelDataLength {
            width: 2,
            height: 1,
            expected: 8,
            actual: 7,
        };
        assert_eq!(err, want);
        assert_eq!(
            err.to_string(),
            "pixel data is 7 bytes but a 2x1 image needs 8 bytes"
        );
        assert_eq!(out, [9], "output untouched on error");
        let err = image(&mut out, u32::MAX, u32::MAX, 90.0, &[]).unwrap_err();
        assert!(matches!(
            err,
            SerializeError::PixelDataLength {
                expected: u64::MAX,
                ..
            }
        ));
        assert_eq!(check_size(MAX_PAYLOAD), Ok(()));
        let err = check_size(MAX_PAYLOAD + 1).unwrap_err();
        assert_eq!(
            err,
            SerializeError::TooLarge {
                bytes: 4_294_967_248
            }
        );
        assert!(err.to_string().contains("4294967248 bytes"));
    }

    #[test]
    fn gbuffer_float_and_optical_flow_golden() {
        let mut out = Vec::new();
        gbuffer_float(&mut out, 1, 1, 90.0, &[1.0, 0.5, 0.25, 0.0]).unwrap();
        let expected = hex("01000000 01000000 0000b442
             0000803f 0000003f 0000803e 00000000");
        assert_eq!(out, expected);
        let mut out = Vec::new();
        optical_flow(&mut out, 1, 1, 90.0, &[0.5, -1.0]).unwrap();
        assert_eq!(out, hex("01000000 01000000 0000b442 0000003f 000080bf"));
        let err = optical_flow(&mut out, 1, 1, 90.0, &[0.0; 3]).unwrap_err();
        assert!(matches!(
            err,
            SerializeError::PixelDataLength {
                expected: 8,
                actual: 12,
                ..
            }
        ));
        assert!(gbuffer_float(&mut out, 1, 1, 90.0, &[0.0; 3]).is_err());
        let mut out = Vec::new();
        optical_flow(&mut out, 800, 600, 90.0, &vec![0.0; 800 * 600 * 2]).unwrap();
        assert_eq!(out.len(), 12 + 800 * 600 * 8);
    }

    #[test]
    fn dvs_golden() {
        let events = [
            DvsEvent {
                x: 1,
                y: 2,
                t: 0x0102_0304_0506_0708,
                pol: true,
            },
            DvsEvent {
                x: 300,
                y: 0,
                t: -1,
                pol: false,
            },
        ];
        let mut out = Vec::new();
        dvs_events(&mut out, 4, 2, 90.0, &events).unwrap();
        let expected = hex("04000000 02000000 0000b442
             0100 0200 0807060504030201 01
             2c01 0000 ffffffffffffffff 00");
        assert_eq!(out, expected);
        assert_eq!(out.len(), 12 + 2 * DVS_EVENT_SIZE);
    }

    #[test]
    fn lidar_golden() {
        let points = [
            LidarDetection {
                x: 1.0,
                y: 0.0,
                z: 0.0,
                intensity: 1.0,
            },
            LidarDetection {
                x: 0.0,
                y: -2.0,
                z: 0.0,
                intensity: 0.5,
            },
            LidarDetection {
                x: 0.0,
                y: 0.0,
                z: 0.5,
                intensity: 0.0,
            },
        ];
        let expected = hex("0000003f 02000000 02000000 01000000
             0000803f 00000000 00000000 0000803f
             00000000 000000c0 00000000 0000003f
             00000000 00000000 0000003f 00000000");
        let mut out = Vec::new();
        lidar(&mut out, 0.5, &[2, 1], &points).unwrap();
        assert_eq!(out, expected);
        let mut by_parts = Vec::new();
        lidar_header(&mut by_parts, 0.5, &[2, 1]);
        assert_eq!(by_parts.len(), lidar_header_size(2));
        for p in &points {
            lidar_point(&mut by_parts, p.x, p.y, p.z, p.intensity);
        }
        assert_eq!(by_parts, expected);
        let mut out = vec![7];
        let err = lidar(&mut out, 0.5, &[2, 2], &points).unwrap_err();
        let want = SerializeError::PointCountMismatch {
            channel_sum: 4,
            points: 3,
        };
        assert_eq!(err, want);
        assert_eq!(
            err.to_string(),
            "lidar channel counts add up to 4 points but 3 points were given"
        );
        assert_eq!(out, [7]);
    }

    #[test]
    fn semantic_lidar_golden() {
        let p = SemanticLidarDetection {
            x: 1.0,
            y: -2.0,
            z: 0.5,
            cos_inc_angle: 0.25,
            object_idx: 300,
            object_tag: 10,
        };
        let expected = hex("0000803f 01000000 01000000
             0000803f 000000c0 0000003f 0000803e 2c010000 0a000000");
        let mut out = Vec::new();
        semantic_lidar(&mut out, 1.0, &[1], &[p]).unwrap();
        assert_eq!(out, expected);
        let mut by_parts = Vec::new();
        lidar_header(&mut by_parts, 1.0, &[1]);
        semantic_lidar_point(&mut by_parts, 1.0, -2.0, 0.5, 0.25, 300, 10);
        assert_eq!(by_parts, expected);
        assert!(semantic_lidar(&mut out, 1.0, &[0], &[p]).is_err());
        // No channels, no points: just the 8-byte header.
        let mut out = Vec::new();
        semantic_lidar(&mut out, 0.0, &[], &[]).unwrap();
        assert_eq!(out, hex("00000000 00000000"));
    }

    #[test]
    fn fixed_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<LidarDetection>(), 16);
        assert_eq!(size_of::<SemanticLidarDetection>(), 24);
        assert_eq!(size_of::<RadarDetection>(), 16);
        assert_eq!(lidar_header_size(32), 136);
    }

    #[test]
    fn radar_and_actor_ids_golden() {
        let d = RadarDetection {
            velocity: -1.0,
            azimuth: 0.5,
            altitude: 0.25,
            depth: 10.0,
        };
        let mut out = Vec::new();
        radar(&mut out, &[d, RadarDetection::default()]);
        let expected = hex("000080bf 0000003f 0000803e 00002041
             00000000 00000000 00000000 00000000");
        assert_eq!(out, expected);
        let mut out = Vec::new();
        actor_ids(&mut out, &[1, 300, 0x0102_0304]);
        assert_eq!(out, hex("01000000 2c010000 04030201"));
        let mut out = Vec::new();
        actor_ids(&mut out, &[]);
        assert!(out.is_empty());
    }

    #[test]
    fn gnss_and_imu_golden() {
        let mut out = Vec::new();
        gnss(&mut out, 1.0, -2.0, 0.5);
        let expected = hex("93 cb3ff0000000000000 cbc000000000000000 cb3fe0000000000000");
        assert_eq!(out, expected);
        assert_eq!(out.len(), 28);
        let mut out = Vec::new();
        gnss(&mut out, 49.000_123, 8.000_456, 112.3);
        assert_eq!(out.len(), 28);

        let mut out = Vec::new();
        imu(&mut out, v3(1.0, -2.0, 0.5), v3(0.25, 0.0, -1.0), 3.0);
        let expected = hex("93 93 ca3f800000 cac0000000 ca3f000000
             93 ca3e800000 ca00000000 cabf800000 ca40400000");
        assert_eq!(out, expected);
        assert_eq!(out.len(), 38);
        let mut out = Vec::new();
        imu(&mut out, v3(0.1, 0.2, 9.81), v3(0.3, 0.4, 0.5), 6.2);
        assert_eq!(out.len(), 38);
    }

    fn actor_a() -> ActorDescription {
        ActorDescription {
            id: 300,
            parent_id: 0,
            uid: 0,
            type_id: "v.a".into(),
            attributes: vec![("role_name".into(), attribute_type::STRING, "hero".into())],
            bounding_box: (
                v3(0.0, 0.0, 1.0),
                v3(2.0, 1.0, 0.5),
                Rotation3D {
                    pitch: 0.0,
                    yaw: 90.0,
                    roll: 0.0,
                },
            ),
            semantic_tags: vec![10],
            stream_token: vec![],
        }
    }

    fn actor_b() -> ActorDescription {
        ActorDescription {
            id: 7,
            parent_id: 300,
            uid: 3,
            type_id: "w".into(),
            stream_token: vec![1, 2],
            ..Default::default()
        }
    }

    const ACTOR_A: &str = "96 cd012c 00
        93 00 a3762e61 91 93 a9726f6c655f6e616d65 03 a46865726f
        93 93 ca00000000 ca00000000 ca3f800000
           93 ca40000000 ca3f800000 ca3f000000
           93 ca00000000 ca42b40000 ca00000000
        c4010a c400";
    const ACTOR_B: &str = "96 07 cd012c
        93 03 a177 90
        93 93 ca00000000 ca00000000 ca00000000
           93 ca00000000 ca00000000 ca00000000
           93 ca00000000 ca00000000 ca00000000
        c400 c4020102";

    #[test]
    fn actor_golden() {
        let mut out = Vec::new();
        actor(&mut out, &actor_a());
        assert_eq!(out, hex(ACTOR_A));
        let mut out = Vec::new();
        actor(&mut out, &actor_b());
        assert_eq!(out, hex(ACTOR_B));
        // A sensor's 24-byte stream token is a bin8.
        let sensor = ActorDescription {
            stream_token: vec![0; 24],
            ..Default::default()
        };
        let mut out = Vec::new();
        actor(&mut out, &sensor);
        assert_eq!(out[out.len() - 26..out.len() - 24], [0xc4, 0x18]);
    }

    #[test]
    fn collision_and_obstacle_golden() {
        let mut out = Vec::new();
        collision(&mut out, &actor_a(), &actor_b(), v3(-1.0, 0.0, 1000.0));
        let tail = "93 cabf800000 ca00000000 ca447a0000";
        assert_eq!(out, hex(&format!("93 {ACTOR_A} {ACTOR_B} {tail}")));
        let mut out = Vec::new();
        obstacle(&mut out, &actor_a(), &actor_b(), 10.0);
        assert_eq!(out, hex(&format!("93 {ACTOR_A} {ACTOR_B} ca41200000")));
    }

    #[test]
    fn no_allocation_when_capacity_suffices() {
        let mut out = Vec::with_capacity(4096);
        let ptr = out.as_ptr();
        image(&mut out, 4, 4, 90.0, &[0; 64]).unwrap();
        lidar(&mut out, 0.0, &[1], &[LidarDetection::default()]).unwrap();
        radar(&mut out, &[RadarDetection::default(); 4]);
        actor_ids(&mut out, &[1, 2, 3]);
        gnss(&mut out, 1.0, 2.0, 3.0);
        imu(&mut out, v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0), 0.0);
        collision(&mut out, &actor_a(), &actor_b(), v3(0.0, 0.0, 0.0));
        dvs_events(&mut out, 1, 1, 90.0, &[DvsEvent::default()]).unwrap();
        optical_flow(&mut out, 1, 1, 90.0, &[0.0, 0.0]).unwrap();
        assert_eq!(out.as_ptr(), ptr);
        assert_eq!(out.capacity(), 4096);
    }
}
