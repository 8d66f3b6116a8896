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
use super::math::{add, scale, v3};
use super::render::{threads, CameraPose, FAR_M};
use super::scene::Scene;
use super::shade;
use super::town::Ground;
use faces::{Look, Solid, View};
use parking_lot::Mutex;

pub(crate) use faces::Face;

/// Nearest planar depth drawn, metres: faces are clipped there.
const NEAR: f32 = 1e-3;
/// Rows per work item.
const BAND: usize = 16;
/// What a pixel sees, before it is resolved: the sky, the ground, or
/// `FIRST_FACE +` an index in the face list.
const SKY: u32 = 0;
const GROUND: u32 = 1;
const FIRST_FACE: u32 = 2;

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
                        let wg = row + gx * (u as i32 as f32 + 0.5);
                        let seen = wg > far;
                        *z = if seen { wg } else { far };
                        *p = if seen { GROUND } else { SKY };
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
                let row = f.w0 + f.wy * (v as f32 + 0.5) + f.wx * (u0 as f32 + 0.5);
                let at = (v - v0) * w;
                let (zb, pr) = (&mut inv[at + u0..at + u1], &mut prim[at + u0..at + u1]);
                // Branch-free (selects, vectorized): `wx·k` exact for k < 2²⁴.
                for (k, (z, p)) in zb.iter_mut().zip(pr.iter_mut()).enumerate() {
                    let wf = row + f.wx * k as i32 as f32;
                    let nearer = wf > *z;
                    *z = if nearer { wf } else { *z };
                    *p = if nearer { id } else { *p };
                }
            }
        }
    }
}

#[path = "raster_faces.rs"]
mod faces;
#[path = "raster_resolve.rs"]
mod resolve;

#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
