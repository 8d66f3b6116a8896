//! The camera's rasterizer for a world of boxes: fills a [`GBuffer`] for a
//! camera pose, image size and horizontal FOV (pixel rays as in
//! [`super::render`]).
//!
//! 1. Set-up, once per image: each static box and actor box (but the one
//!    the camera is in) outside the view frustum is culled; each face the
//!    camera sees from outside (at most three per box) is clipped at the
//!    near plane and projected to the screen: a convex polygon plus the
//!    plane of its inverse planar depth `1/t`, which is affine in the pixel
//!    coordinates.
//! 2. Per band of rows, on up to [`threads`] threads: every pixel starts as
//!    the flat ground (ray/ground-plane intersection, affine along the row)
//!    or the sky; each face overlapping the band is scanned row by row
//!    (the pixel centres inside the polygon) with a z-test on `1/t` (a
//!    pixel's `1/t` buffer starts at `1/FAR_M`: nothing beyond the far
//!    plane is drawn); then each pixel is resolved once: depth, tag, actor
//!    id and shaded colour of what it sees (the ground classified by
//!    `town::surface` at the hit point).
//!
//! A pixel sees what the ray through its centre hits first, like the ray
//! caster ([`super::raycast`]), which the tests compare it with.

use super::gbuffer::GBuffer;
use super::math::{add, length, scale, sub, v3, Axes};
use super::render::{threads, CameraPose, FAR_M};
use super::scene::Scene;
use super::shade::{self, Detail};
use super::town::{self, tag, Ground};
use carla_server::types::Vector3D;
use parking_lot::Mutex;

/// Nearest planar depth drawn, metres: faces are clipped there.
const NEAR: f32 = 1e-3;
/// Rows per work item.
const BAND: usize = 16;
/// What a pixel sees, before it is resolved: the sky, the ground, or
/// `FIRST_FACE +` an index in the face list.
const SKY: u32 = 0;
const GROUND: u32 = 1;
const FIRST_FACE: u32 = 2;

/// A box to draw: what it is and its colour.
#[derive(Clone, Copy, Debug)]
struct Solid {
    tag: u8,
    albedo: [u8; 3],
    id: u32,
    /// Side faces above this height are windows.
    window_z: f32,
}

/// How a face (or a ground class) looks, worked out once per image.
#[derive(Clone, Copy, Debug)]
struct Look {
    tag: u8,
    id: u32,
    detail: Detail,
    /// Albedo × light, RGB.
    lit: [f32; 3],
    /// Above `window_z`, `glass` instead of `lit`.
    window_z: f32,
    glass: [f32; 3],
}

impl Look {
    fn new(s: &Solid, n: Vector3D) -> Look {
        let light = shade::light(n);
        let side = n.z == 0.0;
        Look {
            tag: s.tag,
            id: s.id,
            detail: Detail::of(s.tag, n),
            lit: s.albedo.map(|c| f32::from(c) * light),
            window_z: if side { s.window_z } else { f32::INFINITY },
            glass: shade::WINDOW.map(|c| f32::from(c) * light),
        }
    }
}

/// A face projected on the screen (pixel units: x right, y down, pixel
/// `(u, v)`'s centre at `(u + ½, v + ½)`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Face {
    /// Inverse planar depth at `(x, y)`: `w0 + wx·x + wy·y`.
    w0: f32,
    wx: f32,
    wy: f32,
    /// Rows whose centres the polygon may cover, inclusive.
    v0: usize,
    v1: usize,
    n: usize,
    pts: [(f32, f32); 8],
    look: Look,
}

impl Face {
    /// Pixel columns `u0..u1` whose centres on row `v` lie in the polygon.
    #[inline]
    fn span(&self, v: usize, width: usize) -> (usize, usize) {
        let y = v as f32 + 0.5;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        let pts = &self.pts[..self.n];
        let mut a = pts[self.n - 1];
        for &b in pts {
            if (a.1 <= y && y <= b.1) || (b.1 <= y && y <= a.1) {
                let x = if a.1 == b.1 {
                    lo = lo.min(a.0);
                    hi = hi.max(a.0);
                    b.0
                } else {
                    a.0 + (y - a.1) * (b.0 - a.0) / (b.1 - a.1)
                };
                lo = lo.min(x);
                hi = hi.max(x);
            }
            a = b;
        }
        // Centres u + ½ in [lo, hi]; empty when lo > hi.
        let u0 = (lo - 0.5).max(0.0).ceil();
        let u1 = (hi + 0.5).min(width as f32).floor();
        if u0 < u1 {
            (u0 as usize, u1 as usize)
        } else {
            (0, 0)
        }
    }
}

/// The camera and image, in the form the set-up and the bands use.
struct View {
    o: Vector3D,
    axes: Axes,
    width: usize,
    height: usize,
    tan: f32,
    tan_v: f32,
    step: f32,
}

impl View {
    /// The world direction through pixel coordinates `(x, y)`.
    fn ray(&self, x: f32, y: f32) -> Vector3D {
        let a = &self.axes;
        let (xs, ys) = (x * self.step - self.tan, y * self.step - self.tan_v);
        sub(add(a.forward, scale(a.right, xs)), scale(a.up, ys))
    }
    /// The `1/t` plane of the world plane through `p` with normal `n`.
    fn plane(&self, n: Vector3D, p: Vector3D) -> Option<(f32, f32, f32)> {
        let k = super::math::dot(n, sub(p, self.o));
        if k.abs() < 1e-12 {
            return None;
        }
        let c = self.axes.to_local(n);
        Some((
            (c.x - c.y * self.tan + c.z * self.tan_v) / k,
            c.y * self.step / k,
            -c.z * self.step / k,
        ))
    }

    /// Adds the faces seen of box `p + s·e[0] + t·e[1] + r·e[2]` (s, t,
    /// r in [0, 1], `e` orthogonal).
    fn add_box(&self, p: Vector3D, e: [Vector3D; 3], solid: &Solid, faces: &mut Vec<Face>) {
        let q0 = self.axes.to_local(sub(p, self.o));
        let qe = e.map(|v| self.axes.to_local(v));
        let corner = |i: usize| {
            let mut q = q0;
            for (k, v) in qe.iter().enumerate() {
                if i >> k & 1 == 1 {
                    q = add(q, *v);
                }
            }
            q
        };
        let qs: [Vector3D; 8] = std::array::from_fn(corner);
        let outside = |f: &dyn Fn(&Vector3D) -> bool| qs.iter().all(f);
        let (tan, tan_v) = (self.tan, self.tan_v);
        if outside(&|q| q.x < NEAR)
            || outside(&|q| q.x > FAR_M)
            || outside(&|q| q.y > tan * q.x)
            || outside(&|q| q.y < -tan * q.x)
            || outside(&|q| q.z > tan_v * q.x)
            || outside(&|q| q.z < -tan_v * q.x)
        {
            return;
        }
        let rel = sub(self.o, p);
        for (k, ek) in e.iter().enumerate() {
            let len2 = super::math::dot(*ek, *ek);
            if len2 <= 0.0 {
                return;
            }
            let c = super::math::dot(rel, *ek) / len2;
            let side = if c < 0.0 {
                0
            } else if c > 1.0 {
                1
            } else {
                continue;
            };
            let (a, b) = ((k + 1) % 3, (k + 2) % 3);
            let base = side << k;
            let quad = [base, base | 1 << a, base | 1 << a | 1 << b, base | 1 << b].map(|i| qs[i]);
            let sign = if side == 1 { 1.0 } else { -1.0 };
            let normal = scale(*ek, sign / len2.sqrt());
            let on_face = if side == 1 { add(p, *ek) } else { p };
            let Some((w0, wx, wy)) = self.plane(normal, on_face) else {
                continue;
            };
            let look = Look::new(solid, normal);
            if let Some(f) = self.project(&quad, (w0, wx, wy), look) {
                faces.push(f);
            }
        }
    }

    /// Clips a camera-space quad at the near plane and projects it.
    fn project(&self, quad: &[Vector3D; 4], w: (f32, f32, f32), look: Look) -> Option<Face> {
        let mut f = Face {
            w0: w.0,
            wx: w.1,
            wy: w.2,
            v0: 0,
            v1: 0,
            n: 0,
            pts: [(0.0, 0.0); 8],
            look,
        };
        let mut push = |q: Vector3D| {
            let x = (q.y / q.x + self.tan) / self.step;
            let y = (-q.z / q.x + self.tan_v) / self.step;
            f.pts[f.n] = (x, y);
            f.n += 1;
        };
        let mut a = quad[3];
        for &b in quad {
            let (ina, inb) = (a.x >= NEAR, b.x >= NEAR);
            if ina != inb {
                let s = (NEAR - a.x) / (b.x - a.x);
                let mut q = add(a, scale(sub(b, a), s));
                q.x = NEAR;
                push(q);
            }
            if inb {
                push(b);
            }
            a = b;
        }
        if f.n < 3 {
            return None;
        }
        let pts = &f.pts[..f.n];
        let (ylo, yhi) = pts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                (l.min(p.1), h.max(p.1))
            });
        let (xlo, xhi) = pts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                (l.min(p.0), h.max(p.0))
            });
        let (w, h) = (self.width as f32, self.height as f32);
        if xhi < 0.5 || xlo > w - 0.5 || yhi < 0.5 || ylo > h - 0.5 {
            return None;
        }
        f.v0 = (ylo - 0.5).max(0.0).ceil() as usize;
        f.v1 = ((yhi - 0.5).min(h - 1.0).floor() as usize).min(self.height - 1);
        (f.v0 <= f.v1).then_some(f)
    }
}

/// Renders the scene seen from `pose` (a `width × height` image, horizontal
/// field of view `fov_deg`) into `g`.
pub(crate) fn rasterize(
    scene: &Scene,
    pose: &CameraPose,
    width: u32,
    height: u32,
    fov_deg: f32,
    g: &mut GBuffer,
) {
    let (w, h) = (width as usize, height as usize);
    g.resize(w, h);
    if w == 0 || h == 0 {
        return;
    }
    let tan = (fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
    let view = View {
        o: pose.origin,
        axes: pose.axes,
        width: w,
        height: h,
        tan,
        tan_v: tan * h as f32 / w as f32,
        step: 2.0 * tan / w as f32,
    };
    // A camera inside a car (the player's, typically) sees out of it.
    let ignore = scene.actor_containing(view.o);
    let mut faces = std::mem::take(&mut g.faces);
    faces.clear();
    for (i, b) in scene.static_bounds().iter().enumerate() {
        let (tag, albedo) = scene.static_look(i);
        let solid = Solid {
            tag,
            albedo,
            id: 0,
            window_z: f32::INFINITY,
        };
        let e = [v3(b[3] - b[0], 0.0, 0.0), v3(0.0, b[4] - b[1], 0.0)];
        let p = v3(b[0], b[1], b[2]);
        view.add_box(
            p,
            [e[0], e[1], v3(0.0, 0.0, b[5] - b[2])],
            &solid,
            &mut faces,
        );
    }
    for a in scene.actors().iter().filter(|a| a.id != ignore) {
        let solid = Solid {
            tag: a.tag,
            albedo: a.albedo,
            id: a.id,
            window_z: a.window_z,
        };
        let r = &a.rect;
        let (ex, ey) = (v3(r.cos, r.sin, 0.0), v3(-r.sin, r.cos, 0.0));
        let p = add(
            v3(r.cx, r.cy, a.z0),
            add(scale(ex, -r.hx), scale(ey, -r.hy)),
        );
        let e = [
            scale(ex, 2.0 * r.hx),
            scale(ey, 2.0 * r.hy),
            v3(0.0, 0.0, a.z1 - a.z0),
        ];
        view.add_box(p, e, &solid, &mut faces);
    }
    let bands = g
        .depth
        .chunks_mut(w * BAND)
        .zip(g.tag.chunks_mut(w * BAND))
        .zip(g.actor.chunks_mut(w * BAND))
        .zip(g.colour.chunks_mut(w * BAND))
        .enumerate();
    let queue = Mutex::new(bands);
    let ground = [
        Ground::Road,
        Ground::LaneMark,
        Ground::Sidewalk,
        Ground::Grass,
    ]
    .map(|g| {
        let solid = Solid {
            tag: g.fine_tag(),
            albedo: g.albedo(),
            id: 0,
            window_z: f32::INFINITY,
        };
        Look::new(&solid, shade::UP)
    });
    let band = Band {
        view: &view,
        faces: &faces,
        ground,
    };
    let work = || loop {
        let Some((i, (((depth, tags), ids), colour))) = queue.lock().next() else {
            return;
        };
        band.run(i * BAND, depth, ids);
        band.resolve(i * BAND, depth, tags, ids, colour);
    };
    let extra = threads().min(h.div_ceil(BAND)) - 1;
    std::thread::scope(|s| {
        for _ in 0..extra {
            s.spawn(work);
        }
        work();
    });
    g.faces = faces;
}

/// What the bands share.
struct Band<'a> {
    view: &'a View,
    faces: &'a [Face],
    /// Looks of the ground classes, in `Ground` order.
    ground: [Look; 4],
}

impl Band<'_> {
    /// Rows `v0..` (as many as `inv` holds): `1/t` into `inv`, what each
    /// pixel sees into `prim`.
    fn run(&self, v0: usize, inv: &mut [f32], prim: &mut [u32]) {
        let view = self.view;
        let w = view.width;
        let rows = inv.len() / w;
        let far = 1.0 / FAR_M;
        // The ground plane z = 0, seen from above only.
        let ground = (view.o.z > 0.0)
            .then(|| view.plane(shade::UP, v3(view.o.x, view.o.y, 0.0)))
            .flatten();
        for r in 0..rows {
            let (zb, pr) = (&mut inv[r * w..][..w], &mut prim[r * w..][..w]);
            let y = (v0 + r) as f32 + 0.5;
            match ground {
                Some((g0, gx, gy)) => {
                    let row = g0 + gy * y;
                    for (u, (z, p)) in zb.iter_mut().zip(pr.iter_mut()).enumerate() {
                        let wg = row + gx * (u as f32 + 0.5);
                        (*z, *p) = if wg > far { (wg, GROUND) } else { (far, SKY) };
                    }
                }
                None => {
                    zb.fill(far);
                    pr.fill(SKY);
                }
            }
        }
        let last = v0 + rows - 1;
        for (i, f) in self.faces.iter().enumerate() {
            if f.v0 > last || f.v1 < v0 {
                continue;
            }
            let id = FIRST_FACE + i as u32;
            for v in f.v0.max(v0)..=f.v1.min(last) {
                let (u0, u1) = f.span(v, w);
                if u0 >= u1 {
                    continue;
                }
                let row = f.w0 + f.wy * (v as f32 + 0.5);
                let at = (v - v0) * w;
                let (zb, pr) = (&mut inv[at + u0..at + u1], &mut prim[at + u0..at + u1]);
                for (k, (z, p)) in zb.iter_mut().zip(pr.iter_mut()).enumerate() {
                    let wf = row + f.wx * ((u0 + k) as f32 + 0.5);
                    if wf > *z {
                        (*z, *p) = (wf, id);
                    }
                }
            }
        }
    }

    /// Turns rows `v0..` of `1/t` and primitives into depth, tag, actor
    /// id and colour, in place, `CHUNK` pixels at a time: the arithmetic
    /// of every pixel in branch-free loops (vectorized by the compiler),
    /// what it sees in a loop of its own.
    fn resolve(
        &self,
        v0: usize,
        depth: &mut [f32],
        tags: &mut [u8],
        ids: &mut [u32],
        colour: &mut [[u8; 4]],
    ) {
        let view = self.view;
        let w = view.width;
        let o = view.o;
        let dr = scale(view.axes.right, view.step);
        let rows = depth.len() / w;
        let mut s = Scratch::default();
        for r in 0..rows {
            let row = view.ray(0.5, (v0 + r) as f32 + 0.5);
            for u0 in (0..w).step_by(CHUNK) {
                let n = CHUNK.min(w - u0);
                let at = r * w + u0;
                let inv = &mut depth[at..at + n];
                // Where each ray hits, how far, how foggy; the sky's shade.
                for (j, &z) in inv.iter().enumerate() {
                    let u = (u0 + j) as f32;
                    let d = add(row, scale(dr, u));
                    let len = length(d);
                    let dist = 1.0 / z;
                    s.x[j] = o.x + d.x * dist;
                    s.y[j] = o.y + d.y * dist;
                    s.z[j] = o.z + d.z * dist;
                    s.dist[j] = dist;
                    s.fog[j] = shade::fog(dist * len);
                    s.sky[j] = 1.0 - (d.z / len).clamp(0.0, 1.0).sqrt();
                }
                let (tags, ids) = (&mut tags[at..at + n], &mut ids[at..at + n]);
                for (j, (t, id)) in tags.iter_mut().zip(ids.iter_mut()).enumerate() {
                    let prim = *id;
                    if prim == SKY {
                        (*t, *id) = (tag::SKY, 0);
                        [s.r[j], s.g[j], s.b[j]] = shade::ZENITH;
                        s.fog[j] = s.sky[j];
                        s.dist[j] = f32::INFINITY;
                        continue;
                    }
                    let p = v3(s.x[j], s.y[j], s.z[j]);
                    let look = if prim == GROUND {
                        &self.ground[match town::surface(p.x, p.y).ground {
                            Ground::Road => 0,
                            Ground::LaneMark => 1,
                            Ground::Sidewalk => 2,
                            Ground::Grass => 3,
                        }]
                    } else {
                        &self.faces[(prim - FIRST_FACE) as usize].look
                    };
                    let lit = if p.z > look.window_z {
                        look.glass
                    } else {
                        look.lit
                    };
                    let k = look.detail.at(p);
                    [s.r[j], s.g[j], s.b[j]] = lit.map(|c| (c * k).min(255.0));
                    (*t, *id) = (look.tag, look.id);
                }
                inv.copy_from_slice(&s.dist[..n]);
                let [hr, hg, hb] = shade::HORIZON;
                for (j, c) in colour[at..at + n].iter_mut().enumerate() {
                    let f = s.fog[j];
                    // In [0, 255] by construction: a plain conversion.
                    let r = (s.r[j] + (hr - s.r[j]) * f) as i32 as u32;
                    let g = (s.g[j] + (hg - s.g[j]) * f) as i32 as u32;
                    let b = (s.b[j] + (hb - s.b[j]) * f) as i32 as u32;
                    *c = (b | g << 8 | r << 16 | 0xFF00_0000).to_le_bytes();
                }
            }
        }
    }
}

/// Pixels resolved at a time.
const CHUNK: usize = 64;

/// Per-pixel values of one chunk.
struct Scratch {
    x: [f32; CHUNK],
    y: [f32; CHUNK],
    z: [f32; CHUNK],
    dist: [f32; CHUNK],
    fog: [f32; CHUNK],
    sky: [f32; CHUNK],
    /// Lit colour, before the fog.
    r: [f32; CHUNK],
    g: [f32; CHUNK],
    b: [f32; CHUNK],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            x: [0.0; CHUNK],
            y: [0.0; CHUNK],
            z: [0.0; CHUNK],
            dist: [0.0; CHUNK],
            fog: [0.0; CHUNK],
            sky: [0.0; CHUNK],
            r: [0.0; CHUNK],
            g: [0.0; CHUNK],
            b: [0.0; CHUNK],
        }
    }
}

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
