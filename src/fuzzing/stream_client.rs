//! Target `stream_client`: the Rust `StreamClient`'s message decoder
//! (`crate::client::stream`), fed by a fake streaming port.
//!
//! Input: the client's maximum message size (one of a few), the stream id
//! it subscribes with, an offset for a typed view, then the bytes the
//! "server" sends before closing. The client must send exactly the id,
//! yield exactly the messages a reference decoder finds (`[u32 size]` of at
//! least the 48-byte header and at most the maximum, then that many bytes),
//! with typed views that exist exactly when size and alignment allow, and
//! then end: cleanly (the iterator ends) only if the connection closed
//! between two messages; a bad size or a message cut short is an error.

use super::{quiet_logs, Input};
use crate::client::stream::{SensorMessage, StreamClient, HEADER_SIZE};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::OnceLock;
use std::time::Duration;

const MAX_INPUT: usize = 64 * 1024;
/// The default (512 MiB) behaves like 1 MiB but zero-fills the whole claimed
/// size per bogus prefix, which would make runs slow.
const MAXIMA: [u32; 5] = [0, 48, 100, 4096, 1 << 20];
const TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, PartialEq)]
enum End {
    /// Closed between two messages.
    Clean,
    /// Closed inside a message.
    Truncated,
    /// A size below the header or above the maximum.
    BadSize,
}

fn reference(mut bytes: &[u8], max: u32) -> (Vec<&[u8]>, End) {
    let mut messages = Vec::new();
    loop {
        if bytes.is_empty() {
            return (messages, End::Clean);
        }
        let Some((prefix, rest)) = bytes.split_first_chunk::<4>() else {
            return (messages, End::Truncated);
        };
        let size = u32::from_le_bytes(*prefix);
        if size > max || (size as usize) < HEADER_SIZE {
            return (messages, End::BadSize);
        }
        let Some((message, rest)) = rest.split_at_checked(size as usize) else {
            return (messages, End::Truncated);
        };
        messages.push(message);
        bytes = rest;
    }
}

fn listener() -> &'static TcpListener {
    static LISTENER: OnceLock<TcpListener> = OnceLock::new();
    LISTENER.get_or_init(|| TcpListener::bind("127.0.0.1:0").expect("bind a loopback port"))
}

pub fn stream_client(data: &[u8]) {
    quiet_logs();
    let mut input = Input::new(data);
    let max = input.pick(&MAXIMA);
    let id = input.u32();
    let offset = usize::from(input.u8());
    let bytes = input.rest();
    let bytes = &bytes[..bytes.len().min(MAX_INPUT)];

    let addr = listener().local_addr().expect("address");
    let mut client = StreamClient::subscribe(addr, id, TIMEOUT).expect("subscribe");
    client.max_message = max;
    let (mut port, _) = listener().accept().expect("accept");
    let mut handshake = [0u8; 4];
    port.read_exact(&mut handshake)
        .expect("the client sends its id");
    assert_eq!(u32::from_le_bytes(handshake), id);
    port.write_all(bytes).expect("send");
    drop(port);

    let (expected, end) = reference(bytes, max);
    for (i, want) in expected.iter().enumerate() {
        match client.next() {
            Some(Ok(message)) => check_message(&message, want, offset),
            other => panic!("message {i}: {:?}", other.map(|r| r.map(|_| ()))),
        }
    }
    let last = client.next().map(|r| r.map(|_| ()));
    match end {
        End::Clean => assert!(last.is_none(), "clean close: {last:?}"),
        End::Truncated | End::BadSize => {
            assert!(
                matches!(last, Some(Err(_))),
                "{end:?} must be an error: {last:?}"
            )
        }
    }
}

fn check_message(m: &SensorMessage, want: &[u8], offset: usize) {
    assert_eq!(m.bytes(), want);
    assert_eq!(m.header(), &want[..HEADER_SIZE]);
    let payload = &want[HEADER_SIZE..];
    assert_eq!(m.payload(), payload);
    let word = |at: usize| u64::from_le_bytes(want[at..at + 8].try_into().expect("8 bytes"));
    assert_eq!(m.sensor_type(), word(0));
    assert_eq!(m.frame(), word(8));
    assert_eq!(m.timestamp().to_bits(), word(16));
    let len = payload.len();
    assert_eq!(m.payload_as::<u32>().is_some(), len.is_multiple_of(4));
    assert_eq!(m.payload_as::<u64>().is_some(), len.is_multiple_of(8));
    if let Some(words) = m.payload_as::<u32>() {
        assert_eq!(words.len(), len / 4);
    }
    let fits = offset <= len && offset.is_multiple_of(4) && (len - offset).is_multiple_of(4);
    assert_eq!(m.payload_as_from::<f32>(offset).is_some(), fits);
}
