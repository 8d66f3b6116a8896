//! Maps from C: `tests/c/rpc_maps_host.c` (built with the `cc` crate,
//! linked to this build's library) lists two maps with
//! `carla_rpc_set_available_maps` and loads one by the name in
//! `CARLA_RPC_LOAD_EPISODE`'s `map_name`, refuses map loads in its other
//! mode (the client sees the host's text), and reports the text and
//! parameters `CARLA_RPC_LOAD_OPENDRIVE` carried, while the Rust RPC client
//! plays the 0.9 client. On Windows the host is compiled with mingw-w64
//! beforehand.
#![cfg(any(target_os = "linux", windows))]

use crate::common::chost::{build, Host};
use carla_server::client::{RpcClient, RpcError};
use rmpv::Value;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Starts the host in `mode` and connects a client.
fn start(mode: &str) -> (Host, RpcClient) {
    let exe = build("rpc_maps_host.c", "rpc_maps_host", None);
    let host = Host::spawn(&exe, &[mode.to_owned()]);
    let line = host.next_line();
    host.assert_loaded_library();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words.len(), words[0]), (4, "RPC"), "{line}");
    let port: u16 = words[1].parse().unwrap();
    let rpc = RpcClient::connect(("127.0.0.1", port), TIMEOUT).expect("connect");
    (host, rpc)
}

fn finish(mut host: Host, rpc: RpcClient) {
    drop(rpc);
    host.close_stdin();
    let output = host.finish();
    assert!(output.contains("DONE"), "{output}");
}

fn load(rpc: &mut RpcClient, name: &str, reset: bool) -> Result<Value, RpcError> {
    rpc.call(
        "load_new_episode",
        &[name.into(), reset.into(), Value::from(0xffff)],
    )
}

/// A successful `Response<void>`.
fn done(result: Result<Value, RpcError>) {
    match result {
        Ok(Value::Nil) => {}
        other => panic!("expected success, got {other:?}"),
    }
}

fn failed(result: Result<Value, RpcError>) -> String {
    match result {
        Err(RpcError::Failed(m)) => m,
        other => panic!("expected a failed Response, got {other:?}"),
    }
}

fn episode(rpc: &mut RpcClient) -> u64 {
    let info = rpc.call("get_episode_info", &[]).expect("get_episode_info");
    info[0].as_u64().expect("an episode id")
}

fn map_name(rpc: &mut RpcClient) -> String {
    let info = rpc.call("get_map_info", &[]).expect("get_map_info");
    info[0].as_str().expect("a map name").to_owned()
}

fn map_data(rpc: &mut RpcClient) -> String {
    let data = rpc.call("get_map_data", &[]).expect("get_map_data");
    data.as_str().expect("the OpenDRIVE text").to_owned()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn a_c_host_lists_two_maps_and_loads_one_by_name() {
    let (host, mut rpc) = start("maps");
    let maps = rpc.call("get_available_maps", &[]).expect("maps");
    assert_eq!(
        maps,
        Value::Array(vec![
            "/Game/Carla/Maps/Town01".into(),
            "/Game/Carla/Maps/Town02".into()
        ])
    );
    let before = episode(&mut rpc);
    done(load(&mut rpc, "/Game/Carla/Maps/Town02", true));
    // The host got the name it listed, and answered after its new episode.
    assert_eq!(host.next_line(), "LOAD Town02 1");
    assert_ne!(episode(&mut rpc), before);
    assert_eq!(map_name(&mut rpc), "Carla/Maps/Town02");
    assert_eq!(map_data(&mut rpc), "<OpenDRIVE name=\"Town02\"/>");
    // reload_world: the current map, by its bare name.
    done(load(&mut rpc, "", false));
    assert_eq!(host.next_line(), "LOAD Town02 0");
    // A map it did not list never reaches the host.
    let e = failed(load(&mut rpc, "Town03", true));
    assert!(
        e.contains("\"Town03\"") && e.contains("\"Town01\", \"Town02\""),
        "{e}"
    );
    done(load(&mut rpc, "town01", true));
    assert_eq!(host.next_line(), "LOAD Town01 1");
    assert_eq!(map_name(&mut rpc), "Carla/Maps/Town01");
    finish(host, rpc);
}

#[test]
fn a_c_host_that_cannot_load_maps_refuses_with_its_own_words() {
    let (host, mut rpc) = start("refuse");
    // No list: the current map only.
    let maps = rpc.call("get_available_maps", &[]).expect("maps");
    assert_eq!(maps, Value::Array(vec!["/Game/Carla/Maps/Level".into()]));
    let before = episode(&mut rpc);
    let e = failed(load(&mut rpc, "Level", true));
    assert_eq!(e, "this test host cannot load maps");
    assert_eq!(host.next_line(), "REFUSED 42");
    let params = Value::Array(vec![Value::F64(2.0)]);
    let e = failed(rpc.call("copy_opendrive_to_file", &["<OpenDRIVE/>".into(), params]));
    assert_eq!(e, "this test host cannot load maps");
    assert_eq!(host.next_line(), "REFUSED 44");
    // Nothing changed, and OpenDriveMap was never built.
    assert_eq!(episode(&mut rpc), before);
    assert_eq!(map_name(&mut rpc), "Carla/Maps/Level");
    let e = failed(load(&mut rpc, "OpenDriveMap", true));
    assert!(e.contains("not available"), "{e}");
    finish(host, rpc);
}

#[test]
fn load_opendrive_carries_the_exact_text_and_parameters_to_c() {
    let (host, mut rpc) = start("maps");
    // Not ASCII, so bytes and characters differ; no NUL at its end.
    let text = "<?xml version=\"1.0\"?>\n<OpenDRIVE><header name=\"Straße\"/>\
                <road length=\"42.5\"/></OpenDRIVE>\n"
        .repeat(3);
    let params = Value::Array(vec![
        Value::F64(1.5),
        Value::from(30), // an integer where a double is expected
        Value::F64(0.0),
        Value::F64(0.125),
        false.into(),
        true.into(),
        false.into(),
    ]);
    done(rpc.call("copy_opendrive_to_file", &[text.as_str().into(), params]));
    let line = host.next_line();
    let want = format!(
        "OPENDRIVE {} {:016x} 1.5 30 0 0.125 0 1 0",
        text.len(),
        fnv1a(text.as_bytes())
    );
    assert_eq!(line, want);
    assert_ne!(text.len(), text.chars().count());
    // Then the client loads OpenDriveMap: the host's world from that text.
    done(load(&mut rpc, "OpenDriveMap", false));
    assert_eq!(host.next_line(), "LOAD OpenDriveMap 0");
    assert_eq!(map_name(&mut rpc), "Carla/Maps/OpenDriveMap");
    assert_eq!(map_data(&mut rpc), text);
    // Bad parameters never reach the host.
    let bad = Value::Array(vec![Value::F64(f64::INFINITY)]);
    let e = failed(rpc.call("copy_opendrive_to_file", &[text.as_str().into(), bad]));
    assert!(e.contains("vertex_distance must be a finite number"), "{e}");
    done(load(&mut rpc, "Town02", true));
    assert_eq!(host.next_line(), "LOAD Town02 1", "nothing in between");
    finish(host, rpc);
}
