//! A client process killed mid-frame, 100 times.
//!
//! The client is this test binary run again as a child process
//! (`child_client_killed_by_the_parent`, ignored unless asked for). Each
//! child plays a whole clean synchronous episode frame (checking every
//! byte of a 1.92 MB camera image), reads the first few bytes of the next
//! frame and says so; the parent then kills it with SIGKILL. The host (this
//! thread) must see each departure with the right code, never wait longer
//! than its own time-outs, and serve the next child; threads and open
//! descriptors stay flat.

use super::wire::{self, camera_header, stamp_of, stamped, BIG_IMAGE};
use super::{exclusive, timed, Usage};
use crate::common::{self, chost::Host};
use carla_server::types::*;
use carla_server::Error;
use carla_server::Server;
use std::io::{Read, Write};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

const KILLS: u32 = 100;
const T: u32 = 10_000;
const CAMERA: u32 = 3;
const PORT_VAR: &str = "CARLA_FAULTS_CHILD_PORT";
const BYTES_VAR: &str = "CARLA_FAULTS_CHILD_BYTES";
const TAG: &str = "FAULTS-CHILD";

/// Bytes of frame 2 a child reads before it is killed: from inside the
/// measurements to deep inside the camera record.
fn bytes_before_kill(i: u32) -> usize {
    [3, 40, 300, 5_000, 70_000, 900_000][i as usize % 6]
}

fn measurement(frame: u32) -> MeasurementsHeader {
    MeasurementsHeader {
        frame_number: frame,
        game_timestamp: frame * 50,
        ..Default::default()
    }
}

fn write_frame(server: &Server, frame: u32) -> Duration {
    let image = stamped(u64::from(frame), BIG_IMAGE);
    let ((), took) = timed(|| {
        server
            .write_sensor_data(CAMERA, &camera_header(u64::from(frame)), &image)
            .expect("sensor data");
        server
            .write_measurements(&measurement(frame), &[])
            .expect("measurements");
    });
    took
}

/// Asserts that a host call returned within its own time-out (plus 1 s of
/// scheduling slack); calls that never wait get the same 1 s.
fn within(what: &str, took: Duration, timeout_ms: u32) {
    let limit = Duration::from_millis(u64::from(timeout_ms)) + Duration::from_secs(1);
    assert!(took < limit, "{what} blocked for {took:?}");
}

/// One child from spawn to kill, and the host's view of its departure.
fn one_client(server: &Server, exe: &Path, port: u16, i: u32) {
    let port_text = port.to_string();
    let bytes_text = bytes_before_kill(i).to_string();
    let mut child = Host::spawn_with_env(
        exe,
        &[
            "--exact".into(),
            "killed_client::child_client_killed_by_the_parent".into(),
            "--ignored".into(),
            "--nocapture".into(),
            "--test-threads=1".into(),
        ],
        &[
            (PORT_VAR, Path::new(&port_text)),
            (BYTES_VAR, Path::new(&bytes_text)),
        ],
    );
    let (ini, took) = timed(|| server.read_request_new_episode(T));
    within("read_request_new_episode", took, T);
    ini.unwrap_or_else(|code| panic!("client {i}: request: {code}"));
    let camera = SensorDefinition {
        id: CAMERA,
        r#type: CARLA_SERVER_CAMERA,
        name: "Cam".into(),
    };
    let (scene, took) = timed(|| server.write_scene_description("Town", &[], &[camera], T));
    within("write_scene_description", took, T);
    scene.expect("scene");
    let (start, took) = timed(|| server.read_episode_start(T));
    within("read_episode_start", took, T);
    assert_eq!(start, Ok(0));
    let (ready, took) = timed(|| server.write_episode_ready(true, T));
    within("write_episode_ready", took, T);
    ready.expect("ready");

    within("writing frame 1", write_frame(server, 1), 0);
    let (control, took) = timed(|| server.read_control(T));
    within("read_control", took, T);
    assert_eq!(control.expect("the control of frame 1").throttle, 0.25);
    wait_line(&child, "CLEAN");
    within("writing frame 2", write_frame(server, 2), 0);
    wait_line(&child, "MID-FRAME");
    child.drain(); // SIGKILL, then reap

    // The stream port: the next write fails once the kernel knows.
    let started = Instant::now();
    let mut frame = 3;
    let stream_error = loop {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "client {i}: the stream failure was never reported"
        );
        let image = stamped(u64::from(frame), BIG_IMAGE);
        let (_, took) = timed(|| server.write_sensor_data(CAMERA, &[0; 24], &image));
        within("write_sensor_data", took, 0);
        let (result, took) = timed(|| server.write_measurements(&measurement(frame), &[]));
        within("write_measurements", took, 0);
        match result {
            Ok(()) => thread::sleep(Duration::from_millis(2)),
            Err(code) => break code,
        }
        frame += 1;
    };
    // Whichever port notices first ends the episode; both agent sides
    // report that cause once (a closed connection, or the world client
    // leaving), then "no episode".
    let closed = |e: &Error| {
        matches!(
            e,
            Error::BrokenPipe | Error::ConnectionReset | Error::PeerClosed | Error::Aborted
        )
    };
    assert!(
        closed(&stream_error),
        "client {i}: stream port reported {stream_error}"
    );
    let (control, took) = timed(|| server.read_control(5000));
    within("read_control", took, 5000);
    let control = control.expect_err("no control after the kill");
    assert!(
        closed(&control),
        "client {i}: control port reported {control}"
    );
    assert_eq!(server.read_control(0), Err(Error::Aborted));
    let (request, took) = timed(|| server.read_request_new_episode(5000));
    within("read_request_new_episode", took, 5000);
    assert_eq!(request, Err(Error::PeerClosed), "client {i}: world port");
}

/// Waits for `TAG word` on the child's stdout (other lines are the test
/// harness's).
fn wait_line(child: &Host, word: &str) {
    let want = format!("{TAG} {word}");
    loop {
        let line = child.next_line();
        if line.contains(&want) {
            return;
        }
        assert!(!line.contains(TAG), "unexpected child line {line:?}");
    }
}

#[test]
fn a_client_killed_mid_frame_100_times() {
    let _gate = exclusive();
    let exe = std::env::current_exe().expect("the test binary");
    let port = common::free_port_base();
    let server = Server::new();
    server.connect(u32::from(port), T).unwrap();
    let started = Instant::now();
    one_client(&server, &exe, port, 0);
    let base = Usage::now();
    for i in 1..KILLS {
        one_client(&server, &exe, port, i);
    }
    let end = Usage::settle_to(base, 0);
    eprintln!(
        "{KILLS} clients killed mid-frame in {:?}; after the first: {base:?}; after the last: {end:?}",
        started.elapsed()
    );
    assert!(
        end.threads <= base.threads,
        "threads leaked: {base:?} -> {end:?}"
    );
    assert!(
        end.fds <= base.fds,
        "descriptors leaked: {base:?} -> {end:?}"
    );
    // After the last kill a clean episode still gets every byte.
    let mut w = wire::connect(port);
    let client = thread::spawn(move || {
        wire::start_episode(&mut w, &common::ini(true, &["Cam"], "")).expect("handshake");
        let mut stream = wire::connect(port + 1);
        let frame = wire::read_frame(&mut stream).expect("a whole frame");
        check_frame(&frame, 1);
        w
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
    write_frame(&server, 1);
    client.join().expect("a clean episode after the last kill");
}

fn check_frame(frame: &wire::Frame, n: u32) {
    assert_eq!(frame.measurements.frame_number, u64::from(n));
    assert_eq!(frame.measurements.game_timestamp, n * 50);
    assert_eq!(frame.records.len(), 1, "one camera record");
    let (id, data) = &frame.records[0];
    assert_eq!(*id, CAMERA);
    assert_eq!(data[..24], camera_header(u64::from(n)));
    assert_eq!(data.len(), 24 + BIG_IMAGE);
    assert_eq!(stamp_of(&data[24..]), Some(u64::from(n)), "camera bytes");
}

/// The child: one clean frame, part of the next, then wait to be killed.
#[test]
#[ignore = "run as a child process by a_client_killed_mid_frame_100_times"]
fn child_client_killed_by_the_parent() {
    let port: u16 = std::env::var(PORT_VAR)
        .expect("run by the parent")
        .parse()
        .unwrap();
    let bytes: usize = std::env::var(BYTES_VAR).unwrap().parse().unwrap();
    let mut world = wire::connect(port);
    wire::start_episode(&mut world, &common::ini(true, &["Cam"], "")).expect("handshake");
    let mut stream = wire::connect(port + 1);
    let mut control = wire::connect(port + 2);
    let frame = wire::read_frame(&mut stream).expect("frame 1");
    check_frame(&frame, 1);
    wire::send_control(&mut control, 0.25).expect("control");
    say("CLEAN");
    let mut part = vec![0u8; bytes];
    stream.read_exact(&mut part).expect("the start of frame 2");
    say("MID-FRAME");
    thread::sleep(Duration::from_secs(30)); // killed before this ends
    panic!("not killed");
}

fn say(word: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{TAG} {word}")
        .and_then(|()| out.flush())
        .unwrap();
}
