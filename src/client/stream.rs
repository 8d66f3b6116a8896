//! A Rust client for the 0.9-style streams: subscribe by stream id, then
//! iterate messages; typed views over a payload without copying.
//!
//! ```no_run
//! use carla_server::client::StreamClient;
//! use std::time::Duration;
//! let mut sub = StreamClient::subscribe("127.0.0.1:2003", 1, Duration::from_secs(5))?;
//! let msg = sub.next_message()?;
//! println!("frame {} with {} actor ids", msg.frame(), msg.payload_as::<u32>().map_or(0, |a| a.len()));
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Size of the sensor header (the one definition: the sensor model's).
pub(crate) use crate::sensor::header::HEADER_SIZE;

/// One received message: the 48-byte sensor header and the payload, kept in
/// an 8-byte-aligned block so typed views never need a copy.
#[derive(Default)]
pub struct SensorMessage {
    words: Vec<u64>,
    len: usize,
}

impl SensorMessage {
    /// All bytes (header + payload).
    pub fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }

    /// The 48 header bytes.
    pub fn header(&self) -> &[u8] {
        &self.bytes()[..HEADER_SIZE]
    }

    /// The payload (after the header).
    pub fn payload(&self) -> &[u8] {
        &self.bytes()[HEADER_SIZE..]
    }

    fn u64_at(&self, offset: usize) -> u64 {
        u64::from_le_bytes(
            self.bytes()[offset..offset + 8]
                .try_into()
                .expect("8 bytes"),
        )
    }

    /// Registry id of the sensor type.
    pub fn sensor_type(&self) -> u64 {
        self.u64_at(0)
    }

    /// Frame the data was captured at.
    pub fn frame(&self) -> u64 {
        self.u64_at(8)
    }

    /// Simulation time in seconds.
    pub fn timestamp(&self) -> f64 {
        f64::from_bits(self.u64_at(16))
    }

    /// The payload viewed as an array of `T` (e.g. `u32` actor ids), without
    /// copying; None if its length is not a multiple of `T`'s size.
    pub fn payload_as<T: bytemuck::Pod>(&self) -> Option<&[T]> {
        bytemuck::try_cast_slice(self.payload()).ok()
    }

    /// `payload_as` after skipping `offset` bytes (a sub-header).
    pub fn payload_as_from<T: bytemuck::Pod>(&self, offset: usize) -> Option<&[T]> {
        bytemuck::try_cast_slice(self.payload().get(offset..)?).ok()
    }
}

/// A subscription to one stream.
pub struct StreamClient {
    socket: TcpStream,
    /// Largest message accepted (default 512 MiB).
    pub max_message: u32,
}

impl StreamClient {
    /// Connects and sends the stream id.
    pub fn subscribe(
        addr: impl ToSocketAddrs,
        stream_id: u32,
        timeout: Duration,
    ) -> io::Result<Self> {
        let addr = addr
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address"))?;
        let mut socket = TcpStream::connect_timeout(&addr, timeout)?;
        socket.set_read_timeout(Some(timeout))?;
        socket.set_nodelay(true)?;
        socket.write_all(&stream_id.to_le_bytes())?;
        Ok(StreamClient {
            socket,
            max_message: 512 << 20,
        })
    }

    /// Whether a message (or the end of the stream) arrives within
    /// `timeout`, without reading it: a subscription is registered by the
    /// server asynchronously, so a caller that must not miss the first
    /// message can repeat its trigger until this says true.
    pub fn wait_for_data(&self, timeout: Duration) -> io::Result<bool> {
        let previous = self.socket.read_timeout()?;
        self.socket
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))?;
        let peeked = self.socket.peek(&mut [0u8; 1]);
        self.socket.set_read_timeout(previous)?;
        match peeked {
            Ok(_) => Ok(true),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Waits for the next message. `UnexpectedEof` when the stream closed
    /// between two messages; `InvalidData` for a bad length or a message the
    /// connection cut short.
    pub fn next_message(&mut self) -> io::Result<SensorMessage> {
        let mut msg = SensorMessage::default();
        self.next_message_into(&mut msg)?;
        Ok(msg)
    }

    /// `next_message` into an existing message, reusing its block (no
    /// allocation once it is large enough).
    pub fn next_message_into(&mut self, msg: &mut SensorMessage) -> io::Result<()> {
        let mut prefix = [0u8; 4];
        match read_full(&mut self.socket, &mut prefix)? {
            0 => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "stream closed",
                ))
            }
            4 => {}
            got => return Err(cut_short(got, 4)),
        }
        let len = u32::from_le_bytes(prefix);
        if len > self.max_message || (len as usize) < HEADER_SIZE {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("bad message length {len}"),
            ));
        }
        let len = len as usize;
        msg.len = 0;
        // A larger block comes zeroed from the allocator (calloc); growing
        // in place would fill it word by word, which stalls the read for
        // tens of ms on a 16 MiB message in an unoptimised build.
        let words = len.div_ceil(8);
        if msg.words.len() < words {
            msg.words = vec![0u64; words];
        }
        let body = &mut bytemuck::cast_slice_mut(&mut msg.words)[..len];
        let got = read_full(&mut self.socket, body)?;
        if got < len {
            return Err(cut_short(4 + got, 4 + len));
        }
        msg.len = len;
        Ok(())
    }
}

/// Reads until `buf` is full or the peer closes; how many bytes came.
fn read_full(socket: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match socket.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// The connection closed inside a message (not a clean end of stream).
fn cut_short(got: usize, of: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the stream closed inside a message ({got} of {of} bytes)"),
    )
}

impl Iterator for StreamClient {
    type Item = io::Result<SensorMessage>;
    fn next(&mut self) -> Option<Self::Item> {
        match self.next_message() {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            other => Some(other),
        }
    }
}
