//! The town's static boxes: buildings (or a park with trees and a fence)
//! in each block, traffic-light poles and lamps, speed-limit signs and the
//! boundary wall. Fixed by `TOWN_SEED`.

use super::town::{
    dir_vec, light_spots, sign_spots, tag, LAST, ROADS, SPACING, TOWN_SEED, WALK_HALF, WALL,
};
use crate::world::math::{v3, Rng};
use crate::world::{LIGHT_ID0, SIGN_ID0};
use carla_server::types::Vector3D;

/// A static axis-aligned box of the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StaticBox {
    pub min: Vector3D,
    pub max: Vector3D,
    pub tag: u8,
    pub albedo: [u8; 3],
    /// Index of the traffic light whose state colours this box, or `NO_LIGHT`.
    pub light: u16,
    /// The actor the box is part of (a traffic light's pole and lamp, a
    /// sign's post and board, as CARLA's light and sign actors carry their
    /// meshes), 0 for level geometry.
    pub actor: u32,
}

pub(crate) const NO_LIGHT: u16 = u16::MAX;

fn boxed(min: (f32, f32, f32), max: (f32, f32, f32), tag: u8, albedo: [u8; 3]) -> StaticBox {
    StaticBox {
        min: v3(min.0, min.1, min.2),
        max: v3(max.0, max.1, max.2),
        tag,
        albedo,
        light: NO_LIGHT,
        actor: 0,
    }
}

/// A vertical post of half width `h` at `(x, y)` up to `top`.
fn post(x: f32, y: f32, h: f32, top: f32, tag: u8, albedo: [u8; 3]) -> StaticBox {
    boxed((x - h, y - h, 0.0), (x + h, y + h, top), tag, albedo)
}

const FACADES: [[u8; 3]; 6] = [
    [150, 82, 64],
    [188, 178, 160],
    [120, 120, 128],
    [205, 190, 150],
    [96, 104, 120],
    [170, 140, 110],
];

/// Buildings or a park in the lot of block `(bi, bj)`.
fn block(bi: i32, bj: i32, rng: &mut Rng, out: &mut Vec<StaticBox>) {
    let x0 = bi as f32 * SPACING + WALK_HALF + 1.0;
    let y0 = bj as f32 * SPACING + WALK_HALF + 1.0;
    let size = SPACING - 2.0 * (WALK_HALF + 1.0);
    if rng.unit() < 0.2 {
        // A park: a low fence round it and a few trees.
        let (x1, y1) = (x0 + size, y0 + size);
        let fence = [120, 100, 80];
        let t = 0.1;
        out.push(boxed((x0, y0, 0.0), (x1, y0 + t, 1.0), tag::FENCES, fence));
        out.push(boxed((x0, y1 - t, 0.0), (x1, y1, 1.0), tag::FENCES, fence));
        out.push(boxed((x0, y0, 0.0), (x0 + t, y1, 1.0), tag::FENCES, fence));
        out.push(boxed((x1 - t, y0, 0.0), (x1, y1, 1.0), tag::FENCES, fence));
        for _ in 0..6 {
            let x = rng.range(x0 + 4.0, x1 - 4.0);
            let y = rng.range(y0 + 4.0, y1 - 4.0);
            let (r, h) = (rng.range(1.5, 3.0), rng.range(5.0, 9.0));
            out.push(post(x, y, 0.2, h - r, tag::VEGETATION, [90, 64, 40]));
            out.push(boxed(
                (x - r, y - r, h - 2.0 * r),
                (x + r, y + r, h),
                tag::VEGETATION,
                [52, 110, 40],
            ));
        }
        return;
    }
    let (nx, ny) = (1 + rng.below(3), 1 + rng.below(3));
    let (cw, ch) = (size / nx as f32, size / ny as f32);
    for a in 0..nx {
        for b in 0..ny {
            if nx * ny > 2 && rng.unit() < 0.15 {
                continue; // an empty lot
            }
            let bx = x0 + a as f32 * cw;
            let by = y0 + b as f32 * ch;
            let (i0, i1) = (rng.range(0.5, 3.0), rng.range(0.5, 3.0));
            let (j0, j1) = (rng.range(0.5, 3.0), rng.range(0.5, 3.0));
            let height = rng.range(6.0, 32.0);
            let albedo = FACADES[rng.below(FACADES.len())];
            out.push(boxed(
                (bx + i0, by + j0, 0.0),
                (bx + cw - i1, by + ch - j1, height),
                tag::BUILDINGS,
                albedo,
            ));
        }
    }
}

/// Every static box of the town, in a fixed order.
pub(crate) fn static_geometry() -> Vec<StaticBox> {
    let mut out = Vec::new();
    let mut rng = Rng::new(TOWN_SEED);
    for bi in 0..ROADS - 1 {
        for bj in 0..ROADS - 1 {
            block(bi, bj, &mut rng, &mut out);
        }
    }
    let grey = [110, 112, 115];
    for (index, l) in light_spots().iter().enumerate() {
        let actor = LIGHT_ID0 + index as u32;
        out.push(StaticBox {
            actor,
            ..post(l.x, l.y, 0.1, 4.4, tag::POLES, grey)
        });
        // The lamp housing hangs over the kerb side of the pole.
        let (hx, hy) = dir_vec(l.dir);
        let (cx, cy) = (l.x + hx * 0.3, l.y + hy * 0.3);
        let mut lamp = boxed(
            (cx - 0.2, cy - 0.2, 3.2),
            (cx + 0.2, cy + 0.2, 4.2),
            tag::TRAFFIC_SIGNS,
            [30, 30, 30],
        );
        (lamp.light, lamp.actor) = (index as u16, actor);
        out.push(lamp);
    }
    for (index, s) in sign_spots().iter().enumerate() {
        let actor = SIGN_ID0 + index as u32;
        out.push(StaticBox {
            actor,
            ..post(s.x, s.y, 0.05, 2.6, tag::POLES, grey)
        });
        let mut board = post(s.x, s.y, 0.35, 2.9, tag::TRAFFIC_SIGNS, [220, 220, 220]);
        // The post above hides in the board, whose bottom starts at 2.2 m.
        (board.min.z, board.actor) = (2.2, actor);
        out.push(board);
    }
    let (lo, hi) = (-WALL, LAST + WALL);
    let wall = [150, 140, 130];
    let t = 0.4;
    out.push(boxed(
        (lo - t, lo - t, 0.0),
        (hi + t, lo, 4.0),
        tag::WALLS,
        wall,
    ));
    out.push(boxed(
        (lo - t, hi, 0.0),
        (hi + t, hi + t, 4.0),
        tag::WALLS,
        wall,
    ));
    out.push(boxed((lo - t, lo, 0.0), (lo, hi, 4.0), tag::WALLS, wall));
    out.push(boxed((hi, lo, 0.0), (hi + t, hi, 4.0), tag::WALLS, wall));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::map::town::surface;

    #[test]
    fn the_layout_is_deterministic_and_leaves_the_roads_clear() {
        let boxes = static_geometry();
        assert_eq!(boxes, static_geometry());
        for b in &boxes {
            if b.tag == tag::WALLS || b.min.z >= 2.0 {
                continue; // lamps may hang over the road
            }
            for (x, y) in [(b.min.x, b.min.y), (b.max.x, b.max.y)] {
                assert!(!surface(x, y).ground.is_road(), "{b:?}");
            }
        }
        assert!(boxes.iter().any(|b| b.tag == tag::BUILDINGS));
        assert!(boxes.iter().any(|b| b.light != NO_LIGHT));
    }
}
