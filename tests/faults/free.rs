//! `carla_free_server` under load returns within 100 ms.
//!
//! Everything on the host side goes through the C functions, from this one
//! thread (the game thread). At the moment of the free:
//! - a synchronous 0.8 episode with a 1.92 MB camera is in progress and its
//!   client is reading (slowly, so the library's stream thread is blocked
//!   in the middle of writing a frame);
//! - an asynchronous 0.9 camera has a fast subscriber and (in two of the
//!   three tests) a stalled one that never reads, its subscriber thread
//!   blocked mid-write.
//!
//! "Mid-send" means those library threads blocked in `epoll_wait` on a full
//! socket (checked in `/proc/self/task`): a host thread cannot be inside
//! another call on the same handle while it is freed, by the C contract.
//! Afterwards every connection is closed, every port is free and no
//! library thread is left.
//!
//! The stalled subscriber is cut as soon as it acknowledges nothing for
//! `FLUSH_STALL` (25 ms), while a subscriber still reading gets up to
//! `FLUSH_BOUND` to finish the message being written (so a host that exits
//! right after the free does not cut it: `c_api/streaming_host.rs`).

use super::wire::{self, camera_header, stamp_of, stamped, Throttled, BIG_IMAGE};
use super::{closed_by_server, exclusive, timed, wait_for, Usage};
use crate::common;
use carla_server::client::StreamClient;
use carla_server::ffi::*;
use carla_server::sensor::CaptureContext;
use carla_server::types::*;
use std::ffi::{c_void, CString};
use std::io::{ErrorKind, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

const T: u32 = 10_000;
const CAMERA: u32 = 21;
const SYNC_FRAMES: u32 = 5;
/// At most this many frames (1.92 MB each) after the synchronous ones.
const MORE_FRAMES: u32 = 100;
const BOUND: Duration = Duration::from_millis(100);

/// Whether a library thread named `name` is blocked waiting for readiness
/// (`epoll_wait` through mio: the only place a sender waits for a full
/// socket).
fn blocked_in_poll(name: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    let polls = [
        libc::SYS_epoll_wait,
        libc::SYS_epoll_pwait,
        libc::SYS_epoll_pwait2,
    ];
    #[cfg(not(target_arch = "x86_64"))]
    let polls = [libc::SYS_epoll_pwait, libc::SYS_epoll_pwait2];
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    tasks.flatten().any(|task| {
        let read = |f: &str| std::fs::read_to_string(task.path().join(f)).unwrap_or_default();
        read("comm").trim() == name
            && read("syscall")
                .split_whitespace()
                .next()
                .and_then(|n| n.parse::<i64>().ok())
                .is_some_and(|n| polls.contains(&n))
    })
}

/// The host's C calls. Every `unsafe` call below passes the live handle
/// `h` from `carla_make_server` (freed only at the end, by this thread) and
/// pointers to locals valid for the call.
struct CHost {
    h: CarlaServerPtr,
}

impl CHost {
    fn episode(&self) {
        let mut request = carla_request_new_episode {
            ini_file: std::ptr::null(),
            ini_file_length: 0,
        };
        let name = CString::new("Cam").unwrap();
        let map = CString::new("Town").unwrap();
        let sensor = carla_sensor_definition {
            id: CAMERA,
            r#type: CARLA_SERVER_CAMERA,
            name: name.as_ptr(),
        };
        let scene = carla_scene_description {
            map_name: map.as_ptr(),
            player_start_spots: std::ptr::null(),
            number_of_player_start_spots: 0,
            sensors: &sensor,
            number_of_sensors: 1,
        };
        let mut start = carla_episode_start {
            player_start_spot_index: 9,
        };
        let ready = carla_episode_ready { ready: CBool(1) };
        // SAFETY: see `CHost`.
        unsafe {
            assert_eq!(carla_read_request_new_episode(self.h, &mut request, T), 0);
            assert_eq!(carla_write_scene_description(self.h, &scene, T), 0);
            assert_eq!(carla_read_episode_start(self.h, &mut start, T), 0);
            assert_eq!(start.player_start_spot_index, 0);
            assert_eq!(carla_write_episode_ready(self.h, &ready, T), 0);
        }
    }

    /// One frame: 0.8 camera record and measurements, 0.9 image.
    fn frame(&self, camera: u32, f: u32) {
        let image = stamped(u64::from(f), BIG_IMAGE);
        let header = camera_header(u64::from(f));
        let record = carla_sensor_data {
            id: CAMERA,
            header: header.as_ptr() as *const c_void,
            header_size: 24,
            data: image.as_ptr() as *const c_void,
            data_size: BIG_IMAGE as u32,
        };
        let measurements = carla_measurements {
            frame_number: f,
            platform_timestamp: 0,
            game_timestamp: f * 50,
            player_measurements: Default::default(),
            non_player_agents: std::ptr::null(),
            number_of_non_player_agents: 0,
        };
        let ctx = CaptureContext {
            frame: u64::from(f),
            timestamp: 0.0,
            transform: Default::default(),
        };
        // SAFETY: see `CHost`.
        unsafe {
            assert_eq!(carla_write_sensor_data(self.h, &record), 0);
            assert_eq!(carla_write_measurements(self.h, &measurements), 0);
            let pixels = image.as_ptr() as *const c_void;
            let rc = carla_sensor_send_image(self.h, camera, &ctx, pixels, BIG_IMAGE as u32);
            assert_eq!(rc, 0);
        }
    }

    fn control(&self) -> Control {
        let mut c = Control::default();
        // SAFETY: see `CHost`.
        assert_eq!(unsafe { carla_read_control(self.h, &mut c, T) }, 0);
        c
    }

    fn subscribers(&self, camera: u32) -> u32 {
        let mut n = 0;
        assert_eq!(
            // SAFETY: see `CHost`.
            unsafe { carla_sensor_subscriber_count(self.h, camera, &mut n) },
            0
        );
        n
    }
}

/// Sets up the load, frees the server and checks that everything is
/// closed; returns how long `carla_free_server` took.
fn free_under_load(with_stalled_subscriber: bool) -> Duration {
    let base = Usage::now();
    let port = common::free_port_base();
    let host = CHost {
        h: carla_make_server(),
    };
    assert!(!host.h.is_null());
    let (mut stream_port, mut camera) = (0u32, 0u32);
    let keys = [c"image_size_x".as_ptr(), c"image_size_y".as_ptr()];
    let values = [c"800".as_ptr(), c"600".as_ptr()];
    // SAFETY: see `CHost`; the key and value arrays hold two C strings each.
    unsafe {
        assert_eq!(carla_server_connect(host.h, u32::from(port), T), 0);
        assert_eq!(
            carla_server_listen_streaming(host.h, 0, &mut stream_port),
            0
        );
        let rc = carla_sensor_create(
            host.h,
            c"sensor.camera.rgb".as_ptr(),
            keys.as_ptr(),
            values.as_ptr(),
            2,
            &mut camera,
            std::ptr::null_mut(),
            0,
        );
        assert_eq!(rc, 0);
    }
    let stream_port = stream_port as u16;

    // 0.9: a subscriber that reads everything, maybe one that never reads.
    let stalled = with_stalled_subscriber.then(|| {
        let s = TcpStream::connect(("127.0.0.1", stream_port)).unwrap();
        (&s).write_all(&camera.to_le_bytes()).unwrap();
        s
    });
    let subscribers = 1 + u32::from(with_stalled_subscriber);
    let mut fast =
        StreamClient::subscribe(("127.0.0.1", stream_port), camera, Duration::from_secs(20))
            .unwrap();
    let fast = thread::spawn(move || {
        let mut whole = 0;
        let end = loop {
            match fast.next_message() {
                Ok(m) => {
                    assert_eq!(stamp_of(&m.payload()[12..]), Some(m.frame()), "0.9 bytes");
                    whole += 1;
                }
                Err(e) => break e.kind(),
            }
        };
        (whole, end)
    });
    wait_for("the 0.9 subscribers", || {
        host.subscribers(camera) == subscribers
    });

    // 0.8: a synchronous client that reads every frame, then slows down.
    let client = thread::spawn(move || {
        let mut world = wire::connect(port);
        wire::start_episode(&mut world, &common::ini(true, &["Cam"], "")).expect("handshake");
        let mut stream = Throttled::new(wire::connect(port + 1), 1_000_000);
        let full_speed = stream.full_speed.clone();
        full_speed.store(true, Ordering::Relaxed);
        let mut control = wire::connect(port + 2);
        for f in 1..=SYNC_FRAMES {
            let frame = wire::read_frame(&mut stream).expect("a synchronous frame");
            assert_eq!(frame.measurements.frame_number, u64::from(f));
            let (_, data) = &frame.records[0];
            assert_eq!(stamp_of(&data[24..]), Some(u64::from(f)), "0.8 bytes");
            wire::send_control(&mut control, f as f32).unwrap();
        }
        full_speed.store(false, Ordering::Relaxed);
        (stream, world, control)
    });
    host.episode();
    for f in 1..=SYNC_FRAMES {
        host.frame(camera, f);
        assert_eq!(host.control().throttle, f as f32);
    }
    let (mut stream, mut world, mut control) = client.join().expect("0.8 client");
    // More frames until the senders are stuck on a full socket (the
    // client's buffers first take a few megabytes).
    let stuck = || {
        blocked_in_poll("carla-stream")
            && (!with_stalled_subscriber || blocked_in_poll("carla-subscribe"))
    };
    let mut f = SYNC_FRAMES;
    while !stuck() {
        f += 1;
        assert!(
            f <= SYNC_FRAMES + MORE_FRAMES,
            "the library's senders never blocked mid-write"
        );
        host.frame(camera, f);
        thread::sleep(Duration::from_millis(5));
    }

    // SAFETY: the handle is live and no other thread uses it.
    let ((), took) = timed(|| unsafe { carla_free_server(host.h) });
    eprintln!(
        "carla_free_server under load (stalled subscriber: {with_stalled_subscriber}) took {took:?}"
    );

    // Every connection is closed: the 0.8 stream after what was queued.
    stream.full_speed.store(true, Ordering::Relaxed);
    let closed = std::iter::from_fn(|| Some(wire::read_frame(&mut stream)))
        .find_map(|r| r.err())
        .expect("an error ends the frames");
    assert!(
        matches!(
            closed.kind(),
            ErrorKind::UnexpectedEof | ErrorKind::ConnectionReset
        ),
        "the 0.8 stream ended with {closed}"
    );
    // Each closed within 5 s.
    let within = Some(Duration::from_secs(5));
    for s in [&world, &control].into_iter().chain(stalled.as_ref()) {
        s.set_read_timeout(within).unwrap();
    }
    assert!(closed_by_server(&mut world), "0.8 world connection");
    assert!(closed_by_server(&mut control), "0.8 control connection");
    if let Some(mut stalled) = stalled {
        assert!(closed_by_server(&mut stalled), "stalled 0.9 subscriber");
    }
    drop((stream, world, control));
    let (whole, end) = fast.join().expect("fast 0.9 subscriber");
    assert!(whole >= 1, "the fast subscriber got images");
    // Closed by the server (at a message boundary, or cut), not timed out.
    assert!(
        !matches!(end, ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "the fast subscriber's connection was left open"
    );
    for p in [port, port + 1, port + 2, stream_port] {
        assert!(
            TcpListener::bind(("0.0.0.0", p)).is_ok(),
            "port {p} left bound"
        );
    }
    let end = Usage::settle_to(base, 0);
    assert!(
        end.threads <= base.threads && end.fds <= base.fds,
        "threads or descriptors left behind: {base:?} -> {end:?}"
    );
    took
}

#[test]
fn free_server_under_load_returns_within_100_ms() {
    let _gate = exclusive();
    let took = free_under_load(true);
    assert!(took < BOUND, "carla_free_server took {took:?}");
}

#[test]
fn free_server_under_load_without_a_stalled_subscriber_returns_within_100_ms() {
    let _gate = exclusive();
    let took = free_under_load(false);
    assert!(took < BOUND, "carla_free_server took {took:?}");
}
