//! The rasterizer against the ray caster (per pixel: what the ray through
//! its centre hits), and the G-buffer outputs of known scenes.

use super::*;
use crate::world::math::Rect;
use crate::world::rendering::gbuffer::Output;
use crate::world::rendering::render::{pixel_ray, CameraSpec, PostProcessing};
use crate::world::scene::surface::{mat, materials};
use crate::world::scene::tags::tag;
use crate::world::scene::{ActorBox, Material, StaticBox, Statics, Tri, NO_LIGHT};
use crate::world::simulation::vehicle::pose_transform;
use crate::world::testing;
use carla_server::rpc::DEFAULT_WEATHER;
use carla_server::types::{Control, Rotation3D, Transform, Vector3D};

fn ground_transform(x: f32, y: f32, yaw_deg: f32) -> Transform {
    pose_transform(x, y, 0.0, yaw_deg.to_radians(), 0.0, 0.0)
}

/// A quad `a b c d` (in order round it) as two triangles.
fn quad(a: Vector3D, b: Vector3D, c: Vector3D, d: Vector3D, m: u16, out: &mut Vec<Tri>) {
    out.extend(Tri::new(a, b, c, m));
    out.extend(Tri::new(a, c, d, m));
}

/// A street along x (0 to 60): asphalt for |y| < 3.5, a centre line, a
/// sidewalk raised 0.15 m for 3.5 < y < 6.5; grass (the ground plane)
/// beyond; and `boxes`.
fn street(boxes: Vec<StaticBox>) -> Scene {
    Scene::of(street_statics(boxes))
}

/// What [`street`] is made of.
fn street_statics(boxes: Vec<StaticBox>) -> Statics {
    let mut tris = Vec::new();
    let p = |x, y, z| v3(x, y, z);
    let strip = |y0: f32, y1: f32, z: f32, m: u16, out: &mut Vec<Tri>| {
        quad(
            p(0.0, y0, z),
            p(60.0, y0, z),
            p(60.0, y1, z),
            p(0.0, y1, z),
            m,
            out,
        )
    };
    strip(-3.5, 3.5, 0.0, mat::ROAD, &mut tris);
    strip(-0.08, 0.08, 0.02, mat::MARK_WHITE, &mut tris);
    strip(3.5, 6.5, 0.15, mat::SIDEWALK, &mut tris);
    Statics {
        lamps: Vec::new(),
        boxes,
        tris,
        materials: materials(),
        ground_z: -0.05,
        ground: Material {
            tag: tag::TERRAIN,
            albedo: [80, 128, 56],
            solid: false,
        },
        bounds: ((-100.0, -100.0), (160.0, 100.0)),
    }
}

fn boxes_only(boxes: Vec<StaticBox>) -> Scene {
    Scene::of(Statics {
        lamps: Vec::new(),
        boxes,
        ground: Material {
            tag: tag::TERRAIN,
            albedo: [80, 128, 56],
            solid: false,
        },
        bounds: ((-100.0, -100.0), (160.0, 100.0)),
        ..Default::default()
    })
}

fn cam(x: f32, y: f32, z: f32, pitch: f32, yaw: f32, roll: f32) -> CameraSpec {
    CameraSpec {
        width: 160,
        height: 120,
        fov_deg: 90.0,
        post: PostProcessing::SceneFinal,
        position: v3(x, y, z),
        rotation: Rotation3D { pitch, yaw, roll },
    }
}

/// The G-buffer of camera `c` on a level player at `base`.
pub(super) fn gbuffer(scene: &Scene, c: &CameraSpec, base: &Transform) -> GBuffer {
    let mut g = GBuffer::new();
    let pose = CameraPose::on_player(c, base);
    let lens = Lens {
        width: c.width,
        height: c.height,
        fov_deg: c.fov_deg,
    };
    rasterize(scene, &pose, &lens, &mut g);
    g
}

/// Share of pixels whose tag, actor id and depth agree with a ray cast
/// through the pixel centre; (tags and ids, depth, actor pixels).
fn agreement(scene: &Scene, c: &CameraSpec, base: &Transform) -> (f64, f64, usize) {
    let g = gbuffer(scene, c, base);
    let (w, h) = (c.width as usize, c.height as usize);
    let (mut same_tag, mut same_depth, mut actors) = (0, 0, 0);
    for v in 0..h {
        for u in 0..w {
            let (o, d) = pixel_ray(c, base, u as f32, v as f32);
            let ignore = scene.actor_containing(o);
            let hit = scene.raycast_ignoring(o, d, FAR_M, ignore);
            let i = v * w + u;
            let (t, id, z) = (g.tags()[i], g.actors()[i], g.depth()[i]);
            let want = hit.map_or((tag::SKY, 0), |h| (h.semantic_tag, h.actor_id));
            same_tag += ((t, id) == want) as usize;
            let near = match hit {
                Some(h) => (z - h.distance).abs() <= (0.01 * h.distance).max(0.05),
                None => z == f32::INFINITY && t == tag::SKY,
            };
            same_depth += near as usize;
            actors += (id != 0) as usize;
        }
    }
    let n = (w * h) as f64;
    (same_tag as f64 / n, same_depth as f64 / n, actors)
}

#[test]
fn the_rasterizer_sees_what_the_ray_caster_sees_round_the_town() {
    let mut w = testing::world(40, 40, 9, 17);
    for _ in 0..60 {
        w.step(&Control::default(), 1.0 / 30.0);
    }
    let player = w.player_transform();
    let near_vehicle = {
        let v = &w.traffic()[0];
        let (x, y) = v.rect().point(-9.0, 0.5);
        pose_transform(x, y, v.pose.z, v.pose.yaw, 0.0, 0.0)
    };
    let building = {
        let b = w
            .scene()
            .static_bounds()
            .iter()
            .find(|b| b[5] - b[2] > 8.0)
            .copied()
            .expect("a building");
        ground_transform(b[0] - 12.0, (b[1] + b[4]) / 2.0 + 3.0, 0.0)
    };
    let views = [
        (
            "street, from the player's car",
            player,
            cam(0.3, 0.0, 1.3, 0.0, 0.0, 0.0),
        ),
        (
            "street, looking back over the car",
            player,
            cam(-6.0, 0.0, 3.0, -15.0, 180.0, 0.0),
        ),
        (
            "junction",
            ground_transform(120.0, 118.0, 45.0),
            cam(0.0, 0.0, 1.6, 0.0, 0.0, 0.0),
        ),
        (
            "next to a building",
            building,
            cam(0.0, 0.0, 1.7, 10.0, 0.0, 0.0),
        ),
        (
            "looking at traffic",
            near_vehicle,
            cam(0.0, 0.0, 1.5, -5.0, 0.0, 0.0),
        ),
        (
            "rolled and pitched",
            player,
            cam(0.0, 0.5, 1.4, 5.0, 90.0, 20.0),
        ),
        ("from above", player, cam(0.0, 0.0, 60.0, -60.0, 30.0, 0.0)),
    ];
    let mut seen_actors = 0;
    for (name, base, c) in views {
        let (tags, depth, actors) = agreement(w.scene(), &c, &base);
        assert!(tags >= 0.99, "{name}: tags and ids agree on {tags}");
        assert!(depth >= 0.99, "{name}: depths agree on {depth}");
        seen_actors += actors;
        if name == "looking at traffic" {
            assert!(actors > 200, "{name}: {actors} vehicle pixels");
        }
    }
    assert!(seen_actors > 1000, "{seen_actors}");
}

#[test]
fn colours_match_the_ray_caster_to_a_few_levels() {
    let mut w = testing::world(5, 15, 123_456_789, 3);
    w.step(&Control::default(), 0.5);
    let c = cam(0.3, 0.0, 1.3, 0.0, 0.0, 0.0);
    let player = w.player_transform();
    // ClearNoon; a wet, foggy evening with puddles (CARLA's order:
    // clouds, rain, puddles, wind, azimuth, altitude, fog density,
    // distance, falloff, wetness, ...); night.
    let mut rainy = DEFAULT_WEATHER;
    rainy[..10].copy_from_slice(&[60.0, 40.0, 80.0, 30.0, 120.0, 12.0, 40.0, 10.0, 0.5, 80.0]);
    let mut night = DEFAULT_WEATHER;
    night[5] = -90.0;
    let mut means = Vec::new();
    for weather in [DEFAULT_WEATHER, rainy, night] {
        w.set_weather(weather);
        let g = gbuffer(w.scene(), &c, &player);
        let (mut ours, mut reference) = (vec![0; 160 * 120 * 4], vec![0; 160 * 120 * 4]);
        g.write(Output::Rgb, &mut ours);
        crate::world::rendering::raycast::render(w.scene(), &c, &player, &mut reference);
        let close = ours
            .chunks(4)
            .zip(reference.chunks(4))
            .filter(|(a, b)| a.iter().zip(b.iter()).all(|(x, y)| x.abs_diff(*y) <= 2))
            .count();
        assert!(
            close as f64 >= 0.98 * 160.0 * 120.0,
            "{weather:?}: {close} close pixels"
        );
        let distinct: std::collections::HashSet<&[u8]> = ours.chunks(4).collect();
        assert!(distinct.len() > 100, "a shaded picture: {weather:?}");
        let rgb = ours.chunks(4).flat_map(|p| &p[..3]);
        means.push(rgb.map(|&b| f64::from(b)).sum::<f64>() / (160.0 * 120.0 * 3.0));
    }
    // Noon is brighter than the rainy evening, which is brighter than night.
    assert!(
        means[0] > means[1] && means[1] > 2.0 * means[2],
        "{means:?}"
    );
}

#[test]
fn a_camera_turned_to_the_sun_sees_its_disc_as_the_ray_caster_does() {
    let w = testing::world(0, 0, 1, 3);
    let l = crate::world::rendering::light::Lighting::of(w.scene().weather());
    // ClearNoon: azimuth -1°, altitude 45°; a 10° camera 100 m up, on it.
    let c = CameraSpec {
        width: 41,
        height: 41,
        fov_deg: 10.0,
        ..cam(0.0, 0.0, 100.0, 45.0, -1.0, 0.0)
    };
    let player = ground_transform(0.0, 0.0, 0.0);
    let g = gbuffer(w.scene(), &c, &player);
    let mut ours = vec![0; 41 * 41 * 4];
    g.write(Output::Rgb, &mut ours);
    let mut reference = vec![0; 41 * 41 * 4];
    crate::world::rendering::raycast::render(w.scene(), &c, &player, &mut reference);
    let centre = (20 * 41 + 20) * 4;
    let [r, g2, b] = l.disc.unwrap();
    let disc = shade::bgra(r, g2, b).to_le_bytes();
    assert_eq!(&ours[centre..centre + 4], &disc);
    assert_eq!(ours, reference);
    // A 1.5° disc on a 10° view of 41 pixels: about 6 across.
    let lit = ours.chunks(4).filter(|p| *p == disc).count();
    assert!((12..60).contains(&lit), "{lit} disc pixels");
}

#[test]
fn a_street_lamp_lights_the_road_under_it_at_night_only() {
    // A lamp 6 m up over the kerb at x = 30; a camera 12 m above the
    // road at (30, 0) looking down (image up +x, right +y).
    let mut statics = street_statics(Vec::new());
    statics.lamps = vec![v3(30.0, 4.0, 6.15)];
    let mut scene = Scene::of(statics);
    let (c, base) = looking_down();
    let shoot = |scene: &Scene| {
        let mut ours = vec![0u8; 121 * 121 * 4];
        gbuffer(scene, &c, &base).write(Output::Rgb, &mut ours);
        let mut reference = vec![0u8; 121 * 121 * 4];
        crate::world::rendering::raycast::render(scene, &c, &base, &mut reference);
        (ours, reference)
    };
    let level = |img: &[u8], u: usize, v: usize| img[(v * 121 + u) * 4 + 2];
    let mut night = DEFAULT_WEATHER;
    night[5] = -90.0;
    scene.set_weather(night);
    let (dark, reference) = shoot(&scene);
    let close = dark
        .chunks(4)
        .zip(reference.chunks(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).all(|(x, y)| x.abs_diff(*y) <= 2))
        .count();
    assert!(close as f64 >= 0.98 * 121.0 * 121.0, "{close} close pixels");
    // The road under the lamp (image centre, 7 m from the lamp) against
    // the road 11 m along it (past the lamp's reach).
    let (under, away) = (level(&dark, 60, 60), level(&dark, 60, 5));
    assert!(under > away + 15, "under the lamp {under}, away {away}");
    // By day the lamp adds nothing: the two differ by the road's grain.
    scene.set_weather(DEFAULT_WEATHER);
    let (day, _) = shoot(&scene);
    let (under, away) = (level(&day, 60, 60), level(&day, 60, 5));
    assert!(under.abs_diff(away) < 15, "by day {under} {away}");
}

fn lone_car(id: u32) -> ActorBox {
    ActorBox {
        id,
        rect: Rect::new(25.0, 1.75, 0.3, 2.2, 1.0),
        z0: 0.0,
        z1: 1.5,
        tag: tag::VEHICLES,
        albedo: [200, 30, 30],
        window_z: 0.9,
        parts: (0, 0),
    }
}

fn building() -> StaticBox {
    StaticBox {
        min: v3(33.0, -20.0, 0.0),
        max: v3(40.0, -8.0, 8.0),
        tag: tag::BUILDINGS,
        albedo: [150, 150, 150],
        light: NO_LIGHT,
        actor: 0,
    }
}

/// A camera 12 m above (30, 0) looking straight down: image up is +x,
/// image right +y.
fn looking_down() -> (CameraSpec, Transform) {
    let c = CameraSpec {
        width: 121,
        height: 121,
        ..cam(0.0, 0.0, 12.0, -90.0, 0.0, 0.0)
    };
    (c, ground_transform(30.0, 0.0, 0.0))
}

/// The pixel whose ray meets the ground nearest `(x, y)`.
fn pixel_over(c: &CameraSpec, base: &Transform, x: f32, y: f32) -> usize {
    let mut best = (f32::INFINITY, 0);
    for v in 0..c.height {
        for u in 0..c.width {
            let (o, d) = pixel_ray(c, base, u as f32, v as f32);
            let t = (0.05 - o.z) / d.z;
            let e = (o.x + d.x * t - x).hypot(o.y + d.y * t - y);
            if e < best.0 {
                best = (e, (v * c.width + u) as usize);
            }
        }
    }
    best.1
}

#[test]
fn outputs_name_roads_sidewalks_terrain_buildings_cars_and_sky_in_0_9_16() {
    let mut scene = street(vec![building()]);
    scene.set_actors(&[lone_car(0x0102)], &[]);
    let (c, base) = looking_down();
    let g = gbuffer(&scene, &c, &base);
    let mut semantic = vec![0; 121 * 121 * 4];
    let mut instance = vec![0; 121 * 121 * 4];
    g.write(Output::Semantic0916, &mut semantic);
    g.write(Output::Instance0916, &mut instance);
    let px = |img: &[u8], i: usize| [img[4 * i], img[4 * i + 1], img[4 * i + 2], img[4 * i + 3]];
    let at = |x, y| pixel_over(&c, &base, x, y);
    assert_eq!(px(&semantic, at(37.5, 1.75)), [0, 0, 1, 255], "road");
    assert_eq!(px(&semantic, at(37.5, 0.0)), [0, 0, 24, 255], "centre line");
    assert_eq!(px(&semantic, at(30.0, 5.0)), [0, 0, 2, 255], "sidewalk");
    assert_eq!(
        px(&semantic, at(25.0, 9.0)),
        [0, 0, 10, 255],
        "grass: terrain"
    );
    assert_eq!(
        px(&semantic, at(37.0, -12.0)),
        [0, 0, 3, 255],
        "building roof"
    );
    assert_eq!(px(&semantic, at(25.0, 1.75)), [0, 0, 14, 255], "car roof");
    // Instance: the 0.9.16 tag, then the id's low and second byte.
    assert_eq!(px(&instance, at(25.0, 1.75)), [0x01, 0x02, 14, 255]);
    assert_eq!(px(&instance, at(37.5, 1.75)), [0, 0, 1, 255]);
    assert_eq!(g.actors()[at(25.0, 1.75)], 0x0102);
    // The roof is 12 − 1.5 m below the camera.
    assert!((g.depth()[at(25.0, 1.75)] - 10.5).abs() < 1e-3);
    // Looking along the street: the sky is class 11; the 0.8 image calls
    // it 0 and the grass vegetation (9).
    let c = cam(0.0, 0.0, 1.5, 0.0, 0.0, 0.0);
    let g = gbuffer(&scene, &c, &ground_transform(15.0, 30.0, 0.0));
    let mut img = vec![0; 160 * 120 * 4];
    g.write(Output::Semantic0916, &mut img);
    assert_eq!(px(&img, 80), [0, 0, 11, 255], "sky");
    g.write_08(PostProcessing::SemanticSegmentation, &mut img);
    assert_eq!(px(&img, 80), [0, 0, 0, 255]);
    assert_eq!(px(&img, 160 * 119 + 80), [0, 0, 9, 255], "grass in 0.8");
}

#[test]
fn a_camera_inside_a_car_sees_out_of_it() {
    let mut scene = boxes_only(vec![]);
    scene.set_actors(&[lone_car(7)], &[]);
    let inside = cam(0.0, 0.0, 1.2, -30.0, 0.0, 0.0);
    let g = gbuffer(&scene, &inside, &ground_transform(25.0, 1.75, 17.0));
    assert!(g.actors().iter().all(|&id| id == 0));
    assert!(g.tags().iter().all(|&t| t != tag::VEHICLES));
    // From outside, the same car fills the view ahead.
    let outside = cam(-8.0, 0.0, 1.2, 0.0, 0.0, 0.0);
    let g = gbuffer(&scene, &outside, &ground_transform(25.0, 1.75, 17.0));
    assert_eq!(g.actors()[60 * 160 + 80], 7);
    assert_eq!(g.tags()[60 * 160 + 80], tag::VEHICLES);
}

#[test]
fn cameras_on_other_actors_do_not_see_their_carrier() {
    let mut w = testing::world(5, 15, 123_456_789, 0);
    w.step(&Control::default(), 0.1);
    let v = &w.traffic()[2];
    let (id, x, y, yaw) = (v.id, v.pose.x, v.pose.y, v.pose.yaw.to_degrees());
    let z = v.pose.z;
    let rot = Rotation3D {
        pitch: -20.0,
        yaw: yaw + 180.0,
        roll: 0.0,
    };
    let pose = CameraPose::new(v3(x, y, z + 1.0), &rot);
    let mut g = GBuffer::new();
    w.render_gbuffer(&pose, 64, 48, 90.0, &mut g);
    assert!(!g.actors().contains(&id));
    // Just outside its rear, looking at it: it fills the middle.
    let yaw_rad = yaw.to_radians();
    let back = v3(x - 4.0 * yaw_rad.cos(), y - 4.0 * yaw_rad.sin(), z + 1.0);
    let rot = Rotation3D {
        pitch: 0.0,
        yaw,
        roll: 0.0,
    };
    w.render_gbuffer(&CameraPose::new(back, &rot), 64, 48, 90.0, &mut g);
    assert_eq!(g.actors()[24 * 64 + 32], id);
}

#[test]
fn the_outputs_are_deterministic_and_the_0_8_render_is_the_gbuffers() {
    let mut w = testing::world(5, 15, 123_456_789, 5);
    w.step(&Control::default(), 0.2);
    let spec = CameraSpec {
        post: PostProcessing::Depth,
        ..cam(0.3, 0.0, 1.3, 0.0, 0.0, 0.0)
    };
    let pose = CameraPose::on_player(&spec, &w.player_transform());
    let outputs = [
        Output::Rgb,
        Output::Depth,
        Output::Semantic08,
        Output::Semantic0916,
        Output::Instance0916,
    ];
    let image = |o: Output| {
        let mut g = GBuffer::new();
        w.render_gbuffer(&pose, 160, 120, 90.0, &mut g);
        let mut out = vec![0; 160 * 120 * 4];
        g.write(o, &mut out);
        out
    };
    for o in outputs {
        assert_eq!(image(o), image(o), "{o:?}");
    }
    let mut old = vec![0; 160 * 120 * 4];
    w.render(&spec, &mut old, &mut GBuffer::new());
    assert_eq!(old, image(Output::Depth));
}

#[test]
fn a_render_of_some_planes_writes_their_outputs_as_a_full_one() {
    use crate::world::rendering::gbuffer::Channels;
    let mut w = testing::world(5, 15, 123_456_789, 5);
    w.step(&Control::default(), 0.2);
    let spec = cam(0.3, 0.0, 1.3, 0.0, 0.0, 0.0);
    let pose = CameraPose::on_player(&spec, &w.player_transform());
    let (wd, ht) = (160, 120);
    let outputs = [
        Output::Rgb,
        Output::Depth,
        Output::Semantic08,
        Output::Semantic0916,
        Output::Instance0916,
        Output::Normals,
        Output::Cosmos,
        Output::Stencil,
        Output::CustomDepth,
        Output::CustomStencil,
    ];
    let mut full = GBuffer::new();
    w.render_gbuffer(&pose, wd, ht, 90.0, &mut full);
    let mut g = GBuffer::new();
    let (mut want, mut got) = (vec![0; 160 * 120 * 4], vec![0; 160 * 120 * 4]);
    for o in outputs {
        // A G-buffer that last held every plane of another view: what is
        // not asked for keeps that view's leftovers.
        g.fill_only(Channels::ALL);
        w.render_gbuffer(
            &CameraPose::new(v3(0.0, 0.0, 50.0), &Rotation3D::default()),
            wd,
            ht,
            60.0,
            &mut g,
        );
        g.fill_only(Channels::of(o));
        w.render_gbuffer(&pose, wd, ht, 90.0, &mut g);
        full.write(o, &mut want);
        g.write(o, &mut got);
        assert!(want == got, "{o:?} differs when rendered alone");
    }
    // The tags alone do not shade: the colour plane is the other view's.
    let mut g = GBuffer::new();
    g.fill_only(Channels::of(Output::Semantic0916));
    w.render_gbuffer(&pose, wd, ht, 90.0, &mut g);
    assert!(g.colours().iter().all(|c| *c == [0; 4]), "nothing shaded");
    let write_rgb = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        g.write(Output::Rgb, &mut got);
    }));
    assert!(write_rgb.is_err(), "rgb from a G-buffer of tags refused");
}

#[test]
fn a_triangle_left_out_before_projection_covers_no_pixel_centre() {
    use crate::world::math::{Axes, Rng};
    let (w, h) = (800usize, 600usize);
    let tan = 1.0f32;
    let view = View {
        light: Default::default(),
        far: FAR_M,
        o: v3(0.0, 0.0, 0.0),
        axes: Axes {
            forward: v3(1.0, 0.0, 0.0),
            right: v3(0.0, 1.0, 0.0),
            up: v3(0.0, 0.0, 1.0),
        },
        width: w,
        height: h,
        tan,
        tan_v: tan * h as f32 / w as f32,
        step: 2.0 * tan / w as f32,
    };
    let mut rng = Rng::new(7);
    let (mut left_out, mut drawn_small) = (0, 0);
    for _ in 0..200_000 {
        // Small triangles at any distance, in and round the view: the
        // case the early test is for, where it must err towards drawing.
        let depth = rng.range(0.01, 900.0);
        let c = v3(
            depth,
            rng.range(-1.2, 1.2) * depth,
            rng.range(-0.9, 0.9) * depth,
        );
        let size = depth * rng.range(0.0, 0.01);
        let q: [Vector3D; 3] = std::array::from_fn(|_| {
            let d = v3(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            v3(c.x + d.x * size, c.y + d.y * size, c.z + d.z * size)
        });
        let covered = view.project(&q, (1.0, 0.0, 0.0)).is_some_and(|f| {
            let mut spans = [(0, 0); BAND];
            (f.v0..=f.v1).step_by(BAND).any(|ra| {
                let rb = (ra + BAND - 1).min(f.v1);
                f.spans(ra, rb, w, &mut spans);
                spans[..=rb - ra].iter().any(|&(u0, u1)| u0 < u1)
            })
        });
        if view.between_centres(&q) {
            left_out += 1;
            assert!(!covered, "left out, yet it covers a pixel centre: {q:?}");
        } else if covered && size < depth * 0.002 {
            drawn_small += 1;
        }
    }
    assert!(
        left_out > 20_000,
        "many small triangles fall between centres: {left_out}"
    );
    assert!(
        drawn_small > 1_000,
        "small ones on a centre are drawn: {drawn_small}"
    );
}

#[test]
fn odd_poses_and_lenses_render_without_panicking() {
    let w = testing::world(5, 15, 123_456_789, 1);
    let mut g = GBuffer::new();
    let level = Rotation3D::default();
    let nan = CameraPose::new(v3(f32::NAN, 5.0, 1.0), &level);
    w.render_gbuffer(&nan, 40, 30, 90.0, &mut g);
    let below = CameraPose::new(v3(30.0, 30.0, -2.0), &level);
    w.render_gbuffer(&below, 40, 30, 90.0, &mut g);
    assert!(
        g.tags().iter().all(|&t| t != tag::TERRAIN),
        "no ground plane from below"
    );
    let inside = CameraPose::new(v3(30.0, 1.75, 0.5), &level);
    for (width, height, fov) in [(1, 1, 90.0), (3, 200, 0.0), (200, 3, 180.0), (0, 5, 90.0)] {
        w.render_gbuffer(&inside, width, height, fov, &mut g);
        assert_eq!(g.depth().len(), (width * height) as usize);
        assert!(g.depth().iter().all(|z| !z.is_nan()));
    }
}

#[test]
fn stripes_add_up_to_the_whole_image() {
    let mut w = testing::world(5, 15, 123_456_789, 2);
    w.step(&Control::default(), 0.3);
    let spec = cam(0.3, 0.0, 1.3, -5.0, 10.0, 0.0);
    let pose = CameraPose::on_player(&spec, &w.player_transform());
    let lens = Lens {
        width: 160,
        height: 120,
        fov_deg: 90.0,
    };
    let mut whole = GBuffer::new();
    rasterize(w.scene(), &pose, &lens, &mut whole);
    for output in [Output::Rgb, Output::Depth, Output::Instance0916] {
        let mut want = vec![0; 160 * 120 * 4];
        whole.write(output, &mut want);
        // 20-row stripes, and the smallest (one band: 16 rows, 8 left).
        for max_pixels in [160 * 20, 1] {
            let mut got = vec![0; 160 * 120 * 4];
            let (mut g, mut next_row) = (GBuffer::new(), 0);
            rasterize_stripes(w.scene(), &pose, &lens, max_pixels, &mut g, |g| {
                assert_eq!(g.first_row(), next_row);
                next_row += g.height();
                g.write(output, g.rows_of(&mut got));
            });
            assert_eq!(next_row, 120);
            assert!(g.depth().len() <= 160 * 20);
            assert!(got == want, "{output:?} in stripes of {max_pixels} pixels");
        }
    }
}

#[test]
fn faces_passing_right_by_the_camera_keep_their_edges() {
    // Walls beside and below the camera, reaching behind it: clipped at the
    // near plane, their faces project to huge screen coordinates.
    let tall = StaticBox {
        min: v3(-50.0, -4.0, 0.0),
        max: v3(80.0, -3.0, 60.0),
        ..building()
    };
    let wall = StaticBox {
        min: v3(-50.0, -0.52, 0.0),
        max: v3(80.0, -0.5, 6.0),
        ..building()
    };
    let step = StaticBox {
        min: v3(-3.0, -0.5, 0.0),
        max: v3(40.0, 3.0, 1.4985),
        ..building()
    };
    let views = [
        (vec![wall, step], -0.4985, (0.0, 0.0, 0.0)),
        (vec![wall, step], -0.4985, (-3.0, 2.0, 0.0)),
        (vec![wall, step], -0.4985, (8.0, -10.0, 15.0)),
        (vec![tall], 0.0, (-20.0, 25.0, 0.0)),
        (vec![tall], -2.9, (-40.0, 35.0, 5.0)),
    ];
    for (boxes, y, (yaw, pitch, roll)) in views {
        let scene = boxes_only(boxes);
        let c = CameraSpec {
            width: 800,
            height: 600,
            ..cam(0.0, 0.0, 1.5, pitch, yaw, roll)
        };
        let (tags, depth, _) = agreement(&scene, &c, &ground_transform(0.0, y, 0.0));
        // Edges a pixel off would be hundreds of pixels.
        assert!(tags >= 0.99999, "{yaw} {pitch} {roll}: {tags}");
        assert!(depth >= 0.99999, "{yaw} {pitch} {roll}: {depth}");
    }
}
