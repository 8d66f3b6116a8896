//! The MessagePack payloads: GNSS, IMU, and the collision and obstacle
//! events with their actor descriptions (LibCarla's `rpc::Actor`).

use super::msgpack as mp;
use crate::types::{Rotation3D, Vector3D};

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
