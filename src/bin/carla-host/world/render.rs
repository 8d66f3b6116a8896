//! Camera images by ray casting the scene, on all cores (row bands handed
//! out from a shared queue, `std::thread::scope`).
//!
//! Camera frame (Unreal/CARLA): x forward, y right, z up. For a `w × h`
//! image with horizontal field of view `fov`, pixel `(u, v)` (u to the
//! right, v downwards, both from 0 at the top-left corner; rays through
//! pixel centres) looks along
//!
//! ```text
//! d = forward + (2(u + ½)/w − 1)·tan(fov/2)·right − (2(v + ½)/h − 1)·tan(fov/2)·(h/w)·up
//! ```
//!
//! (square pixels). `d · forward = 1`, so the ray parameter of a hit is its
//! planar depth (distance along the camera's forward axis), which is what
//! CARLA's depth camera stores.
//!
//! Output: BGRA bytes, rows top to bottom. SceneFinal/None: albedo × (sky
//! ambient + sun Lambert), faded into a sky gradient with distance.
//! Depth: `n = round(depth / 1000 m · (256³ − 1))` with R the low byte,
//! G the middle one and B the high one (CARLA's `(R + G·256 + B·256²) /
//! (256³ − 1)`), sky and beyond 1000 m saturated. Semantic segmentation:
//! the tag in R, B = G = 0. Alpha is 255 in every mode.

use super::horizon::Horizon;
use super::math::{add, dot, length, scale, sub, Axes};
use super::scene::{Hit, Scene};
use super::town::tag;
use carla_server::types::{Rotation3D, Transform, Vector3D};
use parking_lot::Mutex;

/// Far plane of the depth camera, metres.
pub(crate) const FAR_M: f32 = 1000.0;
/// Rows per work item.
const BAND: usize = 8;

/// CARLA 0.8's camera post-processing (the image type of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PostProcessing {
    None = 0,
    SceneFinal = 1,
    Depth = 2,
    SemanticSegmentation = 3,
}

impl PostProcessing {
    pub(crate) fn from_u32(v: u32) -> Option<PostProcessing> {
        Some(match v {
            0 => PostProcessing::None,
            1 => PostProcessing::SceneFinal,
            2 => PostProcessing::Depth,
            3 => PostProcessing::SemanticSegmentation,
            _ => return None,
        })
    }
}

/// A camera on the player: image size, horizontal FOV (degrees), post
/// processing, and its pose relative to the player's car (metres: x
/// forward, y right, z up from the car's origin on the ground; degrees).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CameraSpec {
    pub width: u32,
    pub height: u32,
    pub fov_deg: f32,
    pub post: PostProcessing,
    pub position: Vector3D,
    pub rotation: Rotation3D,
}

/// The camera's world origin and axes for a level player at `player`.
pub(crate) fn camera_pose(cam: &CameraSpec, player: &Transform) -> (Vector3D, Axes) {
    let body = Axes::from_rotation(&player.rotation);
    let axes = Axes::from_rotation(&cam.rotation).within(&body);
    (add(player.location, body.to_world(cam.position)), axes)
}

/// CARLA's 24-bit depth of `metres`, as BGRA bytes.
pub(crate) fn depth_bgra(metres: f32) -> [u8; 4] {
    let n = ((metres / FAR_M).clamp(0.0, 1.0) as f64 * 16_777_215.0).round() as u32;
    [(n >> 16) as u8, (n >> 8) as u8, n as u8, 255]
}

/// Inverse of [`depth_bgra`] (what a client computes), metres.
#[cfg(test)]
pub(crate) fn decode_depth(bgra: &[u8]) -> f32 {
    let (b, g, r) = (bgra[0] as f64, bgra[1] as f64, bgra[2] as f64);
    ((r + g * 256.0 + b * 65536.0) / 16_777_215.0 * FAR_M as f64) as f32
}

/// Worker threads used for an image: the available cores (at most 8).
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

/// Renders `cam` on the player at `player` into `out` (`w · h · 4` bytes).
/// Panics if `out` has another length.
pub(crate) fn render(scene: &Scene, cam: &CameraSpec, player: &Transform, out: &mut [u8]) {
    render_with(scene, cam, player, out, true);
}

/// [`render`], with or without the [`Horizon`] acceleration (the slow
/// way is the reference for the tests).
pub(super) fn render_with(
    scene: &Scene,
    cam: &CameraSpec,
    player: &Transform,
    out: &mut [u8],
    fast: bool,
) {
    let (w, h) = (cam.width as usize, cam.height as usize);
    assert_eq!(out.len(), w * h * 4, "camera buffer size");
    if w == 0 || h == 0 {
        return;
    }
    let (origin, axes) = camera_pose(cam, player);
    // A camera inside a car (the player's, typically) sees out of it.
    let ignore = scene.actor_containing(origin);
    let horizon = fast.then(|| Horizon::new(scene, origin, ignore));
    let tan = (cam.fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
    let view = View {
        scene,
        horizon,
        origin,
        ignore,
        axes,
        post: cam.post,
        tan,
        tan_v: tan * h as f32 / w as f32,
        step: 2.0 * tan / w as f32,
    };
    let queue = Mutex::new(out.chunks_mut(w * 4 * BAND).enumerate());
    let work = || loop {
        let Some((band, rows)) = queue.lock().next() else {
            return;
        };
        for (k, row) in rows.chunks_exact_mut(w * 4).enumerate() {
            view.row(band * BAND + k, row);
        }
    };
    let extra = threads().min(h.div_ceil(BAND)) - 1;
    std::thread::scope(|s| {
        for _ in 0..extra {
            s.spawn(work);
        }
        work();
    });
}

struct View<'a> {
    scene: &'a Scene,
    horizon: Option<Horizon>,
    origin: Vector3D,
    ignore: u32,
    axes: Axes,
    post: PostProcessing,
    tan: f32,
    tan_v: f32,
    step: f32,
}

impl View<'_> {
    fn row(&self, v: usize, out: &mut [u8]) {
        let a = &self.axes;
        let b = (v as f32 + 0.5) * self.step - self.tan_v;
        let base = sub(a.forward, add(scale(a.up, b), scale(a.right, self.tan)));
        let dr = scale(a.right, self.step);
        for (u, px) in out.chunks_exact_mut(4).enumerate() {
            let d = add(base, scale(dr, u as f32 + 0.5));
            let start = self.horizon.as_ref().map_or(0.0, |z| z.start(d));
            let hit = self.scene.cast(self.origin, d, start, FAR_M, self.ignore);
            let value = match self.post {
                PostProcessing::Depth => depth_bgra(hit.map_or(FAR_M, |h| h.distance)),
                PostProcessing::SemanticSegmentation => {
                    [0, 0, hit.map_or(0, |h| h.semantic_tag), 255]
                }
                PostProcessing::None | PostProcessing::SceneFinal => shade(hit.as_ref(), d),
            };
            px.copy_from_slice(&value);
        }
    }
}

/// Unit vector towards the sun.
const SUN: Vector3D = Vector3D {
    x: -0.4206,
    y: -0.2804,
    z: 0.8629,
};
const HORIZON: [f32; 3] = [205.0, 215.0, 225.0];
const ZENITH: [f32; 3] = [95.0, 140.0, 205.0];

/// `floor` for |x| < 2³¹ without a libm call (baseline x86-64 has no
/// rounding instruction).
fn floor(x: f32) -> f32 {
    let t = x as i32 as f32;
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `x mod k` in [0, k) for k > 0.
fn wrap(x: f32, k: f32) -> f32 {
    x - floor(x / k) * k
}

/// A cheap hash of a lattice point, in [0, 1).
fn hash(x: f32, y: f32) -> f32 {
    let (a, b) = (floor(x) as i32 as u32, floor(y) as i32 as u32);
    let mut h = a.wrapping_mul(0x9E37_79B1) ^ b.wrapping_mul(0x85EB_CA77);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    (h >> 8) as f32 / (1u32 << 24) as f32
}

/// Surface detail: windows on facades, paving and asphalt grain.
fn detail(hit: &Hit) -> f32 {
    let p = hit.point;
    match hit.semantic_tag {
        tag::BUILDINGS if hit.normal.z == 0.0 => {
            let along = if hit.normal.x != 0.0 { p.y } else { p.x };
            let (wa, wz) = (wrap(along, 3.0), wrap(p.z, 3.2));
            if p.z > 1.0 && (0.8..2.2).contains(&wa) && (1.0..2.3).contains(&wz) {
                0.45
            } else {
                1.0
            }
        }
        tag::SIDEWALKS => {
            if wrap(p.x, 1.0) < 0.04 || wrap(p.y, 1.0) < 0.04 {
                0.8
            } else {
                0.95 + 0.1 * hash(p.x, p.y)
            }
        }
        tag::ROADS | tag::VEGETATION if hit.normal.z > 0.5 => {
            0.95 + 0.08 * hash(p.x * 3.0, p.y * 3.0)
        }
        _ => 1.0,
    }
}

fn shade(hit: Option<&Hit>, d: Vector3D) -> [u8; 4] {
    let len = length(d);
    let Some(hit) = hit else {
        let k = (d.z / len).clamp(0.0, 1.0).sqrt();
        let c: [f32; 3] = std::array::from_fn(|i| HORIZON[i] + (ZENITH[i] - HORIZON[i]) * k);
        return [c[2] as u8, c[1] as u8, c[0] as u8, 255];
    };
    let light = (0.42 + 0.08 * hit.normal.z + 0.62 * dot(hit.normal, SUN).max(0.0)) * detail(hit);
    // Aerial perspective: x/(1+x) approximates 1 − e^(−x), x = distance / 700 m.
    let x = hit.distance * len * (1.0 / 700.0);
    let fog = x / (1.0 + x);
    let c: [f32; 3] = std::array::from_fn(|i| {
        let lit = (hit.albedo[i] as f32 * light).min(255.0);
        lit + (HORIZON[i] - lit) * fog
    });
    [c[2] as u8, c[1] as u8, c[0] as u8, 255]
}

/// The ray through pixel `(u, v)`, for the tests.
#[cfg(test)]
pub(crate) fn pixel_ray(
    cam: &CameraSpec,
    player: &Transform,
    u: f32,
    v: f32,
) -> (Vector3D, Vector3D) {
    let (o, a) = camera_pose(cam, player);
    let tan = (cam.fov_deg.to_radians() / 2.0).tan();
    let (w, h) = (cam.width as f32, cam.height as f32);
    let x = (2.0 * (u + 0.5) / w - 1.0) * tan;
    let y = (2.0 * (v + 0.5) / h - 1.0) * tan * h / w;
    (o, sub(add(a.forward, scale(a.right, x)), scale(a.up, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_encoding_round_trips() {
        for m in [0.0, 0.5, 20.0, 123.456, 999.0] {
            assert!((decode_depth(&depth_bgra(m)) - m).abs() < 1e-3, "{m}");
        }
        assert_eq!(depth_bgra(2000.0), [255, 255, 255, 255]);
        // 1000 m · 65536/16777215 ≈ 3.9 m: exactly the B byte's unit.
        assert_eq!(depth_bgra(FAR_M * 65536.0 / 16_777_215.0), [1, 0, 0, 255]);
    }
}
