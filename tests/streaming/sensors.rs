//! 0.9 sensors through the Rust API: one camera feeding both protocols, the
//! zero-copy path with pooled buffers, destroy semantics.

use crate::common;

use carla_server::client::Client;
use carla_server::client::StreamClient;
use carla_server::sensor::ActorTransform;
use carla_server::sensor::CaptureContext;
use carla_server::types::*;
use carla_server::Error;
use carla_server::{Config, Server};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const T: u32 = 5000;
const LEGACY_ID: u32 = 0xCA;

fn ctx(frame: u64) -> CaptureContext {
    let mut transform = ActorTransform::default();
    transform.location.x = frame as f32;
    CaptureContext {
        frame,
        timestamp: frame as f64 / 20.0,
        transform,
    }
}

fn pixels(frame: u64) -> Vec<u8> {
    (0..8 * 4 * 4)
        .map(|i| (i as u64 * 3 + frame) as u8)
        .collect()
}

/// A server whose streaming port listens on a free loopback port.
fn listening_server() -> (Server, std::net::SocketAddr) {
    let server = Server::with_config(Config {
        bind_ip: "127.0.0.1".parse().unwrap(),
        stream_timeout: Duration::from_secs(5),
        ..Config::default()
    });
    let addr = server.listen_streaming(0).unwrap();
    (server, addr)
}

fn wait_subscribers(server: &Server, id: u32, n: usize) {
    let started = Instant::now();
    while server.sensor(id).unwrap().stats().subscribers < n {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "subscribers never arrived"
        );
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn one_camera_feeds_the_0_8_stream_port_and_its_0_9_stream() {
    let port = common::free_port_base();
    let server = Arc::new(Server::with_config(Config {
        bind_ip: "127.0.0.1".parse().unwrap(),
        stream_timeout: Duration::from_secs(5),
        ..Config::default()
    }));
    server.connect(u32::from(port), T).unwrap();
    let addr = server.listen_streaming(0).unwrap();
    let id = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "8"), ("image_size_y", "4"), ("fov", "70")],
        )
        .unwrap();
    let camera = server.sensor(id).unwrap();
    camera.set_synchronous(Some(Duration::from_secs(5)));
    camera.mirror_to_legacy(LEGACY_ID).unwrap();
    let mut sub = StreamClient::subscribe(addr, id, Duration::from_secs(5)).unwrap();
    wait_subscribers(&server, id, 1);

    let host = {
        let server = server.clone();
        thread::spawn(move || {
            server.read_request_new_episode(T).unwrap();
            let def = SensorDefinition {
                id: LEGACY_ID,
                r#type: CARLA_SERVER_CAMERA,
                name: "Cam".into(),
            };
            server
                .write_scene_description("Town", &[Transform::default()], &[def], T)
                .unwrap();
            server.read_episode_start(T).unwrap();
            server.write_episode_ready(true, T).unwrap();
            let camera = server.sensor(id).unwrap();
            for f in 1..=10u64 {
                if f % 2 == 0 {
                    camera.send_image(&ctx(f), &pixels(f)).unwrap();
                } else {
                    let mut image = camera.acquire_image().unwrap();
                    image.pixels_mut().copy_from_slice(&pixels(f));
                    camera.commit_image(&ctx(f), image).unwrap();
                }
                let m = MeasurementsHeader {
                    frame_number: f as u32,
                    ..Default::default()
                };
                server.write_measurements(&m, &[]).unwrap();
                server.read_control(T).unwrap();
            }
        })
    };
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client
        .load_settings(&common::ini(true, &["Cam"], ""))
        .unwrap();
    client.start_episode(0).unwrap();
    for f in 1..=10u64 {
        // 0.8: [frame u64][w][h][type 1 = SceneFinal][fov] + pixels.
        let frame = client.read_frame().unwrap();
        assert_eq!(frame.measurements.frame_number, f);
        let record = frame
            .sensors
            .iter()
            .find(|r| r.id == LEGACY_ID)
            .expect("0.8 camera record");
        let mut legacy = f.to_le_bytes().to_vec();
        for v in [8u32, 4, 1] {
            legacy.extend_from_slice(&v.to_le_bytes());
        }
        legacy.extend_from_slice(&70f32.to_le_bytes());
        legacy.extend_from_slice(&pixels(f));
        assert_eq!(record.data, legacy, "0.8 record of frame {f}");
        client.send_control(&Control::default()).unwrap();
        // 0.9: 48-byte header (type 13 = rgb camera) + [w][h][fov] + pixels.
        let msg = sub.next_message().unwrap();
        assert_eq!(
            (msg.sensor_type(), msg.frame(), msg.timestamp()),
            (13, f, f as f64 / 20.0)
        );
        assert_eq!(
            f32::from_le_bytes(msg.header()[24..28].try_into().unwrap()),
            f as f32
        );
        let mut payload = Vec::new();
        for v in [8u32, 4] {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        payload.extend_from_slice(&70f32.to_le_bytes());
        payload.extend_from_slice(&pixels(f));
        assert_eq!(msg.payload(), payload, "0.9 payload of frame {f}");
    }
    host.join().unwrap();
    let stats = server.sensor(id).unwrap().stats();
    // The first send makes the 4 blocks one subscriber can have in flight
    // (src/streaming/stream/mod.rs, WARM_BLOCKS); 10 frames then reuse them.
    assert!(
        stats.pool_allocations <= 4,
        "pooled image buffers were reused: {stats:?}"
    );
}

#[test]
fn destroy_closes_the_stream_and_later_calls_get_unknown_sensor() {
    let (server, addr) = listening_server();
    let id = server
        .create_sensor("sensor.other.safe_distance", &[])
        .unwrap();
    let mut sub = StreamClient::subscribe(addr, id, Duration::from_secs(5)).unwrap();
    wait_subscribers(&server, id, 1);
    let entry = server.sensor(id).unwrap();
    entry.set_synchronous(Some(Duration::from_secs(5)));
    entry.send_actor_ids(&ctx(1), 5, &[5, 9, 9, 4]).unwrap();
    server.destroy_sensor(id).unwrap();
    let msg = sub.next_message().unwrap();
    assert_eq!(msg.payload_as::<u32>().unwrap(), [9, 4]);
    assert!(
        sub.next().is_none(),
        "clean end of file after the last message"
    );
    assert_eq!(server.sensor(id).err(), Some(Error::UnknownSensor(id)));
    assert_eq!(server.destroy_sensor(id), Err(Error::UnknownSensor(id)));
    // A handle still held by a host thread cannot send into a closed stream.
    assert!(entry.send_actor_ids(&ctx(2), 5, &[1]).is_err());
}

#[test]
fn bad_attributes_and_wrong_calls_are_clear_errors() {
    let server = Server::with_config(Config {
        bind_ip: "127.0.0.1".parse().unwrap(),
        stream_timeout: Duration::from_secs(5),
        ..Config::default()
    });
    let no_port = server.create_sensor("sensor.camera.rgb", &[]).unwrap_err();
    assert!(no_port.to_string().contains("listen"), "{no_port}");
    server.listen_streaming(0).unwrap();
    let unknown = server
        .create_sensor("sensor.camera.rgb", &[("zoom", "2")])
        .unwrap_err();
    assert!(unknown.to_string().contains("zoom"), "{unknown}");
    let bad = server
        .create_sensor("sensor.lidar.ray_cast", &[("channels", "-3")])
        .unwrap_err();
    assert!(bad.to_string().contains("channels"), "{bad}");
    let camera = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "2"), ("image_size_y", "2")],
        )
        .unwrap();
    let camera = server.sensor(camera).unwrap();
    assert!(
        camera.send_image(&ctx(1), &[0; 15]).is_err(),
        "2x2 BGRA is 16 bytes"
    );
    assert!(
        camera.send_lidar_hits(&ctx(1), &[]).is_err(),
        "a camera is not a lidar"
    );
    assert!(camera.mirror_to_legacy(3).is_ok());
    for lidar in ["sensor.lidar.ray_cast_semantic", "sensor.lidar.ray_cast"] {
        let lidar = server.create_sensor(lidar, &[]).unwrap();
        assert!(server.sensor(lidar).unwrap().mirror_to_legacy(3).is_ok());
    }
    let safe = server
        .create_sensor("sensor.other.safe_distance", &[])
        .unwrap();
    let refused = server.sensor(safe).unwrap().mirror_to_legacy(3);
    assert!(
        matches!(refused, Err(Error::WrongSensorKind { .. })),
        "only cameras and lidars mirror: {refused:?}"
    );
}

#[test]
fn a_synchronous_send_past_its_bound_reports_timed_out() {
    let (server, addr) = listening_server();
    let id = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "1024"), ("image_size_y", "1024")],
        )
        .unwrap();
    let camera = server.sensor(id).unwrap();
    camera.set_synchronous(Some(Duration::from_millis(100)));
    let stalled = std::net::TcpStream::connect(addr).unwrap();
    std::io::Write::write_all(&mut &stalled, &id.to_le_bytes()).unwrap();
    wait_subscribers(&server, id, 1);
    let image = vec![0u8; 1024 * 1024 * 4];
    let error = (1..=20)
        .find_map(|f| camera.send_image(&ctx(f), &image).err())
        .expect("a subscriber that never reads must surface");
    assert_eq!(error, Error::SubscriberBusy { stream: id }, "{error}");
    assert_eq!(error.code(), 110, "the C API's TIMED_OUT");
    drop(stalled);
}
