//! How a vehicle is drawn: a body in its colour, a cabin of dark glass
//! under its roof, four wheels, and head and tail lamps that light up as
//! its light state says (the scene's [`Part`]s of its actor).

use crate::world::math::{add, scale, v3, Rect};
use crate::world::scene::tags::tag;
use crate::world::scene::{ActorBox, Part};

/// CARLA's `carla.VehicleLightState` bits this drawing shows.
pub(crate) mod lamps {
    pub(crate) const POSITION: u32 = 0x1;
    pub(crate) const LOW_BEAM: u32 = 0x2;
    pub(crate) const HIGH_BEAM: u32 = 0x4;
    pub(crate) const BRAKE: u32 = 0x8;
    pub(crate) const REVERSE: u32 = 0x40;
}

const GLASS: [u8; 3] = [38, 46, 56];
const TYRE: [u8; 3] = [24, 24, 26];
const HEAD_OFF: [u8; 3] = [190, 190, 180];
const HEAD_ON: [u8; 3] = [255, 248, 220];
const TAIL_OFF: [u8; 3] = [110, 18, 18];
const TAIL_ON: [u8; 3] = [200, 25, 20];
const BRAKE_ON: [u8; 3] = [255, 40, 30];
const REVERSE_ON: [u8; 3] = [250, 250, 250];

/// A vehicle standing on `z0` over `rect`, `height` tall, in `albedo`,
/// its lamps as `lights` (CARLA's bits) say: pieces appended to `parts`;
/// its box, with `parts` naming them.
pub(crate) fn body(
    (id, rect): (u32, Rect),
    (z0, height): (f32, f32),
    albedo: [u8; 3],
    lights: u32,
    parts: &mut Vec<Part>,
) -> ActorBox {
    let start = parts.len();
    let (hx, hy, h) = (rect.hx, rect.hy, height);
    let fwd = v3(rect.cos, rect.sin, 0.0);
    let right = v3(-rect.sin, rect.cos, 0.0);
    let axes = [fwd, right, v3(0.0, 0.0, 1.0)];
    let centre = v3(rect.cx, rect.cy, z0);
    // A box from `lo` to `hi` in the vehicle's frame (x forward, y to the
    // left of the rect's yaw, z up from the ground).
    let mut put = |lo: [f32; 3], hi: [f32; 3], albedo: [u8; 3], t: u8| {
        let mid = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
        let c = add(
            centre,
            add(
                add(scale(fwd, mid[0]), scale(right, mid[1])),
                v3(0.0, 0.0, mid[2]),
            ),
        );
        parts.push(Part {
            c,
            axes,
            half: [0, 1, 2].map(|k| 0.5 * (hi[k] - lo[k])),
            albedo,
            tag: t,
        });
    };
    let v = tag::VEHICLES;
    let (clear, waist) = (0.17 * h, 0.58 * h);
    // The lamps stand 3 cm proud of the body's ends.
    let end = hx - 0.03;
    put([-end, -hy, clear], [end, hy, waist], albedo, v);
    put(
        [-0.55 * hx, -0.88 * hy, waist],
        [0.35 * hx, 0.88 * hy, 0.93 * h],
        GLASS,
        v,
    );
    put(
        [-0.5 * hx, -0.9 * hy, 0.93 * h],
        [0.3 * hx, 0.9 * hy, h],
        albedo,
        v,
    );
    let r = 0.21 * h;
    for (x, y) in [(0.62, 1.0), (0.62, -1.0), (-0.62, 1.0), (-0.62, -1.0)] {
        let (x, y) = (x * hx, y * (hy - 0.12));
        put([x - r, y - 0.12, 0.0], [x + r, y + 0.12, 2.0 * r], TYRE, v);
    }
    let lit = |on: bool, colour: [u8; 3], off: [u8; 3]| {
        if on {
            (colour, tag::VEHICLE_LAMPS)
        } else {
            (off, v)
        }
    };
    let head = lit(
        lights & (lamps::POSITION | lamps::LOW_BEAM | lamps::HIGH_BEAM) != 0,
        HEAD_ON,
        HEAD_OFF,
    );
    let tail = if lights & lamps::BRAKE != 0 {
        lit(true, BRAKE_ON, TAIL_OFF)
    } else if lights & lamps::REVERSE != 0 {
        lit(true, REVERSE_ON, TAIL_OFF)
    } else {
        lit(
            lights & (lamps::POSITION | lamps::LOW_BEAM) != 0,
            TAIL_ON,
            TAIL_OFF,
        )
    };
    let (lz0, lz1) = (0.4 * h, 0.5 * h);
    for y in [0.62 * hy, -0.62 * hy] {
        let (y0, y1) = (y - 0.15 * hy, y + 0.15 * hy);
        put([end - 0.03, y0, lz0], [hx, y1, lz1], head.0, head.1);
        put([-hx, y0, lz0], [-end + 0.03, y1, lz1], tail.0, tail.1);
    }
    ActorBox {
        id,
        rect,
        z0,
        z1: z0 + h,
        tag: v,
        albedo,
        window_z: f32::INFINITY,
        parts: (start as u32, parts.len() as u32),
    }
}
