//! The unmodified `carla==0.9.16` package from PyPI drives a host built on
//! the library: tests/python/carla_0916_flow.py (connect, blueprints, spawn
//! a camera, a semantic lidar and the tutorial's safe-distance sensor,
//! listen, synchronous mode, 100 ticks with matching frames, snapshots,
//! a second client, a killed client, destroy). scripts/test.sh installs the
//! package into target/venv-carla-0.9.16.
//!
//! Unix only: the client is a Linux Python (the venv scripts/test.sh
//! makes); a Windows test under Wine cannot wait for a Linux process.
#![cfg(unix)]

use crate::common;

use carla_server::client::StreamClient;
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
fn run_script(port: u16, stream: SocketAddr, sensor_of: &dyn Fn(u32) -> u32) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/carla_0916_flow.py");
    let mut child = Command::new(common::carla_python())
        .arg(&script)
        .arg("127.0.0.1")
        .arg(port.to_string())
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
        "script failed:\n{all}\n{stderr}"
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

#[test]
fn the_unmodified_0_9_16_client_runs_a_users_script_against_a_rust_host() {
    let _gate = crate::allocating_megabytes();
    let host = RpcHost::start();
    let stream = host.server.streaming_addr().unwrap();
    run_script(host.port(), stream, &|actor| {
        host.server
            .rpc()
            .unwrap()
            .sensor_of(actor)
            .expect("a sensor actor")
    });
}

#[cfg(target_os = "linux")]
#[test]
fn the_unmodified_0_9_16_client_runs_a_users_script_against_a_c_host() {
    let exe = chost::build("rpc_host.c", "rpc_host", None);
    let mut host = chost::Host::spawn(&exe, &[]);
    let first = host.next_line();
    let port = number_after(&first, "RPC") as u16;
    let stream = SocketAddr::from(([127, 0, 0, 1], number_after(&first, "STREAM") as u16));
    let sensors = std::sync::Mutex::new(std::collections::HashMap::new());
    run_script(port, stream, &|actor| loop {
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
