//! Payload serializers: the bytes that follow the 48-byte sensor header
//! ([`super::SensorHeader`]), one function per [`super::PayloadFormat`]
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

mod events;
mod images;
mod lidar;
pub(crate) mod msgpack;
mod radar;

pub use events::{actor, attribute_type, collision, gnss, imu, obstacle, ActorDescription};
pub use images::{dvs_events, gbuffer_float, image, image_header, optical_flow, DvsEvent};
pub use lidar::{
    lidar, lidar_header, lidar_header_size, lidar_point, semantic_lidar, semantic_lidar_point,
    LidarDetection, SemanticLidarDetection,
};
pub use radar::{actor_ids, radar, RadarDetection};

use super::header::HEADER_SIZE;
#[cfg(test)]
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

/// Checks that a payload of `bytes` fits in one message.
pub(super) fn check_size(bytes: u64) -> Result<(), SerializeError> {
    if bytes > MAX_PAYLOAD {
        return Err(SerializeError::TooLarge { bytes });
    }
    Ok(())
}

/// Appends f32 values little-endian (resize + fill, vectorises well).
pub(super) fn extend_f32s(out: &mut Vec<u8>, values: &[f32]) {
    let start = out.len();
    out.resize(start + 4 * values.len(), 0);
    for (dst, v) in out[start..].chunks_exact_mut(4).zip(values) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
}

pub(super) fn write_f32x4(out: &mut Vec<u8>, values: [f32; 4]) {
    let mut b = [0u8; 16];
    for (dst, v) in b.chunks_exact_mut(4).zip(values) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&b);
}

#[cfg(test)]
mod tests;
