//! Target `framing`: the 0.8 length-prefixed framing (`crate::legacy::framing`) as
//! the server reads it, on a real loopback socket, and the Rust client's
//! reader (`crate::client::read_message`) on the same bytes.
//!
//! Input: one byte picks the maximum message size, the rest is what the
//! peer sends before closing its side. Both readers must return exactly the
//! complete messages a reference decoder finds, then the error that ends the
//! connection (end of file, or "too long" for a prefix above the maximum);
//! the server's writer must echo the messages byte for byte.

use super::codes::{self, Code};
use super::{quiet_logs, tcp_pair, Input};
use crate::legacy::framing::{read_message, write_message, DEFAULT_MAX_MESSAGE};
use crate::net::Conn;
use std::io::{ErrorKind, Read, Write};
use std::net::Shutdown;
use std::time::Duration;

/// Peer bytes per run; the echo of all of them must fit the socket buffers.
const MAX_INPUT: usize = 32 * 1024;
const MAXIMA: [u32; 5] = [0, 1, 48, 4096, DEFAULT_MAX_MESSAGE];
/// Only bounds a broken reader: every byte is already there (or EOF).
const TIMEOUT: Duration = Duration::from_secs(5);

/// What a correct reader returns for `bytes`: the complete messages in
/// order, then the code that ends the connection.
fn reference(mut bytes: &[u8], max: u32) -> (Vec<&[u8]>, Code) {
    let mut messages = Vec::new();
    loop {
        let Some((prefix, body)) = bytes.split_first_chunk::<4>() else {
            return (messages, codes::END_OF_FILE);
        };
        let len = u32::from_le_bytes(*prefix);
        if len > max {
            return (messages, codes::MESSAGE_TOO_LONG);
        }
        let Some((message, rest)) = body.split_at_checked(len as usize) else {
            return (messages, codes::END_OF_FILE);
        };
        messages.push(message);
        bytes = rest;
    }
}

pub fn framing(data: &[u8]) {
    quiet_logs();
    let mut input = Input::new(data);
    let max = input.pick(&MAXIMA);
    let bytes = input.rest();
    let bytes = &bytes[..bytes.len().min(MAX_INPUT)];
    let (expected, end) = reference(bytes, max);

    let (server, mut peer) = tcp_pair();
    peer.write_all(bytes).expect("peer writes");
    peer.shutdown(Shutdown::Write)
        .expect("peer closes its side");
    let conn = Conn::new(server).expect("a session socket");
    let mut buf = vec![0xA5; 3]; // reused, as the server does
    for (i, want) in expected.iter().enumerate() {
        if let Err(code) = read_message(&conn, &mut buf, max, Some(TIMEOUT)) {
            panic!("message {i}: {code}");
        }
        assert_eq!(&buf[..], *want, "message {i}");
    }
    assert_eq!(
        read_message(&conn, &mut buf, max, Some(TIMEOUT)).map_err(|e| e.code()),
        Err(end)
    );

    client_reader_agrees(bytes, max, &expected, end);

    // The writer frames each message back exactly as it came.
    for message in &expected {
        write_message(&conn, message, TIMEOUT).expect("echo");
    }
    let framed: usize = expected.iter().map(|m| 4 + m.len()).sum();
    let mut echoed = vec![0; framed];
    peer.set_read_timeout(Some(TIMEOUT)).expect("time-out");
    peer.read_exact(&mut echoed).expect("read the echo");
    assert_eq!(&echoed[..], &bytes[..framed]);
}

fn client_reader_agrees(mut bytes: &[u8], max: u32, expected: &[&[u8]], end: Code) {
    for (i, want) in expected.iter().enumerate() {
        let got = crate::client::read_message(&mut bytes, max).expect("client reads");
        assert_eq!(&got[..], *want, "client message {i}");
    }
    let err = crate::client::read_message(&mut bytes, max).expect_err("then an error");
    let kind = if end == codes::END_OF_FILE {
        ErrorKind::UnexpectedEof
    } else {
        ErrorKind::InvalidData
    };
    assert_eq!(err.kind(), kind, "{err}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_splits_messages_and_names_the_end() {
        let bytes = [1, 0, 0, 0, 9, 0, 0, 0, 0, 2, 0, 0, 0, 7];
        assert_eq!(
            reference(&bytes, 8),
            (vec![&[9][..], &[][..]], codes::END_OF_FILE)
        );
        assert_eq!(reference(&bytes, 0), (vec![], codes::MESSAGE_TOO_LONG));
    }
}
