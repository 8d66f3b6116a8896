//! Semantic labels (`carla.CityObjectLabel`): 0.9.14 renumbered them in
//! CityScapes order, which the library uses; 0.9.12 and 0.9.13 clients
//! get their own numbers, in actors' semantic tags and in the data of the
//! sensors that carry labels (the red channel of the semantic and instance
//! segmentation cameras, the tag of each semantic lidar point).

use super::Release;
use crate::sensor::serialize::IMAGE_HEADER_SIZE;
use crate::sensor::SensorType;

/// 0.9.12/0.9.13's label for each 0.9.14+ label (by its number): None,
/// Roads, Sidewalks, Buildings, Walls, Fences, Poles, TrafficLight,
/// TrafficSigns, Vegetation, Terrain, Sky, Pedestrians, Rider, Car, Truck,
/// Bus, Train, Motorcycle, Bicycle, Static, Dynamic, Other, Water,
/// RoadLines, Ground, Bridge, RailTrack, GuardRail. The old list has no
/// riders or kinds of vehicle: riders (part of their bicycle's mesh in
/// those releases) and every vehicle are Vehicles (10).
const OLD_LABELS: [u8; 29] = [
    0, 7, 8, 1, 11, 2, 5, 18, 12, 9, 22, 13, 4, 10, 10, 10, 10, 10, 10, 10, 19, 20, 3, 21, 6, 14,
    15, 16, 17,
];

/// Bytes of one semantic lidar point; its u32 tag is the last four.
const SEMANTIC_POINT: usize = 24;

impl Release {
    /// Whether this release numbers labels otherwise than the library.
    fn old_labels(self) -> bool {
        matches!(self, Release::V0_9_12 | Release::V0_9_13)
    }

    /// The `carla.CityObjectLabel` this release uses for the library's
    /// (0.9.14+, CityScapes-ordered) `label`; unknown labels (Any, 255)
    /// are kept.
    pub fn label_out(self, label: u8) -> u8 {
        match self.old_labels() {
            true => *OLD_LABELS.get(usize::from(label)).unwrap_or(&label),
            false => label,
        }
    }

    /// Whether the data of library sensor type `native` carries labels
    /// this release numbers otherwise (then [`Release::relabel`] applies).
    pub(crate) fn relabels(self, native: u64) -> bool {
        const LABELLED: [SensorType; 3] = [
            SensorType::SemanticSegmentationCamera,
            SensorType::InstanceSegmentationCamera,
            SensorType::SemanticLidar,
        ];
        self.old_labels() && LABELLED.iter().any(|s| *s as u64 == native)
    }

    /// Writes into `out` a copy of `payload` (of library sensor type
    /// `native`, for which [`Release::relabels`] holds) with this
    /// release's labels. A payload too short for its own header is copied
    /// as it is.
    pub(crate) fn relabel(self, native: u64, payload: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(payload);
        if native == SensorType::SemanticLidar as u64 {
            let channels = payload
                .get(4..8)
                .map_or(0, |c| u32::from_le_bytes(c.try_into().expect("4 bytes")));
            let start = 8usize.saturating_add(4usize.saturating_mul(channels as usize));
            if let Some(points) = out.get_mut(start..) {
                for p in points.chunks_exact_mut(SEMANTIC_POINT) {
                    let tag = u32::from_le_bytes(p[20..24].try_into().expect("4 bytes"));
                    if let Ok(t) = u8::try_from(tag) {
                        let old = u32::from(self.label_out(t));
                        p[20..24].copy_from_slice(&old.to_le_bytes());
                    }
                }
            }
        } else if let Some(pixels) = out.get_mut(IMAGE_HEADER_SIZE..) {
            // BGRA: the label is the red channel.
            for px in pixels.chunks_exact_mut(4) {
                px[2] = self.label_out(px[2]);
            }
        }
    }
}
