//! The 0.8 side of the C hosts `tests/c/host.c`, `host.cpp` and
//! `legacy_abi.cpp`: what they send, recomputed here from (episode, frame),
//! and the Rust client that plays two episodes against one of them and
//! checks every byte (tests/c_api/legacy_hosts.rs, tests/plugin_package.rs).
#![allow(dead_code)]

use super::chost::Host;

use carla_server::client::{Client, Frame};
use carla_server::legacy::proto::{self, AgentKind};
use carla_server::types::{CBool, Control};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

const CAM_RGB: u32 = 0xCAFE_0001;
const CAM_DEPTH: u32 = 0xCAFE_0002;
const LIDAR: u32 = 0xCAFE_0003;
const FRAMES: u32 = 20;

// ------------------------------------------ what the hosts send (see host.c)

fn v(x: f32, y: f32, z: f32) -> Option<proto::Vector3D> {
    Some(proto::Vector3D { x, y, z })
}

fn tf(x: f32, y: f32, z: f32, yaw: f32) -> proto::Transform {
    proto::Transform {
        location: v(x, y, z),
        orientation: v(1.0, 0.0, 0.0),
        rotation: Some(proto::Rotation3D {
            pitch: 0.0,
            yaw,
            roll: 0.0,
        }),
    }
}

fn bbox(z: f32, extent: Option<proto::Vector3D>) -> Option<proto::BoundingBox> {
    Some(proto::BoundingBox {
        transform: Some(tf(0.0, 0.0, z, 0.0)),
        extent,
    })
}

fn expected_scene(full: bool) -> proto::SceneDescription {
    let sensor = |id, r#type, name: &str| proto::Sensor {
        id,
        r#type,
        name: name.into(),
    };
    let mut spot = tf(11.0, 12.0, 13.0, 45.0);
    spot.orientation = v(0.0, 1.0, 0.0);
    let mut scene = proto::SceneDescription {
        player_start_spots: vec![tf(1.0, 2.0, 3.0, 0.0), spot],
        sensors: vec![sensor(CAM_RGB, proto::sensor_type::CAMERA, "Camera/RGB")],
        map_name: "TestTown".into(),
    };
    if full {
        scene.sensors.push(sensor(
            CAM_DEPTH,
            proto::sensor_type::CAMERA,
            "Camera/Depth",
        ));
        scene
            .sensors
            .push(sensor(LIDAR, proto::sensor_type::LIDAR_RAY_CAST, "Lidar32"));
    } else {
        scene.player_start_spots.truncate(1);
    }
    scene
}

fn expected_measurements(episode: u32, frame: u32, full: bool) -> proto::Measurements {
    let f = frame as f32;
    let player = proto::PlayerMeasurements {
        transform: Some(tf(f, 2.0 * f, 0.25, 1.5 * f)),
        acceleration: v(0.1, 0.0, -9.75),
        forward_speed: 0.25 * f,
        collision_vehicles: f,
        collision_pedestrians: 2.0,
        collision_other: 3.0 + episode as f32,
        intersection_otherlane: 0.125,
        intersection_offroad: 0.0625,
        autopilot_control: Some(proto::Control {
            steer: -0.25,
            throttle: 0.75,
            brake: 0.0,
            hand_brake: true,
            reverse: false,
        }),
        bounding_box: bbox(0.5, v(2.5, 1.0, 0.8)),
    };
    let agent = |k: u32| {
        let transform = Some(tf(f + k as f32, 10.0 * k as f32, 0.5, 90.0 * k as f32));
        let bounding_box = bbox(1.0, v(2.0, 1.0, 0.75 + k as f32));
        let forward_speed = 0.5 * f + k as f32;
        let kind = match k {
            0 => AgentKind::Vehicle(proto::Vehicle {
                transform,
                forward_speed,
                bounding_box,
            }),
            1 => AgentKind::Pedestrian(proto::Pedestrian {
                transform,
                forward_speed,
                bounding_box,
            }),
            _ => AgentKind::TrafficLight(proto::TrafficLight {
                transform,
                state: proto::traffic_light_state::RED,
            }),
        };
        proto::Agent {
            id: 100 * (k + 1) + episode,
            agent: Some(kind),
        }
    };
    proto::Measurements {
        platform_timestamp: 1000 + frame,
        game_timestamp: 33 * frame,
        player_measurements: Some(player),
        non_player_agents: if full {
            (0..3).map(agent).collect()
        } else {
            Vec::new()
        },
        frame_number: u64::from(frame),
    }
}

fn sensor_frame(episode: u32, frame: u32) -> [u8; 8] {
    ((u64::from(episode + 1) << 32) | u64::from(frame)).to_le_bytes()
}

/// A camera record after the id: 24-byte header, then BGRA pixels.
fn camera_record(id: u32, episode: u32, frame: u32) -> Vec<u8> {
    let (width, height, kind, fov): (u32, u32, u32, f32) = if id == CAM_RGB {
        (32, 24, 1, 90.0)
    } else {
        (16, 8, 2, 110.5)
    };
    let mut r = sensor_frame(episode, frame).to_vec();
    for field in [width, height, kind, fov.to_bits()] {
        r.extend_from_slice(&field.to_le_bytes());
    }
    let seed = frame * 13 + (id & 0xFF) * 31 + episode * 101;
    r.extend((0..width * height * 4).map(|i| i.wrapping_mul(7).wrapping_add(seed) as u8));
    r
}

/// A lidar record after the id: header (frame, angle, 2 channels, counts),
/// then x, y, z floats.
fn lidar_record(episode: u32, frame: u32) -> Vec<u8> {
    let counts = [1 + frame % 3, 2 + frame % 2];
    let mut r = sensor_frame(episode, frame).to_vec();
    let angle = ((frame * 18) % 360) as f32;
    for field in [angle.to_bits(), 2, counts[0], counts[1]] {
        r.extend_from_slice(&field.to_le_bytes());
    }
    for k in 0..counts[0] + counts[1] {
        for c in [
            frame as f32 + 0.25 * k as f32,
            -(k as f32),
            0.5 + episode as f32,
        ] {
            r.extend_from_slice(&c.to_le_bytes());
        }
    }
    r
}

/// The control the hosts expect after frame `frame` of episode `episode`.
fn control_for(episode: u32, frame: u32) -> Control {
    Control {
        steer: if episode == 0 { -0.5 } else { 0.5 },
        throttle: frame as f32 / 100.0,
        brake: if frame.is_multiple_of(4) { 0.25 } else { 0.0 },
        hand_brake: CBool::from(frame % 2 == 1),
        reverse: CBool::from(frame % 5 == 4),
    }
}

fn ini(episode: u32) -> String {
    super::ini(true, &[], &format!("[CARLA/Test]\nTestEpisode={episode}\n"))
}

// -------------------------------------------------------------- the client

fn assert_bytes(what: &str, got: &[u8], want: &[u8]) {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} is {:#04x}, expected {:#04x}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: record length");
}

fn check_frame(frame: &Frame, episode: u32, n: u32, full: bool) {
    let what = format!("episode {episode} frame {n}");
    assert_eq!(
        frame.measurements,
        expected_measurements(episode, n, full),
        "{what}: measurements"
    );
    let mut want = vec![(CAM_RGB, camera_record(CAM_RGB, episode, n))];
    if full {
        want.push((CAM_DEPTH, camera_record(CAM_DEPTH, episode, n)));
        want.push((LIDAR, lidar_record(episode, n)));
    }
    let mut got: Vec<_> = frame.sensors.iter().map(|r| (r.id, &r.data)).collect();
    got.sort_by_key(|r| r.0);
    let ids: Vec<u32> = got.iter().map(|r| r.0).collect();
    assert_eq!(
        ids,
        want.iter().map(|r| r.0).collect::<Vec<_>>(),
        "{what}: sensor ids"
    );
    for ((id, data), (_, expected)) in got.into_iter().zip(&want) {
        assert_bytes(&format!("{what}: sensor {id:#x}"), data, expected);
    }
}

/// Connects once the host listens, checks which library it loaded, and
/// sends the first settings.
fn connect(host: &mut Host, port: u16, lib: &Path, ini: &str) -> (Client, proto::SceneDescription) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut client = loop {
        assert!(
            !host.exited(),
            "the host exited before a client could connect"
        );
        match Client::connect("127.0.0.1", port, Duration::from_secs(10)) {
            Ok(c) => break c,
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("connect to {port}: {e}"),
        }
    };
    #[cfg(not(windows))]
    host.assert_loaded(lib);
    #[cfg(windows)]
    {
        let _ = lib;
        host.assert_loaded_library();
    }
    let scene = client.load_settings(ini).expect("first load_settings");
    (client, scene)
}

/// Runs the host `exe` with `lib` (a `libcarla_server.so`; its directory
/// goes first in `LD_LIBRARY_PATH`) and serves as its client for `episodes`
/// episodes of `FRAMES` frames. `full`: two cameras, a lidar and agents
/// (host.c, host.cpp); otherwise one camera and no agents (legacy_abi.cpp).
pub(crate) fn serve(exe: &Path, lib: &Path, episodes: u32, full: bool) {
    let started = Instant::now();
    let port = super::free_port_base();
    let lib_dir = lib.parent().expect("the library has a directory");
    let mut host = Host::spawn_with_env(
        exe,
        &[port.to_string(), FRAMES.to_string()],
        &[("LD_LIBRARY_PATH", lib_dir)],
    );
    let (mut client, mut scene) = connect(&mut host, port, lib, &ini(0));
    for episode in 0..episodes {
        if episode > 0 {
            scene = client.load_settings(&ini(episode)).expect("load_settings");
        }
        assert_eq!(
            scene,
            expected_scene(full),
            "episode {episode}: scene description"
        );
        client.start_episode(episode).expect("start_episode");
        for n in 0..FRAMES {
            let frame = client
                .read_frame()
                .unwrap_or_else(|e| panic!("episode {episode} frame {n}: {e}"));
            check_frame(&frame, episode, n, full);
            client
                .send_control(&control_for(episode, n))
                .expect("send_control");
        }
    }
    drop(client);
    let output = host.finish();
    assert!(
        output.contains("done"),
        "host did not finish cleanly:\n{output}"
    );
    eprintln!(
        "{}: {episodes} episode(s) of {FRAMES} frames in {:?}",
        exe.display(),
        started.elapsed()
    );
}
