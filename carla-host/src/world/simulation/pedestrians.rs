//! Pedestrians: each walks round the sidewalk loop of its block, one way
//! or the other, at its own pace (never crossing a road). Seeded.

use crate::world::map::town::{self, dir_vec, Node, ROAD_HALF};
use crate::world::math::{Rect, Rng};

/// Half a pedestrian's height: its origin (the centre of its capsule, as
/// CARLA's) is this far above the ground, metres.
pub(crate) const HALF_HEIGHT: f32 = 0.9;

/// Pedestrians walk this far from the road centre lines (mid-sidewalk).
const WALK_OFFSET: f32 = ROAD_HALF + 1.75;

/// A pedestrian walking round the sidewalk loop of a block.
pub(crate) struct Walker {
    pub id: u32,
    pub x: f32,
    pub y: f32,
    pub yaw: f32,
    pub speed: f32,
    pub albedo: [u8; 3],
    block: Node,
    s: f32,
    sign: f32,
    /// Placed by a client: stands where it was put, or walks as its
    /// client's control says.
    still: bool,
    /// A client's `WalkerControl`: unit direction (x, y) and m/s.
    pub control: Option<(f32, f32, f32)>,
    /// `set_collisions(False)`: vehicles pass through it (a client's
    /// walker controller asks this of every walker it moves).
    pub ghost: bool,
}

impl Walker {
    pub(crate) fn new(id: u32, rng: &mut Rng) -> Walker {
        let n = (town::ROADS - 1) as usize;
        let block = (rng.below(n) as i32, rng.below(n) as i32);
        let mut w = Walker {
            id,
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
            speed: rng.range(0.9, 1.6),
            albedo: [[60, 60, 140], [140, 50, 50], [50, 50, 50], [200, 180, 120]][rng.below(4)],
            block,
            s: rng.range(0.0, 4.0 * Self::side()),
            sign: if rng.unit() < 0.5 { 1.0 } else { -1.0 },
            still: false,
            control: None,
            ghost: false,
        };
        w.step(0.0);
        w
    }

    fn side() -> f32 {
        town::SPACING - 2.0 * WALK_OFFSET
    }

    /// A pedestrian a client placed at `(x, y)` facing `yaw` (radians).
    pub(crate) fn standing(id: u32, x: f32, y: f32, yaw: f32) -> Walker {
        Walker {
            id,
            x,
            y,
            yaw,
            speed: 0.0,
            albedo: [90, 60, 40],
            block: (0, 0),
            s: 0.0,
            sign: 1.0,
            still: true,
            control: None,
            ghost: false,
        }
    }

    /// A client drives it from now on (`apply_control`, a controller, a
    /// batch of walker states): it leaves its sidewalk loop.
    pub(crate) fn take_over(&mut self) {
        self.still = true;
    }

    pub(crate) fn step(&mut self, dt: f32) {
        if self.still {
            if let Some((dx, dy, speed)) = self.control {
                self.x += dx * speed * dt;
                self.y += dy * speed * dt;
                self.speed = speed;
                if speed > 0.0 && (dx != 0.0 || dy != 0.0) {
                    self.yaw = dy.atan2(dx);
                }
            }
            return;
        }
        let side = Self::side();
        self.s = (self.s + self.sign * self.speed * dt).rem_euclid(4.0 * side);
        let edge = ((self.s / side) as u8).min(3);
        let along = self.s - edge as f32 * side;
        let (bx, by) = town::node_pos(self.block);
        let corners = [(0.0, 0.0), (side, 0.0), (side, side), (0.0, side)];
        let (cx, cy) = corners[edge as usize];
        let (hx, hy) = dir_vec(edge);
        self.x = bx + WALK_OFFSET + cx + hx * along;
        self.y = by + WALK_OFFSET + cy + hy * along;
        let d = if self.sign > 0.0 { edge } else { edge + 2 };
        self.yaw = (90.0 * d as f32).to_radians();
    }

    pub(crate) fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.yaw, 0.3, 0.3)
    }
}
