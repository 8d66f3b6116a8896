//! The rpc scenario: the unmodified `carla` 0.9.16 Python client spawns an
//! RGB camera, a depth camera and a semantic lidar through the glue, ticks
//! in synchronous mode and checks their data, drives the hero, destroys
//! the sensors (tests/python/glue/spawn_sensors.py); then watches what the
//! engine does to its level: a fixed step refused or simulated whole, a
//! walker in the lidar, a car spawned late, a car destroyed and garbage-
//! collected, and that its one level is the only map: another map and a
//! world from OpenDRIVE text are refused (tests/python/glue/level_life.py).

use super::sim::*;
use std::process::Command;
use std::time::Instant;

#[test]
fn a_carla_0916_client_spawns_sensors_through_the_glue() {
    let python = super::common::carla_python();
    let port = super::common::free_port_base();
    let started = Instant::now();
    let mut host = start("g++", port, 100_000, "rpc");
    let ready = Ready::parse(&host.next_line());
    let rpc = ready.get("RPC");
    assert!(rpc > 0, "an RPC port");
    // Each script with the same engine, in turn: the sensors, then what
    // the engine does to its level while clients watch.
    let mut outputs = Vec::new();
    for name in ["spawn_sensors.py", "level_life.py"] {
        let script = std::path::Path::new(CRATE)
            .join("tests/python/glue")
            .join(name);
        let begun = Instant::now();
        let out = Command::new(&python)
            .arg(&script)
            .arg(rpc.to_string())
            .output()
            .expect("run the 0.9.16 client");
        let ok = out.status.success() && String::from_utf8_lossy(&out.stdout).contains("OK");
        outputs.push((name, out, begun.elapsed()));
        if !ok {
            break;
        }
    }
    host.close_stdin();
    let log = host.finish();
    for (name, out, took) in &outputs {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("OK"),
            "{name} (ran {took:?}):\n{stdout}{}\nSimGame:\n{log}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(outputs.len(), 2, "both scripts ran");
    assert!(log.contains("TENTH_STEPS"), "{log}");
    eprintln!("{}", String::from_utf8_lossy(&outputs[0].1.stdout).trim());
    assert!(log.contains("DONE"), "{log}");
    eprintln!("0.9.16 client through the glue: {:?}", started.elapsed());
}
