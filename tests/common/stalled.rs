//! A 0.9 stream subscriber that reads nothing until the test says so: a
//! 4 KiB receive buffer, so the library's writer blocks after a few large
//! messages and the stream's queue for it fills.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Subscribes to `stream` on the streaming port `port`, and reads nothing.
pub(crate) fn subscribe(port: u16, stream: u32) -> TcpStream {
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
    let addr: std::net::SocketAddr = ([127, 0, 0, 1], port).into();
    socket
        .connect(&addr.into())
        .expect("connect the stalled subscriber");
    let mut s: TcpStream = socket.into();
    s.write_all(&stream.to_le_bytes()).expect("stream id");
    s
}

/// Reads everything until the server closes the stream (or 10 s pass):
/// the frames of the whole messages, each of which must be `size` bytes
/// (a message cut by the end of the run is left out).
pub(crate) fn frames_read(mut s: TcpStream, size: usize) -> Vec<u64> {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let mut frames = Vec::new();
    let mut at = 0;
    while at + 4 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        assert_eq!(
            len,
            size,
            "stalled subscriber: message {} size",
            frames.len()
        );
        if at + 4 + len > bytes.len() {
            break;
        }
        frames.push(u64::from_le_bytes(
            bytes[at + 12..at + 20].try_into().unwrap(),
        ));
        at += 4 + len;
    }
    frames
}
