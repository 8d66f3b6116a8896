//! CARLA 0.8.4's lidar record (`Sensor.LIDAR_RAY_CAST` on the 0.8 stream
//! port), built from a tick's planned rays and the hits traced for them:
//! the same inputs the 0.9 lidar model turns into its payload, so one trace
//! feeds both protocols. A lidar mirrored to a 0.8 sensor id
//! (`Sensor::mirror_to_legacy`, `carla_sensor_mirror_to_legacy`) writes one
//! with every `send_lidar_hits`; a host that drives a
//! [`crate::sensor::Lidar`] itself can build it with [`build`] and send
//! it with `Server::write_sensor_data`.
//!
//! Layout (0.8.4's record): header `u64 frame | f32 angle (degrees) | u32 C |
//! u32 points per channel [C]` (`16 + 4·C` bytes), then the `x, y, z` f32
//! of every point (sensor frame, metres), grouped by channel in channel
//! order. Unlike UE4's 0.8.4 server, the whole 64-bit frame is written.

use crate::types::{LidarHit, PlannedRay};

/// Size of the 0.8 lidar header for `channels`: `16 + 4·C` bytes.
pub fn header_size(channels: u32) -> usize {
    16 + 4 * channels as usize
}

/// Builds the record from traced `hits` of `rays`: `header` gets
/// `u64 frame | f32 angle_deg | u32 channels | u32 points per channel
/// [channels]`, `data` the `x, y, z` f32 of every hit (`point_sensor`),
/// grouped by channel in channel order, in the order of `hits` within a
/// channel; misses are left out. Both buffers are cleared first (their
/// capacity is reused). Rays of channels ≥ `channels` and hits naming no
/// ray are ignored. Returns the number of points.
pub fn build(
    frame: u64,
    angle_deg: f32,
    channels: u32,
    rays: &[PlannedRay],
    hits: &[LidarHit],
    header: &mut Vec<u8>,
    data: &mut Vec<u8>,
) -> usize {
    let c = channels as usize;
    header.clear();
    header.extend_from_slice(&frame.to_le_bytes());
    header.extend_from_slice(&angle_deg.to_le_bytes());
    header.extend_from_slice(&channels.to_le_bytes());
    header.resize(header_size(channels), 0);
    let channel_of = |h: &LidarHit| -> Option<usize> {
        let ray = rays.get(h.ray_index as usize)?;
        (h.hit != 0 && (ray.channel as usize) < c).then_some(ray.channel as usize)
    };
    // Counts, then each channel's first point index.
    let mut counts = [0u32; 256];
    let mut big = Vec::new();
    let counts: &mut [u32] = if c <= counts.len() {
        &mut counts[..c]
    } else {
        big.resize(c, 0);
        &mut big
    };
    for ch in hits.iter().filter_map(channel_of) {
        counts[ch] += 1;
    }
    let total: u32 = counts.iter().sum();
    for (i, n) in counts.iter_mut().enumerate() {
        header[16 + 4 * i..20 + 4 * i].copy_from_slice(&n.to_le_bytes());
    }
    let mut next = 0;
    for n in counts.iter_mut() {
        (*n, next) = (next, next + *n);
    }
    data.clear();
    data.resize(total as usize * 12, 0);
    for h in hits {
        if let Some(ch) = channel_of(h) {
            let at = counts[ch] as usize * 12;
            counts[ch] += 1;
            let p = h.point_sensor;
            for (k, v) in [p.x, p.y, p.z].into_iter().enumerate() {
                data[at + 4 * k..at + 4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    total as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Vector3D;

    fn ray(channel: u32) -> PlannedRay {
        PlannedRay {
            channel,
            direction: Vector3D {
                x: 1.0,
                y: 0.0,
                z: 0.0,
            },
        }
    }

    fn hit(ray_index: u32, x: f32) -> LidarHit {
        LidarHit {
            ray_index,
            hit: 1,
            distance_m: x,
            point_sensor: Vector3D {
                x,
                y: x + 0.5,
                z: -x,
            },
            ..Default::default()
        }
    }

    fn f32_at(b: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn the_record_groups_points_by_channel() {
        // Rays of channels 0, 0, 1, 2, 2 (channel 3 has none); ray 1 missed,
        // and the hits come in a shuffled order.
        let rays = [ray(0), ray(0), ray(1), ray(2), ray(2)];
        let miss = LidarHit {
            ray_index: 1,
            ..Default::default()
        };
        let hits = [hit(3, 3.0), hit(0, 1.0), miss, hit(4, 4.0), hit(2, 2.0)];
        let (mut header, mut data) = (vec![9; 3], vec![7; 5]);
        let n = build(
            0x1_0000_0002,
            123.5,
            4,
            &rays,
            &hits,
            &mut header,
            &mut data,
        );
        assert_eq!(n, 4);
        assert_eq!(header.len(), header_size(4));
        assert_eq!(header.len(), 32);
        assert_eq!(
            u64::from_le_bytes(header[..8].try_into().unwrap()),
            0x1_0000_0002
        );
        assert_eq!(f32_at(&header, 8), 123.5);
        assert_eq!(u32_at(&header, 12), 4);
        let counts: Vec<u32> = (0..4).map(|i| u32_at(&header, 16 + 4 * i)).collect();
        assert_eq!(counts, [1, 1, 2, 0]);
        assert_eq!(data.len(), 4 * 12);
        let xs: Vec<f32> = (0..4).map(|p| f32_at(&data, 12 * p)).collect();
        assert_eq!(
            xs,
            [1.0, 2.0, 3.0, 4.0],
            "channel order, then the order of the hits"
        );
        assert_eq!((f32_at(&data, 4), f32_at(&data, 8)), (1.5, -1.0));
        // Nothing hit: the header still has every channel, all zero.
        let n = build(1, 0.0, 4, &rays, &[miss], &mut header, &mut data);
        assert_eq!((n, header.len(), data.len()), (0, 32, 0));
    }

    #[test]
    fn hits_naming_no_ray_or_a_channel_past_the_count_are_left_out() {
        let rays = [ray(0), ray(5)];
        let hits = [hit(0, 1.0), hit(1, 2.0), hit(9, 3.0)];
        let (mut header, mut data) = (Vec::new(), Vec::new());
        assert_eq!(build(3, 0.0, 2, &rays, &hits, &mut header, &mut data), 1);
        assert_eq!((u32_at(&header, 16), u32_at(&header, 20)), (1, 0));
        assert_eq!(f32_at(&data, 0), 1.0);
        // More than 256 channels (the counts leave the stack).
        let many: Vec<PlannedRay> = (0..300).map(ray).collect();
        let hits: Vec<LidarHit> = (0..300).rev().map(|i| hit(i, i as f32)).collect();
        assert_eq!(
            build(3, 0.0, 300, &many, &hits, &mut header, &mut data),
            300
        );
        assert_eq!(header.len(), header_size(300));
        assert!((0..300).all(|i| f32_at(&data, 12 * i) == i as f32));
    }
}
