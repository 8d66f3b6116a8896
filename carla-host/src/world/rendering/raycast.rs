//! The ray-cast camera: one ray per pixel through the scene's grid, on all
//! cores (row bands handed out from a shared queue, `std::thread::scope`).
//! It was the demo world's camera before the rasterizer ([`super::raster`])
//! and stays as its reference (tests) and baseline (`--bench-render`).

use super::light::Lighting;
use super::render::{camera_pose, depth_bgra, CameraPose, CameraSpec, PostProcessing, FAR_M};
use super::shade;
use super::shadow::SunMap;
use crate::world::math::{add, length, scale, sub, Axes};
use crate::world::scene::tags::tag_08;
use crate::world::scene::{Hit, Scene};
use crate::world::workers::threads;
use carla_server::types::{Transform, Vector3D};
use parking_lot::Mutex;

/// Rows per work item.
const BAND: usize = 8;

/// Renders `cam` on the player at `player` into `out` (`w · h · 4` BGRA
/// bytes, the encodings of [`super::render`]) by ray casting. Panics if
/// `out` has another length.
pub(crate) fn render(scene: &Scene, cam: &CameraSpec, player: &Transform, out: &mut [u8]) {
    let (w, h) = (cam.width as usize, cam.height as usize);
    assert_eq!(out.len(), w * h * 4, "camera buffer size");
    if w == 0 || h == 0 {
        return;
    }
    let (origin, axes) = camera_pose(cam, player);
    // A camera inside a car (the player's, typically) sees out of it.
    let ignore = scene.actor_containing(origin);
    let tan = (cam.fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
    let light = Lighting::of(scene.weather());
    // The sun's shadows: the rasterizer's depth map of the sun's view.
    let mut sun = SunMap::default();
    if matches!(cam.post, PostProcessing::None | PostProcessing::SceneFinal) {
        let pose = CameraPose { origin, axes };
        super::raster::sun_map(scene, &pose, &light, &mut sun);
    }
    let view = View {
        scene,
        light,
        sun: &sun,
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
    light: Lighting,
    sun: &'a SunMap,
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
            let hit = self
                .scene
                .raycast_ignoring(self.origin, d, FAR_M, self.ignore);
            let value = match self.post {
                PostProcessing::Depth => depth_bgra(hit.map_or(FAR_M, |h| h.distance)),
                PostProcessing::SemanticSegmentation => {
                    [0, 0, hit.map_or(0, |h| tag_08(h.semantic_tag)), 255]
                }
                PostProcessing::None | PostProcessing::SceneFinal => {
                    shade_hit(self.scene, hit.as_ref(), d, (&self.light, self.sun))
                }
            };
            px.copy_from_slice(&value);
        }
    }
}

fn shade_hit(
    scene: &Scene,
    hit: Option<&Hit>,
    d: Vector3D,
    (light, sun): (&Lighting, &SunMap),
) -> [u8; 4] {
    let len = length(d);
    let Some(h) = hit else {
        return shade::sky(d, len, light);
    };
    let cos = light.sun_cos(h.normal);
    let lit = if cos > 0.0 && sun.is_on() {
        sun.sunlit(h.point, SunMap::bias(cos))
    } else {
        1.0
    };
    let (p, n) = (h.point, h.normal);
    let lamp = if light.night > 0.0 {
        shade::lamp_light(p, n, scene.lamps_near(p.x, p.y))
    } else {
        0.0
    };
    let metres = h.distance * len;
    shade::surface((p, n), h.semantic_tag, h.albedo, metres, light, (lit, lamp))
}
