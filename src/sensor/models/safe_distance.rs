//! The safe-distance sensor of CARLA's "add a new sensor" tutorial.
//!
//! The engine attaches an overlap box to the owner (the box comes from
//! [`overlap_box`]), asks the physics scene which actors overlap it each tick,
//! and hands their CARLA ids to [`actor_ids_payload`], which writes the raw
//! payload: an array of little-endian u32 actor ids, 4 bytes each, no count
//! field. The UE sensor only sends when at least one actor overlaps, so
//! callers should skip the message when the returned count is 0.

use crate::sensor::blueprint::{self, SensorAttributes};
use crate::types::Vector3D;
use std::fmt;

/// Margins around the owner's bounding box, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SafeDistanceSettings {
    /// Added ahead of the owner (+x).
    pub front: f32,
    /// Added behind the owner (−x).
    pub back: f32,
    /// Added on each side (±y).
    pub lateral: f32,
}

impl Default for SafeDistanceSettings {
    /// The `sensor.other.safe_distance` blueprint's defaults (the
    /// tutorial's: 1 m ahead, 0.5 m behind, 0.5 m each side).
    fn default() -> Self {
        let attributes = blueprint::create("sensor.other.safe_distance", &[])
            .expect("the safe-distance sensor is in the blueprint table");
        SafeDistanceSettings::from_attributes(&attributes)
    }
}

impl SafeDistanceSettings {
    /// The margins of a `sensor.other.safe_distance` blueprint's resolved
    /// attributes.
    pub fn from_attributes(a: &SensorAttributes) -> SafeDistanceSettings {
        let margin = |key: &str| {
            let value = a.get_f32(key);
            debug_assert!(value.is_some(), "the safe-distance blueprint defines {key}");
            value.unwrap_or_default()
        };
        SafeDistanceSettings {
            front: margin("safe_distance_front"),
            back: margin("safe_distance_back"),
            lateral: margin("safe_distance_lateral"),
        }
    }
}

/// A margin that is negative or not finite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InvalidSafeDistance {
    pub field: &'static str,
    pub value: f32,
}

impl fmt::Display for InvalidSafeDistance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (field, value) = (self.field, self.value);
        write!(
            f,
            "safe distance `{field}` must be a finite number >= 0 m, got {value}"
        )
    }
}

impl std::error::Error for InvalidSafeDistance {}

impl SafeDistanceSettings {
    /// Every margin must be finite and >= 0.
    pub fn validate(&self) -> Result<(), InvalidSafeDistance> {
        for (field, value) in [
            ("front", self.front),
            ("back", self.back),
            ("lateral", self.lateral),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(InvalidSafeDistance { field, value });
            }
        }
        Ok(())
    }
}

/// The overlap box for an owner whose bounding box has half sizes
/// `owner_extent` (metres): the owner's box grown by `front` ahead, `back`
/// behind and `lateral` on each side, unchanged in height.
///
/// Returns `(centre offset, half extent)`, both in the owner's frame; the
/// offset is relative to the centre of the owner's bounding box (add the
/// bounding box's own offset from the actor origin, if any):
///
/// * half extent = (owner.x + (front + back)/2, owner.y + lateral, owner.z)
/// * centre offset = ((front − back)/2, 0, 0)
pub fn overlap_box(owner_extent: Vector3D, s: &SafeDistanceSettings) -> (Vector3D, Vector3D) {
    let centre = Vector3D {
        x: (s.front - s.back) / 2.0,
        y: 0.0,
        z: 0.0,
    };
    let half = Vector3D {
        x: owner_extent.x + (s.front + s.back) / 2.0,
        y: owner_extent.y + s.lateral,
        z: owner_extent.z,
    };
    (centre, half)
}

/// Appends the safe-distance payload to `out`: the u32 LE ids of the
/// overlapping actors in first-seen order, without the owner, without
/// duplicates and without 0 (not a CARLA actor). Returns how many ids were
/// written (the payload is `4 × count` bytes). Bytes already in `out` are
/// neither read nor changed. Duplicates are found by scanning the ids
/// written so far (quadratic, no allocation; overlap lists are short).
pub fn actor_ids_payload(owner_id: u32, overlapping: &[u32], out: &mut Vec<u8>) -> usize {
    let start = out.len();
    out.reserve(4 * overlapping.len());
    for &id in overlapping {
        if id == owner_id || id == 0 {
            continue;
        }
        let bytes = id.to_le_bytes();
        if out[start..].chunks_exact(4).any(|w| w == bytes) {
            continue;
        }
        out.extend_from_slice(&bytes);
    }
    (out.len() - start) / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32) -> Vector3D {
        Vector3D { x, y, z }
    }

    fn margins(front: f32, back: f32, lateral: f32) -> SafeDistanceSettings {
        SafeDistanceSettings {
            front,
            back,
            lateral,
        }
    }

    fn close(a: Vector3D, b: Vector3D) -> bool {
        (a.x - b.x).abs() < 1e-6 && (a.y - b.y).abs() < 1e-6 && (a.z - b.z).abs() < 1e-6
    }

    #[test]
    fn defaults_and_validation() {
        let d = SafeDistanceSettings::default();
        assert_eq!((d.front, d.back, d.lateral), (1.0, 0.5, 0.5));
        assert_eq!(d.validate(), Ok(()));
        let bad = SafeDistanceSettings { back: -0.1, ..d };
        assert_eq!(bad.validate().unwrap_err().field, "back");
        let bad = SafeDistanceSettings {
            lateral: f32::NAN,
            ..d
        };
        let err = bad.validate().unwrap_err();
        assert_eq!(err.field, "lateral");
        assert!(err.to_string().contains("lateral"));
        let zero = margins(0.0, 0.0, 0.0);
        assert_eq!(zero.validate(), Ok(()));
    }

    #[test]
    fn box_with_default_margins() {
        // Car half sizes (2.4, 1.0, 0.8), margins 1 / 0.5 / 0.5:
        // half x = 2.4 + (1 + 0.5)/2 = 3.15, half y = 1.0 + 0.5 = 1.5, z = 0.8;
        // centre x = (1 − 0.5)/2 = 0.25. Faces: front 0.25 + 3.15 = 3.4 =
        // 2.4 + 1, back 0.25 − 3.15 = −2.9 = −(2.4 + 0.5).
        let (c, h) = overlap_box(v(2.4, 1.0, 0.8), &SafeDistanceSettings::default());
        assert!(close(c, v(0.25, 0.0, 0.0)), "{c:?}");
        assert!(close(h, v(3.15, 1.5, 0.8)), "{h:?}");
        assert!((c.x + h.x - 3.4).abs() < 1e-6 && (c.x - h.x + 2.9).abs() < 1e-6);
    }

    #[test]
    fn box_with_other_margins() {
        // Unit cube, front 3, back 1, lateral 0.25: half (1 + 2, 1.25, 1),
        // centre ((3 − 1)/2, 0, 0) = (1, 0, 0). Exact in binary.
        let s = margins(3.0, 1.0, 0.25);
        assert_eq!(
            overlap_box(v(1.0, 1.0, 1.0), &s),
            (v(1.0, 0.0, 0.0), v(3.0, 1.25, 1.0))
        );
        // No margins: the owner's own box.
        let s = margins(0.0, 0.0, 0.0);
        assert_eq!(
            overlap_box(v(2.0, 1.0, 0.5), &s),
            (v(0.0, 0.0, 0.0), v(2.0, 1.0, 0.5))
        );
    }

    #[test]
    fn ids_without_owner_duplicates_or_zero() {
        // Owner 5; seen 7, 5, 3, 7, 0, 9, 3 → 7, 3, 9.
        let mut out = Vec::new();
        assert_eq!(actor_ids_payload(5, &[7, 5, 3, 7, 0, 9, 3], &mut out), 3);
        assert_eq!(out, [7, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0]);
        // Only the owner overlaps: nothing written (the sensor sends nothing).
        let mut out = Vec::new();
        assert_eq!(actor_ids_payload(5, &[5, 5], &mut out), 0);
        assert!(out.is_empty());
        assert_eq!(actor_ids_payload(5, &[], &mut out), 0);
    }

    #[test]
    fn ids_are_appended_little_endian() {
        // A prefix that happens to look like id 0x01020304 is not treated as a
        // duplicate: only this call's ids are compared.
        let mut out = vec![4, 3, 2, 1];
        assert_eq!(
            actor_ids_payload(1, &[0x0102_0304, 0xAABB_CCDD], &mut out),
            2
        );
        assert_eq!(out, [4, 3, 2, 1, 4, 3, 2, 1, 0xDD, 0xCC, 0xBB, 0xAA]);
    }
}
