//! The camera's rasterizer for a world of triangles and boxes: fills a
//! [`GBuffer`] for a camera pose, image size and horizontal FOV (pixel
//! rays as in [`super::render`]).
//!
//! 1. Set-up, once per image: the scene's blocks outside the view frustum
//!    are culled, then each triangle and box of the others and each actor
//!    box (but the one the camera is in) outside it; each triangle, and
//!    each face of a box the camera sees from outside (at most three), is
//!    clipped at the near plane and projected to the screen: a convex
//!    polygon plus the plane of its inverse planar depth `1/t`, which is
//!    affine in the pixel coordinates.
//! 2. Per stripe of rows (the whole image, or stripes of bounded size:
//!    [`rasterize_stripes`]), per band of 16 rows, on up to [`threads`]
//!    threads: every pixel starts as the ground plane (ray/plane
//!    intersection, affine along the row; seen from above only) or the
//!    sky; each face overlapping the band is scanned row by row (the pixel
//!    centres inside the polygon) with a z-test on `1/t` (a pixel's `1/t`
//!    buffer starts at `1/far`, `FAR_M` for the cameras: nothing beyond
//!    the far plane is drawn);
//!    then each pixel is resolved once (`raster_resolve.rs`): depth, tag,
//!    actor id and shaded colour of what it sees (those of them the
//!    G-buffer's [`Channels`] ask for).
//!
//! A pixel sees what the ray through its centre hits first, like the ray
//! caster ([`super::raycast`]), which the tests compare it with.

use super::gbuffer::{Channels, GBuffer};
use super::light::Lighting;
use super::render::{CameraPose, FAR_M};
use super::shade;
use super::shadow::SunMap;
use crate::world::math::v3;
use crate::world::scene::Scene;
use crate::world::workers::{on_threads, threads};
use faces::{Look, Solid, View};
use parking_lot::Mutex;

use frame::Frame;

/// Nearest planar depth drawn, metres: faces are clipped there.
const NEAR: f32 = 1e-3;
/// Rows per work item.
const BAND: usize = 16;
/// Pixels of a stripe when rendering in stripes (a G-buffer of 6.5 MiB:
/// an 800x600 image is one stripe).
pub(crate) const STRIPE_PIXELS: usize = 1 << 19;
/// What a pixel sees, before it is resolved: the sky, the ground, or
/// `FIRST_FACE +` a face's id ([`frame::FaceId`]).
const SKY: u32 = 0;
const GROUND: u32 = 1;
const FIRST_FACE: u32 = 2;

/// A camera's image size and horizontal field of view (degrees).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lens {
    pub width: u32,
    pub height: u32,
    pub fov_deg: f32,
}

/// Renders the scene seen from `pose` through `lens` into `g`, the whole
/// image at once.
pub(crate) fn rasterize(scene: &Scene, pose: &CameraPose, lens: &Lens, g: &mut GBuffer) {
    rasterize_stripes(scene, pose, lens, usize::MAX, g, |_| {});
}

/// Renders the scene seen from `pose` through `lens` in stripes of whole
/// rows, top to bottom, of at most `max_pixels` pixels (but at least one
/// band of rows): `g` holds one stripe at a time, and `emit` gets it (see
/// [`GBuffer::first_row`]). Memory stays bounded for any image size.
pub(crate) fn rasterize_stripes(
    scene: &Scene,
    pose: &CameraPose,
    lens: &Lens,
    max_pixels: usize,
    g: &mut GBuffer,
    emit: impl FnMut(&GBuffer),
) {
    let light = Lighting::of(scene.weather());
    if !g.channels.colour {
        return draw(
            scene,
            pose,
            lens,
            max_pixels,
            g,
            emit,
            &SunMap::default(),
            FAR_M,
        );
    }
    // The colours need the sun's shadows: its depth map first.
    SUN.with(|cell| {
        let mut sun = cell.take();
        sun_map(scene, pose, &light, &mut sun);
        draw(scene, pose, lens, max_pixels, g, emit, &sun, FAR_M);
        cell.replace(sun);
    });
}

/// Builds `sun`, the sun's depth map around a camera at `pose`.
pub(crate) fn sun_map(scene: &Scene, pose: &CameraPose, light: &Lighting, sun: &mut SunMap) {
    sun.build(pose, light, |view, size, fov_deg, far, g| {
        let lens = Lens {
            width: size as u32,
            height: size as u32,
            fov_deg,
        };
        let off = SunMap::default();
        draw(scene, view, &lens, usize::MAX, g, |_| {}, &off, far);
    });
}

/// [`rasterize_stripes`] with the sun's depth map `sun` for the shadows
/// and the far plane `far` (metres).
#[allow(clippy::too_many_arguments)]
fn draw(
    scene: &Scene,
    pose: &CameraPose,
    lens: &Lens,
    max_pixels: usize,
    g: &mut GBuffer,
    mut emit: impl FnMut(&GBuffer),
    sun: &SunMap,
    far: f32,
) {
    let (w, h) = (lens.width as usize, lens.height as usize);
    if w == 0 || h == 0 {
        g.resize(w, 0, 0);
        return;
    }
    let tan = (lens.fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
    let view = View {
        light: Lighting::of(scene.weather()),
        far,
        o: pose.origin,
        axes: pose.axes,
        width: w,
        height: h,
        tan,
        tan_v: tan * h as f32 / w as f32,
        step: 2.0 * tan / w as f32,
    };
    // The sun's views (depth only, no map of their own) keep their faces
    // apart from the cameras': of other sizes, they would regrow each
    // other's buffers every image.
    let frames = if g.channels.colour {
        &FRAME
    } else {
        &SUN_FRAME
    };
    frames.with(|cell| {
        let mut frame = cell.take();
        // A camera inside a car (the player's, typically) sees out of it.
        frame.build(&view, scene, scene.actor_containing(view.o), h);
        let (ground_z, m) = scene.ground();
        let solid = Solid {
            tag: m.tag,
            albedo: m.albedo,
            id: 0,
            window_z: f32::INFINITY,
        };
        let band = Band {
            view: &view,
            frame: &frame,
            ground: Look::new(&solid, shade::UP, &view.light),
            ground_z,
            need: g.channels,
            sun,
            scene,
        };
        // Whole bands a stripe, so a stripe's bands are the image's.
        let stripe = ((max_pixels / w) / BAND * BAND).max(BAND).min(h);
        g.image_height = h;
        for v0 in (0..h).step_by(stripe) {
            g.resize(w, v0, stripe.min(h - v0));
            band.stripe(v0, g);
            emit(g);
        }
        cell.replace(frame);
    });
}

thread_local! {
    /// The faces of the last image rendered on this thread (kept so
    /// rendering allocates nothing once warmed up).
    static FRAME: std::cell::Cell<Frame> = std::cell::Cell::new(Frame::default());
    /// The same for depth-only views (the sun's, depth cameras).
    static SUN_FRAME: std::cell::Cell<Frame> = std::cell::Cell::new(Frame::default());
    /// The sun's depth map of the last image rendered on this thread.
    static SUN: std::cell::Cell<SunMap> = std::cell::Cell::new(SunMap::default());
}

/// What the bands share.
struct Band<'a> {
    view: &'a View,
    /// The faces, and those of each band.
    frame: &'a Frame,
    /// The ground plane's look and height.
    ground: Look,
    ground_z: f32,
    /// The planes to fill in.
    need: Channels,
    /// The sun's depth map, for the shadows.
    sun: &'a SunMap,
    /// The scene (its street lamps, at night).
    scene: &'a Scene,
}

impl Band<'_> {
    /// Renders the rows `g` holds, from image row `v0`, in bands on up to
    /// [`threads`] threads.
    fn stripe(&self, v0: usize, g: &mut GBuffer) {
        let n = self.view.width * BAND;
        let bands = g
            .depth
            .chunks_mut(n)
            .zip(g.tag.chunks_mut(n))
            .zip(g.actor.chunks_mut(n))
            .zip(g.colour.chunks_mut(n))
            .zip(g.normal.chunks_mut(n))
            .enumerate();
        let queue = Mutex::new(bands);
        let work = || {
            let mut scratch = resolve::Scratch::default();
            loop {
                // The lock is let go before the band is drawn.
                let next = queue.lock().next();
                let Some((i, ((((depth, tags), ids), colour), normals))) = next else {
                    return;
                };
                self.run(v0 + i * BAND, depth, ids);
                let out = (colour, normals);
                self.resolve(v0 + i * BAND, depth, tags, ids, out, &mut scratch);
            }
        };
        on_threads(threads().min(g.height.div_ceil(BAND)).max(1), work);
    }

    /// Rows `v0..` (as many as `inv` holds): `1/t` into `inv`, what each
    /// pixel sees into `prim`.
    fn run(&self, v0: usize, inv: &mut [f32], prim: &mut [u32]) {
        let view = self.view;
        let w = view.width;
        let rows = inv.len() / w;
        let far = 1.0 / view.far;
        // The ground plane, seen from above only.
        let ground = (view.o.z > self.ground_z)
            .then(|| view.plane(shade::UP, v3(view.o.x, view.o.y, self.ground_z)))
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
        let (offsets, items) = (&self.frame.offsets, &self.frame.items);
        let b = v0 / BAND;
        let mine = &items[offsets[b] as usize..offsets[b + 1] as usize];
        let mut spans = [(0, 0); BAND];
        for &i in mine {
            let f = self.frame.face(i);
            if f.v0 > last || f.v1 < v0 {
                continue;
            }
            let id = FIRST_FACE + i;
            let (ra, rb) = (f.v0.max(v0), f.v1.min(last));
            f.spans(ra, rb, w, &mut spans);
            for (v, &(u0, u1)) in (ra..=rb).zip(&spans) {
                let (u0, u1) = (u0 as usize, u1 as usize);
                if u0 >= u1 {
                    continue;
                }
                let row = f.w0 + f.wy * (v as f32 + 0.5) + f.wx * (u0 as f32 + 0.5);
                let at = (v - v0) * w;
                let (zb, pr) = (&mut inv[at + u0..at + u1], &mut prim[at + u0..at + u1]);
                depth_test(zb, pr, row, f.wx, id);
            }
        }
    }
}

/// The z-test of a span: pixel `k` of `zb` takes `row + wx·k` and `pr[k]`
/// takes `id` where that is nearer (`1/t` greater). Every pixel is
/// stored, through masks (vectorized; a select would become a branch and a
/// store per pixel). `wx·k` is exact for k < 2²⁴.
#[inline(always)]
fn depth_test(zb: &mut [f32], pr: &mut [u32], row: f32, wx: f32, id: u32) {
    let pr = &mut pr[..zb.len()];
    for k in 0..zb.len() {
        let wf = row + wx * k as i32 as f32;
        let z = zb[k];
        let m = 0u32.wrapping_sub(u32::from(wf > z));
        zb[k] = wf.max(z);
        pr[k] = id & m | pr[k] & !m;
    }
}

#[path = "raster_faces.rs"]
mod faces;
pub(crate) use faces::draw_quads;
#[path = "raster_frame.rs"]
mod frame;
#[path = "raster_resolve.rs"]
mod resolve;

#[cfg(test)]
#[path = "raster_figure_tests.rs"]
mod figure_tests;
#[cfg(test)]
#[path = "raster_tests.rs"]
mod tests;
