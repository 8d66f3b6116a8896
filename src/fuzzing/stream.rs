//! Target `stream_handshake`: the 0.9 streaming port (`crate::streaming::stream`)
//! driven over real sockets by a script of fuzz-chosen steps.
//!
//! One `StreamServer` lives for the whole process. Each run opens streams
//! (synchronous, so nothing is dropped), connects clients whose first bytes
//! are a stream id, a stream id with trailing bytes, or arbitrary bytes,
//! sends messages, closes streams and drops clients. The model: a client
//! whose first four bytes name an open stream is subscribed (the server
//! must register it) and receives exactly the messages sent after that, each
//! as `[u32 size][48-byte header][payload]`, then end of file once the
//! stream closes; any other client is disconnected without a byte. A
//! dropped subscriber must be forgotten after the next sends. After every
//! run a well-behaved subscriber must still be served.

use super::codes;
use super::{quiet_logs, Input};
use crate::sensor::header::HEADER_SIZE;
use crate::streaming::pool::Buffer;
use crate::streaming::stream::{Stream, StreamServer};
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Shutdown, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Bounds the server's handshake wait and each write to a subscriber.
const SERVER_TIMEOUT: Duration = Duration::from_secs(2);
/// Synchronous streams wait this long for a busy subscriber.
const SYNC_BOUND: Duration = Duration::from_secs(2);
/// How long the harness waits for the server to act (only a broken server
/// takes that long).
const PATIENCE: Duration = Duration::from_secs(5);
const MAX_STEPS: usize = 48;
const MAX_STREAMS: usize = 4;
const MAX_CLIENTS: usize = 6;

fn server() -> &'static StreamServer {
    static SERVER: OnceLock<StreamServer> = OnceLock::new();
    SERVER.get_or_init(|| {
        StreamServer::bind(Ipv4Addr::LOCALHOST.into(), 0, SERVER_TIMEOUT)
            .expect("bind the streaming port")
    })
}

struct OpenStream {
    stream: Stream,
    open: bool,
}

struct Client {
    socket: TcpStream,
    /// Index of the stream it subscribed to.
    stream: Option<usize>,
    /// More than 4 bytes sent (the server never reads the rest, so its
    /// close may come as a reset).
    extra: bool,
    /// Everything the server must deliver, in order.
    expected: Vec<u8>,
    received: usize,
}

pub fn stream_handshake(data: &[u8]) {
    quiet_logs();
    let mut input = Input::new(data);
    let mut streams = vec![open_stream()];
    let mut clients: Vec<Client> = Vec::new();
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        match input.u8() % 6 {
            0 if streams.len() < MAX_STREAMS => streams.push(open_stream()),
            1 => {
                let k = usize::from(input.u8()) % streams.len();
                streams[k].stream.close();
                streams[k].open = false;
            }
            2 if clients.len() < MAX_CLIENTS => {
                let client = connect(&mut input, &streams);
                clients.push(client);
            }
            3 => send(&mut input, &streams, &mut clients),
            4 if !clients.is_empty() => {
                let k = usize::from(input.u8()) % clients.len();
                let gone = clients.swap_remove(k);
                drop(gone.socket);
                if let Some(s) = gone.stream {
                    forget_dead_subscriber(&streams, s, &mut clients);
                }
            }
            _ if !clients.is_empty() => {
                let k = usize::from(input.u8()) % clients.len();
                read_expected(&mut clients[k]);
            }
            _ => {}
        }
    }
    for s in &streams {
        s.stream.close();
    }
    for mut c in clients {
        read_expected(&mut c);
        expect_end(&mut c);
    }
    well_behaved_subscriber_is_served();
}

fn open_stream() -> OpenStream {
    let stream = server().create_stream();
    stream.set_synchronous(Some(SYNC_BOUND));
    OpenStream { stream, open: true }
}

fn live_subscribers(clients: &[Client], stream: usize) -> usize {
    clients.iter().filter(|c| c.stream == Some(stream)).count()
}

fn connect(input: &mut Input<'_>, streams: &[OpenStream]) -> Client {
    let k = usize::from(input.u8()) % streams.len();
    let id = streams[k].stream.id().to_le_bytes();
    let mut bytes = Vec::new();
    match input.u8() % 3 {
        0 => bytes.extend_from_slice(&id),
        1 => {
            bytes.extend_from_slice(&id);
            bytes.extend_from_slice(input.chunk(8));
        }
        _ => bytes.extend_from_slice(input.chunk(8)),
    }
    let before = streams.iter().map(|s| s.stream.stats().subscribers);
    let before: Vec<usize> = before.collect();
    let mut socket = TcpStream::connect(server().addr()).expect("connect");
    socket
        .set_read_timeout(Some(PATIENCE))
        .expect("read time-out");
    let target = bytes
        .first_chunk::<4>()
        .map(|id| u32::from_le_bytes(*id))
        .and_then(|id| streams.iter().position(|s| s.open && s.stream.id() == id));
    // Two writes: the server must assemble an id split across segments. A
    // refused client may find the connection reset by the second one.
    let split = usize::from(input.u8()) % (bytes.len() + 1);
    socket.write_all(&bytes[..split]).expect("handshake");
    let rest = socket.write_all(&bytes[split..]);
    if target.is_some() {
        rest.expect("handshake");
    }
    if bytes.len() < 4 {
        socket.shutdown(Shutdown::Write).expect("half-close");
    }
    let mut client = Client {
        socket,
        stream: target,
        extra: bytes.len() > 4,
        expected: Vec::new(),
        received: 0,
    };
    match target {
        Some(s) => {
            let want = before[s] + 1;
            wait_until(|| streams[s].stream.stats().subscribers == want)
                .unwrap_or_else(|| panic!("a valid handshake for stream {s} was not registered"));
        }
        // Refused at once (so a stream created later cannot take it).
        None => expect_end(&mut client),
    }
    client
}

fn wait_until(mut done: impl FnMut() -> bool) -> Option<()> {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    Some(())
}

fn send_one(streams: &[OpenStream], k: usize, header: &[u8; HEADER_SIZE], payload: &[u8]) {
    let s = &streams[k];
    let mut buffer = s.stream.pop_buffer();
    buffer.copy_from(0, payload);
    let result = s.stream.send(header, buffer).map_err(|e| e.code());
    if s.open {
        assert_eq!(result, Ok(()), "send on an open stream");
    } else {
        assert_eq!(
            result,
            Err(codes::OPERATION_ABORTED),
            "send on a closed stream"
        );
    }
}

fn frame(header: &[u8; HEADER_SIZE], payload: &[u8]) -> Vec<u8> {
    let size = (HEADER_SIZE + payload.len()) as u32;
    [&size.to_le_bytes()[..], header, payload].concat()
}

fn send(input: &mut Input<'_>, streams: &[OpenStream], clients: &mut [Client]) {
    let k = usize::from(input.u8()) % streams.len();
    let mut header = [0u8; HEADER_SIZE];
    let given = input.bytes(HEADER_SIZE);
    header[..given.len()].copy_from_slice(given);
    let payload = input.chunk(600);
    send_one(streams, k, &header, payload);
    if streams[k].open {
        let framed = frame(&header, payload);
        for c in clients.iter_mut().filter(|c| c.stream == Some(k)) {
            c.expected.extend_from_slice(&framed);
        }
    }
}

/// A dropped subscriber is noticed when a write to it fails; sends empty
/// messages until the stream counts only the live subscribers.
fn forget_dead_subscriber(streams: &[OpenStream], k: usize, clients: &mut [Client]) {
    if !streams[k].open {
        return;
    }
    let live = live_subscribers(clients, k);
    let header = [0xEE; HEADER_SIZE];
    let framed = frame(&header, &[]);
    let deadline = Instant::now() + PATIENCE;
    while streams[k].stream.stats().subscribers != live {
        assert!(
            Instant::now() < deadline,
            "a dropped subscriber is never forgotten"
        );
        send_one(streams, k, &header, &[]);
        for c in clients.iter_mut().filter(|c| c.stream == Some(k)) {
            c.expected.extend_from_slice(&framed);
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

fn read_expected(c: &mut Client) {
    let mut got = vec![0; c.expected.len() - c.received];
    if let Err(e) = c.socket.read_exact(&mut got) {
        panic!("subscriber of {:?} lost its messages: {e}", c.stream);
    }
    assert_eq!(got, c.expected[c.received..], "delivered bytes");
    c.received = c.expected.len();
}

/// After its stream closed (or a refused handshake), the server closes the
/// connection without another byte.
fn expect_end(c: &mut Client) {
    let mut byte = [0u8; 1];
    // libFuzzer's SIGALRM time-out check may interrupt the wait.
    let read = loop {
        match c.socket.read(&mut byte) {
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            other => break other,
        }
    };
    match read {
        Ok(0) => {}
        Ok(_) => panic!("a byte after the last message (stream {:?})", c.stream),
        // Bytes the server never read make its close a reset.
        Err(e) if c.extra && e.kind() == ErrorKind::ConnectionReset => {}
        Err(e) => panic!("no end of file (stream {:?}): {e}", c.stream),
    }
}

fn well_behaved_subscriber_is_served() {
    let s = open_stream();
    let mut socket = TcpStream::connect(server().addr()).expect("connect");
    socket.set_read_timeout(Some(PATIENCE)).expect("time-out");
    socket.write_all(&s.stream.id().to_le_bytes()).expect("id");
    wait_until(|| s.stream.stats().subscribers == 1).expect("a subscriber is registered");
    let header = [7u8; HEADER_SIZE];
    let mut payload = Buffer::new();
    payload.copy_from(0, b"ok");
    s.stream.send(&header, payload).expect("send");
    let mut got = vec![0; 4 + HEADER_SIZE + 2];
    socket.read_exact(&mut got).expect("the message arrives");
    assert_eq!(got, frame(&header, b"ok"));
    s.stream.close();
    let mut client = Client {
        socket,
        stream: Some(0),
        extra: false,
        expected: Vec::new(),
        received: 0,
    };
    expect_end(&mut client);
}
