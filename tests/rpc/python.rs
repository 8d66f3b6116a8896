//! The unmodified `carla` package of every release served (0.9.12 ...
//! 0.9.16, from PyPI) drives a host built on the library, each on its
//! release's RPC port: tests/python/carla_flow.py (connect, blueprints,
//! spawn a camera, a semantic lidar and the tutorial's safe-distance
//! sensor, listen, synchronous mode, 100 ticks with matching frames,
//! snapshots, a second client, a killed client, destroy). scripts/test.sh
//! installs the packages into target/venv-carla-0.9.N (Python 3.8 for the
//! releases before 0.9.16).
//!
//! Unix only: the client is a Linux Python (the venv scripts/test.sh
//! makes); a Windows test under Wine cannot wait for a Linux process.
#![cfg(unix)]

use crate::common;

use carla_server::client::StreamClient;
use carla_server::Release;
#[cfg(target_os = "linux")]
use common::chost;
use common::rpc_host::RpcHost;
use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

fn number_after(line: &str, key: &str) -> u32 {
    let at = line.find(key).unwrap_or_else(|| panic!("{key} in {line}")) + key.len();
    let digits: String = line[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().unwrap()
}

/// Runs the user script against the host on `port`; `sensor_of` maps an
/// actor id to its stream id. Checks the script's verdict and the
/// safe-distance stream byte for byte.
fn run_script(release: Release, port: u16, stream: SocketAddr, sensor_of: &dyn Fn(u32) -> u32) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/carla_flow.py");
    let mut child = Command::new(common::carla_python_of(release))
        .arg(&script)
        .arg("127.0.0.1")
        .arg(port.to_string())
        .arg(release.as_str())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut output = Vec::new();
    let mut safe_distance = None;
    for line in stdout.lines() {
        let line = line.unwrap();
        if line.starts_with("SPAWNED ") {
            let actor = number_after(&line, "\"safe_distance\"");
            let other = number_after(&line, "\"other\"");
            let mut sub =
                StreamClient::subscribe(stream, sensor_of(actor), Duration::from_secs(60)).unwrap();
            let reader = std::thread::spawn(move || {
                let mut frames = Vec::new();
                while let Ok(m) = sub.next_message() {
                    frames.push((m.sensor_type(), m.frame(), m.payload().to_vec()));
                }
                frames
            });
            safe_distance = Some((other, reader));
            writeln!(stdin, "go").unwrap();
        }
        output.push(line);
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let all = output.join("\n");
    assert!(
        status.success() && output.last().map(String::as_str) == Some("OK"),
        "{release} script failed:\n{all}\n{stderr}"
    );
    assert!(
        !all.contains("WARNING") && !stderr.contains("WARNING"),
        "client warnings:\n{all}\n{stderr}"
    );
    let result = output.iter().find(|l| l.starts_with("RESULT ")).unwrap();
    assert!(
        number_after(result, "\"ticks_in_apply_settings\"") <= 2,
        "{result}"
    );
    let (other, reader) = safe_distance.expect("the script spawned its sensors");
    // The script destroyed the sensor: its stream ended, so the reader did.
    let messages = reader.join().unwrap();
    // The tutorial's sensor, byte for byte: id 22, one u32 per other vehicle.
    assert!(
        messages.len() >= 100,
        "{} safe-distance messages",
        messages.len()
    );
    for (i, (kind, frame, payload)) in messages.iter().enumerate() {
        assert_eq!(*kind, 22, "sensor_type of message {i}");
        assert_eq!(
            payload,
            &other.to_le_bytes().to_vec(),
            "payload of frame {frame}"
        );
        if i > 0 {
            assert!(*frame > messages[i - 1].1, "frames increase");
        }
    }
}

/// The flow of `release`'s client against a Rust host, on that release's
/// RPC port.
fn rust_host_flow(release: Release) {
    let _gate = crate::allocating_megabytes();
    let host = RpcHost::start();
    let stream = host.server.streaming_addr().unwrap();
    let port = match release {
        Release::V0_9_16 => host.port(),
        r => host.server.listen_rpc_release(r, 0).unwrap().port(),
    };
    run_script(release, port, stream, &|actor| {
        host.server
            .rpc()
            .unwrap()
            .sensor_of(actor)
            .expect("a sensor actor")
    });
}

#[test]
fn the_unmodified_0_9_16_client_runs_a_users_script_against_a_rust_host() {
    rust_host_flow(Release::V0_9_16);
}

#[test]
fn the_unmodified_0_9_15_client_runs_a_users_script_against_a_rust_host() {
    rust_host_flow(Release::V0_9_15);
}

#[test]
fn the_unmodified_0_9_14_client_runs_a_users_script_against_a_rust_host() {
    rust_host_flow(Release::V0_9_14);
}

#[test]
fn the_unmodified_0_9_13_client_runs_a_users_script_against_a_rust_host() {
    rust_host_flow(Release::V0_9_13);
}

#[test]
fn the_unmodified_0_9_12_client_runs_a_users_script_against_a_rust_host() {
    rust_host_flow(Release::V0_9_12);
}

/// The flow of `release`'s client against the C host (tests/c/rpc_host.c),
/// on the port it opened for that release.
#[cfg(target_os = "linux")]
fn c_host_flow(release: Release) {
    let exe = chost::build("rpc_host.c", "rpc_host", None);
    let mut host = chost::Host::spawn(&exe, &[]);
    let first = host.next_line();
    let port = match release {
        Release::V0_9_16 => number_after(&first, "RPC"),
        r => number_after(&first, &format!("{r}=")),
    } as u16;
    let stream = SocketAddr::from(([127, 0, 0, 1], number_after(&first, "STREAM") as u16));
    let sensors = std::sync::Mutex::new(std::collections::HashMap::new());
    run_script(release, port, stream, &|actor| loop {
        if let Some(s) = sensors.lock().unwrap().get(&actor) {
            return *s;
        }
        let line = host.next_line();
        if line.starts_with("SENSOR ") {
            let mut it = line
                .split_whitespace()
                .skip(1)
                .map(|n| n.parse::<u32>().unwrap());
            let (a, s) = (it.next().unwrap(), it.next().unwrap());
            sensors.lock().unwrap().insert(a, s);
        }
    });
    host.assert_loaded_library();
    host.close_stdin();
    host.finish();
}

#[cfg(target_os = "linux")]
#[test]
fn the_unmodified_0_9_16_client_runs_a_users_script_against_a_c_host() {
    c_host_flow(Release::V0_9_16);
}

#[cfg(target_os = "linux")]
#[test]
fn the_unmodified_0_9_12_client_runs_a_users_script_against_a_c_host() {
    c_host_flow(Release::V0_9_12);
}

/// A running `two_releases.py`, its output lines in a channel.
struct Peer {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    release: Release,
}

impl Peer {
    fn start(release: Release, port: u16, args: &[&str]) -> Peer {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/two_releases.py");
        let mut child = Command::new(common::carla_python_of(release))
            .arg(&script)
            .arg(args[0])
            .arg("127.0.0.1")
            .arg(port.to_string())
            .arg(release.as_str())
            .args(&args[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python starts");
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Peer {
            child,
            lines,
            release,
        }
    }

    /// The next line starting with `prefix` (earlier ones are kept in
    /// `seen`); panics after 120 s or at the end of the output.
    fn line(&self, prefix: &str, seen: &mut Vec<String>) -> String {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("{}: no {prefix} line; got {seen:?}", self.release));
            seen.push(line.clone());
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    fn say(&mut self, line: &str) {
        writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
    }
}

fn frames(line: &str) -> Vec<u64> {
    line.split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap())
        .collect()
}

/// One world, a 0.9.16 leader and a follower of each older release at
/// once: everyone sees everyone's actors (types, attributes and semantic
/// tags in their own numbering), and every follower's camera images and
/// snapshots carry the frames the leader's ticks returned.
#[test]
fn clients_of_every_release_share_one_world_and_its_ticks() {
    let _gate = crate::allocating_megabytes();
    let host = RpcHost::start();
    let mut lead = Peer::start(Release::V0_9_16, host.port(), &["lead"]);
    let mut lead_lines = Vec::new();
    let lead_car = frames(&lead.line("LEAD", &mut lead_lines))[0].to_string();
    let mut followers: Vec<(Peer, Vec<String>)> = Release::ALL[..4]
        .iter()
        .map(|&r| {
            let port = host.server.listen_rpc_release(r, 0).unwrap().port();
            (Peer::start(r, port, &["follow", &lead_car]), Vec::new())
        })
        .collect();
    for (peer, seen) in &mut followers {
        let line = peer.line("FOLLOWER", seen);
        lead.say(&line);
    }
    lead.say("GO");
    let mut got = Vec::new();
    for (peer, seen) in &mut followers {
        let images = frames(&peer.line("IMAGES", seen));
        let snapshots = frames(&peer.line("SNAPSHOTS", seen));
        peer.line("OK", seen);
        let status = peer.child.wait().unwrap();
        assert!(status.success(), "{} exited with {status}", peer.release);
        got.push((peer.release, images, snapshots));
    }
    lead.say("END");
    lead.line("OK", &mut lead_lines);
    assert!(lead.child.wait().unwrap().success());
    let ticked: Vec<u64> = lead_lines
        .iter()
        .filter(|l| l.starts_with("TICKED"))
        .map(|l| frames(l)[0])
        .collect();
    let first = ticked[0];
    for (release, images, snapshots) in got {
        // Frames before the leader's first tick were the host's own
        // (asynchronous mode, before the switch).
        let images: Vec<u64> = images.into_iter().filter(|f| *f >= first).collect();
        let snapshots: Vec<u64> = snapshots.into_iter().filter(|f| *f >= first).collect();
        assert!(images.len() >= 25, "{release}: {} images", images.len());
        for f in images.iter().chain(&snapshots) {
            assert!(ticked.contains(f), "{release}: frame {f} was never ticked");
        }
        // One image per tick, in order, once the stream is up.
        assert!(
            images.windows(2).all(|w| w[1] == w[0] + 1),
            "{release}: image frames {images:?}"
        );
        let last = *images.last().unwrap();
        assert!(
            snapshots.contains(&last),
            "{release}: no snapshot of {last}"
        );
    }
}
