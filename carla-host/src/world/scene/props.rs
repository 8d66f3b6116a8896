//! The boxes standing in the scene: the map's traffic lights (a pole and a
//! lamp housing over the kerb side, coloured by the light's state) and
//! signs (a post and a board), each part of its actor; and deterministic
//! scenery between the roads, so cameras and lidars see a town: buildings
//! in the blocks, trees and street lamps along the sidewalks, all clear of
//! every lane.
//!
//! The scenery comes from a raster of the map ([`CELL`] metres): cells
//! within [`CLEAR`] of a lane are taken, and each cell's distance to the
//! nearest taken one says what may stand there. The same map text gives
//! the same scenery.

use super::tags::tag;
use super::{StaticBox, NO_LIGHT};
use crate::world::ids::{LIGHT_ID0, MAX_PER_KIND, SIGN_ID0};
use crate::world::map::lanes::{LaneKind, Lanes};
use crate::world::map::signals::{SignKind, Signs};
use crate::world::math::{v3, Rng};
use carla_server::types::Vector3D;

/// Raster cell, metres.
pub(crate) const CELL: f32 = 2.0;
/// Distance kept between scenery and lanes, metres.
pub(crate) const CLEAR: f32 = 1.0;
/// Most raster cells (a larger map gets larger cells).
const MAX_CELLS: usize = 4 << 20;
/// Most scenery boxes.
pub(crate) const MAX_SCENERY: usize = 40_000;

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

/// A vertical post of half width `h` at `(x, y)` from `z` up to `z + top`.
fn post(x: f32, y: f32, z: f32, h: f32, top: f32, tag: u8, albedo: [u8; 3]) -> StaticBox {
    boxed((x - h, y - h, z), (x + h, y + h, z + top), tag, albedo)
}

const GREY: [u8; 3] = [110, 112, 115];

/// The lights' poles and lamps and the signs' posts and boards, with their
/// actors' ids (light `i` of [`Signs::lights`] is `LIGHT_ID0 + i`, the
/// other signs `SIGN_ID0 + j` in order).
pub(crate) fn signals(signs: &Signs) -> Vec<StaticBox> {
    let mut out = Vec::new();
    let (mut lights, mut others) = (0u32, 0u32);
    for s in &signs.signs {
        let [x, y, z] = s.position;
        let (hx, hy) = (s.traffic_yaw.cos(), s.traffic_yaw.sin());
        match s.kind {
            SignKind::Light { .. } => {
                if lights >= MAX_PER_KIND {
                    continue;
                }
                let actor = LIGHT_ID0 + lights;
                out.push(StaticBox {
                    actor,
                    ..post(x, y, z, 0.1, 4.4, tag::POLES, GREY)
                });
                // The lamp faces the traffic, on the side it comes from.
                let (cx, cy) = (x - hx * 0.3, y - hy * 0.3);
                let mut lamp = post(cx, cy, z + 3.2, 0.2, 1.0, tag::TRAFFIC_SIGNS, [30, 30, 30]);
                (lamp.light, lamp.actor) = (lights as u16, actor);
                out.push(lamp);
                lights += 1;
            }
            _ => {
                if others >= MAX_PER_KIND {
                    continue;
                }
                let actor = SIGN_ID0 + others;
                out.push(StaticBox {
                    actor,
                    ..post(x, y, z, 0.05, 2.6, tag::POLES, GREY)
                });
                let face = match s.kind {
                    SignKind::Stop => [200, 30, 30],
                    _ => [220, 220, 220],
                };
                let mut board = post(x, y, z + 2.2, 0.35, 0.7, tag::TRAFFIC_SIGNS, face);
                board.actor = actor;
                out.push(board);
                others += 1;
            }
        }
    }
    out
}

/// The raster of taken cells and distances.
struct Raster {
    x0: f32,
    y0: f32,
    cell: f32,
    nx: usize,
    ny: usize,
    /// Distance to the nearest lane, in cells (capped at 255); 0 on a lane.
    dist: Vec<u8>,
    /// Cells scenery already uses.
    used: Vec<bool>,
    /// The height of the road nearest each cell (what scenery stands on).
    ground: Vec<f32>,
}

impl Raster {
    fn new(lanes: &Lanes) -> Option<Raster> {
        let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
        for l in &lanes.lanes {
            for p in &l.points {
                lo = [lo[0].min(p[0]), lo[1].min(p[1])];
                hi = [hi[0].max(p[0]), hi[1].max(p[1])];
            }
        }
        if lo[0] > hi[0] {
            return None;
        }
        let margin = 60.0;
        let (w, h) = (hi[0] - lo[0] + 2.0 * margin, hi[1] - lo[1] + 2.0 * margin);
        let cell = CELL.max((w * h / MAX_CELLS as f32).sqrt());
        let (nx, ny) = ((w / cell).ceil() as usize, (h / cell).ceil() as usize);
        let mut r = Raster {
            x0: lo[0] - margin,
            y0: lo[1] - margin,
            cell,
            nx,
            ny,
            dist: vec![255; nx * ny],
            used: vec![false; nx * ny],
            ground: vec![f32::NAN; nx * ny],
        };
        r.take_lanes(lanes);
        r.distances();
        Some(r)
    }

    fn centre(&self, ix: usize, iy: usize) -> (f32, f32) {
        (
            self.x0 + (ix as f32 + 0.5) * self.cell,
            self.y0 + (iy as f32 + 0.5) * self.cell,
        )
    }

    fn cell_of(&self, x: f32, y: f32) -> Option<usize> {
        let (fx, fy) = ((x - self.x0) / self.cell, (y - self.y0) / self.cell);
        (fx >= 0.0 && fy >= 0.0 && (fx as usize) < self.nx && (fy as usize) < self.ny)
            .then(|| fy as usize * self.nx + fx as usize)
    }

    /// Marks every cell within [`CLEAR`] of a lane.
    fn take_lanes(&mut self, lanes: &Lanes) {
        for l in &lanes.lanes {
            for i in 0..l.points.len().saturating_sub(1) {
                let (a, b) = (l.points[i], l.points[i + 1]);
                let r = l.half_width[i].max(l.half_width[i + 1]) + CLEAR;
                let span = |lo: f32, hi: f32, o: f32, n: usize| {
                    let f =
                        |v: f32| ((v - o) / self.cell).floor().clamp(0.0, n as f32 - 1.0) as usize;
                    f(lo)..=f(hi)
                };
                let xs = span(a[0].min(b[0]) - r, a[0].max(b[0]) + r, self.x0, self.nx);
                let ys = span(a[1].min(b[1]) - r, a[1].max(b[1]) + r, self.y0, self.ny);
                let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                let len2 = (dx * dx + dy * dy).max(1e-9);
                for iy in ys {
                    for ix in xs.clone() {
                        let (x, y) = self.centre(ix, iy);
                        let t = (((x - a[0]) * dx + (y - a[1]) * dy) / len2).clamp(0.0, 1.0);
                        let (px, py) = (a[0] + dx * t, a[1] + dy * t);
                        if (x - px).hypot(y - py) <= r + self.cell * 0.5 {
                            let c = iy * self.nx + ix;
                            self.dist[c] = 0;
                            let z = a[2] + (b[2] - a[2]) * t;
                            if self.ground[c].is_nan() || self.ground[c] > z {
                                self.ground[c] = z;
                            }
                        }
                    }
                }
            }
        }
    }

    /// City-block distances to the nearest taken cell (two passes), and
    /// the ground height carried from it.
    fn distances(&mut self) {
        let (nx, ny) = (self.nx, self.ny);
        let relax = |c: usize, from: usize, d: &mut Vec<u8>, g: &mut Vec<f32>| {
            let nd = d[from].saturating_add(1);
            if nd < d[c] {
                d[c] = nd;
                g[c] = g[from];
            }
        };
        let (mut d, mut g) = (
            std::mem::take(&mut self.dist),
            std::mem::take(&mut self.ground),
        );
        for iy in 0..ny {
            for ix in 0..nx {
                let c = iy * nx + ix;
                if ix > 0 {
                    relax(c, c - 1, &mut d, &mut g);
                }
                if iy > 0 {
                    relax(c, c - nx, &mut d, &mut g);
                }
            }
        }
        for iy in (0..ny).rev() {
            for ix in (0..nx).rev() {
                let c = iy * nx + ix;
                if ix + 1 < nx {
                    relax(c, c + 1, &mut d, &mut g);
                }
                if iy + 1 < ny {
                    relax(c, c + nx, &mut d, &mut g);
                }
            }
        }
        (self.dist, self.ground) = (d, g);
    }

    /// Whether every cell of the rectangle is at least `min` cells from a
    /// lane and unused.
    fn free(&self, x0: usize, y0: usize, w: usize, h: usize, min: u8) -> bool {
        if x0 + w > self.nx || y0 + h > self.ny {
            return false;
        }
        (y0..y0 + h).all(|iy| {
            (x0..x0 + w).all(|ix| {
                let c = iy * self.nx + ix;
                self.dist[c] >= min && !self.used[c]
            })
        })
    }

    fn mark(&mut self, x0: usize, y0: usize, w: usize, h: usize) {
        for iy in y0.saturating_sub(1)..(y0 + h + 1).min(self.ny) {
            for ix in x0.saturating_sub(1)..(x0 + w + 1).min(self.nx) {
                self.used[iy * self.nx + ix] = true;
            }
        }
    }
}

const FACADES: [[u8; 3]; 6] = [
    [150, 82, 64],
    [188, 178, 160],
    [120, 120, 128],
    [205, 190, 150],
    [96, 104, 120],
    [170, 140, 110],
];

/// The scenery of `lanes`, seeded by `seed`, and where its street lamps
/// shine from (the top of each lamp post).
pub(crate) fn scenery(lanes: &Lanes, seed: u64) -> (Vec<StaticBox>, Vec<Vector3D>) {
    let Some(mut r) = Raster::new(lanes) else {
        return (Vec::new(), Vec::new());
    };
    let mut rng = Rng::new(seed);
    let (mut out, mut lamps) = (Vec::new(), Vec::new());
    along_sidewalks(lanes, &mut r, &mut rng, (&mut out, &mut lamps));
    buildings(&mut r, &mut rng, &mut out);
    out.truncate(MAX_SCENERY);
    (out, lamps)
}

/// Buildings in the blocks: from 3 cells off the lanes to 30 cells away,
/// a box of 4 to 12 cells a side where it fits, its height random.
fn buildings(r: &mut Raster, rng: &mut Rng, out: &mut Vec<StaticBox>) {
    let near = (3.0 * CELL / r.cell).ceil().max(1.0) as u8;
    let far = (60.0 / r.cell).ceil().min(250.0) as u8;
    let cell = r.cell;
    let size = |rng: &mut Rng| ((rng.range(8.0, 24.0) / cell).round() as usize).max(2);
    for iy in 0..r.ny {
        for ix in 0..r.nx {
            let c = iy * r.nx + ix;
            if r.used[c] || r.dist[c] < near || r.dist[c] > far || out.len() >= MAX_SCENERY {
                continue;
            }
            let (mut w, mut h) = (size(rng), size(rng));
            while !r.free(ix, iy, w, h, near) && (w > 2 || h > 2) {
                w = w.saturating_sub(1).max(2);
                h = h.saturating_sub(1).max(2);
                if w == 2 && h == 2 {
                    break;
                }
            }
            if !r.free(ix, iy, w, h, near) {
                continue;
            }
            r.mark(ix, iy, w, h);
            let (x0, y0) = (r.x0 + ix as f32 * r.cell, r.y0 + iy as f32 * r.cell);
            let z = r.ground[c];
            let z = if z.is_finite() { z } else { 0.0 };
            let height = rng.range(6.0, 32.0);
            let albedo = FACADES[rng.below(FACADES.len())];
            out.push(boxed(
                (x0, y0, z - 0.5),
                (x0 + w as f32 * r.cell, y0 + h as f32 * r.cell, z + height),
                tag::BUILDINGS,
                albedo,
            ));
        }
    }
}

/// A street lamp post's height, metres: its light shines from the top.
const LAMP_HEIGHT: f32 = 6.0;

/// Trees every ~12 m and street lamps every ~30 m just outside each
/// sidewalk's outer edge (a map without sidewalks: its outermost lanes').
fn along_sidewalks(
    lanes: &Lanes,
    r: &mut Raster,
    rng: &mut Rng,
    (out, lamps): (&mut Vec<StaticBox>, &mut Vec<Vector3D>),
) {
    let any_sidewalk = lanes.lanes.iter().any(|l| l.kind == LaneKind::Sidewalk);
    for l in &lanes.lanes {
        let edge = if any_sidewalk {
            l.kind == LaneKind::Sidewalk
        } else {
            l.junction.is_none() && l.kind.is_road() && l.right.is_none() && l.left.is_none()
        };
        if !edge || l.junction.is_some() {
            continue;
        }
        let inward_left = crate::world::map::import::inward_is_left(l);
        let mut d = rng.range(2.0, 10.0);
        let mut since_lamp = 0.0;
        while d < l.length() - 2.0 && out.len() < MAX_SCENERY {
            let pose = l.pose(d);
            let (rx, ry) = (-pose.yaw.sin(), pose.yaw.cos());
            let out_sign = if inward_left { 1.0 } else { -1.0 };
            let lamp = since_lamp >= 30.0;
            let rad = if lamp { 0.1 } else { rng.range(1.0, 1.6) };
            let k = out_sign * (pose.half_width + rad + 0.3);
            let (x, y) = (pose.position[0] + rx * k, pose.position[1] + ry * k);
            let z = pose.position[2];
            // Never on a lane: the whole footprint is off them.
            let clear = [
                (0.0, 0.0),
                (1.0, 1.0),
                (1.0, -1.0),
                (-1.0, 1.0),
                (-1.0, -1.0),
            ]
            .iter()
            .all(|(a, b)| lanes.at(x + a * rad, y + b * rad, z, 8.0).is_none());
            if let Some(c) = r.cell_of(x, y).filter(|_| clear) {
                if !r.used[c] {
                    r.used[c] = true;
                    if lamp {
                        out.push(post(x, y, z, 0.08, LAMP_HEIGHT, tag::POLES, GREY));
                        // Its head, which glows at night.
                        let top = z + LAMP_HEIGHT;
                        let head = ((x - 0.25, y - 0.25, top), (x + 0.25, y + 0.25, top + 0.15));
                        out.push(boxed(head.0, head.1, tag::STREET_LAMPS, [225, 225, 215]));
                        lamps.push(v3(x, y, top));
                        since_lamp = 0.0;
                    } else {
                        let h = rng.range(4.5, 8.0);
                        out.push(post(x, y, z, 0.15, h - rad, tag::VEGETATION, [90, 64, 40]));
                        out.push(boxed(
                            (x - rad, y - rad, z + h - 2.0 * rad),
                            (x + rad, y + rad, z + h),
                            tag::VEGETATION,
                            [52, 110, 40],
                        ));
                    }
                }
            }
            let step = rng.range(10.0, 14.0);
            d += step;
            since_lamp += step;
        }
    }
}
