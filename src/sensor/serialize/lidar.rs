//! Lidar payloads: the lidar header (angle, channel count, points per
//! channel), then 16-byte points or 24-byte semantic points.

use super::{check_size, write_f32x4, SerializeError};

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

/// Checks that `counts` add up to `points` points of `size` bytes and that
/// the payload fits in a message, then reserves it and writes its header.
fn checked_header(
    out: &mut Vec<u8>,
    horizontal_angle_rad: f32,
    counts: &[u32],
    points: usize,
    size: usize,
) -> Result<(), SerializeError> {
    let channel_sum: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if channel_sum != points as u64 {
        return Err(SerializeError::PointCountMismatch {
            channel_sum,
            points,
        });
    }
    let len = lidar_header_size(counts.len()) + size * points;
    check_size(len as u64)?;
    out.reserve(len);
    lidar_header(out, horizontal_angle_rad, counts);
    Ok(())
}

/// Ray-cast lidar payload: header + points (16 bytes each).
pub fn lidar(
    out: &mut Vec<u8>,
    horizontal_angle_rad: f32,
    counts: &[u32],
    points: &[LidarDetection],
) -> Result<(), SerializeError> {
    checked_header(out, horizontal_angle_rad, counts, points.len(), 16)?;
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
    checked_header(out, horizontal_angle_rad, counts, points.len(), 24)?;
    for p in points {
        let (x, y, z, c) = (p.x, p.y, p.z, p.cos_inc_angle);
        semantic_lidar_point(out, x, y, z, c, p.object_idx, p.object_tag);
    }
    Ok(())
}
