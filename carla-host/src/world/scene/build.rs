//! The static scene of a map: its road surface and marks ([`super::surface`]),
//! its lights, signs and scenery ([`super::props`]), the ground plane just
//! below its lowest road, indexed over the map's extent.

use super::props;
use super::surface;
use super::tags::tag;
use super::{Fixed, Material, Statics, CELL};
use crate::world::map::Map;

/// How far the ground plane lies below the lowest road, metres.
pub(crate) const GROUND_BELOW: f32 = 0.05;
/// The index reaches this far past the outermost lanes, metres.
pub(crate) const MARGIN: f32 = 150.0;

/// A seed from the map's text (FNV-1a): the same map, the same scenery.
fn seed(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Everything static in `map`'s world.
pub(crate) fn statics(map: &Map) -> Statics {
    let mut tris = Vec::new();
    surface::road_surface(&map.lanes, &map.options, &mut tris);
    surface::marks(&map.marks, &mut tris);
    surface::corners(&map.mouths, &mut tris);
    let mut boxes = props::signals(&map.signs);
    let (scenery, lamps) = props::scenery(&map.lanes, seed(&map.opendrive));
    boxes.extend(scenery);
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for l in &map.lanes.lanes {
        for p in &l.points {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    if lo[0] > hi[0] {
        (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    Statics {
        boxes,
        lamps,
        tris,
        materials: surface::materials(),
        ground_z: lo[2] - GROUND_BELOW,
        ground: Material {
            tag: tag::TERRAIN,
            albedo: [80, 128, 56],
            solid: false,
        },
        bounds: (
            (lo[0] - MARGIN, lo[1] - MARGIN),
            (hi[0] + MARGIN, hi[1] + MARGIN),
        ),
    }
}

/// The static scene of `map`, indexed.
pub(crate) fn fixed(map: &Map) -> Fixed {
    Fixed::new(statics(map), CELL)
}
