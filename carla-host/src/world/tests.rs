use super::geometry::{StaticBox, NO_LIGHT};
use super::lidar::legacy_lidar_settings;
use super::render::{decode_depth, pixel_ray, PostProcessing};
use super::rendering::{raster, raycast};
use super::town::ground_transform;
use super::*;
use carla_server::legacy::lidar_record;
use std::time::Instant;

fn config(seed: u64) -> WorldConfig {
    WorldConfig {
        vehicles: 30,
        pedestrians: 30,
        seed_vehicles: seed,
        seed_pedestrians: seed + 1,
    }
}

fn run(world: &mut World, seconds: f32, mut each: impl FnMut(&World)) {
    for _ in 0..(seconds * 30.0) as usize {
        world.step(&Control::default(), 1.0 / 30.0);
        each(world);
    }
}

#[test]
fn the_town_and_its_traffic_are_deterministic_from_the_seeds() {
    let agents = |seed, start| {
        let mut w = World::new(&config(seed), start);
        run(&mut w, 5.0, |_| {});
        let mut agents = Vec::new();
        w.measurements(0, true, &mut agents);
        agents
    };
    let a = agents(11, 2);
    assert_eq!(a, agents(11, 2));
    assert_ne!(a, agents(12, 2));
    let kinds = |k| a.iter().filter(|x| x.r#type == k).count();
    assert_eq!(kinds(CARLA_SERVER_AGENT_VEHICLE), 30);
    assert_eq!(kinds(CARLA_SERVER_AGENT_PEDESTRIAN), 30);
    assert_eq!(kinds(CARLA_SERVER_AGENT_SPEEDLIMITSIGN), 4);
    let lights = (41..=43).map(kinds).sum::<usize>();
    assert_eq!(lights, town::light_spots().len());
    assert_eq!(player_start_spots(), player_start_spots());
}

#[test]
fn the_player_starts_on_a_road_in_its_lane() {
    let spots = player_start_spots();
    assert!(spots.len() >= 10);
    for (i, s) in spots.iter().enumerate() {
        let w = World::new(&WorldConfig::default(), i);
        let m = w
            .measurements(0, false, &mut Vec::new())
            .player_measurements;
        assert_eq!(m.transform.location, s.location);
        assert!((m.transform.rotation.yaw - s.rotation.yaw).abs() < 1e-3);
        assert!(town::surface(s.location.x, s.location.y).ground.is_road());
        assert_eq!(
            (m.intersection_otherlane, m.intersection_offroad),
            (0.0, 0.0),
            "spot {i}"
        );
        let o = m.transform.orientation;
        assert!((o.x.hypot(o.y) - 1.0).abs() < 1e-6);
    }
}

#[test]
fn traffic_stays_on_roads_and_sidewalks_and_the_lights_cycle() {
    let mut w = World::new(&config(3), 0);
    let mut agents = Vec::new();
    let mut moved = 0.0;
    let mut states = std::collections::HashSet::new();
    run(&mut w, 60.0, |w| {
        w.measurements(0, true, &mut agents);
        for a in &agents {
            let p = a.transform.location;
            let g = town::surface(p.x, p.y).ground;
            match a.r#type {
                CARLA_SERVER_AGENT_VEHICLE => {
                    assert!(g.is_road(), "{a:?}");
                    moved += a.forward_speed / 30.0;
                }
                CARLA_SERVER_AGENT_PEDESTRIAN => assert_eq!(g, town::Ground::Sidewalk, "{a:?}"),
                t => {
                    states.insert(t);
                }
            }
        }
    });
    assert!(moved > 30.0 * 100.0, "vehicles drive: {moved} m in all");
    assert_eq!(states.len(), 4, "green, yellow, red and signs: {states:?}");
}

#[test]
fn vehicles_stop_at_red_lights() {
    let mut w = World::new(&config(5), 0);
    let mut stopped_at_red = 0;
    run(&mut w, 60.0, |w| {
        for v in &w.vehicles {
            let light = town::light_state(v.node(), v.dir(), w.time);
            if v.entered_junction() {
                assert_ne!(light, Light::Red, "vehicle {} ran a red light", v.id);
            }
            stopped_at_red += (v.speed == 0.0 && light == Light::Red) as u32;
        }
    });
    assert!(stopped_at_red > 100, "{stopped_at_red}");
}

#[test]
fn measurements_reuse_the_agents_buffer() {
    let mut w = World::new(&config(1), 0);
    let mut agents = Vec::new();
    w.measurements(0, true, &mut agents);
    let (ptr, cap) = (agents.as_ptr(), agents.capacity());
    for _ in 0..30 {
        w.step(&Control::default(), 0.05);
        let m = w.measurements(77, true, &mut agents);
        assert_eq!((m.platform_timestamp, m.frame_number), (77, w.frame as u32));
    }
    assert_eq!((agents.as_ptr(), agents.capacity()), (ptr, cap));
    assert_eq!(w.game_ms, 1500);
    w.measurements(0, false, &mut agents);
    assert!(agents.is_empty());
}

#[test]
fn a_throttle_moves_the_player_forward() {
    let mut w = World::new(&WorldConfig::default(), 5);
    let start = w.player_transform();
    let c = Control {
        throttle: 0.8,
        ..Default::default()
    };
    for _ in 0..30 {
        w.step(&c, 1.0 / 30.0);
    }
    let m = w
        .measurements(0, false, &mut Vec::new())
        .player_measurements;
    let (o, p) = (start.orientation, m.transform.location);
    let ahead = (p.x - start.location.x) * o.x + (p.y - start.location.y) * o.y;
    assert!(ahead > 1.0 && m.forward_speed > 2.0, "{ahead} {m:?}");
    assert!(m.acceleration.x * o.x + m.acceleration.y * o.y > 1.0);
}

fn camera(w: u32, h: u32, post: PostProcessing) -> CameraSpec {
    CameraSpec {
        width: w,
        height: h,
        fov_deg: 90.0,
        post,
        position: Vector3D {
            x: 0.0,
            y: 0.0,
            z: 1.5,
        },
        rotation: Rotation3D::default(),
    }
}

#[test]
fn depth_of_a_box_20_m_ahead_is_planar() {
    let wall = StaticBox {
        min: Vector3D {
            x: 120.0,
            y: 40.0,
            z: 0.0,
        },
        max: Vector3D {
            x: 125.0,
            y: 80.0,
            z: 30.0,
        },
        tag: town::tag::BUILDINGS,
        albedo: [9; 3],
        light: NO_LIGHT,
        actor: 0,
    };
    let scene = Scene::new(vec![wall], scene::CELL);
    let player = ground_transform(100.0, 60.0, 0.0);
    let cam = camera(21, 15, PostProcessing::Depth);
    let mut g = gbuffer::GBuffer::new();
    let pose = render::CameraPose::on_player(&cam, &player);
    let lens = raster::Lens {
        width: 21,
        height: 15,
        fov_deg: 90.0,
    };
    raster::rasterize(&scene, &pose, &lens, &mut g);
    let mut raycast = vec![0; 21 * 15 * 4];
    raycast::render_with(&scene, &cam, &player, &mut raycast, true);
    for img in [&raycast[..], &{
        let mut img = vec![0; 21 * 15 * 4];
        g.write_08(PostProcessing::Depth, &mut img);
        img
    }] {
        let at = |u: usize, v: usize| decode_depth(&img[(v * 21 + u) * 4..]);
        assert!((at(10, 7) - 20.0).abs() < 0.01, "{}", at(10, 7));
        // Off-axis pixels on the same face: the same planar depth, a longer ray.
        assert!((at(1, 3) - 20.0).abs() < 0.01, "{}", at(1, 3));
        assert_eq!(img[(7 * 21 + 10) * 4 + 3], 255);
    }
    let (_, d) = pixel_ray(&cam, &player, 1.0, 3.0);
    assert!(20.0 * math::length(d) > 25.0);
    assert!((g.depth()[7 * 21 + 10] - 20.0).abs() < 1e-4);
    assert!((g.depth()[3 * 21 + 1] - 20.0).abs() < 1e-4);
    assert_eq!(g.tags()[7 * 21 + 10], town::tag::BUILDINGS);
}

#[test]
fn road_pixels_are_tagged_7_in_semantic_segmentation() {
    let w = World::new(&WorldConfig::default(), 0);
    let cam = CameraSpec {
        position: Vector3D {
            x: 2.0,
            y: 0.0,
            z: 1.4,
        },
        ..camera(80, 60, PostProcessing::SemanticSegmentation)
    };
    let mut img = vec![0; 80 * 60 * 4];
    w.render(&cam, &mut img);
    for v in 36..60 {
        let px = &img[(v * 80 + 40) * 4..][..4];
        assert_eq!(px, [0, 0, 7, 255], "row {v}");
    }
    let tags: std::collections::HashSet<u8> = img.chunks(4).map(|p| p[2]).collect();
    assert!(tags.contains(&0), "sky");
    assert!(tags.contains(&town::tag::SIDEWALKS), "{tags:?}");
    let mut rgb = vec![0; 80 * 60 * 4];
    w.render(
        &CameraSpec {
            post: PostProcessing::SceneFinal,
            ..cam
        },
        &mut rgb,
    );
    let distinct: std::collections::HashSet<&[u8]> = rgb.chunks(4).collect();
    assert!(distinct.len() > 50, "a shaded picture");
}

#[test]
fn the_accelerated_render_matches_plain_ray_casts() {
    let mut w = World::new(&config(9), 17);
    run(&mut w, 1.0, |_| {});
    let player = w.player_transform();
    let views = [
        (
            Vector3D {
                x: 2.0,
                y: 0.0,
                z: 1.4,
            },
            Rotation3D::default(),
        ),
        (
            Vector3D {
                x: -6.0,
                y: 0.0,
                z: 3.0,
            },
            Rotation3D {
                pitch: -15.0,
                yaw: 0.0,
                roll: 0.0,
            },
        ),
        (
            Vector3D {
                x: 0.0,
                y: 0.5,
                z: 1.4,
            },
            Rotation3D {
                pitch: 5.0,
                yaw: 90.0,
                roll: 20.0,
            },
        ),
        (
            Vector3D {
                x: 0.0,
                y: 0.0,
                z: 60.0,
            },
            Rotation3D {
                pitch: -60.0,
                yaw: 30.0,
                roll: 0.0,
            },
        ),
        (
            Vector3D {
                x: 0.0,
                y: 0.0,
                z: 1.0,
            },
            Rotation3D {
                pitch: 0.0,
                yaw: 180.0,
                roll: 0.0,
            },
        ),
    ];
    for (i, (position, rotation)) in views.into_iter().enumerate() {
        for post in [PostProcessing::SceneFinal, PostProcessing::Depth] {
            let cam = CameraSpec {
                position,
                rotation,
                ..camera(160, 120, post)
            };
            let (mut fast, mut slow) = (vec![0; 160 * 120 * 4], vec![0; 160 * 120 * 4]);
            raycast::render_with(&w.scene, &cam, &player, &mut fast, true);
            raycast::render_with(&w.scene, &cam, &player, &mut slow, false);
            let differ = fast
                .chunks(4)
                .zip(slow.chunks(4))
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differ, 0, "view {i} {post:?}");
        }
    }
}

/// `cargo test --release --bin carla-host world::tests::bench -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_render_and_lidar_per_frame() {
    use carla_server::sensor::Lidar;
    let mut w = World::new(&config(123_456_789), 0);
    let cam = CameraSpec {
        position: Vector3D {
            x: 2.0,
            y: 0.0,
            z: 1.4,
        },
        ..camera(800, 600, PostProcessing::SceneFinal)
    };
    let mut img = vec![0; 800 * 600 * 4];
    let mut lidar =
        Lidar::new(legacy_lidar_settings(32, 50.0, 100_000, 10.0, 10.0, -30.0)).unwrap();
    let mount = Mount {
        position: Vector3D {
            x: 0.0,
            y: 0.0,
            z: 2.5,
        },
        ..Default::default()
    };
    let (mut hits, mut header, mut data) = (Vec::new(), Vec::new(), Vec::new());
    let frames = 90;
    let (mut t_render, mut t_lidar, mut t_step) = (0.0, 0.0, 0.0);
    for _ in 0..frames {
        let t = Instant::now();
        let c = w
            .measurements(0, false, &mut Vec::new())
            .player_measurements
            .autopilot_control;
        w.step(&c, 1.0 / 30.0);
        t_step += t.elapsed().as_secs_f64();
        let t = Instant::now();
        w.render(&cam, &mut img);
        t_render += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let plan = lidar.plan(1.0 / 30.0);
        let range = plan.range_m();
        let rays = plan.rays();
        w.trace_lidar(&mount, rays, range, &mut hits);
        lidar_record::build(w.frame, 0.0, 32, rays, &hits, &mut header, &mut data);
        t_lidar += t.elapsed().as_secs_f64();
    }
    let ms = |s: f64| s * 1000.0 / frames as f64;
    println!(
        "per frame ({} threads): render 800x600 SceneFinal {:.2} ms, lidar {} rays {:.2} ms, step {:.3} ms",
        render::threads(),
        ms(t_render),
        hits.len(),
        ms(t_lidar),
        ms(t_step)
    );
}

#[test]
fn traffic_keeps_flowing_round_a_parked_player_without_pile_ups() {
    // The player stays put on its lane: traffic queues behind it, takes
    // other ways, and does not jam the town.
    let config = WorldConfig {
        vehicles: 40,
        pedestrians: 0,
        seed_vehicles: 4,
        seed_pedestrians: 0,
    };
    let mut w = World::new(&config, 0);
    let (mut overlaps, mut last_minute) = (0, 0.0);
    let steps = 30 * 60 * 3;
    for step in 0..steps {
        w.step(&Control::default(), 1.0 / 30.0);
        for (i, a) in w.vehicles.iter().enumerate() {
            if step >= steps - 1800 {
                last_minute += a.speed / 30.0;
            }
            overlaps += w.vehicles[i + 1..]
                .iter()
                .filter(|b| a.rect().overlaps(&b.rect()))
                .count();
        }
    }
    let per_vehicle = last_minute / 40.0;
    assert!(per_vehicle > 120.0, "{per_vehicle} m in the last minute");
    assert!(
        overlaps < steps / 50,
        "{overlaps} overlapping pairs × steps"
    );
    let m = w
        .measurements(0, false, &mut Vec::new())
        .player_measurements;
    assert_eq!(m.collision_vehicles, 0.0);
}

#[test]
fn a_client_vehicle_gets_at_most_a_third_of_a_second_of_physics_per_tick() {
    // As CARLA's Unreal clamps physics to MaxPhysicsDeltaTime: a 3 s tick
    // moves a car as far as a 1/3 s one, while the clock takes 3 s.
    let drive = |dt: f32| {
        let empty = WorldConfig {
            vehicles: 0,
            pedestrians: 0,
            ..config(1)
        };
        let mut w = World::new(&empty, 0);
        let extent = carla_server::types::Vector3D {
            x: 2.4,
            y: 1.0,
            z: 0.75,
        };
        let t = super::map::opendrive::spawn_points()
            .into_iter()
            .find(|t| w.spawn_car(900_000, t, [200, 0, 0], extent).is_ok())
            .expect("a free spawn point");
        let speed = |w: &mut World| w.driven_mut(900_000).unwrap().car.speed;
        w.driven_mut(900_000).unwrap().car.speed = 10.0;
        let t0 = w.time();
        w.step(&Control::default(), dt);
        let moved = w.actor_transform(900_000).unwrap().location;
        let d = ((moved.x - t.location.x).powi(2) + (moved.y - t.location.y).powi(2)).sqrt();
        (d, w.time() - t0, speed(&mut w))
    };
    let (short, long) = (drive(MAX_PHYSICS_DT), drive(3.0));
    assert!(short.0 > 2.0, "it moves: {short:?}");
    assert!((short.0 - long.0).abs() < 0.01, "{short:?} vs {long:?}");
    assert!((long.1 - 3.0).abs() < 1e-4, "the clock took the whole step");
    assert!((short.2 - long.2).abs() < 1e-3);
}
