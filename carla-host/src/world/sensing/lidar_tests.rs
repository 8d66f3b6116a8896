use super::*;
use carla_server::legacy::lidar_record;
use carla_server::sensor::Lidar;

#[test]
fn the_world_traces_a_library_lidar_plan() {
    let mut world = crate::world::testing::world(5, 15, 123_456_789, 0);
    world.step(&Default::default(), 1.0 / 30.0);
    let settings = legacy_lidar_settings(32, 50.0, 100_000, 10.0, 10.0, -30.0);
    let mut lidar = Lidar::new(settings).unwrap();
    let mount = Mount {
        position: Vector3D {
            x: 0.0,
            y: 0.0,
            z: 2.5,
        },
        ..Default::default()
    };
    let mut hits = Vec::new();
    let (mut header, mut data, mut payload) = (Vec::new(), Vec::new(), Vec::new());
    let plan = lidar.plan(1.0 / 30.0);
    assert_eq!(plan.ray_count(), 32 * 104);
    let rays = plan.rays().to_vec();
    world.trace_lidar(&mount, &rays, plan.range_m(), &mut hits);
    assert_eq!(hits.len(), rays.len());
    let angle = lidar.horizontal_angle_deg();
    let n = lidar_record::build(world.frame, angle, 32, &rays, &hits, &mut header, &mut data);
    let stats = lidar.process(&hits, &mut payload).unwrap();
    assert_eq!(stats.kept, n, "no drop-off in 0.8 mode");
    assert!(
        n > rays.len() / 2,
        "the downward lasers see the ground: {n}"
    );
    // Level road seen from 2.5 m: z = −2.5 in the sensor frame, in range;
    // a junction's floor shows 1 cm lower between its lanes.
    let ground = hits
        .iter()
        .filter(|h| h.hit != 0 && h.semantic_tag == 7)
        .inspect(|h| assert!(h.distance_m <= 50.0))
        .map(|h| (h.point_sensor.z + 2.5).abs())
        .fold(0.0, f32::max);
    assert!(ground < 0.011, "{ground}");
    // Not the car carrying the lidar.
    assert!(hits
        .iter()
        .all(|h| h.actor_id != crate::world::ids::PLAYER_ID));
    // A hit point lies along its ray at its distance.
    for (h, r) in hits.iter().zip(&rays).filter(|(h, _)| h.hit != 0) {
        let p = h.point_sensor;
        let d = r.direction;
        let err = (p.x - d.x * h.distance_m).abs()
            + (p.y - d.y * h.distance_m).abs()
            + (p.z - d.z * h.distance_m).abs();
        assert!(err < 1e-3, "{h:?} {r:?}");
    }
}

#[test]
fn the_mount_follows_the_players_yaw() {
    let player = crate::world::simulation::vehicle::pose_transform(
        10.0,
        20.0,
        0.0,
        90f32.to_radians(),
        0.0,
        0.0,
    );
    let m = Mount {
        position: Vector3D {
            x: 1.0,
            y: 0.0,
            z: 2.0,
        },
        rotation: Rotation3D {
            pitch: -5.0,
            yaw: 10.0,
            roll: 0.0,
        },
    };
    let w = m.world(&player);
    assert!((w.location.x - 10.0).abs() < 1e-5 && (w.location.y - 21.0).abs() < 1e-5);
    assert_eq!(
        (w.location.z, w.rotation.yaw, w.rotation.pitch),
        (2.0, 100.0, -5.0)
    );
}

/// The 0.8 record's angle is now the library lidar's (the mirror writes
/// it); before, carla-host carried its own, advancing it by 360·f·dt per
/// tick modulo 360. Both agree bit for bit, so the record is unchanged.
#[test]
fn the_librarys_sweep_angle_is_the_one_carla_host_carried() {
    for (frequency, dt) in [(10.0f32, 1.0f32 / 30.0), (7.3, 0.0173), (20.0, 0.05)] {
        let settings = LidarSettings {
            semantic: true,
            ..legacy_lidar_settings(32, 50.0, 56_000, frequency, 10.0, -30.0)
        };
        let mut lidar = Lidar::new(settings).unwrap();
        let mut carried = 0.0f32;
        for tick in 0..2000 {
            lidar.plan(dt);
            carried = (carried + 360.0 * frequency * dt).rem_euclid(360.0);
            assert_eq!(
                lidar.horizontal_angle_deg().to_bits(),
                carried.to_bits(),
                "f {frequency} dt {dt} tick {tick}"
            );
        }
    }
}
