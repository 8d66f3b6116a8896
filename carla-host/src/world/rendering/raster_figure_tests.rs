//! Walkers drawn as figures on their skeletons: what the rasterizer draws
//! of them is what rays hit, and it has a person's outline.

use super::tests::gbuffer;
use super::*;
use crate::world::rendering::render::{pixel_ray, CameraSpec, PostProcessing};
use crate::world::scene::tags::tag;
use crate::world::scene::{Material, Statics};
use crate::world::simulation::figure::figure;
use crate::world::simulation::pedestrians::Walker;
use crate::world::simulation::vehicle::pose_transform;
use carla_server::types::{Rotation3D, Transform};

const W: u32 = 400;
const H: u32 = 300;

/// Open ground with `walkers` standing on it.
fn field(walkers: &[Walker]) -> Scene {
    let mut scene = Scene::of(Statics {
        ground: Material {
            tag: tag::TERRAIN,
            albedo: [80, 128, 56],
            solid: false,
        },
        bounds: ((-50.0, -50.0), (50.0, 50.0)),
        ..Default::default()
    });
    let mut parts = Vec::new();
    let actors: Vec<_> = walkers.iter().map(|w| figure(w, &mut parts)).collect();
    scene.set_actors(&actors, &parts);
    scene
}

/// A camera at eye height `metres` ahead of the origin, looking back at it.
fn facing(metres: f32) -> (CameraSpec, Transform) {
    let c = CameraSpec {
        width: W,
        height: H,
        fov_deg: 90.0,
        post: PostProcessing::SceneFinal,
        position: v3(0.0, 0.0, 1.0),
        rotation: Rotation3D::default(),
    };
    (
        c,
        pose_transform(metres, 0.0, 0.0, std::f32::consts::PI, 0.0, 0.0),
    )
}

fn walking(id: u32, x: f32, y: f32, yaw: f32, seconds: f32) -> Walker {
    let mut w = Walker::standing(id, x, y, 0.0, yaw);
    for _ in 0..(seconds * 30.0) as usize {
        w.skeleton.advance(1.4, 1.0 / 30.0);
    }
    w
}

#[test]
fn walkers_are_drawn_where_rays_hit_their_figures() {
    let side = walking(21, 0.0, 0.0, std::f32::consts::FRAC_PI_2, 0.4);
    let facing_us = walking(22, -1.5, 1.2, 0.0, 0.9);
    let scene = field(&[side, facing_us]);
    let (c, base) = facing(6.0);
    let g = gbuffer(&scene, &c, &base);
    let (mut same, mut near, mut people) = (0, 0, 0);
    for v in 0..H as usize {
        for u in 0..W as usize {
            let (o, d) = pixel_ray(&c, &base, u as f32, v as f32);
            let hit = scene.raycast(o, d, FAR_M);
            let brute = scene.raycast_brute(o, d, FAR_M);
            assert_eq!(hit.map(|h| h.actor_id), brute.map(|h| h.actor_id));
            let i = v * W as usize + u;
            let want = hit.map_or((tag::SKY, 0), |h| (h.semantic_tag, h.actor_id));
            same += usize::from((g.tags()[i], g.actors()[i]) == want);
            near += usize::from(hit.is_none_or(|h| (g.depth()[i] - h.distance).abs() < 0.02));
            people += usize::from(g.actors()[i] != 0);
        }
    }
    let n = (W * H) as usize;
    assert!(people > 600, "{people} pixels of walkers");
    // Only edge pixels may differ.
    assert!(n - same < people / 25, "{} of {n} differ", n - same);
    assert!(n - near < people / 25, "{} of {n} off in depth", n - near);
}

/// Pixels of actor `id` in each row, and its top row and height.
fn rows_of(g: &GBuffer, id: u32) -> (Vec<usize>, usize, f32) {
    let rows: Vec<usize> = (0..H as usize)
        .map(|v| {
            let row = &g.actors()[v * W as usize..(v + 1) * W as usize];
            row.iter().filter(|&&a| a == id).count()
        })
        .collect();
    let top = rows.iter().position(|&n| n > 0).expect("drawn");
    let bottom = rows.iter().rposition(|&n| n > 0).unwrap();
    (rows, top, (bottom - top + 1) as f32)
}

#[test]
fn a_walker_has_a_persons_outline() {
    // Facing the camera, 4 m away.
    let scene = field(&[walking(30, 0.0, 0.0, 0.0, 0.35)]);
    let (c, base) = facing(4.0);
    let (rows, top, tall) = rows_of(&gbuffer(&scene, &c, &base), 30);
    // 1.8 m at 4 m through a 90° lens 400 px wide: 90 px (the nearer
    // feet and head a little more).
    assert!((84.0..=100.0).contains(&tall), "{tall} px tall");
    let at = |share: f32| rows[top + (tall * share) as usize];
    let (head, shoulders, knees) = (at(0.06), at(0.22), at(0.78));
    assert!(
        head * 2 < shoulders,
        "head {head} px, shoulders {shoulders} px"
    );
    assert!(knees < shoulders, "knees {knees}, shoulders {shoulders}");
    // Walking across the view in mid-stride: the legs apart.
    let scene = field(&[walking(31, 0.0, 0.0, std::f32::consts::FRAC_PI_2, 0.35)]);
    let g = gbuffer(&scene, &c, &base);
    let (_, top, tall) = rows_of(&g, 31);
    let knees = &g.actors()[(top + (tall * 0.8) as usize) * W as usize..][..W as usize];
    let runs = knees
        .windows(2)
        .filter(|p| p[0] != 31 && p[1] == 31)
        .count();
    assert_eq!(runs, 2, "two legs at knee height");
}
