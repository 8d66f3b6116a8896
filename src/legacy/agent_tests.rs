//! An episode's agent ports across episodes: what an earlier episode's
//! client or teardown leaves behind must not end the next episode.

use super::AgentServer;
use crate::legacy::proto;
use crate::legacy::world_port::NetConfig;
use crate::net::port::Rendezvous;
use crate::net::Conn;
use crate::Error;
use prost::Message as _;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

fn cfg() -> NetConfig {
    NetConfig {
        timeout: Duration::from_secs(5),
        max_message: 1 << 20,
    }
}

/// An accepted connection and its client's end.
fn pair() -> (Conn, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (server, _) = listener.accept().unwrap();
    (Conn::new(server).unwrap(), client)
}

/// Hands `conn` to the episode's worker on another thread (as the port's
/// accept thread does); true once taken.
fn offer(clients: &Arc<Rendezvous>, conn: Conn) -> std::thread::JoinHandle<bool> {
    let clients = clients.clone();
    std::thread::spawn(move || clients.offer(conn, Duration::from_secs(5)).is_ok())
}

fn start(stream: &Arc<Rendezvous>, control: &Arc<Rendezvous>) -> AgentServer {
    AgentServer::start(cfg(), &[], stream.clone(), control.clone(), Weak::new()).unwrap()
}

/// A client that connected its control port and left, whose connection the
/// accept thread handed over only after the next episode armed the port (a
/// CI failure: the next episode read that end of file and ended, and its
/// own client's stream was closed): it is skipped, the episode's own client
/// is served.
#[test]
fn a_connection_whose_client_left_is_not_the_next_episodes() {
    let (stream, control) = (Arc::default(), Arc::default());
    let agent = start(&stream, &control);
    let (stale, gone) = pair();
    drop(gone);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !stale.peer_closed() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        offer(&control, stale).join().unwrap(),
        "the late one is taken"
    );
    let (live, mut client) = pair();
    assert!(
        offer(&control, live).join().unwrap(),
        "the episode still wants its own client"
    );
    let control_msg = proto::Control {
        throttle: 0.75,
        ..Default::default()
    }
    .encode_to_vec();
    client
        .write_all(&(control_msg.len() as u32).to_le_bytes())
        .unwrap();
    client.write_all(&control_msg).unwrap();
    let got = agent.read_control(Duration::from_secs(5));
    assert_eq!(got.map(|c| c.throttle), Ok(0.75));
}

/// An episode's teardown that runs after the next episode armed the same
/// ports (a host thread that dropped the last handle late) leaves the next
/// episode's ports open: its stream client is served.
#[test]
fn a_late_teardown_does_not_refuse_the_next_episodes_clients() {
    let (stream, control) = (Arc::default(), Arc::default());
    // The server stops the old episode, then starts the next; a clone of
    // the old one's handle is dropped last (its drop shuts down again).
    let old = Arc::new(start(&stream, &control));
    let late = old.clone();
    old.shutdown();
    drop(old);
    let new = start(&stream, &control);
    drop(late);
    let (conn, mut client) = pair();
    assert!(
        offer(&stream, conn).join().unwrap(),
        "the stream client is taken"
    );
    new.write_measurements(&Default::default(), &[]).unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut len = [0u8; 4];
    client.read_exact(&mut len).unwrap();
    assert!(u32::from_le_bytes(len) > 0, "a Measurements message");
    assert_eq!(
        new.read_control(Duration::ZERO).err(),
        Some(Error::TryAgain)
    );
}
