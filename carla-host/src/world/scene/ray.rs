//! Ray casting over the scene's grid (see the parent module): cell by
//! cell along the ray (Amanatides–Woo), a cell's static geometry tested
//! only where the ray's height within the cell meets the cell's height
//! range, stopping at the first cell that ends past the nearest hit, or
//! where the ray has climbed above everything.

use super::{ActorBox, Found, Hit, Part, Scene, Tri, NO_LIGHT};
use crate::world::math::{add, scale, v3};
use carla_server::types::Vector3D;

/// Height (metres) by which a ray's span in a cell may miss a triangle's
/// heights and the triangle still be tested (rounding of both).
const Z_SLACK: f32 = 1e-3;

/// What a cast tests besides the static geometry.
#[derive(Clone, Copy, PartialEq)]
enum With {
    /// The actors but `ignore`.
    Actors(u32),
    Statics,
}

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
        self.cast(o, d, max_dist, With::Actors(ignore))
    }

    /// The nearest static surface (no actors).
    pub(crate) fn cast_static(&self, o: Vector3D, d: Vector3D, max_dist: f32) -> Option<Hit> {
        self.cast(o, d, max_dist, With::Statics)
    }

    fn cast(&self, o: Vector3D, d: Vector3D, max_dist: f32, with: With) -> Option<Hit> {
        let inv = [1.0 / d.x, 1.0 / d.y, 1.0 / d.z];
        let mut best = max_dist;
        let mut found = Found::Nothing;
        if d.z < 0.0 && o.z >= self.ground_z {
            let t = (self.ground_z - o.z) * inv[2];
            if t < best {
                (best, found) = (t, Found::Ground);
            }
        }
        let mut top = self.static_top;
        if matches!(with, With::Actors(_)) {
            top = top.max(self.actor_top);
        }
        let mut end = best;
        if o.z > top && d.z >= 0.0 {
            end = 0.0;
        } else if d.z > 0.0 {
            end = end.min((top - o.z) * inv[2]);
        }
        // Clip to the grid in the ground plane.
        let g = &self.grid;
        let (mut t0, mut t1) = (0.0f32, end);
        let bounds = [
            (o.x, inv[0], g.x0, g.x0 + g.nx as f32 * g.cell),
            (o.y, inv[1], g.y0, g.y0 + g.ny as f32 * g.cell),
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
        if t0 <= t1 && t1 >= 0.0 {
            self.traverse(o, d, inv, (t0, t1), with, &mut best, &mut found);
        }
        self.finish(o, d, best, found)
    }

    #[allow(clippy::too_many_arguments)]
    fn traverse(
        &self,
        o: Vector3D,
        d: Vector3D,
        inv: [f32; 3],
        (t0, t1): (f32, f32),
        with: With,
        best: &mut f32,
        found: &mut Found,
    ) {
        let g = &self.grid;
        let (px, py) = (o.x + d.x * t0, o.y + d.y * t0);
        let (ix, iy) = g.cell_of(px, py);
        let (mut ix, mut iy) = (ix as i64, iy as i64);
        let axis = |i: i64, dc: f32, ic: f32, oc: f32, lo: f32| -> (i64, f32, f32) {
            if dc > 0.0 {
                (1, (lo + (i + 1) as f32 * g.cell - oc) * ic, g.cell * ic)
            } else if dc < 0.0 {
                (-1, (lo + i as f32 * g.cell - oc) * ic, -g.cell * ic)
            } else {
                (0, f32::INFINITY, f32::INFINITY)
            }
        };
        let (sx, mut nx_t, dx_t) = axis(ix, d.x, inv[0], o.x, g.x0);
        let (sy, mut ny_t, dy_t) = axis(iy, d.y, inv[1], o.y, g.y0);
        let oz = [o.x, o.y, o.z];
        let mut t_in = t0;
        loop {
            let t_out = nx_t.min(ny_t);
            let c = iy as usize * g.nx + ix as usize;
            let seg_end = t_out.min(*best);
            let (za, zb) = (o.z + d.z * t_in, o.z + d.z * seg_end);
            let (z_low, z_high) = (za.min(zb), za.max(zb));
            if z_low <= self.cell_top[c] && z_high >= self.cell_low[c] {
                for &i in self.box_cells.items(c) {
                    if let Some((t, axis)) = slab(&self.boxes[i as usize], oz, inv, *best) {
                        (*best, *found) = (t, Found::Static(i, axis));
                    }
                }
                let r = self.tri_cells.range(c);
                let tris = self.tri_cells.all()[r.clone()].iter().zip(&self.tri_z[r]);
                for (&i, &[top, bottom]) in tris {
                    // Highest first: the rest are lower still.
                    if top < z_low - Z_SLACK {
                        break;
                    }
                    if bottom > z_high + Z_SLACK {
                        continue;
                    }
                    if let Some(t) = hit_tri(&self.tris[i as usize], o, d, *best) {
                        (*best, *found) = (t, Found::Tri(i));
                    }
                }
            }
            if let With::Actors(ignore) = with {
                if self.actor_cells.any(c) && z_low <= self.actor_top {
                    for &i in self.actor_cells.items(c) {
                        if self.actors[i as usize].id == ignore {
                            continue;
                        }
                        if let Some(hit) = self.actor_hit(i, o, d, *best) {
                            (*best, *found) = hit;
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
                if ix < 0 || ix >= g.nx as i64 {
                    return;
                }
            } else {
                iy += sy;
                ny_t += dy_t;
                if iy < 0 || iy >= g.ny as i64 {
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
                (hit.semantic_tag, hit.albedo) = (self.ground.tag, self.ground.albedo);
            }
            Found::Tri(i) => {
                let tri = &self.tris[i as usize];
                let m = &self.materials[tri.material as usize];
                let n = tri.normal;
                let facing = n.x * d.x + n.y * d.y + n.z * d.z;
                hit.normal = if facing > 0.0 { scale(n, -1.0) } else { n };
                hit.semantic_tag = m.tag;
                hit.albedo = m.albedo;
            }
            Found::Static(i, axis) => {
                let m = &self.meta[i as usize];
                let mut n = [0.0; 3];
                n[axis as usize] = -[d.x, d.y, d.z][axis as usize].signum();
                hit.normal = v3(n[0], n[1], n[2]);
                let (tag, albedo) = self.static_look(i as usize);
                hit.semantic_tag = tag;
                hit.actor_id = m.actor;
                hit.albedo = if m.light != NO_LIGHT {
                    albedo
                } else {
                    m.albedo
                };
            }
            Found::Part(i, j, axis) => {
                let (a, p) = (&self.actors[i as usize], &self.parts[j as usize]);
                let e = p.axes[axis as usize];
                let s = -(e.x * d.x + e.y * d.y + e.z * d.z).signum();
                hit.normal = scale(e, s);
                hit.semantic_tag = p.tag;
                hit.actor_id = a.id;
                hit.albedo = p.albedo;
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

    /// Every box and triangle tested, no grid: the reference for the tests.
    #[cfg(test)]
    pub(crate) fn raycast_brute(&self, o: Vector3D, d: Vector3D, max_dist: f32) -> Option<Hit> {
        let inv = [1.0 / d.x, 1.0 / d.y, 1.0 / d.z];
        let mut best = max_dist;
        let mut found = Found::Nothing;
        if d.z < 0.0 && o.z >= self.ground_z {
            let t = (self.ground_z - o.z) * inv[2];
            if t < best {
                (best, found) = (t, Found::Ground);
            }
        }
        for (i, b) in self.boxes.iter().enumerate() {
            if let Some((t, axis)) = slab(b, [o.x, o.y, o.z], inv, best) {
                (best, found) = (t, Found::Static(i as u32, axis));
            }
        }
        for (i, tri) in self.tris.iter().enumerate() {
            if let Some(t) = hit_tri(tri, o, d, best) {
                (best, found) = (t, Found::Tri(i as u32));
            }
        }
        for i in 0..self.actors.len() as u32 {
            if let Some(hit) = self.actor_hit(i, o, d, best) {
                (best, found) = hit;
            }
        }
        self.finish(o, d, best, found)
    }

    /// Ray against actor `i`: its box, or its pieces when it has some
    /// (tested only when the ray meets the box they lie in).
    #[inline]
    fn actor_hit(&self, i: u32, o: Vector3D, d: Vector3D, best: f32) -> Option<(f32, Found)> {
        let a = &self.actors[i as usize];
        let parts = self.parts_of(a);
        if parts.is_empty() {
            return actor_slab(a, o, d, best).map(|(t, axis)| (t, Found::Actor(i, axis)));
        }
        if !meets_actor_box(a, o, d, best) {
            return None;
        }
        let mut hit = None;
        let mut best = best;
        for (j, p) in (a.parts.0..).zip(parts) {
            if let Some((t, axis)) = part_slab(p, o, d, best) {
                best = t;
                hit = Some((t, Found::Part(i, j, axis)));
            }
        }
        hit
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

/// Ray against a triangle (Möller–Trumbore, either side): the parameter
/// when the ray meets it before `best`.
#[inline(always)]
fn hit_tri(t: &Tri, o: Vector3D, d: Vector3D, best: f32) -> Option<f32> {
    let (e1, e2) = (t.e1, t.e2);
    let p = v3(
        d.y * e2.z - d.z * e2.y,
        d.z * e2.x - d.x * e2.z,
        d.x * e2.y - d.y * e2.x,
    );
    let det = e1.x * p.x + e1.y * p.y + e1.z * p.z;
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = v3(o.x - t.p0.x, o.y - t.p0.y, o.z - t.p0.z);
    let u = (s.x * p.x + s.y * p.y + s.z * p.z) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = v3(
        s.y * e1.z - s.z * e1.y,
        s.z * e1.x - s.x * e1.z,
        s.x * e1.y - s.y * e1.x,
    );
    let v = (d.x * q.x + d.y * q.y + d.z * q.z) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let dist = (e2.x * q.x + e2.y * q.y + e2.z * q.z) * inv;
    (dist > 1e-6 && dist < best).then_some(dist)
}

/// Whether the ray meets a yaw-turned actor box (from outside or from
/// within) before `best`.
#[inline(always)]
fn meets_actor_box(a: &ActorBox, o: Vector3D, d: Vector3D, best: f32) -> bool {
    let r = &a.rect;
    let (px, py) = (o.x - r.cx, o.y - r.cy);
    let lo = [px * r.cos + py * r.sin, -px * r.sin + py * r.cos, o.z];
    let ld = [d.x * r.cos + d.y * r.sin, -d.x * r.sin + d.y * r.cos, d.z];
    let b = [-r.hx, -r.hy, a.z0, r.hx, r.hy, a.z1];
    let (mut near, mut far) = (f32::NEG_INFINITY, best);
    for k in 0..3 {
        let inv = 1.0 / ld[k];
        let (s, t) = ((b[k] - lo[k]) * inv, (b[k + 3] - lo[k]) * inv);
        near = near.max(s.min(t));
        far = far.min(s.max(t));
    }
    near <= far && far > 0.0
}

/// Ray against a piece of an actor, in the piece's frame.
#[inline(always)]
fn part_slab(p: &Part, o: Vector3D, d: Vector3D, best: f32) -> Option<(f32, u8)> {
    let rel = v3(o.x - p.c.x, o.y - p.c.y, o.z - p.c.z);
    let dot = |a: Vector3D, b: Vector3D| a.x * b.x + a.y * b.y + a.z * b.z;
    let lo = p.axes.map(|e| dot(rel, e));
    let inv = p.axes.map(|e| 1.0 / dot(d, e));
    let h = p.half;
    slab(&[-h[0], -h[1], -h[2], h[0], h[1], h[2]], lo, inv, best)
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
