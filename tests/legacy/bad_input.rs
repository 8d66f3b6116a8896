//! Bad input: garbage, huge length prefixes, early disconnects, surplus
//! connections, unknown ids, busy ports, calls out of order. Each gets a
//! clear error and the next client is served.

use crate::common;
use common::closed_by_server;

use carla_server::client::{read_message, write_message, Client};
use carla_server::legacy::proto;
use carla_server::types::*;
use carla_server::Error;
use carla_server::{Config, Server};
use prost::Message;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Records the largest single allocation made by this test process.
struct Largest;
static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only records sizes.
unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: same layout contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

const T: u32 = 3000;
const CAMERA: u32 = 42;

fn server_with(config: Config) -> (Arc<Server>, u16) {
    let port = common::free_port_base();
    let server = Arc::new(Server::with_config(config));
    server.connect(u32::from(port), T).unwrap();
    (server, port)
}

fn server() -> (Arc<Server>, u16) {
    server_with(Config::default())
}

fn raw(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s
}

/// Host: one episode set-up with a camera.
fn host_setup(server: &Server) {
    server.read_request_new_episode(T).expect("request");
    let cam = SensorDefinition {
        id: CAMERA,
        r#type: CARLA_SERVER_CAMERA,
        name: "Cam".into(),
    };
    server
        .write_scene_description("Town", &[Transform::default()], &[cam], T)
        .unwrap();
    server.read_episode_start(T).unwrap();
    server.write_episode_ready(true, T).unwrap();
}

/// Client: the world handshake only (agent ports left to the test).
fn world_handshake(port: u16) -> TcpStream {
    let mut w = raw(port);
    let req = proto::RequestNewEpisode {
        ini_file: common::ini(true, &["Cam"], ""),
    };
    write_message(&mut w, &req.encode_to_vec()).unwrap();
    read_message(&mut w, 1 << 20).unwrap();
    write_message(
        &mut w,
        &proto::EpisodeStart {
            player_start_spot_index: 0,
        }
        .encode_to_vec(),
    )
    .unwrap();
    assert_eq!(read_message(&mut w, 16).unwrap(), [0x08, 0x01]);
    w
}

/// Host and raw client through the world handshake, in parallel; returns
/// the client's world connection (the agent ports are left to the test).
fn episode_started(server: &Arc<Server>, port: u16) -> TcpStream {
    let host = {
        let server = server.clone();
        thread::spawn(move || host_setup(&server))
    };
    let world = world_handshake(port);
    host.join().unwrap();
    world
}

fn episode_with_client(server: &Arc<Server>, port: u16) {
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            host_setup(&server);
            server
                .write_measurements(
                    &MeasurementsHeader {
                        frame_number: 9,
                        ..Default::default()
                    },
                    &[],
                )
                .unwrap();
            server.read_control(T).expect("control");
        })
    };
    let mut client = Client::connect("127.0.0.1", port, Duration::from_secs(5)).unwrap();
    client
        .load_settings(&common::ini(true, &["Cam"], ""))
        .unwrap();
    client.start_episode(0).unwrap();
    assert_eq!(client.read_frame().unwrap().measurements.frame_number, 9);
    client.send_control(&Control::default()).unwrap();
    host.join().unwrap();
}

#[test]
fn garbage_on_the_world_port_is_reported_and_the_next_client_is_served() {
    let (server, port) = server();
    let mut bad = raw(port);
    bad.write_all(&[6, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        .unwrap();
    assert_eq!(server.read_request_new_episode(T), Err(Error::Malformed));
    assert!(closed_by_server(&mut bad));
    episode_with_client(&server, port);
}

#[test]
fn a_4_gib_length_prefix_closes_the_connection_and_allocates_nothing() {
    let (server, port) = server();
    let mut bad = raw(port);
    bad.write_all(&[0xff, 0xff, 0xff, 0xff]).unwrap();
    assert_eq!(server.read_request_new_episode(T), Err(Error::TooLong));
    assert!(closed_by_server(&mut bad));
    assert!(
        LARGEST.load(Ordering::Relaxed) < 256 << 20,
        "a huge buffer was allocated"
    );
    episode_with_client(&server, port);
}

#[test]
fn the_maximum_message_size_is_configurable() {
    let (server, port) = server_with(Config {
        max_message: 64,
        ..Default::default()
    });
    let mut w = raw(port);
    let req = proto::RequestNewEpisode {
        ini_file: "x".repeat(65),
    };
    write_message(&mut w, &req.encode_to_vec()).unwrap();
    assert_eq!(server.read_request_new_episode(T), Err(Error::TooLong));
    assert!(closed_by_server(&mut w));
}

#[test]
fn garbage_or_a_huge_prefix_on_the_control_port_ends_the_episode_and_closes_its_connections() {
    let (server, port) = server();
    for (bytes, error) in [
        (vec![3, 0, 0, 0, 0x0d, 0x01, 0x02], Error::Malformed), // truncated fixed32
        (u32::MAX.to_le_bytes().to_vec(), Error::TooLong),
    ] {
        let mut world = episode_started(&server, port);
        let mut stream = raw(port + 1);
        let mut control = raw(port + 2);
        control.write_all(&bytes).unwrap();
        assert_eq!(server.read_control(T), Err(error));
        assert_eq!(server.read_control(0), Err(Error::Aborted), "reported once");
        // A misbehaving client: every connection of the episode is closed.
        assert!(closed_by_server(&mut control));
        assert!(closed_by_server(&mut stream));
        assert!(closed_by_server(&mut world));
        // A control reconnection does not revive the episode.
        let mut again = raw(port + 2);
        assert!(closed_by_server(&mut again));
        assert!(server.read_request_new_episode(T).is_err());
    }
    episode_with_client(&server, port);
}

#[test]
fn garbage_sent_to_the_stream_port_is_ignored() {
    let (server, port) = server();
    let _world = episode_started(&server, port);
    let mut stream = raw(port + 1);
    stream.write_all(&[0xde; 4096]).unwrap();
    server
        .write_measurements(
            &MeasurementsHeader {
                frame_number: 5,
                ..Default::default()
            },
            &[],
        )
        .unwrap();
    let m = proto::Measurements::decode(&read_message(&mut stream, 1 << 20).unwrap()[..]).unwrap();
    assert_eq!(m.frame_number, 5);
    assert!(
        read_message(&mut stream, 16).unwrap().is_empty(),
        "frame terminator"
    );
}

#[test]
fn a_stream_client_leaving_mid_frame_is_reported_once_and_ends_the_episode() {
    let (server, port) = server();
    let mut world = episode_started(&server, port);
    let image = vec![7u8; 4 << 20];
    let mut stream = raw(port + 1);
    server.write_sensor_data(CAMERA, &[1; 24], &image).unwrap();
    server
        .write_measurements(
            &MeasurementsHeader {
                frame_number: 1,
                ..Default::default()
            },
            &[],
        )
        .unwrap();
    let mut some = [0u8; 100];
    stream.read_exact(&mut some).unwrap();
    drop(stream); // mid-frame: most of the 4 MiB image is unread

    let started = Instant::now();
    let error = loop {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the failure was never reported"
        );
        server.write_sensor_data(CAMERA, &[1; 24], &image).unwrap();
        match server.write_measurements(
            &MeasurementsHeader {
                frame_number: 2,
                ..Default::default()
            },
            &[],
        ) {
            Ok(()) => thread::sleep(Duration::from_millis(5)),
            Err(code) => break code,
        }
    };
    assert!(
        matches!(error, Error::BrokenPipe | Error::ConnectionReset),
        "{error}"
    );
    // Reported once; the episode is over: nothing is stored any more and a
    // new stream connection is refused at once.
    let m3 = MeasurementsHeader {
        frame_number: 3,
        ..Default::default()
    };
    assert_eq!(server.write_measurements(&m3, &[]), Err(Error::Aborted));
    let mut stream = raw(port + 1);
    assert!(closed_by_server(&mut stream));
    // The client closed the connection itself, as the 0.8.4 client does
    // before its next request: the world connection stays open for that
    // request, and the next episode runs on it.
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            host_setup(&server);
            server.write_sensor_data(CAMERA, &[1; 24], &image).unwrap();
            server.write_measurements(&m3, &[]).unwrap();
        })
    };
    let req = proto::RequestNewEpisode {
        ini_file: common::ini(true, &["Cam"], ""),
    };
    write_message(&mut world, &req.encode_to_vec()).unwrap();
    read_message(&mut world, 1 << 20).unwrap();
    let start = proto::EpisodeStart {
        player_start_spot_index: 0,
    };
    write_message(&mut world, &start.encode_to_vec()).unwrap();
    assert_eq!(read_message(&mut world, 16).unwrap(), [0x08, 0x01]);
    let mut stream = raw(port + 1);
    host.join().unwrap();
    let m = proto::Measurements::decode(&read_message(&mut stream, 1 << 20).unwrap()[..]).unwrap();
    assert_eq!(m.frame_number, 3);
    let record = read_message(&mut stream, 8 << 20).unwrap();
    assert_eq!(record.len(), 4 + 24 + 4 * 1024 * 1024);
    assert!(read_message(&mut stream, 16).unwrap().is_empty());
}

#[test]
fn unknown_sensor_ids_and_missing_agent_servers_get_clear_codes() {
    let (server, port) = server();
    assert_eq!(server.read_control(0), Err(Error::Aborted));
    assert_eq!(
        server.write_measurements(&Default::default(), &[]),
        Err(Error::Aborted)
    );
    assert_eq!(
        server.write_sensor_data(CAMERA, &[], &[]),
        Err(Error::Aborted)
    );
    let _world = episode_started(&server, port);
    assert_eq!(
        server.write_sensor_data(999, &[0; 24], &[1, 2]),
        Err(Error::UnknownSensor(999))
    );
    assert_eq!(server.write_sensor_data(CAMERA, &[0; 24], &[1, 2]), Ok(()));
}

#[test]
fn a_port_already_in_use_is_reported_and_nothing_stays_bound() {
    let port = common::free_port_base();
    let blocker = TcpListener::bind(("0.0.0.0", port + 1)).unwrap();
    let server = Server::new();
    assert_eq!(server.connect(u32::from(port), T), Err(Error::AddressInUse));
    assert!(
        TcpListener::bind(("0.0.0.0", port)).is_ok(),
        "world port left bound"
    );
    // The 0.8.4-style deferred connect reports it on the first read, once.
    server.connect_deferred(u32::from(port), T);
    assert_eq!(server.read_request_new_episode(0), Err(Error::AddressInUse));
    assert_eq!(server.read_request_new_episode(0), Err(Error::TryAgain));
    drop(blocker);
    assert_eq!(server.connect(u32::from(port), T), Ok(()));
    assert_eq!(
        server.connect(u32::from(port), T),
        Err(Error::AlreadyConnected)
    );
    assert_eq!(Server::new().connect(0, T), Err(Error::InvalidPort));
    assert_eq!(Server::new().connect(65534, T), Err(Error::InvalidPort));
}

#[test]
fn surplus_connections_are_closed_not_left_in_the_backlog() {
    let (server, port) = server();
    // Between episodes nobody wants the agent ports.
    assert!(closed_by_server(&mut raw(port + 1)));
    assert!(closed_by_server(&mut raw(port + 2)));
    let _world = episode_started(&server, port);
    let _stream = raw(port + 1);
    let _control = raw(port + 2);
    thread::sleep(Duration::from_millis(50));
    for p in [port, port + 1, port + 2] {
        let started = Instant::now();
        assert!(closed_by_server(&mut raw(p)), "port {p}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "port {p} kept a surplus client waiting"
        );
    }
}

#[test]
fn calls_out_of_protocol_order_get_0_8_4_codes_or_a_clear_error() {
    let (server, port) = server();
    // No world client: nothing can be sent (0.8.4 would time out).
    assert_eq!(
        server.write_scene_description("m", &[], &[], 0),
        Err(Error::TimedOut)
    );
    let mut w = raw(port);
    let started = Instant::now();
    while !server.world_client_connected() {
        assert!(started.elapsed() < Duration::from_secs(5));
        thread::sleep(Duration::from_millis(1));
    }
    assert!(matches!(
        server.write_episode_ready(true, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(server.read_episode_start(0), Err(Error::TryAgain));
    assert_eq!(server.read_control(0), Err(Error::Aborted));
    // A scene written before the request is queued (110 within t) and goes
    // out right after the request, as in 0.8.4; a second one is refused.
    assert_eq!(
        server.write_scene_description("Early", &[], &[], 0),
        Err(Error::TimedOut)
    );
    assert!(matches!(
        server.write_scene_description("Again", &[], &[], 0),
        Err(Error::InvalidArgument(_))
    ));
    let req = proto::RequestNewEpisode {
        ini_file: String::new(),
    };
    write_message(&mut w, &req.encode_to_vec()).unwrap();
    let scene =
        proto::SceneDescription::decode(&read_message(&mut w, 1 << 20).unwrap()[..]).unwrap();
    assert_eq!(scene.map_name, "Early");
    assert_eq!(server.read_request_new_episode(T), Ok(Vec::new()));
}

#[test]
fn a_zero_time_out_never_waits() {
    let (server, _port) = server();
    let started = Instant::now();
    for _ in 0..100 {
        assert_eq!(server.read_request_new_episode(0), Err(Error::TryAgain));
        assert_eq!(server.read_episode_start(0), Err(Error::TryAgain));
    }
    assert!(started.elapsed() < Duration::from_secs(1));
    // A server time-out of 0 makes the first request due at once.
    let port = common::free_port_base();
    let zero = Server::new();
    zero.connect(u32::from(port), 0).unwrap();
    let mut w = raw(port);
    assert_eq!(
        zero.read_request_new_episode(2000),
        Err(Error::DeadlinePassed)
    );
    assert!(closed_by_server(&mut w));
}

#[test]
fn teardown_is_prompt_after_the_stream_client_left_and_the_control_client_idles() {
    let (server, port) = server();
    let _world = episode_started(&server, port);
    let stream = raw(port + 1);
    let _control = raw(port + 2); // connected, never sends
    thread::sleep(Duration::from_millis(50));
    drop(stream);
    let started = Instant::now();
    let m = MeasurementsHeader::default();
    while server.write_measurements(&m, &[]).is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "stream failure never reported"
        );
        thread::sleep(Duration::from_millis(5));
    }
    // The control thread is blocked reading with a T = 3 s deadline.
    let started = Instant::now();
    drop(Arc::try_unwrap(server).ok().expect("sole owner"));
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "teardown waited {:?}",
        started.elapsed()
    );
}
