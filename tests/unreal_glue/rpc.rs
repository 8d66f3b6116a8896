//! The rpc scenario: the unmodified `carla` 0.9.16 Python client spawns an
//! RGB camera, a depth camera and a semantic lidar through the glue, ticks
//! in synchronous mode and checks their data, drives the hero, destroys
//! the sensors (tests/python/glue/spawn_sensors.py).

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
    let script = std::path::Path::new(CRATE).join("tests/python/glue/spawn_sensors.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(rpc.to_string())
        .output()
        .expect("run the 0.9.16 client");
    host.close_stdin();
    let log = host.finish();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("OK"),
        "{}\n{stdout}{}\nSimGame:\n{log}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(log.contains("DONE"), "{log}");
    eprintln!("0.9.16 client through the glue: {:?}", started.elapsed());
}
