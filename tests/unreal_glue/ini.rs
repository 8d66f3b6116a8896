//! The ini scenario: the 0.8 client's CarlaSettings.ini decides the episode.
//! It asks for a Depth camera, a SemanticSegmentation camera and a lidar on
//! the player, non-player agents and synchronous mode; the glue spawns them
//! at the requested sizes and poses, announces them, and every frame
//! carries their records, the collisions and the oncoming car as an agent.
//! A second episode with a start index out of range starts at spot 0, at
//! rest (ResetPhysics), with the sensors spawned anew.

use super::sim::*;
use carla_server::client::{Client, Frame};
use carla_server::legacy::proto;
use carla_server::types::{CBool, Control};

const SENSORS: &str = "\
[CARLA/Sensor/DepthCam]\nSensorType=CAMERA\nPostProcessing=Depth\nImageSizeX=80\nImageSizeY=60\nFOV=100\n\
PositionX=1.5\nPositionZ=1.6\nRotationPitch=-10\n\n\
[CARLA/Sensor/SemSeg]\nSensorType=CAMERA\nPostProcessing=SemanticSegmentation\nImageSizeX=48\nImageSizeY=36\n\n\
[CARLA/Sensor/Lidar32]\nSensorType=LIDAR_RAY_CAST\nChannels=8\nRange=30\nPointsPerSecond=16000\n\
RotationFrequency=20\nUpperFOVLimit=5\nLowerFOVLimit=-25\nPositionX=0\nPositionY=0\nPositionZ=1.0\n";

/// (name, 0.8 id, type) as the scene description must list them.
const EXPECTED: [(&str, u32, i32); 3] = [
    ("DepthCam", 1, proto::sensor_type::CAMERA),
    ("SemSeg", 2, proto::sensor_type::CAMERA),
    ("Lidar32", 3, proto::sensor_type::LIDAR_RAY_CAST),
];
const LIDAR_CHANNELS: u32 = 8;
const LIDAR_MOUNT_Z: f64 = 0.75 + 1.0;
/// Frames of the first episode, driven at full throttle.
const FIRST: u32 = 20;

fn settings() -> String {
    super::common::ini(true, &["DepthCam", "SemSeg", "Lidar32"], SENSORS).replace(
        "SendNonPlayerAgentsInfo=False",
        "SendNonPlayerAgentsInfo=True",
    )
}

fn throttle(value: f32) -> Control {
    Control {
        throttle: value,
        hand_brake: CBool::from(false),
        reverse: CBool::from(false),
        ..Default::default()
    }
}

fn check_scene(scene: &proto::SceneDescription) {
    let got: Vec<(String, u32, i32)> = scene
        .sensors
        .iter()
        .map(|s| (s.name.clone(), s.id, s.r#type))
        .collect();
    let want: Vec<(String, u32, i32)> = EXPECTED
        .iter()
        .map(|(n, i, t)| ((*n).to_owned(), *i, *t))
        .collect();
    assert_eq!(got, want, "the ini's sensors, announced");
    assert_eq!(scene.player_start_spots.len(), 2, "two player starts");
}

/// The frame's records: both cameras at their sizes, kinds and materials,
/// and the lidar's 0.8 record with every point on the level's surfaces.
fn check_records(frame: &Frame, what: &str, player_x: f64) {
    let m = &frame.measurements;
    let ids: Vec<u32> = frame.sensors.iter().map(|r| r.id).collect();
    assert_eq!(ids, [1, 2, 3], "{what}: records");
    for (record, (w, h, kind, fov, salt)) in frame.sensors[..2].iter().zip([
        (80, 60, 2, 100.0, SALT_DEPTH),
        (48, 36, 3, 90.0, SALT_SEMANTIC),
    ]) {
        let d = &record.data;
        assert_bytes(
            &format!("{what}: camera {} header", record.id),
            &d[..24],
            &legacy_camera_header(m.frame_number, w, h, kind, fov),
        );
        assert_bytes(
            &format!("{what}: camera {} pixels", record.id),
            &d[24..],
            &standin_pixels(w, h, m.frame_number, salt),
        );
    }
    let lidar = &frame.sensors[2].data;
    let header = 16 + 4 * LIDAR_CHANNELS as usize;
    assert_eq!(
        u64::from_le_bytes(lidar[..8].try_into().unwrap()),
        m.frame_number,
        "{what}: lidar frame"
    );
    assert_eq!(u32_at(lidar, 12), LIDAR_CHANNELS, "{what}: lidar channels");
    let total: usize = (0..LIDAR_CHANNELS as usize)
        .map(|c| u32_at(lidar, 16 + 4 * c) as usize)
        .sum();
    assert_eq!(lidar.len(), header + 12 * total, "{what}: lidar length");
    assert!(total > 100, "{what}: only {total} lidar points");
    let t = f64::from(m.game_timestamp) / 1000.0;
    for i in 0..total {
        let p: Vec<f64> = (0..3)
            .map(|k| f64::from(f32_at(lidar, header + 12 * i + 4 * k)))
            .collect();
        // The mount is unrotated: world = mount + point.
        let world = [player_x + p[0], p[1], LIDAR_MOUNT_Z + p[2]];
        let on_ground = world[2].abs() < 2e-3;
        let on_wall = (world[1] - WALL_Y).abs() < 2e-3 && world[2] <= WALL_TOP + 1e-3;
        let on_car = (world[0] - oncoming_x(t)).abs() <= VEHICLE[0] + 2e-3
            && world[1].abs() <= VEHICLE[1] + 2e-3
            && (world[2] - VEHICLE[2]).abs() <= VEHICLE[2] + 2e-3;
        assert!(
            on_ground || on_wall || on_car,
            "{what}: lidar point {i} at {world:?} is on no surface"
        );
    }
}

fn check_agents(frame: &Frame, what: &str) {
    let m = &frame.measurements;
    assert_eq!(m.non_player_agents.len(), 1, "{what}: agents");
    let agent = &m.non_player_agents[0];
    assert_eq!(agent.id, ONCOMING_ID, "{what}: agent id");
    let Some(proto::AgentKind::Vehicle(vehicle)) = agent.agent else {
        panic!("{what}: the agent is not a vehicle: {agent:?}");
    };
    let t = f64::from(m.game_timestamp) / 1000.0;
    let location = v3(vehicle.transform.unwrap_or_default().location);
    assert_near3(
        &format!("{what}: agent location"),
        location,
        [oncoming_x(t), 0.0, VEHICLE[2]],
        1e-3,
    );
    let extent = v3(vehicle.bounding_box.unwrap_or_default().extent);
    assert_near3(&format!("{what}: agent box"), extent, VEHICLE, 1e-5);
}

fn start_episode(client: &mut Client, index: u32) {
    let scene = client.load_settings(&settings()).expect("load_settings");
    check_scene(&scene);
    client.start_episode(index).expect("start_episode");
}

#[test]
fn an_episode_gets_the_sensors_its_settings_ask_for() {
    let port = super::common::free_port_base();
    let mut host = start("g++", port, 2000, "ini");
    let mut client = connect(&mut host, port);
    start_episode(&mut client, 0);
    let ids = Ready::parse(&host.next_line());
    assert_eq!(ids.id("PLAYER"), PLAYER_ID);
    assert_eq!(ids.id("ONCOMING"), ONCOMING_ID);
    let frame0 = ids.get("FRAME");

    let mut speed = 0.0;
    let mut x = 0.0;
    for k in 0..FIRST {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("frame {k}: {e}"));
        let what = format!("episode 1 frame {k}");
        let m = &frame.measurements;
        assert_eq!(m.frame_number, frame0 + u64::from(k), "{what}: frame");
        let p = m.player_measurements.unwrap_or_default();
        // Full throttle from the first control: v = 4 m/s² · t.
        assert_near(
            &format!("{what}: speed"),
            p.forward_speed.into(),
            speed,
            1e-3,
        );
        x = v3(p.transform.unwrap_or_default().location)[0];
        check_records(&frame, &what, x);
        check_agents(&frame, &what);
        let (vehicles, other) = match k {
            0..=9 => (0.0, 0.0),
            // kg·m/s; the hit at frame 1, below 1 km/h, is not counted.
            10 | 11 => (500.0, 0.0),
            _ => (500.0, 30.0),
        };
        assert_near(
            &format!("{what}: collision vehicles"),
            p.collision_vehicles.into(),
            vehicles,
            1e-2,
        );
        assert_near(
            &format!("{what}: collision other"),
            p.collision_other.into(),
            other,
            1e-2,
        );
        assert_eq!(
            p.collision_pedestrians, 0.0,
            "{what}: collision pedestrians"
        );
        client.send_control(&throttle(1.0)).expect("send_control");
        speed += 4.0 * DT;
    }
    assert!(
        x > 0.5 && speed > 3.0,
        "the player drove ({x} m, {speed} m/s)"
    );

    // A new episode: index 99 does not exist, so spot 0; at rest.
    start_episode(&mut client, 99);
    for k in 0..5 {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("episode 2 frame {k}: {e}"));
        let what = format!("episode 2 frame {k}");
        let p = frame.measurements.player_measurements.unwrap_or_default();
        assert_near3(
            &format!("{what}: at spot 0"),
            v3(p.transform.unwrap_or_default().location),
            [0.0, 0.0, VEHICLE[2]],
            1e-3,
        );
        assert_eq!(p.forward_speed, 0.0, "{what}: ResetPhysics stopped the car");
        assert_eq!(p.collision_vehicles, 0.0, "{what}: collisions reset");
        check_records(&frame, &what, 0.0);
        client.send_control(&throttle(0.0)).expect("send_control");
    }
    drop(client);
    host.close_stdin();
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
    assert!(
        output.contains("start spot 99 of 2 does not exist; using spot 0"),
        "the fallback is logged: {output}"
    );
}
