//! Ray casting over the scene's grid (see the parent module).

use super::{town, ActorBox, Found, Hit, Scene, NO_LIGHT};
use crate::world::math::{add, scale, v3};
use carla_server::types::Vector3D;

impl Scene {
    /// The nearest hit within `max_dist` (in units of `|dir|`).
    #[allow(dead_code)] // the host's own queries
    pub(crate) fn raycast(&self, origin: Vector3D, dir: Vector3D, max_dist: f32) -> Option<Hit> {
        self.raycast_ignoring(origin, dir, max_dist, 0)
    }

    /// [`Scene::raycast`] that also passes through actor `ignore` (0: none).
    pub(crate) fn raycast_ignoring(
        &self,
        o: Vector3D,
        d: Vector3D,
        max_dist: f32,
        ignore: u32,
    ) -> Option<Hit> {
        self.cast(o, d, 0.0, max_dist, ignore)
    }

    /// [`Scene::raycast_ignoring`] for a caller that knows no box is hit
    /// before `t_start` (infinity: none at all, only the ground remains).
    pub(crate) fn cast(
        &self,
        o: Vector3D,
        d: Vector3D,
        t_start: f32,
        max_dist: f32,
        ignore: u32,
    ) -> Option<Hit> {
        let inv = [1.0 / d.x, 1.0 / d.y, 1.0 / d.z];
        let mut best = max_dist;
        let mut found = Found::Nothing;
        if d.z < 0.0 && o.z >= 0.0 {
            let t = -o.z * inv[2];
            if t < best {
                (best, found) = (t, Found::Ground);
            }
        }
        if t_start >= best {
            return self.finish(o, d, best, found);
        }
        let top = self.static_top.max(self.actor_top);
        let mut end = best;
        if o.z > top && d.z >= 0.0 {
            end = 0.0;
        } else if d.z > 0.0 {
            end = end.min((top - o.z) * inv[2]);
        }
        // Clip to the grid in the ground plane.
        let (mut t0, mut t1) = (t_start.max(0.0), end);
        let bounds = [
            (o.x, inv[0], self.x0, self.x0 + self.nx as f32 * self.cell),
            (o.y, inv[1], self.y0, self.y0 + self.ny as f32 * self.cell),
        ];
        for (p, iv, lo, hi) in bounds {
            let (a, b) = ((lo - p) * iv, (hi - p) * iv);
            if a.is_nan() || b.is_nan() {
                if p < lo || p > hi {
                    t1 = -1.0;
                }
                continue;
            }
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
        if t0 < t1 {
            self.traverse(o, d, inv, t0, t1, ignore, &mut best, &mut found);
        }
        self.finish(o, d, best, found)
    }

    #[allow(clippy::too_many_arguments)]
    fn traverse(
        &self,
        o: Vector3D,
        d: Vector3D,
        inv: [f32; 3],
        t0: f32,
        t1: f32,
        ignore: u32,
        best: &mut f32,
        found: &mut Found,
    ) {
        let (px, py) = (o.x + d.x * t0, o.y + d.y * t0);
        let mut ix = (((px - self.x0) / self.cell) as i32).clamp(0, self.nx - 1);
        let mut iy = (((py - self.y0) / self.cell) as i32).clamp(0, self.ny - 1);
        let axis = |i: i32, dc: f32, ic: f32, oc: f32, lo: f32| -> (i32, f32, f32) {
            if dc > 0.0 {
                (
                    1,
                    (lo + (i + 1) as f32 * self.cell - oc) * ic,
                    self.cell * ic,
                )
            } else if dc < 0.0 {
                (-1, (lo + i as f32 * self.cell - oc) * ic, -self.cell * ic)
            } else {
                (0, f32::INFINITY, f32::INFINITY)
            }
        };
        let (sx, mut nx_t, dx_t) = axis(ix, d.x, inv[0], o.x, self.x0);
        let (sy, mut ny_t, dy_t) = axis(iy, d.y, inv[1], o.y, self.y0);
        let oz = [o.x, o.y, o.z];
        let mut t_in = t0;
        loop {
            let t_out = nx_t.min(ny_t);
            let c = (iy * self.nx + ix) as usize;
            let (s0, s1) = (self.cells[c] as usize, self.cells[c + 1] as usize);
            let (a0, a1) = (
                self.actor_cells[c] as usize,
                self.actor_cells[c + 1] as usize,
            );
            if s0 != s1 || a0 != a1 {
                let seg_end = t_out.min(*best);
                let z_low = (o.z + d.z * t_in).min(o.z + d.z * seg_end);
                if z_low <= self.cell_top[c] {
                    for &i in &self.items[s0..s1] {
                        if let Some((t, axis)) = slab(&self.boxes[i as usize], oz, inv, *best) {
                            (*best, *found) = (t, Found::Static(i, axis));
                        }
                    }
                }
                if a0 != a1 && z_low <= self.actor_top {
                    for &i in &self.actor_items[a0..a1] {
                        let a = &self.actors[i as usize];
                        if a.id == ignore {
                            continue;
                        }
                        if let Some((t, axis)) = actor_slab(a, o, d, *best) {
                            (*best, *found) = (t, Found::Actor(i, axis));
                        }
                    }
                }
            }
            if *best <= t_out || t_out >= t1 {
                return;
            }
            t_in = t_out;
            if nx_t < ny_t {
                ix += sx;
                nx_t += dx_t;
                if ix < 0 || ix >= self.nx {
                    return;
                }
            } else {
                iy += sy;
                ny_t += dy_t;
                if iy < 0 || iy >= self.ny {
                    return;
                }
            }
        }
    }

    fn finish(&self, o: Vector3D, d: Vector3D, t: f32, found: Found) -> Option<Hit> {
        let point = add(o, scale(d, t));
        let mut hit = Hit {
            distance: t,
            point,
            normal: v3(0.0, 0.0, 1.0),
            semantic_tag: 0,
            actor_id: 0,
            albedo: [0; 3],
        };
        match found {
            Found::Nothing => return None,
            Found::Ground => {
                let g = town::surface(point.x, point.y).ground;
                (hit.semantic_tag, hit.albedo) = (g.tag(), g.albedo());
            }
            Found::Static(i, axis) => {
                let m = &self.meta[i as usize];
                let mut n = [0.0; 3];
                n[axis as usize] = -[d.x, d.y, d.z][axis as usize].signum();
                hit.normal = v3(n[0], n[1], n[2]);
                hit.semantic_tag = m.tag;
                hit.actor_id = m.actor;
                hit.albedo = match self.light_albedo.get(m.light as usize) {
                    Some(&c) if m.light != NO_LIGHT => c,
                    _ => m.albedo,
                };
            }
            Found::Actor(i, axis) => {
                let a = &self.actors[i as usize];
                let r = &a.rect;
                let local = [d.x * r.cos + d.y * r.sin, -d.x * r.sin + d.y * r.cos, d.z];
                let s = -local[axis as usize].signum();
                hit.normal = match axis {
                    0 => v3(s * r.cos, s * r.sin, 0.0),
                    1 => v3(-s * r.sin, s * r.cos, 0.0),
                    _ => v3(0.0, 0.0, s),
                };
                hit.semantic_tag = a.tag;
                hit.actor_id = a.id;
                hit.albedo = if axis != 2 && point.z > a.window_z {
                    [38, 46, 56]
                } else {
                    a.albedo
                };
            }
        }
        Some(hit)
    }

    /// Every box tested, no grid: the reference for the tests.
    #[cfg(test)]
    pub(crate) fn raycast_brute(&self, o: Vector3D, d: Vector3D, max_dist: f32) -> Option<Hit> {
        let inv = [1.0 / d.x, 1.0 / d.y, 1.0 / d.z];
        let mut best = max_dist;
        let mut found = Found::Nothing;
        if d.z < 0.0 && o.z >= 0.0 && -o.z * inv[2] < best {
            (best, found) = (-o.z * inv[2], Found::Ground);
        }
        for (i, b) in self.boxes.iter().enumerate() {
            if let Some((t, axis)) = slab(b, [o.x, o.y, o.z], inv, best) {
                (best, found) = (t, Found::Static(i as u32, axis));
            }
        }
        for (i, a) in self.actors.iter().enumerate() {
            if let Some((t, axis)) = actor_slab(a, o, d, best) {
                (best, found) = (t, Found::Actor(i as u32, axis));
            }
        }
        self.finish(o, d, best, found)
    }
}

/// Ray/AABB slab test: the entry parameter and axis when the ray enters the
/// box (origin outside) before `best`.
#[inline(always)]
fn slab(b: &[f32; 6], o: [f32; 3], inv: [f32; 3], best: f32) -> Option<(f32, u8)> {
    let mut t_near = f32::NEG_INFINITY;
    let mut t_far = best;
    let mut axis = 0u8;
    for k in 0..3 {
        let (a, c) = ((b[k] - o[k]) * inv[k], (b[k + 3] - o[k]) * inv[k]);
        let (lo, hi) = if a < c { (a, c) } else { (c, a) };
        if lo > t_near {
            t_near = lo;
            axis = k as u8;
        }
        t_far = t_far.min(hi);
    }
    (t_near <= t_far && t_near > 0.0).then_some((t_near, axis))
}

/// Ray against a yaw-turned actor box, in the box's frame.
#[inline(always)]
fn actor_slab(a: &ActorBox, o: Vector3D, d: Vector3D, best: f32) -> Option<(f32, u8)> {
    let r = &a.rect;
    let (px, py) = (o.x - r.cx, o.y - r.cy);
    let lo = [px * r.cos + py * r.sin, -px * r.sin + py * r.cos, o.z];
    let ld = [d.x * r.cos + d.y * r.sin, -d.x * r.sin + d.y * r.cos, d.z];
    let b = [-r.hx, -r.hy, a.z0, r.hx, r.hy, a.z1];
    slab(&b, lo, [1.0 / ld[0], 1.0 / ld[1], 1.0 / ld[2]], best)
}
