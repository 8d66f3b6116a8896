//! Radar detections and the safe-distance sensor's actor ids: bare
//! little-endian arrays.

use super::write_f32x4;

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
