//! The 0.9 sensor pipeline through the C API: `tests/c/sensors_host.c`
//! (compiled with the `cc` crate's compiler, linked against the freshly
//! built `libcarla_server.so`) creates a safe-distance sensor, a semantic
//! lidar and an RGB camera and streams N frames of each from two threads;
//! two `StreamClient`s per stream check every byte it sends. A second test
//! (Rust API only) checks that an asynchronous stream never waits for a
//! stalled subscriber and that a garbage handshake is closed. On Windows
//! (`scripts/test-windows.sh`) the hosts, compiled with mingw-w64, run
//! against `carla_server.dll`.
#![cfg(any(target_os = "linux", windows))]

use crate::common;

use common::chost::{build, Host};
use common::wait_for;

use carla_server::client::StreamClient;
use carla_server::sensor::ActorTransform;
use carla_server::sensor::CaptureContext;
use carla_server::sensor::{Lidar, LidarHit, LidarSettings};
use carla_server::types::{Rotation3D, Vector3D};
use carla_server::{Config, Server};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::time::{Duration, Instant};

const FRAMES: u32 = 20;
/// Handshake and read time-out of the test's subscribers.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);

/// Registry type ids (src/sensor/registry.rs).
const SAFE_DISTANCE_TYPE: u64 = 22;
const SEMANTIC_LIDAR_TYPE: u64 = 10;
const RGB_CAMERA_TYPE: u64 = 13;

// ------------------------------------- what the host sends (sensors_host.c)

/// The 48-byte header of sensor `k` (0 safe distance, 1 lidar, 2 camera) at
/// frame `f`: type, frame, timestamp f·0.05, location (f, 2, 3 + k),
/// rotation pitch 0, yaw 90, roll 0. Built by hand, not with `SensorHeader`.
fn expected_header(sensor_type: u64, f: u32, k: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(48);
    h.extend_from_slice(&sensor_type.to_le_bytes());
    h.extend_from_slice(&u64::from(f).to_le_bytes());
    h.extend_from_slice(&(f64::from(f) * 0.05).to_le_bytes());
    for v in [f as f32, 2.0, 3.0 + k as f32, 0.0, 90.0, 0.0] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

/// Camera payload: image header (8, 4, 70.0), then BGRA byte i =
/// (i·7 + f·13 + 5) mod 256 (copy path on even frames, zero-copy on odd).
fn expected_camera_payload(f: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&8u32.to_le_bytes());
    p.extend_from_slice(&4u32.to_le_bytes());
    p.extend_from_slice(&70.0f32.to_le_bytes());
    p.extend((0..8u32 * 4 * 4).map(|i| (i * 7 + f * 13 + 5) as u8));
    p
}

/// Lidar payloads of frames 1..=frames: the library's model run here with
/// the blueprint's settings and the hits the host reports (ray i: hit when
/// i % 3 != 0, distance 5+f, point direction·(5+f), normal −direction,
/// actor 7, tag 10).
fn expected_lidar_payloads(frames: u32) -> Vec<Vec<u8>> {
    let mut lidar = Lidar::new(LidarSettings {
        channels: 2,
        points_per_second: 400,
        rotation_frequency: 10.0,
        upper_fov: 10.0,
        lower_fov: -10.0,
        range_m: 50.0,
        semantic: true,
        ..Default::default()
    })
    .expect("valid lidar settings");
    (1..=frames)
        .map(|f| {
            let rays = lidar.plan(0.05).rays().to_vec();
            assert_eq!(rays.len(), 20, "400 pts/s · 0.05 s = 10 rays per laser");
            let d = 5.0 + f as f32;
            let hits: Vec<LidarHit> = rays
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let u = r.direction;
                    LidarHit {
                        ray_index: i as u32,
                        hit: u32::from(i % 3 != 0),
                        distance_m: d,
                        point_sensor: Vector3D {
                            x: u.x * d,
                            y: u.y * d,
                            z: u.z * d,
                        },
                        normal_sensor: Vector3D {
                            x: -u.x,
                            y: -u.y,
                            z: -u.z,
                        },
                        actor_id: 7,
                        semantic_tag: 10,
                    }
                })
                .collect();
            let mut out = Vec::new();
            let stats = lidar.process(&hits, &mut out).expect("valid hits");
            assert_eq!(stats.kept, 13);
            out
        })
        .collect()
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

/// Checks of the lidar payload that do not rely on the model: layout,
/// counts per channel, the sweep angle, ids, tags, distances, cos_inc.
fn check_lidar_layout(what: &str, p: &[u8], f: u32) {
    assert_eq!(p.len(), 16 + 13 * 24, "{what}: length");
    // 10 Hz · 360° · 0.05 s = 180° per tick: π after odd frames, 0 after even.
    let angle = if f % 2 == 1 {
        std::f32::consts::PI
    } else {
        0.0
    };
    assert_eq!(f32_at(p, 0), angle, "{what}: horizontal angle");
    // Laser 0 has rays 0..10 (hits 1 2 4 5 7 8), laser 1 rays 10..20 (hits
    // 10 11 13 14 16 17 19).
    assert_eq!(
        (u32_at(p, 4), u32_at(p, 8), u32_at(p, 12)),
        (2, 6, 7),
        "{what}: channel count and points per channel"
    );
    let d = 5.0 + f as f32;
    for k in 0..13 {
        let at = 16 + 24 * k;
        let (x, y, z) = (f32_at(p, at), f32_at(p, at + 4), f32_at(p, at + 8));
        let r = (x * x + y * y + z * z).sqrt();
        assert!((r - d).abs() < 1e-4 * d, "{what}: point {k} at {r} m");
        // Laser 0 looks 10° up, laser 1 10° down.
        let up = if k < 6 { 1.0 } else { -1.0 };
        assert!(
            (z - up * d * 10f32.to_radians().sin()).abs() < 1e-4 * d,
            "{what}: point {k} z {z}"
        );
        assert!(
            (f32_at(p, at + 12) - 1.0).abs() < 1e-5,
            "{what}: cos_inc of point {k}"
        );
        assert_eq!(
            (u32_at(p, at + 16), u32_at(p, at + 20)),
            (7, 10),
            "{what}: actor id and tag of point {k}"
        );
    }
}

fn assert_bytes(what: &str, got: &[u8], want: &[u8]) {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}: byte {i} is {:#04x}, expected {:#04x}",
            got[i], want[i]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: message length");
}

/// Parses `PORT <p> SAFE <id> LIDAR <id> CAMERA <id>`.
fn parse_ids(line: &str) -> (u16, [u32; 3]) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let ok = words.len() == 8
        && [words[0], words[2], words[4], words[6]] == ["PORT", "SAFE", "LIDAR", "CAMERA"];
    assert!(ok, "unexpected first line from the host: {line:?}");
    let n = |i: usize| -> u32 { words[i].parse().unwrap_or_else(|_| panic!("{line:?}")) };
    (u16::try_from(n(1)).expect("port"), [n(3), n(5), n(7)])
}

/// C host → library → streaming port → two subscribers per stream, every
/// byte of every message checked, then clean end of file on destroy.
#[test]
fn c_host_streams_three_sensors_to_two_subscribers_each() {
    let exe = build("sensors_host.c", "sensors_host", None);
    let started = Instant::now();
    let mut host = Host::spawn(&exe, &[FRAMES.to_string()]);
    let line = host.next_line();
    let (port, ids) = parse_ids(&line);
    host.assert_loaded_library();
    let types = [SAFE_DISTANCE_TYPE, SEMANTIC_LIDAR_TYPE, RGB_CAMERA_TYPE];
    let names = ["safe distance", "semantic lidar", "rgb camera"];

    // Two subscribers per stream, each read on its own thread.
    let mut readers = Vec::new();
    for &id in &ids {
        for _ in 0..2 {
            let client = StreamClient::subscribe(("127.0.0.1", port), id, CLIENT_TIMEOUT)
                .unwrap_or_else(|e| panic!("subscribe to stream {id}: {e}"));
            readers.push(common::collect_messages(client, FRAMES));
        }
    }
    let mut received = Vec::new();
    for (i, r) in readers.into_iter().enumerate() {
        let (k, copy) = (i / 2, i % 2);
        match r.join().expect("reader thread") {
            Ok(x) => received.push(x),
            Err(e) => panic!("{} subscriber {copy}: {e}", names[k]),
        }
    }
    let read_all = started.elapsed();

    let lidar_payloads = expected_lidar_payloads(FRAMES);
    for (i, (_, messages)) in received.iter().enumerate() {
        let (k, copy) = (i / 2, i % 2);
        assert_eq!(messages.len(), FRAMES as usize);
        for (m, f) in messages.iter().zip(1..=FRAMES) {
            let what = format!("{} subscriber {copy} frame {f}", names[k]);
            assert_bytes(
                &format!("{what}: header"),
                m.header(),
                &expected_header(types[k], f, k as u32),
            );
            assert_eq!(
                (m.sensor_type(), m.frame(), m.timestamp()),
                (types[k], u64::from(f), f64::from(f) * 0.05),
                "{what}: header fields"
            );
            match k {
                0 => {
                    let got: &[u32] = m.payload_as().expect("a whole number of u32 ids");
                    assert_eq!(got, [100 + f, 200], "{what}: actor ids");
                }
                1 => {
                    check_lidar_layout(&what, m.payload(), f);
                    assert_bytes(
                        &format!("{what}: payload"),
                        m.payload(),
                        &lidar_payloads[f as usize - 1],
                    );
                }
                _ => assert_bytes(
                    &format!("{what}: payload"),
                    m.payload(),
                    &expected_camera_payload(f),
                ),
            }
        }
    }
    // Both subscribers of a stream got the same bytes (already implied by
    // the checks above; explicit so a wrong expectation cannot hide it).
    for k in 0..3 {
        let (a, b) = (&received[2 * k].1, &received[2 * k + 1].1);
        for (f, (x, y)) in (1..).zip(a.iter().zip(b)) {
            assert!(
                x.bytes() == y.bytes(),
                "{} frame {f}: subscribers differ",
                names[k]
            );
        }
    }

    // The host checked its bad calls (none may send anything), then destroys
    // the sensors: every subscriber gets end of file, no extra message.
    assert_eq!(host.next_line(), format!("SENT {FRAMES}"));
    host.send_line("destroy");
    for (i, (client, _)) in received.iter_mut().enumerate() {
        match client.next() {
            None => {}
            Some(Ok(m)) => panic!(
                "{} subscriber {}: unexpected message after frame {FRAMES} (frame {}, {} bytes)",
                names[i / 2],
                i % 2,
                m.frame(),
                m.bytes().len()
            ),
            Some(Err(e)) => panic!(
                "{} subscriber {}: expected end of file, got {e}",
                names[i / 2],
                i % 2
            ),
        }
    }
    assert_eq!(host.next_line(), "DONE");
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
    eprintln!(
        "sensors_host.c: 3 streams x 2 subscribers x {FRAMES} frames read in {read_all:?}, \
         whole run {:?}",
        started.elapsed()
    );
}

// ---------------------------------------------------------- Rust API only

fn context(f: u64) -> CaptureContext {
    CaptureContext {
        frame: f,
        timestamp: f as f64 * 0.05,
        transform: ActorTransform {
            location: Vector3D {
                x: 1.0,
                y: 2.0,
                z: 3.0,
            },
            rotation: Rotation3D {
                pitch: 0.0,
                yaw: 90.0,
                roll: 0.0,
            },
        },
    }
}

/// An asynchronous camera (the default) keeps sending at full speed while a
/// subscriber never reads (its backlog is dropped, newest wins), and a
/// connection whose 4-byte handshake is not a stream id is closed.
#[test]
fn asynchronous_camera_ignores_a_stalled_subscriber_and_garbage_is_closed() {
    const W: u32 = 512;
    const H: u32 = 512;
    const SENDS: u64 = 200;
    // A long write time-out: the stalled subscriber stays connected (and
    // counted in the stats) for the whole test.
    let server = Server::with_config(Config {
        bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        stream_timeout: Duration::from_secs(30),
        ..Config::default()
    });
    let addr = server.listen_streaming(0).expect("listen");
    let id = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "512"), ("image_size_y", "512")],
        )
        .expect("create the camera");
    let camera = server.sensor(id).expect("the camera");
    let stream = &camera;

    let stalled = TcpStream::connect(addr).expect("connect");
    (&stalled).write_all(&id.to_le_bytes()).expect("handshake");
    wait_for("the stalled subscriber", || stream.stats().subscribers == 1);

    let pixels: Vec<u8> = (0..W * H * 4).map(|i| (i % 251) as u8).collect();
    let started = Instant::now();
    for f in 1..=SENDS {
        camera
            .send_image(&context(f), &pixels)
            .unwrap_or_else(|e| panic!("send {f}: {e}"));
    }
    let elapsed = started.elapsed();
    let stats = stream.stats();
    eprintln!("{SENDS} sends of 1 MiB to a stalled subscriber in {elapsed:?}: {stats:?}");
    assert_eq!(stats.messages, SENDS);
    assert_eq!(
        stats.subscribers, 1,
        "the stalled subscriber is still there"
    );
    assert!(stats.dropped > 0, "nothing was dropped: {stats:?}");
    assert!(
        stats.dropped + stats.delivered <= SENDS && stats.delivered < SENDS / 2,
        "{stats:?}"
    );
    // Far below the 30 s write time-out a blocked send would wait for.
    assert!(
        elapsed < Duration::from_secs(10),
        "sends took {elapsed:?}: blocked by the stalled subscriber?"
    );

    // A handshake that is not a stream id: the server closes the connection.
    let garbage_id = loop {
        let r = RandomState::new().hash_one(Instant::now()) as u32;
        if r != id {
            break r;
        }
    };
    let mut garbage = TcpStream::connect(addr).expect("connect");
    garbage
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    garbage
        .write_all(&garbage_id.to_le_bytes())
        .expect("write 4 bytes");
    let mut b = [0u8; 16];
    match garbage.read(&mut b) {
        Ok(0) => {}
        Ok(n) => panic!("the server sent {n} bytes to a garbage subscriber"),
        Err(e) if e.kind() == io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("garbage id {garbage_id:#010x}: connection not closed: {e}"),
    }

    // The server still serves a well-behaved subscriber, byte for byte,
    // and the garbage connection never became a subscriber.
    let mut live = StreamClient::subscribe(addr, id, CLIENT_TIMEOUT).expect("subscribe");
    wait_for("the live subscriber", || stream.stats().subscribers == 2);
    camera
        .send_image(&context(SENDS + 1), &pixels)
        .expect("send");
    let msg = live.next_message().expect("a message");
    assert_eq!(msg.sensor_type(), RGB_CAMERA_TYPE);
    assert_eq!(msg.frame(), SENDS + 1);
    let mut want = Vec::new();
    want.extend_from_slice(&W.to_le_bytes());
    want.extend_from_slice(&H.to_le_bytes());
    want.extend_from_slice(&90.0f32.to_le_bytes());
    want.extend_from_slice(&pixels);
    assert!(msg.payload() == want.as_slice(), "image payload differs");
    assert_eq!(stream.stats().subscribers, 2);
    drop(stalled);
}

#[test]
fn a_host_that_exits_right_after_free_still_delivers_the_last_message() {
    let exe = build("exit_race.c", "exit_race_host", None);
    let host = Host::spawn(&exe, &[]);
    let line = host.next_line(); // the host is running and waits for a subscriber
    host.assert_loaded_library();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words[0], words[2]), ("PORT", "CAMERA"), "{line}");
    let (port, camera): (u16, u32) = (words[1].parse().unwrap(), words[3].parse().unwrap());
    let mut sub =
        StreamClient::subscribe(("127.0.0.1", port), camera, Duration::from_secs(10)).unwrap();
    let msg = sub
        .next_message()
        .expect("the whole 16 MiB message, not a cut one");
    let side = 2048usize;
    assert_eq!(msg.payload().len(), 12 + side * side * 4);
    let pixels = &msg.payload()[12..];
    for i in (0..pixels.len()).step_by(4099) {
        assert_eq!(
            pixels[i],
            (i as u32).wrapping_mul(7) as u8,
            "pixel byte {i}"
        );
    }
    assert!(sub.next().is_none(), "end of file after the last message");
    host.finish();
}
