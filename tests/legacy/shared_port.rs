//! One port for both protocols: after `connect(P)`, `listen_rpc(P)` serves
//! CARLA 0.8.4 clients and CARLA 0.9.16 clients on P alike, told apart by
//! their first bytes.

use crate::common;

use carla_server::client::legacy::write_message;
use carla_server::client::{Client, RpcClient};
use carla_server::types::Transform;
use carla_server::Server;
use std::io::Read;
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

const T: u32 = 10_000;

fn shared_server() -> (Arc<Server>, u16) {
    let port = common::free_port_base();
    let server = Arc::new(Server::new());
    server.connect(u32::from(port), T).unwrap();
    server.listen_streaming(0).unwrap();
    let addr = server.listen_rpc(port).unwrap();
    assert_eq!(
        addr.port(),
        port,
        "the RPC endpoint reports the shared port"
    );
    (server, port)
}

fn version(port: u16) -> String {
    let mut rpc = RpcClient::connect(("127.0.0.1", port), Duration::from_secs(10)).unwrap();
    let v = rpc.call("version", &[]).unwrap();
    v.as_str().unwrap().to_owned()
}

#[test]
fn a_08_episode_and_09_calls_share_the_world_port() {
    let (server, port) = shared_server();
    // A 0.9 client first, then a 0.8 episode while it stays connected.
    let mut rpc = RpcClient::connect(("127.0.0.1", port), Duration::from_secs(10)).unwrap();
    assert_eq!(rpc.call("version", &[]).unwrap().as_str(), Some("0.9.16"));
    let host = {
        let server = server.clone();
        thread::spawn(move || {
            let ini = server.read_request_new_episode(T).unwrap();
            server
                .write_scene_description("Shared", &[Transform::default()], &[], T)
                .unwrap();
            String::from_utf8(ini).unwrap()
        })
    };
    let mut legacy = Client::connect("127.0.0.1", port, Duration::from_secs(10)).unwrap();
    let scene = legacy.load_settings(&common::ini(true, &[], "")).unwrap();
    assert_eq!(scene.player_start_spots.len(), 1);
    assert!(host.join().unwrap().contains("SynchronousMode=True"));
    // Both keep working, and more 0.9 clients come and go.
    let info = rpc.call("get_episode_info", &[]).unwrap();
    assert_eq!(info.as_array().map(Vec::len), Some(2), "{info}");
    for _ in 0..3 {
        assert_eq!(version(port), "0.9.16");
    }
}

#[test]
fn a_08_message_of_148_bytes_is_not_taken_for_a_09_request() {
    // 148 = 0x94: the length prefix starts 94 00 like a msgpack array of 4,
    // but its byte 3 is 0.
    let (server, port) = shared_server();
    let ini = "x".repeat(145);
    let mut payload = vec![0x0a, 0x91, 0x01]; // field 1, length 145
    payload.extend_from_slice(ini.as_bytes());
    assert_eq!(payload.len(), 148);
    let mut raw = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write_message(&mut raw, &payload).unwrap();
    assert_eq!(server.read_request_new_episode(T).unwrap(), ini.as_bytes());
    // And the 0.9 side still answers.
    assert_eq!(version(port), "0.9.16");
}

#[test]
fn a_client_that_leaves_before_its_first_request_costs_nothing() {
    let (server, port) = shared_server();
    for _ in 0..20 {
        drop(TcpStream::connect(("127.0.0.1", port)).unwrap());
    }
    // Half a request, then gone.
    let mut half = TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::io::Write::write_all(&mut half, &[0x94, 0x00]).unwrap();
    drop(half);
    assert_eq!(version(port), "0.9.16");
    let host = {
        let server = server.clone();
        thread::spawn(move || server.read_request_new_episode(T).map(|_| ()))
    };
    let mut legacy = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write_message(&mut legacy, &[0x0a, 0x01, b'a']).unwrap();
    host.join().unwrap().unwrap();
    legacy
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let _ = legacy.read(&mut [0u8; 1]);
}

#[test]
fn without_sharing_the_rpc_port_is_its_own_and_the_world_port_unchanged() {
    let port = common::free_port_base();
    let server = Server::new();
    server.connect(u32::from(port), T).unwrap();
    let addr = server.listen_rpc(0).unwrap();
    assert_ne!(addr.port(), port);
    assert_eq!(version(addr.port()), "0.9.16");
}
