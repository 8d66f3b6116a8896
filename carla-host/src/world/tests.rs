use super::ids::PLAYER_ID;
use super::map::lanes::LaneKind;
use super::rendering::gbuffer::GBuffer;
use super::rendering::raster;
use super::rendering::render::{self, decode_depth, pixel_ray, CameraSpec, PostProcessing};
use super::scene::tags::tag;
use super::scene::{Material, StaticBox, Statics, NO_LIGHT};
use super::simulation::traffic::Pose;
use super::simulation::vehicle::pose_transform;
use super::testing;
use super::*;

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

fn new(config: &WorldConfig, start: usize) -> World {
    World::new(&testing::town(), config, start)
}

#[test]
fn the_town_and_its_traffic_are_deterministic_from_the_seeds() {
    let agents = |seed, start| {
        let mut w = new(&config(seed), start);
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
    assert_eq!(lights, testing::town().map.signs.lights().count());
    // The map itself: the same text, the same town.
    let again = Town::builtin();
    assert_eq!(again.map.spawn_points, testing::town().map.spawn_points);
    assert_eq!(again.fixed.tris(), testing::town().fixed.tris());
}

#[test]
fn the_player_starts_on_a_road_in_its_lane() {
    let town = testing::town();
    let spots = town.start_spots();
    assert!(spots.len() >= 10);
    for (i, s) in spots.iter().enumerate() {
        let w = new(&WorldConfig::default(), i);
        let m = w
            .measurements(0, false, &mut Vec::new())
            .player_measurements;
        let l = m.transform.location;
        assert!((l.x - s.location.x).abs() < 1e-4 && (l.y - s.location.y).abs() < 1e-4);
        // On the ground, not at the spawn point's height above it.
        let on = town.map.lanes.at(l.x, l.y, l.z, 0.1).expect("on a lane");
        assert!((on.z - l.z).abs() < 0.02, "spot {i}: {} vs {}", l.z, on.z);
        assert!(town.map.lanes.lane(on.lane).kind.is_driving());
        assert!((m.transform.rotation.yaw - s.rotation.yaw).abs() < 1e-3);
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
fn traffic_stays_on_driving_lanes_walkers_on_sidewalks_and_the_lights_cycle() {
    let town = testing::town();
    let lanes = &town.map.lanes;
    let mut w = new(&config(3), 0);
    let mut agents = Vec::new();
    let mut moved = 0.0;
    let mut states = std::collections::HashSet::new();
    run(&mut w, 60.0, |w| {
        w.measurements(0, true, &mut agents);
        for a in &agents {
            let p = a.transform.location;
            match a.r#type {
                CARLA_SERVER_AGENT_VEHICLE => {
                    let on = lanes.at(p.x, p.y, p.z, 0.5).expect("a vehicle on a lane");
                    assert!(lanes.lane(on.lane).kind.is_driving(), "{a:?}");
                    moved += a.forward_speed / 30.0;
                }
                CARLA_SERVER_AGENT_PEDESTRIAN => {
                    let on = lanes.at(p.x, p.y, p.z - map::CURB_HEIGHT, 0.5);
                    let kind = on.map(|o| lanes.lane(o.lane).kind);
                    assert_eq!(kind, Some(LaneKind::Sidewalk), "{a:?}");
                }
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
fn vehicles_stop_at_red_lights_and_never_enter_a_junction_on_red() {
    let town = testing::town();
    let mut w = new(&config(5), 0);
    let mut stopped_at_red = 0;
    run(&mut w, 60.0, |w| {
        for v in w.traffic() {
            // The light of the lane it was on before a junction.
            let light = town
                .map
                .lanes
                .lane(v.lane)
                .predecessors
                .iter()
                .find_map(|&p| town.ways.stops[p as usize].map(|s| w.light_state(s.light).0));
            if v.entered_junction() {
                assert_ne!(light, Some(Light::Red), "vehicle {} ran a red light", v.id);
            }
            let here = town.ways.stops[v.lane as usize].map(|s| w.light_state(s.light).0);
            stopped_at_red += (v.speed == 0.0 && here == Some(Light::Red)) as u32;
        }
    });
    assert!(stopped_at_red > 100, "{stopped_at_red}");
}

#[test]
fn measurements_reuse_the_agents_buffer() {
    let mut w = new(&config(1), 0);
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
    let mut w = new(&WorldConfig::default(), 5);
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
        min: math::v3(120.0, 40.0, 0.0),
        max: math::v3(125.0, 80.0, 30.0),
        tag: tag::BUILDINGS,
        albedo: [9; 3],
        light: NO_LIGHT,
        actor: 0,
    };
    let scene = scene::Scene::of(Statics {
        lamps: Vec::new(),
        boxes: vec![wall],
        ground: Material::default(),
        bounds: ((0.0, 0.0), (200.0, 200.0)),
        ..Default::default()
    });
    let player = pose_transform(100.0, 60.0, 0.0, 0.0, 0.0, 0.0);
    let cam = camera(21, 15, PostProcessing::Depth);
    let mut g = GBuffer::new();
    let pose = render::CameraPose::on_player(&cam, &player);
    let lens = raster::Lens {
        width: 21,
        height: 15,
        fov_deg: 90.0,
    };
    raster::rasterize(&scene, &pose, &lens, &mut g);
    let mut raycast = vec![0; 21 * 15 * 4];
    rendering::raycast::render(&scene, &cam, &player, &mut raycast);
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
    assert_eq!(g.tags()[7 * 21 + 10], tag::BUILDINGS);
}

#[test]
fn road_pixels_are_tagged_7_in_semantic_segmentation() {
    let w = new(&WorldConfig::default(), 0);
    let cam = CameraSpec {
        position: Vector3D {
            x: 2.0,
            y: 0.0,
            z: 1.4,
        },
        ..camera(80, 60, PostProcessing::SemanticSegmentation)
    };
    let mut img = vec![0; 80 * 60 * 4];
    let mut g = GBuffer::new();
    w.render(&cam, &mut img, &mut g);
    // Down the middle of the lane ahead: road (7), or its lane marks (6).
    for v in 36..60 {
        let px = &img[(v * 80 + 40) * 4..][..4];
        assert!(
            px == [0, 0, 7, 255] || px == [0, 0, 6, 255],
            "row {v}: {px:?}"
        );
    }
    let tags: std::collections::HashSet<u8> = img.chunks(4).map(|p| p[2]).collect();
    assert!(tags.contains(&0), "sky");
    assert!(tags.contains(&tag::SIDEWALKS), "{tags:?}");
    assert!(tags.contains(&tag::ROAD_LINES), "{tags:?}");
    let mut rgb = vec![0; 80 * 60 * 4];
    w.render(
        &CameraSpec {
            post: PostProcessing::SceneFinal,
            ..cam
        },
        &mut rgb,
        &mut g,
    );
    let distinct: std::collections::HashSet<&[u8]> = rgb.chunks(4).collect();
    assert!(distinct.len() > 50, "a shaded picture");
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
    let mut w = new(&config, 0);
    let (mut overlaps, mut last_minute) = (0, 0.0);
    let steps = 30 * 60 * 3;
    for step in 0..steps {
        w.step(&Control::default(), 1.0 / 30.0);
        let traffic = w.traffic();
        for (i, a) in traffic.iter().enumerate() {
            if step >= steps - 1800 {
                last_minute += a.speed / 30.0;
            }
            overlaps += traffic[i + 1..]
                .iter()
                .filter(|b| a.rect().overlaps(&b.rect()) && (a.pose.z - b.pose.z).abs() < 2.0)
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
    assert!(w.actor_transform(PLAYER_ID).is_some());
}

#[test]
fn a_client_vehicle_gets_at_most_a_third_of_a_second_of_physics_per_tick() {
    // As CARLA's Unreal clamps physics to MaxPhysicsDeltaTime: a 3 s tick
    // moves a car as far as a 1/3 s one, while the clock takes 3 s.
    let (short, long) = (drive_for(MAX_PHYSICS_DT, None), drive_for(3.0, None));
    assert!(short.0 > 2.0, "it moves: {short:?}");
    assert!((short.0 - long.0).abs() < 0.01, "{short:?} vs {long:?}");
    assert!((long.1 - 3.0).abs() < 1e-4, "the clock took the whole step");
    // The same 1/3 s in physics steps of other lengths.
    assert!((short.2 - long.2).abs() < 0.02, "{short:?} vs {long:?}");
}

#[test]
fn with_substepping_a_tick_gives_the_physics_its_substeps_only() {
    // CARLA's defaults (substepping on, 10 substeps of 0.01 s): a 3 s tick
    // moves a car for 0.1 s, as a 0.1 s tick does; off, 1/3 s again.
    let on = Some((true, 0.01, 10));
    let (tenth, long) = (drive_for(0.1, on), drive_for(3.0, on));
    assert!((tenth.0 - long.0).abs() < 0.01, "{tenth:?} vs {long:?}");
    assert!(long.0 > 0.8 && long.0 < 1.2, "10 m/s for 0.1 s: {long:?}");
    let off = drive_for(3.0, Some((false, 0.01, 10)));
    let third = drive_for(MAX_PHYSICS_DT, None);
    assert!((off.0 - third.0).abs() < 0.01, "{off:?} vs {third:?}");
    // Nonsense settings leave the 1/3 s.
    let nan = drive_for(3.0, Some((true, f64::NAN, 10)));
    assert!((nan.0 - third.0).abs() < 0.01, "{nan:?} vs {third:?}");
}

/// A client's car at 10 m/s after one tick of `dt` (under `substepping`
/// settings if given): how far it went, the clock's advance, its speed.
fn drive_for(dt: f32, substepping: Option<(bool, f64, i32)>) -> (f32, f32, f32) {
    let drive = |dt: f32| {
        let empty = WorldConfig {
            vehicles: 0,
            pedestrians: 0,
            ..config(1)
        };
        let mut w = World::town(&testing::town(), &empty);
        let extent = Vector3D {
            x: 2.4,
            y: 1.0,
            z: 0.75,
        };
        let t = testing::town()
            .map
            .spawn_points
            .iter()
            .copied()
            .find(|t| {
                w.spawn_car(
                    900_000,
                    t,
                    [200, 0, 0],
                    (extent, 0.0, &testing::physics(extent)),
                )
                .is_ok()
            })
            .expect("a free spawn point");
        let speed = |w: &mut World| w.driven_mut(900_000).unwrap().car.speed;
        let yaw = w.driven_mut(900_000).unwrap().car.yaw;
        let v = Vector3D {
            x: 10.0 * yaw.cos(),
            y: 10.0 * yaw.sin(),
            z: 0.0,
        };
        w.set_velocity(900_000, v, false);
        if let Some((on, d, n)) = substepping {
            w.set_substepping(on, d, n);
        }
        let t0 = w.time();
        w.step(&Control::default(), dt);
        let moved = w.actor_transform(900_000).unwrap().location;
        let d = ((moved.x - t.location.x).powi(2) + (moved.y - t.location.y).powi(2)).sqrt();
        (d, w.time() - t0, speed(&mut w))
    };
    drive(dt)
}

/// Half the size of the cars the slope tests put on it.
const CAR: Vector3D = Vector3D {
    x: 2.2,
    y: 1.0,
    z: 0.75,
};

/// The world of [`SLOPE`] with no traffic and no pedestrians.
fn empty_slope() -> World {
    let town = testing::town_of(SLOPE);
    World::town(
        &town,
        &WorldConfig {
            vehicles: 0,
            pedestrians: 0,
            ..config(1)
        },
    )
}

#[test]
fn a_car_on_a_slope_climbs_it_pitched() {
    // A straight road rising 4 m over 100 m (4 %).
    let mut w = empty_slope();
    let extent = CAR;
    // Given a spawn point 0.5 m above the road, the car stands on it.
    let spot = pose_transform(30.0, 1.75, 1.7, 0.0, 0.0, 0.0);
    w.spawn_car(
        500,
        &spot,
        [1, 2, 3],
        (extent, 0.0, &testing::physics(extent)),
    )
    .expect("a free spot");
    let t = w.actor_transform(500).unwrap();
    assert!((t.location.z - 1.2).abs() < 0.02, "{t:?}");
    let pitch = (4.0f32 / 100.0).atan().to_degrees();
    assert!((t.rotation.pitch - pitch).abs() < 0.2, "{t:?}");
    w.set_control(
        500,
        Control {
            throttle: 0.7,
            ..Default::default()
        },
    );
    for _ in 0..60 {
        w.step(&Control::default(), 0.05);
    }
    let t = w.actor_transform(500).unwrap();
    assert!(t.location.x > 40.0, "{t:?}");
    assert!((t.location.z - 0.04 * t.location.x).abs() < 0.05, "{t:?}");
    // Under throttle the car squats on its rear springs (~0.4°).
    assert!((t.rotation.pitch - pitch).abs() < 0.7, "{t:?}");
    // Lidar and cameras meet the rising road.
    let hit = w
        .scene()
        .raycast(math::v3(80.0, 1.75, 10.0), math::v3(0.0, 0.0, -1.0), 20.0)
        .unwrap();
    assert!((hit.point.z - 3.2).abs() < 0.05, "{hit:?}");
    assert_eq!(hit.semantic_tag, tag::ROADS);
}

/// A straight road along x, 100 m, one lane each way and sidewalks,
/// rising 4 %. OpenDRIVE's y is CARLA's −y: lane −1 (right of +x in
/// OpenDRIVE) is at y = +1.75 in CARLA's frame, where +y is right.
const SLOPE: &str = r#"<?xml version="1.0"?>
<OpenDRIVE><header revMajor="1" revMinor="4"/>
<road id="1" length="100" junction="-1"><link/>
<planView><geometry s="0" x="0" y="0" hdg="0" length="100"><line/></geometry></planView>
<elevationProfile><elevation s="0" a="0" b="0.04" c="0" d="0"/></elevationProfile>
<lanes><laneSection s="0">
<left><lane id="2" type="sidewalk"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
<lane id="1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></left>
<center><lane id="0" type="none"/></center>
<right><lane id="-1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane>
<lane id="-2" type="sidewalk"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane></right>
</laneSection></lanes></road></OpenDRIVE>"#;

#[test]
fn two_cars_put_on_one_line_do_not_stand_exactly_in_line() {
    // CARLA's BasicAgent does not see a car exactly dead ahead (the angle
    // between its heading and the other car is exactly 0, and it asks for
    // more): a car rests a fraction of a millimetre aside, as after a
    // physics engine's contact.
    let mut w = empty_slope();
    let extent = CAR;
    let ys: Vec<f32> = (0..6)
        .map(|i| {
            let id = 500 + i;
            let spot = pose_transform(10.0 + 8.0 * i as f32, 1.75, 1.0, 0.0, 0.0, 0.0);
            w.spawn_car(
                id,
                &spot,
                [1, 2, 3],
                (extent, 0.0, &testing::physics(extent)),
            )
            .expect("a free spot");
            w.actor_transform(id).unwrap().location.y
        })
        .collect();
    for (i, y) in ys.iter().enumerate() {
        let aside = (y - 1.75).abs();
        assert!((4e-5..=5.1e-4).contains(&aside), "car {i} at y {y}");
        assert!(ys[..i].iter().all(|o| o != y), "{ys:?}");
    }
}

#[test]
fn the_towns_cars_never_drive_into_a_clients_car_across_their_way() {
    // Clients' cars stand across the middle of junctions at 45° (a car
    // that stalled while turning): the town's cars, which see them only
    // partly (claims follow lanes, the look ahead a straight line), may
    // come close but never move into one.
    let town = testing::town();
    let mut w = World::town(
        &town,
        &WorldConfig {
            vehicles: 40,
            pedestrians: 0,
            ..config(6)
        },
    );
    let lanes = &town.map.lanes;
    let mut placed: Vec<(f32, f32)> = Vec::new();
    for (i, lane) in lanes.lanes.iter().enumerate() {
        if !lanes.in_junction(i as u32) || !lane.kind.is_driving() {
            continue;
        }
        let p = lane.pose(lane.length() / 2.0);
        let (x, y) = (p.position[0], p.position[1]);
        if placed.len() == 6 || placed.iter().any(|(a, b)| (a - x).hypot(b - y) < 40.0) {
            continue;
        }
        let id = 900 + placed.len() as u32;
        let spot = pose_transform(x, y, p.position[2] + 0.5, p.yaw + 0.8, 0.0, 0.0);
        if w.spawn_car(id, &spot, [1, 2, 3], (CAR, 0.0, &testing::physics(CAR)))
            .is_ok()
        {
            placed.push((x, y));
        }
    }
    assert_eq!(placed.len(), 6, "junctions blocked");
    let overlapping = |w: &World| {
        let mut pairs = Vec::new();
        for v in w.traffic() {
            for d in w.fleet() {
                if v.rect().overlaps(&d.car.footprint()) {
                    pairs.push((v.id, d.id));
                }
            }
        }
        pairs
    };
    let mut before = overlapping(&w);
    let (mut entered, mut last_minute) = (Vec::new(), 0.0);
    let mut step = 0;
    run(&mut w, 120.0, |w| {
        let now = overlapping(w);
        entered.extend(now.iter().filter(|p| !before.contains(p)).copied());
        before = now;
        step += 1;
        if step > 30 * 60 {
            last_minute += w.traffic().iter().map(|v| v.speed / 30.0).sum::<f32>();
        }
    });
    assert!(entered.is_empty(), "town car, client car: {entered:?}");
    assert!(
        last_minute / 40.0 > 30.0,
        "{} m per car in the last minute: the rest of the town drives",
        last_minute / 40.0
    );
}

/// A world with a town car half way through a junction, and a client's
/// car 990 just ahead of it facing it, pressing on: the town car's id,
/// pose and half length.
fn nose_to_nose(seed: u64) -> (World, u32, Pose, f32) {
    let town = testing::town();
    let lanes = &town.map.lanes;
    let mut w = World::town(
        &town,
        &WorldConfig {
            vehicles: 30,
            pedestrians: 0,
            ..config(seed)
        },
    );
    let mut found = None;
    for _ in 0..30 * 60 {
        w.step(&Control::default(), 1.0 / 30.0);
        found = w.traffic().iter().find_map(|v| {
            let len = lanes.lane(v.lane).length();
            (lanes.in_junction(v.lane) && v.speed > 1.0 && v.d > 5.0 && len - v.d > 3.0)
                .then_some((v.id, v.pose, v.extent.0))
        });
        if found.is_some() {
            break;
        }
    }
    let (town_car, pose, hx) = found.expect("a town car half way through a junction");
    let (sin, cos) = pose.yaw.sin_cos();
    let ahead = hx + CAR.x + 0.4;
    let (x, y) = (pose.x + cos * ahead, pose.y + sin * ahead);
    let spot = pose_transform(
        x,
        y,
        pose.z + 0.5,
        pose.yaw + std::f32::consts::PI,
        0.0,
        0.0,
    );
    w.spawn_car(990, &spot, [1, 2, 3], (CAR, 0.0, &testing::physics(CAR)))
        .expect("room ahead of the town car");
    w.set_control(
        990,
        Control {
            throttle: 0.4,
            ..Default::default()
        },
    );
    (w, town_car, pose, hx)
}

/// A client car's outline less what a contact solver lets two bodies
/// press into each other (a few centimetres).
fn shrunk(mut r: math::Rect) -> math::Rect {
    r.hx -= 0.05;
    r.hy -= 0.05;
    r
}

#[test]
fn a_town_car_nose_to_nose_with_a_clients_car_in_a_junction_backs_off() {
    // A client's car drives at a town car inside a junction (it stops on
    // contact, the town car stops for it): the town car backs off along
    // its lane, so the client's car gets on; they never overlap.
    let (mut w, town_car, _, _) = nose_to_nose(9);
    let start = w.actor_transform(990).unwrap().location;
    let mut overlaps = 0;
    run(&mut w, 12.0, |w| {
        let t = w.traffic().iter().find(|v| v.id == town_car).unwrap();
        let c = w.fleet().iter().find(|d| d.id == 990).unwrap();
        overlaps += usize::from(t.rect().overlaps(&shrunk(c.car.footprint())));
    });
    let end = w.actor_transform(990).unwrap().location;
    let moved = (end.x - start.x).hypot(end.y - start.y);
    assert_eq!(overlaps, 0, "ticks the two cars overlapped");
    assert!(moved > 1.5, "the client's car got {moved} m on");
}

#[test]
fn a_town_car_wedged_between_clients_cars_starts_again_elsewhere() {
    // As above, with a client's car parked right behind the town car: it
    // cannot back off, and after a while starts again at a free place.
    let (mut w, town_car, pose, hx) = nose_to_nose(9);
    let (sin, cos) = pose.yaw.sin_cos();
    let behind = hx + CAR.x + 0.3;
    let spot = pose_transform(
        pose.x - cos * behind,
        pose.y - sin * behind,
        pose.z + 0.5,
        pose.yaw,
        0.0,
        0.0,
    );
    w.spawn_car(991, &spot, [1, 2, 3], (CAR, 0.0, &testing::physics(CAR)))
        .expect("room behind the town car");
    let start = w.actor_transform(990).unwrap().location;
    let mut overlaps = 0;
    run(&mut w, 14.0, |w| {
        let t = w.traffic().iter().find(|v| v.id == town_car).unwrap();
        overlaps += w
            .fleet()
            .iter()
            .filter(|d| t.rect().overlaps(&shrunk(d.car.footprint())))
            .count();
    });
    let t = w.traffic().iter().find(|v| v.id == town_car).unwrap();
    let away = (t.pose.x - pose.x).hypot(t.pose.y - pose.y);
    let end = w.actor_transform(990).unwrap().location;
    let moved = (end.x - start.x).hypot(end.y - start.y);
    assert_eq!(overlaps, 0, "ticks the town car overlapped a client's car");
    assert!(
        away > 10.0,
        "the town car is {away} m from where it was wedged"
    );
    assert!(moved > 1.5, "the client's car got {moved} m on");
}

#[test]
fn a_clients_walker_stops_at_a_parked_car() {
    let mut w = empty_slope();
    let spot = pose_transform(30.0, 1.75, 1.7, 0.0, 0.0, 0.0);
    w.spawn_car(500, &spot, [1, 2, 3], (CAR, 0.0, &testing::physics(CAR)))
        .expect("a free spot");
    let parked = Control {
        hand_brake: CBool::TRUE,
        brake: 1.0,
        ..Control::default()
    };
    w.set_control(500, parked);
    let at = pose_transform(20.0, 1.75, 2.0, 0.0, 0.0, 0.0);
    w.spawn_walker(600, &at).expect("a walker");
    w.walker_mut(600).unwrap().control = Some((1.0, 0.0, 1.5));
    for i in 0..200 {
        w.step(&Control::default(), 0.05);
        if std::env::var_os("WALK_TRACE").is_some() {
            let t = w.actor_transform(600).unwrap().location;
            eprintln!("{i} {t:?}");
        }
    }
    let walker = w.actor_transform(600).unwrap().location;
    let car = w.actor_transform(500).unwrap().location;
    assert!(
        walker.x < car.x - CAR.x && walker.x > car.x - CAR.x - 1.0,
        "walker {walker:?}, car {car:?}"
    );
}
