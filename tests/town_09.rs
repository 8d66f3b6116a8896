//! The demo world (`carla-host`, what `cargo run --release` starts) driven
//! by the unmodified `carla==0.9.16` package: one script per item of the
//! world's 0.9 support under tests/python/town/ (blueprints, map, actors,
//! sensors, modes, the port shared with 0.8). Each test starts its own
//! host; each script prints `OK` or `FAILED: <what>`.

mod common;

use carla_server::client::Client;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Host {
    child: Child,
    port: u16,
}

impl Host {
    fn start() -> Host {
        let port = common::free_port_base();
        let mut child = Command::new(env!("CARGO_BIN_EXE_carla-host"))
            .args(["--port", &port.to_string(), "--host", "127.0.0.1"])
            .args(["--stream-port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start carla-host");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let banner = lines.next().expect("banner").expect("stdout");
        assert!(banner.contains("0.9.16"), "{banner}");
        std::thread::spawn(move || for _ in lines.by_ref() {});
        Host { child, port }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("CARLA_0916_PYTHON") {
        return p.into();
    }
    let venv =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/venv-carla-0.9.16/bin/python");
    assert!(
        venv.exists(),
        "{} is missing: run scripts/test.sh (it installs carla==0.9.16)",
        venv.display()
    );
    venv
}

fn script(name: &str) -> Command {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/town");
    let mut cmd = Command::new(python());
    cmd.arg(dir.join(name)).current_dir(dir);
    cmd
}

/// Runs a script against a fresh host; asserts it printed OK.
fn run(name: &str) {
    let host = Host::start();
    let out = script(name)
        .arg(host.port.to_string())
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.lines().any(|l| l == "OK"),
        "{name}: {}\n{stdout}\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("WARNING"), "{name} warned:\n{stderr}");
}

#[test]
fn blueprint_library_of_the_town() {
    run("blueprints.py");
}

#[test]
fn map_of_the_town_works_with_the_clients_map_code() {
    run("map.py");
}

#[test]
fn town_actors_and_controlled_vehicles() {
    run("actors.py");
}

#[test]
fn sensors_computed_from_the_world() {
    run("sensors.py");
}

#[test]
fn asynchronous_synchronous_and_no_rendering_modes() {
    run("modes.py");
}

#[test]
fn a_08_episode_on_the_same_port_is_a_new_09_episode() {
    let host = Host::start();
    let mut py = script("episodes.py")
        .arg(host.port.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python");
    let mut lines = BufReader::new(py.stdout.take().unwrap()).lines();
    let ready = lines.next().expect("READY").expect("stdout");
    assert!(ready.starts_with("READY"), "{ready}");
    // A 0.8 client on the same port: a full episode, frames flowing.
    let mut client =
        Client::connect("127.0.0.1", host.port, Duration::from_secs(10)).expect("0.8 connect");
    client
        .load_settings(&common::ini(false, &[], ""))
        .expect("settings");
    client.start_episode(0).expect("episode");
    let frame = client.read_frame().expect("a 0.8 frame");
    assert!(frame.measurements.game_timestamp > 0 || frame.measurements.frame_number > 0);
    writeln!(py.stdin.take().unwrap()).unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = py.wait().unwrap();
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut py.stderr.take().unwrap(), &mut err);
    assert!(
        status.success() && rest.iter().any(|l| l == "OK"),
        "{rest:?}\n{err}"
    );
    drop(client);
}
