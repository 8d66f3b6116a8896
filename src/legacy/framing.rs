//! The 0.8.4 framing: `u32` little-endian length, then that many bytes.
//!
//! Reads check the length against a configurable maximum before allocating:
//! a larger prefix is an error (`MESSAGE_TOO_LONG`), logged, and the caller
//! closes the connection. Nothing is allocated for it.

use crate::net::{deadline_in, Conn, Deadline};
use crate::Error;
use std::io::IoSlice;
use std::time::Duration;

/// Default largest message accepted from a client (16 MiB). Clients only
/// send settings files and controls; images flow the other way.
pub(crate) const DEFAULT_MAX_MESSAGE: u32 = 16 * 1024 * 1024;

/// The empty message that ends each frame on the stream port.
pub(crate) const TERMINATOR: [u8; 4] = [0; 4];

/// Reads one message into `buf` (reused: its capacity is kept). The length
/// prefix and the body each get `timeout` (None waits forever), as in 0.8.4.
pub(crate) fn read_message(
    conn: &Conn,
    buf: &mut Vec<u8>,
    max: u32,
    timeout: Option<Duration>,
) -> Result<(), Error> {
    let deadline = |t: Option<Duration>| -> Deadline { t.and_then(deadline_in) };
    let mut prefix = [0u8; 4];
    conn.read_exact(&mut prefix, deadline(timeout))?;
    let len = u32::from_le_bytes(prefix);
    if len > max {
        crate::log_error!(
            "{}: message of {} bytes exceeds the maximum of {} bytes; closing the connection",
            conn.peer(),
            len,
            max
        );
        return Err(Error::TooLong);
    }
    buf.clear();
    buf.resize(len as usize, 0);
    conn.read_exact(buf, deadline(timeout))
}

/// Writes `payload` as one message (prefix and body in one vectored write).
pub(crate) fn write_message(conn: &Conn, payload: &[u8], timeout: Duration) -> Result<(), Error> {
    let prefix = (payload.len() as u32).to_le_bytes();
    let mut slices = [IoSlice::new(&prefix), IoSlice::new(payload)];
    conn.write_all_vectored(&mut slices, deadline_in(timeout))
}
