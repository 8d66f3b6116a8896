//! The demo host under requests that ask too much (the budget findings of
//! docs/reliability.md, replayed against the `carla-host` binary): each
//! gets a clear refusal and a short log, peak memory stays under 512 MiB,
//! and the next client is served. Linux only: peak memory is read from `/proc/PID/status`.
#![cfg(target_os = "linux")]

use crate::common;

use crate::host_process::{camera, HostProcess};
use carla_server::types::Control;
use std::net::TcpStream;
use std::time::{Duration, Instant};

const MIB: u64 = 1 << 20;

/// Sends `ini` as a request: the episode must be refused, quickly.
fn refused(host: &HostProcess, ini: &str) {
    let started = Instant::now();
    let mut client = host.client();
    client.load_settings(ini).unwrap();
    let e = client.start_episode(0).unwrap_err();
    assert!(e.to_string().contains("ready: false"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

fn under_512_mib(host: &HostProcess) {
    let peak = host.memory("VmHWM");
    assert!(peak < 512 * MIB, "peak resident {} MiB", peak / MIB);
}

#[test]
fn deep_names_many_cameras_and_huge_images_are_refused_naming_the_limit() {
    let host = HostProcess::start();
    // Finding 1: 10,000 and 20,000 levels (20 and 40 KB), with no type.
    for depth in [10_000, 20_000] {
        let name = vec!["a"; depth].join("/");
        refused(&host, &format!("[CARLA/Sensor]\nSensors={name}\n"));
    }
    // Finding 2: 2,000 cameras.
    let names: Vec<String> = (0..2000).map(|i| format!("C{i}")).collect();
    refused(
        &host,
        &format!(
            "[CARLA/Sensor]\nSensorType=CAMERA\nSensors={}\n",
            names.join(",")
        ),
    );
    // Finding 3: one 16384 x 16384 camera (1 GiB per frame).
    refused(
        &host,
        &common::ini(true, &["Big"], &camera("Big", 16384, 16384)),
    );
    for limit in ["(max_name_bytes)", "(max_sensors)", "(max_frame_bytes)"] {
        // The host logs before it answers; its stderr may still be in the pipe.
        let started = Instant::now();
        while !host
            .logged(limit)
            .0
            .iter()
            .any(|l| l.contains("episode refused"))
        {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "no refusal naming {limit}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let (_, bytes) = host.logged("");
    assert!(bytes < 64 << 10, "{bytes} bytes of log");
    under_512_mib(&host);
    host.serves_the_next_client();
}

#[test]
fn a_flood_of_unknown_keys_or_connections_gives_a_bounded_log() {
    let host = HostProcess::start();
    // Finding 4: 10 MB of unknown keys (over the text budget), then 900 KB
    // (within it: ten lines and a summary).
    let keys = |n: usize| -> String { (0..n).map(|i| format!("Key{i}=1\n")).collect() };
    refused(&host, &format!("[CARLA/Server]\n{}", keys(1_000_000)));
    let mut client = host.client();
    let ini = common::ini(true, &[], &format!("[CARLA/Junk]\n{}", keys(80_000)));
    client.load_settings(&ini).unwrap();
    client.start_episode(0).unwrap();
    drop(client);
    std::thread::sleep(Duration::from_millis(200));
    let (unknown, _) = host.logged("unknown key");
    assert!(unknown.len() <= 12, "{} unknown-key lines", unknown.len());
    assert!(host
        .logged("more unknown keys ignored")
        .0
        .iter()
        .any(|l| l.contains("79990 more")));
    // A connection flood on the agent ports between episodes.
    let before = host.logged("").0.len();
    for _ in 0..300 {
        for p in [host.port + 1, host.port + 2] {
            drop(TcpStream::connect(("127.0.0.1", p)));
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = host.logged("").0.len();
    assert!(
        after - before < 60,
        "{} lines for 600 connections",
        after - before
    );
    under_512_mib(&host);
    host.serves_the_next_client();
}

#[test]
fn one_large_camera_costs_about_twice_its_image() {
    // A debug build renders this image slowly: a generous time-out.
    let host = HostProcess::start_with_timeout(30_000);
    host.serves_the_next_client();
    let base = host.memory("VmRSS");
    // 4096 x 2048 x 4 = 32 MiB per image.
    let image = 32 * MIB;
    let mut client = host.client();
    let ini = common::ini(true, &["Big"], &camera("Big", 4096, 2048));
    client.load_settings(&ini).unwrap();
    client.start_episode(0).unwrap();
    for _ in 0..3 {
        let frame = client
            .read_frame()
            .unwrap_or_else(|e| panic!("{e}: the host's log: {:#?}", host.logged("").0));
        assert_eq!(frame.sensors[0].data.len(), 24 + image as usize);
        client.send_control(&Control::default()).unwrap();
    }
    let grown = host.memory("VmHWM").saturating_sub(base);
    eprintln!(
        "one 32 MiB camera: peak grew by {} MiB ({:.2} x the image)",
        grown / MIB,
        grown as f64 / image as f64
    );
    assert!(
        grown < image * 5 / 2,
        "peak grew by {} MiB for a 32 MiB image",
        grown / MIB
    );
}
