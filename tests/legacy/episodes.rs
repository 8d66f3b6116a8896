//! Whole episodes: the Rust client against a `Server` driven by a host
//! thread, in synchronous and asynchronous mode, several episodes in a row,
//! and a new client after the previous one left.

use crate::common;

use carla_server::client::{Client, Frame};
use carla_server::legacy::proto::AgentKind;
use carla_server::types::*;
use carla_server::Error;
use carla_server::Server;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const T: u32 = 5000;
const CAMERA: u32 = 0xCA11_0001;
const LIDAR: u32 = 0xCA11_0002;

fn sensors() -> Vec<SensorDefinition> {
    vec![
        SensorDefinition {
            id: CAMERA,
            r#type: CARLA_SERVER_CAMERA,
            name: "CameraRGB".into(),
        },
        SensorDefinition {
            id: LIDAR,
            r#type: CARLA_SERVER_LIDAR_RAY_CAST,
            name: "Lidar32".into(),
        },
    ]
}

fn camera_record(frame: u32) -> (Vec<u8>, Vec<u8>) {
    let mut header = Vec::new();
    header.extend_from_slice(&u64::from(frame).to_le_bytes());
    header.extend_from_slice(&4u32.to_le_bytes());
    header.extend_from_slice(&2u32.to_le_bytes());
    header.extend_from_slice(&1u32.to_le_bytes());
    header.extend_from_slice(&90f32.to_le_bytes());
    let data = (0..32u32).map(|i| (i * 7 + frame) as u8).collect();
    (header, data)
}

fn measurement(frame: u32) -> (MeasurementsHeader, Vec<Agent>) {
    let mut m = MeasurementsHeader {
        frame_number: frame,
        game_timestamp: frame * 33,
        ..Default::default()
    };
    m.player_measurements.transform.location.x = frame as f32;
    m.player_measurements.forward_speed = 2.5;
    let agents = vec![
        Agent {
            id: 7,
            r#type: CARLA_SERVER_AGENT_VEHICLE,
            forward_speed: 3.0,
            ..Default::default()
        },
        Agent {
            id: 8,
            r#type: CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW,
            ..Default::default()
        },
    ];
    (m, agents)
}

/// Host side of one episode's set-up; returns the ini text.
fn host_setup(server: &Server) -> String {
    let ini = server.read_request_new_episode(T).expect("request");
    host_setup_after_request(server);
    String::from_utf8(ini).unwrap()
}

fn host_setup_after_request(server: &Server) {
    let spots = [
        Transform::default(),
        Transform {
            location: Vector3D {
                x: 5.0,
                y: 1.0,
                z: 0.0,
            },
            ..Default::default()
        },
    ];
    server
        .write_scene_description("TestTown", &spots, &sensors(), T)
        .expect("scene");
    assert_eq!(server.read_episode_start(T), Ok(1));
    server.write_episode_ready(true, T).expect("ready");
}

/// Host side of a synchronous episode of `frames` frames.
fn host_sync_episode(server: &Server, frames: u32) {
    for f in 1..=frames {
        let (header, data) = camera_record(f);
        server.write_sensor_data(CAMERA, &header, &data).unwrap();
        if f % 2 == 0 {
            server
                .write_sensor_data(LIDAR, &[f as u8; 20], &[1, 2, 3])
                .unwrap();
        }
        let (m, agents) = measurement(f);
        server.write_measurements(&m, &agents).unwrap();
        let c = server.read_control(T).expect("control within T");
        assert_eq!(c.throttle, f as f32 / 100.0, "control of frame {f}");
        assert_eq!(c.reverse, CBool(1));
    }
}

fn check_frame(frame: &Frame, f: u32) {
    let m = &frame.measurements;
    assert_eq!(m.frame_number, u64::from(f));
    assert_eq!(m.game_timestamp, f * 33);
    let player = m.player_measurements.unwrap();
    assert_eq!(player.transform.unwrap().location.unwrap().x, f as f32);
    assert_eq!(player.forward_speed, 2.5);
    assert_eq!(m.non_player_agents.len(), 2);
    assert!(
        matches!(m.non_player_agents[0].agent, Some(AgentKind::Vehicle(v)) if v.forward_speed == 3.0)
    );
    assert!(
        matches!(m.non_player_agents[1].agent, Some(AgentKind::TrafficLight(l)) if l.state == 1)
    );
    let camera = frame
        .sensors
        .iter()
        .find(|r| r.id == CAMERA)
        .expect("camera record");
    let (header, data) = camera_record(f);
    assert_eq!(
        camera.data,
        [header, data].concat(),
        "camera bytes of frame {f}"
    );
    let lidar = frame.sensors.iter().find(|r| r.id == LIDAR);
    if f.is_multiple_of(2) {
        assert_eq!(
            lidar.expect("lidar record").data,
            [vec![f as u8; 20], vec![1, 2, 3]].concat()
        );
    } else {
        assert!(
            lidar.is_none(),
            "a sensor without new data is absent from the frame"
        );
    }
}

fn client_sync_episode(client: &mut Client, frames: u32) {
    let scene = client
        .load_settings(&common::ini(true, &["CameraRGB", "Lidar32"], ""))
        .unwrap();
    assert_eq!(scene.map_name, "TestTown");
    assert_eq!(scene.player_start_spots.len(), 2);
    let ids: Vec<(u32, i32, &str)> = scene
        .sensors
        .iter()
        .map(|s| (s.id, s.r#type, s.name.as_str()))
        .collect();
    assert_eq!(ids, [(CAMERA, 1, "CameraRGB"), (LIDAR, 2, "Lidar32")]);
    client.start_episode(1).unwrap();
    for f in 1..=frames {
        let frame = client.read_frame().unwrap();
        check_frame(&frame, f);
        let control = Control {
            throttle: f as f32 / 100.0,
            reverse: CBool(1),
            ..Default::default()
        };
        client.send_control(&control).unwrap();
    }
}

fn connected_server() -> (Arc<Server>, u16) {
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
    (server, port)
}

#[test]
fn synchronous_episodes_back_to_back_deliver_every_frame_and_control() {
    let (server, port) = connected_server();
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            for _ in 0..2 {
                let ini = host_setup(&server);
                assert!(ini.contains("SynchronousMode=True"));
                host_sync_episode(&server, 30);
            }
            // The client leaves: reported once as "peer closed".
            assert_eq!(server.read_request_new_episode(T), Err(Error::PeerClosed));
        })
    };
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client_sync_episode(&mut client, 30);
    client_sync_episode(&mut client, 30);
    drop(client);
    host.join().unwrap();
}

#[test]
fn a_new_client_is_served_after_the_previous_one_left_without_restarting() {
    let (server, port) = connected_server();
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            host_setup(&server);
            host_sync_episode(&server, 5);
            // The first client's departure is reported (2), unless the next
            // client's request already superseded it; nothing else happens.
            let next = server.read_request_new_episode(T);
            assert!(matches!(next, Err(Error::PeerClosed) | Ok(_)), "{next:?}");
            if next.is_err() {
                host_setup(&server);
            } else {
                host_setup_after_request(&server);
            }
            host_sync_episode(&server, 5);
        })
    };
    let mut first = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client_sync_episode(&mut first, 5);
    drop(first);
    let mut second = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client_sync_episode(&mut second, 5);
    host.join().unwrap();
}

#[test]
fn asynchronous_mode_keeps_the_newest_frame_and_never_blocks_the_host() {
    let (server, port) = connected_server();
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            host_setup(&server);
            let started = Instant::now();
            let mut f = 0;
            let big = vec![0x5Au8; 1 << 20];
            let mut steers = Vec::new();
            while steers.last() != Some(&19.0) && started.elapsed() < Duration::from_secs(20) {
                f += 1;
                let (header, _) = camera_record(f);
                server.write_sensor_data(CAMERA, &header, &big).unwrap();
                let (m, agents) = measurement(f);
                server.write_measurements(&m, &agents).unwrap();
                match server.read_control(0) {
                    Ok(c) => steers.push((c.steer * 100.0).round()),
                    Err(code) => assert_eq!(code, Error::TryAgain),
                }
                thread::sleep(Duration::from_micros(200));
            }
            // Newest wins, each control once: strictly increasing, ending
            // with the last one the client sent.
            assert!(steers.windows(2).all(|w| w[0] < w[1]), "{steers:?}");
            assert_eq!(steers.last(), Some(&19.0));
            let stats = server.agent_stats().unwrap();
            assert!(
                stats.frames_sent < u64::from(f),
                "a slow client makes the stream skip frames"
            );
            assert!(stats.measurements_overwritten > 0);
        })
    };
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client
        .load_settings(&common::ini(false, &["CameraRGB"], ""))
        .unwrap();
    client.start_episode(1).unwrap();
    let (mut last, mut last_camera) = (0, 0);
    for _ in 0..20 {
        let frame = client.read_frame().unwrap();
        let f = frame.measurements.frame_number;
        assert!(
            f > last,
            "frames arrive in order, newest first: {f} after {last}"
        );
        // Only new sensor data is sent, and it is the newest at send time:
        // never older than the measurement (taken first), possibly newer
        // (0.8 asynchronous mode does not pair them exactly).
        if let Some(camera) = frame.sensors.iter().find(|r| r.id == CAMERA) {
            assert_eq!(camera.data.len(), 24 + (1 << 20));
            let camera_frame = u64::from_le_bytes(camera.data[..8].try_into().unwrap());
            assert!(
                camera_frame > last_camera,
                "camera {camera_frame} sent twice"
            );
            assert!(
                camera_frame >= f,
                "camera {camera_frame} older than measurement {f}"
            );
            last_camera = camera_frame;
        }
        last = f;
        thread::sleep(Duration::from_millis(5)); // a slow client
    }
    for i in 0..20 {
        client
            .send_control(&Control {
                steer: i as f32 / 100.0,
                ..Default::default()
            })
            .unwrap();
        thread::sleep(Duration::from_millis(2));
    }
    host.join().unwrap();
}

#[test]
fn waiting_reads_wake_as_soon_as_data_arrives() {
    // The 0.8.4 double buffer could sleep the whole time-out here.
    let (server, port) = connected_server();
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            host_setup(&server);
            let (m, a) = measurement(1);
            server.write_measurements(&m, &a).unwrap();
            let mut worst = Duration::ZERO;
            for _ in 0..50 {
                let started = Instant::now();
                server.read_control(60_000).expect("control");
                worst = worst.max(started.elapsed());
                server.write_measurements(&m, &a).unwrap();
            }
            assert!(
                worst < Duration::from_secs(30),
                "a read slept a whole time-out: {worst:?}"
            );
        })
    };
    client.load_settings(&common::ini(true, &[], "")).unwrap();
    client.start_episode(1).unwrap();
    for _ in 0..50 {
        client.read_frame().unwrap();
        client.send_control(&Control::default()).unwrap();
    }
    host.join().unwrap();
}

#[test]
fn dropping_the_server_with_idle_clients_returns_promptly() {
    let (server, port) = connected_server();
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    let host = {
        let server = server.clone();
        thread::spawn(move || host_setup(&server))
    };
    client.load_settings(&common::ini(true, &[], "")).unwrap();
    client.start_episode(1).unwrap();
    host.join().unwrap();
    // World, stream and control sessions are all idle and blocked in reads
    // with a 5 s deadline (the world read has none at all).
    thread::sleep(Duration::from_millis(100));
    let started = Instant::now();
    drop(Arc::try_unwrap(server).ok().expect("sole owner"));
    assert!(
        started.elapsed() < Duration::from_millis(T as u64 / 2),
        "took {:?}",
        started.elapsed()
    );
    // The ports are free again.
    let again = Server::new();
    again.connect(u32::from(port), T).expect("ports released");
}
