//! The town's walkable surfaces for 0.9 clients' walkers (the library turns
//! them into the navigation file the client loads): sidewalks, the
//! crosswalks where a road meets the crossing road's sidewalks, and the
//! roads themselves (crossed only by walkers allowed to). The town is a
//! rectilinear grid, so the mesh is the grid of cells between every road's
//! and sidewalk's edge lines: neighbouring cells share whole edges, and
//! each cell is one surface.

use super::town::{self, Ground, ROADS, ROAD_HALF, SPACING, WALK_HALF};
use carla_server::nav::{NavArea, NavPolygon};
use carla_server::types::Vector3D;

/// Which band a coordinate lies in across the nearest road: 0 the road,
/// 1 a sidewalk, 2 beyond (a block).
fn band(c: f32) -> u8 {
    let o = (c - (c / SPACING).round().clamp(0.0, (ROADS - 1) as f32) * SPACING).abs();
    if o < ROAD_HALF {
        0
    } else if o < WALK_HALF {
        1
    } else {
        2
    }
}

/// Every walkable cell of the town.
pub(crate) fn walkable() -> Vec<NavPolygon> {
    let mut lines: Vec<f32> = (0..ROADS)
        .flat_map(|k| {
            let c = k as f32 * SPACING;
            [c - WALK_HALF, c - ROAD_HALF, c + ROAD_HALF, c + WALK_HALF]
        })
        .collect();
    lines.sort_by(f32::total_cmp);
    let mut out = Vec::new();
    for x in lines.windows(2) {
        for y in lines.windows(2) {
            let (cx, cy) = ((x[0] + x[1]) / 2.0, (y[0] + y[1]) / 2.0);
            let area = match town::surface(cx, cy).ground {
                Ground::Sidewalk => NavArea::Sidewalk,
                Ground::Road | Ground::LaneMark => {
                    // A road cell across the crossing road's sidewalks:
                    // the mouth of a junction, where walkers cross.
                    if band(cx).min(band(cy)) == 0 && band(cx).max(band(cy)) == 1 {
                        NavArea::Crosswalk
                    } else {
                        NavArea::Road
                    }
                }
                Ground::Grass => continue,
            };
            let p = |x, y| Vector3D { x, y, z: 0.0 };
            out.push(NavPolygon {
                area,
                points: vec![p(x[0], y[0]), p(x[1], y[0]), p(x[1], y[1]), p(x[0], y[1])],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_is_one_surface_and_junction_mouths_are_crosswalks() {
        let cells = walkable();
        let count = |a| cells.iter().filter(|c| c.area == a).count();
        // A crosswalk at both ends of every road between two junctions.
        let segments = 2 * ROADS * (ROADS - 1);
        assert_eq!(count(NavArea::Crosswalk), 2 * segments as usize);
        assert!(count(NavArea::Sidewalk) > count(NavArea::Crosswalk));
        for c in &cells {
            // The ground is the same at each corner (nudged inwards).
            let (x0, y0) = (c.points[0].x, c.points[0].y);
            let (x1, y1) = (c.points[2].x, c.points[2].y);
            let ground = |x: f32, y: f32| town::surface(x, y).ground == Ground::Sidewalk;
            let inner = [(x0 + 0.05, y0 + 0.05), (x1 - 0.05, y1 - 0.05)];
            let kinds: Vec<bool> = inner.iter().map(|&(x, y)| ground(x, y)).collect();
            assert_eq!(
                kinds[0], kinds[1],
                "cell {x0},{y0}..{x1},{y1} mixes surfaces"
            );
            assert_eq!(kinds[0], c.area == NavArea::Sidewalk);
        }
        carla_server::nav::build(&cells).expect("a valid mesh");
    }
}
