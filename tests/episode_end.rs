//! Episodes end loudly: when an episode ends (a deadline, a client that
//! closed a connection, a world client that left, agent ports never opened)
//! every connection it should close gets end of file at once, one log line
//! names the cause, and no connection is held without a deadline.

mod common;

use carla_server::client::{read_message, write_message};
use carla_server::legacy::proto;
use carla_server::log::{self, Level};
use carla_server::types::*;
use carla_server::{Error, Server};
use prost::Message;
use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

/// The server time-out of these tests, ms.
const T: u32 = 600;
const CAMERA: u32 = 7;

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn server() -> (Arc<Server>, u16) {
    static SINK: Once = Once::new();
    SINK.call_once(|| {
        log::set_sink(Some(Arc::new(|_: Level, line: &str| {
            LINES.lock().unwrap().push(line.to_owned());
        })))
    });
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
    (server, port)
}

/// The log lines containing all of `words`.
fn logged(words: &[&str]) -> Vec<String> {
    LINES
        .lock()
        .unwrap()
        .iter()
        .filter(|l| words.iter().all(|w| l.contains(w)))
        .cloned()
        .collect()
}

fn raw(port: u16) -> TcpStream {
    TcpStream::connect(("127.0.0.1", port)).unwrap()
}

/// Whether the server closed `s` (end of file or reset) within `within`,
/// reading and discarding whatever it sent first. A time-out is `false`.
fn eof_within(s: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// Host: one synchronous episode set-up with a camera.
fn host_setup(server: &Server) {
    server.read_request_new_episode(5000).expect("request");
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

/// Client: the world handshake, in parallel with the host's set-up.
fn handshake(server: &Arc<Server>, port: u16) -> TcpStream {
    let host = {
        let server = server.clone();
        thread::spawn(move || host_setup(&server))
    };
    let mut w = raw(port);
    let req = proto::RequestNewEpisode {
        ini_file: common::ini(true, &["Cam"], ""),
    };
    write_message(&mut w, &req.encode_to_vec()).unwrap();
    read_message(&mut w, 1 << 20).unwrap();
    let start = proto::EpisodeStart {
        player_start_spot_index: 0,
    };
    write_message(&mut w, &start.encode_to_vec()).unwrap();
    assert_eq!(read_message(&mut w, 16).unwrap(), [0x08, 0x01]);
    host.join().unwrap();
    w
}

/// Host: frames until the episode ends; returns the frames sent and the
/// errors `read_control` reported (the first error, then the next call's).
fn host_frames(server: Arc<Server>) -> thread::JoinHandle<(u32, Error, Error)> {
    thread::spawn(move || {
        let mut frame = 0;
        loop {
            let m = MeasurementsHeader {
                frame_number: frame,
                ..Default::default()
            };
            if server.write_measurements(&m, &[]).is_ok() {
                frame += 1;
            }
            match server.read_control(T + 2000) {
                Ok(_) => {}
                Err(Error::TryAgain) => {}
                Err(first) => return (frame, first, server.read_control(0).unwrap_err()),
            }
        }
    })
}

fn control() -> Vec<u8> {
    proto::Control {
        throttle: 0.5,
        ..Default::default()
    }
    .encode_to_vec()
}

/// Finding 5: a client that pauses longer than T in a synchronous episode.
#[test]
fn a_client_silent_past_the_control_deadline_gets_end_of_file_everywhere() {
    let (server, port) = server();
    let mut world = handshake(&server, port);
    let mut stream = raw(port + 1);
    let mut ctl = raw(port + 2);
    let host = host_frames(server.clone());
    for _ in 0..5 {
        read_message(&mut stream, 1 << 20).unwrap();
        assert!(read_message(&mut stream, 16).unwrap().is_empty());
        write_message(&mut ctl, &control()).unwrap();
    }
    let paused = Instant::now();
    // No control for longer than T: every connection ends promptly.
    let bound = Duration::from_millis(u64::from(T) + 1500);
    assert!(eof_within(&mut stream, bound), "stream kept open");
    assert!(paused.elapsed() >= Duration::from_millis(u64::from(T) - 50));
    assert!(
        eof_within(&mut world, Duration::from_secs(1)),
        "world kept open"
    );
    assert!(
        eof_within(&mut ctl, Duration::from_secs(1)),
        "control kept open"
    );
    let (frames, first, then) = host.join().unwrap();
    assert!(frames >= 5);
    assert_eq!((first, then), (Error::DeadlinePassed, Error::Aborted));
    // A control reconnection does not revive it; it is closed at once.
    let mut again = raw(port + 2);
    assert!(eof_within(&mut again, Duration::from_secs(1)));
    let lines = logged(&[
        "episode ended: control client",
        "sent no control for 600 ms (the control deadline",
    ]);
    assert_eq!(lines.len(), 1, "{lines:?}");
    // The host hears that the world client is gone, and serves the next.
    assert!(server.read_request_new_episode(2000).is_err());
    let _world = handshake(&server, port);
}

/// Finding 5, second case: an idle connection takes the control port
/// right after EpisodeReady, so the real client's is surplus.
#[test]
fn an_idle_intruder_on_the_control_port_ends_the_episode_at_its_deadline() {
    let (server, port) = server();
    let mut world = handshake(&server, port);
    let _intruder = raw(port + 2);
    thread::sleep(Duration::from_millis(50));
    let mut stream = raw(port + 1);
    let mut ctl = raw(port + 2);
    let host = host_frames(server.clone());
    assert!(
        eof_within(&mut ctl, Duration::from_secs(1)),
        "surplus control kept open"
    );
    let bound = Duration::from_millis(u64::from(T) + 1500);
    assert!(eof_within(&mut stream, bound), "stream kept open");
    assert!(
        eof_within(&mut world, Duration::from_secs(1)),
        "world kept open"
    );
    let (_, first, _) = host.join().unwrap();
    assert_eq!(first, Error::DeadlinePassed);
    assert!(server.read_request_new_episode(2000).is_err());
}

/// Finding 6: after a client leaves, the agent ports hold nothing.
#[test]
fn after_a_client_leaves_new_agent_connections_are_closed_at_once() {
    let (server, port) = server();
    let world = handshake(&server, port);
    let stream = raw(port + 1);
    let ctl = raw(port + 2);
    thread::sleep(Duration::from_millis(100));
    drop((world, stream, ctl));
    assert!(server.read_request_new_episode(2000).is_err());
    for p in [port + 1, port + 2] {
        let mut late = raw(p);
        let started = Instant::now();
        assert!(
            eof_within(&mut late, Duration::from_secs(2)),
            "port {p} held"
        );
        assert!(started.elapsed() < Duration::from_millis(500));
    }
    assert!(!logged(&["episode ended: "]).is_empty());
}

/// Finding 7: a client that completes the handshake and never opens the
/// agent ports does not hold the world port.
#[test]
fn a_client_that_never_opens_the_agent_ports_is_closed_after_the_deadline() {
    let (server, port) = server();
    let started = Instant::now();
    let mut world = handshake(&server, port);
    let bound = Duration::from_millis(u64::from(T) + 1500);
    assert!(eof_within(&mut world, bound), "world kept open");
    assert!(started.elapsed() >= Duration::from_millis(u64::from(T) - 50));
    assert_eq!(server.read_control(0), Err(Error::DeadlinePassed));
    assert_eq!(server.read_control(0), Err(Error::Aborted));
    assert!(!logged(&["no client opened the", "within 600 ms of EpisodeReady"]).is_empty());
    // The world port serves the next client.
    assert!(server.read_request_new_episode(2000).is_err());
    let _world = handshake(&server, port);
}
