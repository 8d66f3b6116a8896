//! A client that reads at 1 MB/s never slows the game thread in
//! asynchronous mode: the host pushes 200 frames of a 1.92 MB camera at a
//! game's pace (one every 10 ms, 2 s in all) while the client reads at
//! 1 MB/s (a send that waited for it would take about 2 s per frame); every
//! host call returns at once, the client gets whole frames, newest first,
//! and the skipped ones are counted. Once the host is done the client
//! drains at full speed until the last frame.

use super::wire::{self, camera_header, stamp_of, stamped, Throttled, BIG_IMAGE};
use super::{shared, timed, wait_for};
use crate::common;
use carla_server::sensor::CaptureContext;
use carla_server::types::*;
use carla_server::{Config, Server};
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const FRAMES: u32 = 200;
const RATE: u64 = 1_000_000;
const T: u32 = 10_000;
const CAMERA: u32 = 11;
/// Far below the ~2 s a send blocked behind a 1 MB/s reader would take
/// (with room for a loaded 2-core machine's scheduling hiccups).
const MAX_CALL: Duration = Duration::from_millis(500);
/// The host's frame period.
const TICK: Duration = Duration::from_millis(10);

/// What the host saw: the slowest call and the whole push.
struct Pushed {
    slowest: Duration,
    total: Duration,
}

/// Pushes the frames; only `send` (the library's calls) is timed.
fn push(mut send: impl FnMut(u32, &[u8]) -> Result<(), String>) -> Pushed {
    let started = Instant::now();
    let mut slowest = Duration::ZERO;
    for f in 1..=FRAMES {
        let image = stamped(u64::from(f), BIG_IMAGE);
        let (result, took) = timed(|| send(f, &image));
        result.unwrap_or_else(|e| panic!("frame {f}: {e}"));
        slowest = slowest.max(took);
        thread::sleep(TICK.saturating_sub(took));
    }
    Pushed {
        slowest,
        total: started.elapsed(),
    }
}

fn check_host(what: &str, pushed: &Pushed) {
    eprintln!(
        "{what}: {FRAMES} frames pushed in {:?}, slowest call {:?}",
        pushed.total, pushed.slowest
    );
    assert!(
        pushed.slowest < MAX_CALL,
        "{what}: a host call took {:?}",
        pushed.slowest
    );
}

#[test]
fn a_client_reading_at_1_mb_per_s_never_slows_the_game_thread_in_async_mode() {
    let _gate = shared();
    let port = common::free_port_base();
    let server = Server::new();
    server.connect(u32::from(port), T).unwrap();
    let (connected_tx, connected) = mpsc::channel();
    let client = thread::spawn(move || {
        let mut world = wire::connect(port);
        wire::start_episode(&mut world, &common::ini(false, &["Cam"], "")).expect("handshake");
        let mut stream = Throttled::new(wire::connect(port + 1), RATE);
        connected_tx.send(stream.full_speed.clone()).unwrap();
        let (mut last, mut frames) = (0, 0);
        while last < u64::from(FRAMES) {
            let frame = wire::read_frame(&mut stream).expect("a whole frame");
            let n = frame.measurements.frame_number;
            assert!(n > last, "frame {n} after {last}");
            for (id, data) in &frame.records {
                assert_eq!(*id, CAMERA);
                let stamp = stamp_of(&data[24..]).expect("intact camera bytes");
                assert_eq!(data[..24], camera_header(stamp));
                assert!(stamp >= n, "camera {stamp} older than frame {n}");
            }
            (last, frames) = (n, frames + 1);
        }
        (frames, world)
    });

    server.read_request_new_episode(T).expect("request");
    let camera = SensorDefinition {
        id: CAMERA,
        r#type: CARLA_SERVER_CAMERA,
        name: "Cam".into(),
    };
    server
        .write_scene_description("Town", &[], &[camera], T)
        .unwrap();
    server.read_episode_start(T).unwrap();
    server.write_episode_ready(true, T).unwrap();
    let full_speed = connected.recv().expect("the client connected");
    let pushed = push(|f, image| {
        server
            .write_sensor_data(CAMERA, &camera_header(u64::from(f)), image)
            .map_err(|c| format!("sensor data: {c}"))?;
        let m = MeasurementsHeader {
            frame_number: f,
            ..Default::default()
        };
        server
            .write_measurements(&m, &[])
            .map_err(|c| format!("measurements: {c}"))
    });
    full_speed.store(true, Ordering::Relaxed);
    let (received, _world) = client
        .join()
        .expect("the client got every frame it read whole");
    let stats = server.agent_stats().unwrap();
    eprintln!("0.8 stream: {received} frames received, {stats:?}");
    check_host("0.8 stream", &pushed);
    assert_eq!(stats.frames_sent, received);
    assert!(received < u64::from(FRAMES), "nothing was skipped");
    assert!(stats.measurements_overwritten > 0, "{stats:?}");
}

#[test]
fn a_subscriber_reading_at_1_mb_per_s_never_slows_an_asynchronous_0_9_camera() {
    let _gate = shared();
    let server = Server::with_config(Config {
        bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        stream_timeout: Duration::from_secs(10),
        ..Config::default()
    });
    let addr = server.listen_streaming(0).expect("streaming port");
    let id = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "800"), ("image_size_y", "600")],
        )
        .expect("camera");
    let sensor = server.sensor(id).unwrap();
    let stream = &sensor;
    let mut socket = TcpStream::connect(addr).expect("connect");
    socket
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    socket.write_all(&id.to_le_bytes()).expect("handshake");
    let mut reader = Throttled::new(socket, RATE);
    let full_speed = reader.full_speed.clone();
    wait_for("the subscriber", || stream.stats().subscribers == 1);
    let client = thread::spawn(move || {
        let (mut last, mut messages) = (0, 0);
        while last < u64::from(FRAMES) {
            let mut prefix = [0u8; 4];
            reader.read_exact(&mut prefix).expect("a message");
            let len = u32::from_le_bytes(prefix) as usize;
            assert_eq!(len, 48 + 12 + BIG_IMAGE, "message length");
            let mut message = vec![0u8; len];
            reader.read_exact(&mut message).expect("a whole message");
            let frame = u64::from_le_bytes(message[8..16].try_into().unwrap());
            assert!(frame > last, "frame {frame} after {last}");
            assert_eq!(stamp_of(&message[60..]), Some(frame), "image bytes");
            (last, messages) = (frame, messages + 1);
        }
        messages
    });
    let pushed = push(|f, image| {
        let ctx = CaptureContext {
            frame: u64::from(f),
            timestamp: 0.0,
            transform: Default::default(),
        };
        sensor.send_image(&ctx, image).map_err(|e| e.to_string())
    });
    let during = stream.stats();
    full_speed.store(true, Ordering::Relaxed);
    let received = client.join().expect("the subscriber got whole messages");
    eprintln!("0.9 stream: {received} messages received, {during:?}");
    check_host("0.9 stream", &pushed);
    assert_eq!(during.messages, u64::from(FRAMES));
    assert!(received < u64::from(FRAMES), "nothing was skipped");
    assert!(during.dropped > 0, "drops are counted: {during:?}");
}
