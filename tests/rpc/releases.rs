//! The ports of the older client releases through the Rust API, with the
//! project's Rust RPC client (the unmodified clients of each release run in
//! [`crate::python`]): refusals, and what a 0.9.13 port answers that a
//! 0.9.16 port answers otherwise.

use crate::common::rpc_host::RpcHost;
use carla_server::client::RpcClient;
use carla_server::{Error, Release, Server};
use rmpv::Value;
use std::time::Duration;

#[test]
fn an_older_release_needs_the_rpc_port_first_and_is_served_once() {
    let server = Server::new();
    let e = server.listen_rpc_release(Release::V0_9_13, 0).unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("listen_rpc first")),
        "{e}"
    );
    server.listen_rpc(0).unwrap();
    let addr = server.listen_rpc_release(Release::V0_9_13, 0).unwrap();
    assert!(matches!(
        server.listen_rpc_release(Release::V0_9_13, 0),
        Err(Error::AlreadyStarted(_))
    ));
    let listed = server.rpc().unwrap().release_addrs();
    assert_eq!(listed[0], (Release::V0_9_16, server.rpc_addr().unwrap()));
    assert_eq!(listed[1], (Release::V0_9_13, addr));
}

/// The type number of attribute `key` in a list of `[id, type, ...]`.
fn type_of(attributes: &Value, key: &str) -> u64 {
    let list = attributes.as_array().expect("attributes");
    let a = list
        .iter()
        .find(|a| a[0].as_str() == Some(key))
        .expect("the attribute");
    a[1].as_u64().expect("a type number")
}

/// The stream id in a token (`rpc::EpisodeInfo`'s `[bytes]`).
fn stream_id(token: &Value) -> u32 {
    let bytes = token.as_slice().expect("token bytes");
    u32::from_le_bytes(bytes[..4].try_into().unwrap())
}

#[test]
fn a_0_9_13_port_answers_in_0_9_13_numbering_about_the_same_world() {
    let host = RpcHost::start();
    let old_port = host.server.listen_rpc_release(Release::V0_9_13, 0).unwrap();
    let patience = Duration::from_secs(10);
    let mut old = RpcClient::connect(old_port, patience).unwrap();
    let mut new = host.client();
    assert_eq!(old.call("version", &[]).unwrap(), Value::from("0.9.13"));
    assert_eq!(new.call("version", &[]).unwrap(), Value::from("0.9.16"));
    // The same world stream, its id tagged for 0.9.13 (tag 2 in bits 28-30).
    let world_new = stream_id(&new.call("get_episode_info", &[]).unwrap()[1][0]);
    let world_old = stream_id(&old.call("get_episode_info", &[]).unwrap()[1][0]);
    assert_eq!(world_old, world_new | 2 << 28);
    // Blueprint attribute types: RGB is 5 in 0.9.16, 4 before.
    let types = |c: &mut RpcClient| {
        let defs = c.call("get_actor_definitions", &[]).unwrap();
        let car = defs
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d[1].as_str() == Some("vehicle.test.box"))
            .cloned()
            .unwrap();
        let color = type_of(&car[3], "color");
        let ids: Vec<String> = defs
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d[1].as_str().unwrap().to_owned())
            .collect();
        (color, ids)
    };
    let (rgb_new, ids_new) = types(&mut new);
    let (rgb_old, ids_old) = types(&mut old);
    assert_eq!((rgb_new, rgb_old), (5, 4));
    assert!(ids_new.iter().any(|i| i == "sensor.camera.normals"));
    assert!(!ids_old.iter().any(|i| i == "sensor.camera.normals"));
    // A car spawned by the 0.9.13 client (colour typed 4, its RGB) reads
    // back to 0.9.16 as RGB 5, tagged Car (14); to 0.9.13 as Vehicles (10).
    let zero = || Value::Array(vec![Value::F32(0.0); 3]);
    let desc = Value::Array(vec![
        1.into(),
        "vehicle.test.box".into(),
        Value::Array(vec![Value::Array(vec![
            "color".into(),
            4.into(),
            "0,0,255".into(),
        ])]),
    ]);
    let spawned = old
        .call("spawn_actor", &[desc, Value::Array(vec![zero(), zero()])])
        .unwrap();
    let id = spawned[0].clone();
    let seen = |c: &mut RpcClient| {
        let list = c.call("get_actors_by_id", &[Value::Array(vec![id.clone()])]);
        let actor = list.unwrap()[0].clone();
        (
            type_of(&actor[2][2], "color"),
            actor[4].as_slice().unwrap().to_vec(),
        )
    };
    assert_eq!(seen(&mut new), (5, vec![14]));
    assert_eq!(seen(&mut old), (4, vec![10]));
}
