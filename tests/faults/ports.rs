//! Surplus connections on every port and ports already in use.
//!
//! `tests/legacy/bad_input.rs` already checks one surplus connection per 0.8 port
//! (between episodes and while busy) and a busy agent port at the Rust
//! `connect`; here: bursts on all three 0.8 ports at once while an episode
//! runs, the 0.9 streaming port (many subscribers are all served; unknown
//! ids, silent and short handshakes are closed), and a port in use at the
//! streaming port and through the C functions.

use super::wire::{self, stamp_of, stamped};
use super::{closed_by_server, exclusive, shared, timed, wait_for, Usage};
use crate::common;
use carla_server::client::StreamClient;
use carla_server::ffi::*;
use carla_server::sensor::CaptureContext;
use carla_server::types::*;
use carla_server::Error;
use carla_server::{Config, Server};
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const T: u32 = 10_000;
const BURST: usize = 20;
/// How long a surplus connection may be kept before it is closed (a single
/// one waits at most `acceptor::SURPLUS_GRACE`, 250 ms).
const CLOSED_WITHIN: Duration = Duration::from_secs(2);

fn surplus_on_the_0_8_ports() {
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
    let client = thread::spawn(move || {
        let mut world = wire::connect(port);
        wire::start_episode(&mut world, &common::ini(true, &[], "")).expect("handshake");
        (world, wire::connect(port + 1), wire::connect(port + 2))
    });
    server.read_request_new_episode(T).expect("request");
    server.write_scene_description("Town", &[], &[], T).unwrap();
    server.read_episode_start(T).unwrap();
    server.write_episode_ready(true, T).unwrap();
    let (_world, mut stream, mut control) = client.join().unwrap();
    // Both agent sessions are up before the burst.
    let m = MeasurementsHeader {
        frame_number: 1,
        ..Default::default()
    };
    server.write_measurements(&m, &[]).unwrap();
    assert_eq!(
        wire::read_frame(&mut stream)
            .unwrap()
            .measurements
            .frame_number,
        1
    );
    wire::send_control(&mut control, 0.5).unwrap();
    assert_eq!(server.read_control(T).map(|c| c.throttle), Ok(0.5));

    // All at once: BURST surplus connections on each of the three ports.
    let started = Instant::now();
    let surplus: Vec<TcpStream> = (0..BURST)
        .flat_map(|_| [port, port + 1, port + 2])
        .map(wire::connect)
        .collect();
    let closers: Vec<_> = surplus
        .into_iter()
        .map(|mut s| {
            s.set_read_timeout(Some(CLOSED_WITHIN * 3)).unwrap();
            thread::spawn(move || (closed_by_server(&mut s), started.elapsed()))
        })
        .collect();
    let mut slowest = Duration::ZERO;
    for (i, c) in closers.into_iter().enumerate() {
        let (closed, at) = c.join().unwrap();
        assert!(closed, "surplus connection {i} was never closed");
        slowest = slowest.max(at);
    }
    eprintln!(
        "{} surplus connections closed within {slowest:?}",
        3 * BURST
    );
    assert!(
        slowest < CLOSED_WITHIN,
        "a surplus connection was kept {slowest:?}"
    );

    // The episode in progress is untouched.
    let m = MeasurementsHeader {
        frame_number: 77,
        ..Default::default()
    };
    server.write_measurements(&m, &[]).unwrap();
    let frame = wire::read_frame(&mut stream).expect("a frame after the burst");
    assert_eq!(frame.measurements.frame_number, 77);
    wire::send_control(&mut control, 0.75).unwrap();
    assert_eq!(server.read_control(T).map(|c| c.throttle), Ok(0.75));
}

fn surplus_on_the_streaming_port() {
    let handshake = Duration::from_millis(500);
    let server = Server::with_config(Config {
        bind_ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
        stream_timeout: handshake,
        ..Config::default()
    });
    let addr = server.listen_streaming(0).expect("streaming port");
    let id = server
        .create_sensor(
            "sensor.camera.rgb",
            &[("image_size_x", "32"), ("image_size_y", "16")],
        )
        .unwrap();
    let sensor = server.sensor(id).unwrap();
    sensor.set_synchronous(Some(Duration::from_secs(5)));
    let stream = &sensor;

    // Junk first: unknown ids, silence, a 2-byte handshake.
    let started = Instant::now();
    let junk: Vec<(&str, TcpStream)> = (0..BURST)
        .flat_map(|i| {
            let unknown = TcpStream::connect(addr).unwrap();
            (&unknown)
                .write_all(&(id + 1000 + i as u32).to_le_bytes())
                .unwrap();
            let short = TcpStream::connect(addr).unwrap();
            (&short).write_all(&[1, 0]).unwrap();
            [
                ("unknown id", unknown),
                ("silent", TcpStream::connect(addr).unwrap()),
                ("short handshake", short),
            ]
        })
        .collect();
    // Then many subscribers: every one is served.
    let mut subscribers: Vec<StreamClient> = (0..BURST)
        .map(|_| StreamClient::subscribe(addr, id, Duration::from_secs(10)).unwrap())
        .collect();
    wait_for("every subscriber", || stream.stats().subscribers == BURST);
    for f in 1..=5u64 {
        let ctx = CaptureContext {
            frame: f,
            timestamp: 0.0,
            transform: Default::default(),
        };
        sensor
            .send_image(&ctx, &stamped(f, 32 * 16 * 4))
            .expect("send");
    }
    for (i, sub) in subscribers.iter_mut().enumerate() {
        for f in 1..=5u64 {
            let msg = sub.next_message().expect("a message");
            assert_eq!(msg.frame(), f, "subscriber {i}");
            assert_eq!(stamp_of(&msg.payload()[12..]), Some(f), "subscriber {i}");
        }
    }
    let closers: Vec<_> = junk
        .into_iter()
        .map(|(what, mut s)| {
            s.set_read_timeout(Some(handshake + CLOSED_WITHIN * 3))
                .unwrap();
            thread::spawn(move || (what, closed_by_server(&mut s), started.elapsed()))
        })
        .collect();
    for c in closers {
        let (what, closed, at) = c.join().unwrap();
        assert!(closed, "a {what} connection was never closed");
        assert!(
            at < handshake + CLOSED_WITHIN,
            "a {what} connection was kept {at:?}"
        );
    }
    assert_eq!(stream.stats().subscribers, BURST, "junk never subscribed");
}

#[test]
fn surplus_connections_on_every_port() {
    let _gate = exclusive();
    let base = Usage::now();
    surplus_on_the_0_8_ports();
    surplus_on_the_streaming_port();
    let end = Usage::settle_to(base, 0);
    assert!(
        end.threads <= base.threads && end.fds <= base.fds,
        "threads or descriptors left behind: {base:?} -> {end:?}"
    );
}

/// Every port in `ports` can be bound again.
fn all_free(ports: &[u16]) -> bool {
    ports
        .iter()
        .all(|&p| TcpListener::bind(("0.0.0.0", p)).is_ok())
}

#[test]
fn port_already_in_use() {
    let _gate = shared();
    // The streaming port, Rust API: a clean error, and nothing half set up.
    let port = common::free_port_base();
    let blocker = TcpListener::bind(("0.0.0.0", port)).unwrap();
    let any = Config {
        bind_ip: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        stream_timeout: Duration::from_secs(1),
        ..Config::default()
    };
    let server = Server::with_config(any);
    assert_eq!(server.listen_streaming(port), Err(Error::AddressInUse));
    assert_eq!(server.streaming_addr(), None);
    assert!(server.create_sensor("sensor.camera.rgb", &[]).is_err());
    drop(blocker);
    assert_eq!(server.listen_streaming(port).map(|a| a.port()), Ok(port));
    // Taken by this server's own 0.8 ports.
    let base = common::free_port_base();
    server.connect(u32::from(base), T).unwrap();
    let other = Server::with_config(any);
    assert_eq!(other.listen_streaming(base + 1), Err(Error::AddressInUse));
    drop(server);
    assert!(
        all_free(&[port, base, base + 1, base + 2]),
        "ports left bound"
    );

    c_api_port_in_use();
}

/// The same through the C functions: the codes a C host branches on.
fn c_api_port_in_use() {
    let port = common::free_port_base();
    let blocker = TcpListener::bind(("0.0.0.0", port + 2)).unwrap();
    let h = carla_make_server();
    assert!(!h.is_null());
    let mut request = carla_request_new_episode {
        ini_file: std::ptr::null(),
        ini_file_length: 0,
    };
    // SAFETY: `h` is a live handle from carla_make_server, used on this
    // thread only; `request` and `bound` are writable locals.
    unsafe {
        // 0.8.4 semantics: connect returns 0, the next read reports it once.
        assert_eq!(carla_server_connect(h, u32::from(port), T), 0);
        assert_eq!(carla_read_request_new_episode(h, &mut request, 0), 98);
        assert_eq!(carla_read_request_new_episode(h, &mut request, 0), 11);
        assert!(all_free(&[port, port + 1]), "0.8 ports left bound");
        let (rc, took) = timed(|| carla_server_connect_blocking(h, u32::from(port), T));
        assert_eq!(rc, 98, "connect_blocking reports the busy port at once");
        assert!(
            took < Duration::from_secs(1),
            "it did not wait for a client"
        );
        assert!(all_free(&[port, port + 1]), "0.8 ports left bound");

        let mut bound = 12345u32;
        assert_eq!(
            carla_server_listen_streaming(h, u32::from(port + 2), &mut bound),
            98
        );
        assert_eq!(bound, 12345, "nothing written on failure");
        drop(blocker);
        assert_eq!(
            carla_server_listen_streaming(h, u32::from(port + 2), &mut bound),
            0
        );
        assert_eq!(bound, u32::from(port + 2));
        // The 0.8 ports collide with the streaming port now.
        assert_eq!(carla_server_connect_blocking(h, u32::from(port), T), 98);
        assert!(all_free(&[port, port + 1]), "0.8 ports left bound");
        carla_free_server(h);
    }
    assert!(
        all_free(&[port, port + 1, port + 2]),
        "ports left bound after free"
    );
}
