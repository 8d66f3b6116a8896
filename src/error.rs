//! Return codes shared by the Rust API and the C API.
//!
//! The first four are the 0.8.4 codes every host branches on. Network errors
//! keep the original's habit of returning the raw `errno`-style value (2 for
//! "peer closed", 104 for a reset, ...). Codes the original never had are
//! negative, so they can never be mistaken for one of the four or an errno.

use std::io;

/// An error code as returned through the C API (`int32_t`).
pub type Code = i32;

/// Success.
pub const SUCCESS: Code = 0;
/// Nothing available within the time-out (EAGAIN).
pub const TRY_AGAIN: Code = 11;
/// A world-port write did not finish within the caller's time-out (ETIMEDOUT).
/// The message is still sent later.
pub const TIMED_OUT: Code = 110;
/// No agent server exists, a network deadline expired, or the server was
/// disconnected (ECANCELED).
pub const OPERATION_ABORTED: Code = 125;

/// The peer closed the connection while the server was reading.
pub const END_OF_FILE: Code = 2;
/// I/O on a socket that was never opened (the server is not connected).
pub const BAD_DESCRIPTOR: Code = 9;
/// Invalid port or argument at connect time (EINVAL).
pub const INVALID_PORT: Code = 22;
/// The peer went away while the server was writing (EPIPE).
pub const BROKEN_PIPE: Code = 32;
/// A received message could not be decoded (EILSEQ). The connection is closed.
pub const DECODE_FAILED: Code = 84;
/// A length prefix exceeded the configured maximum (EMSGSIZE). The connection
/// is closed and nothing is allocated.
pub const MESSAGE_TOO_LONG: Code = 90;
/// A port is already in use by another socket (EADDRINUSE).
pub const ADDRESS_IN_USE: Code = 98;
/// The connection was reset by the peer (ECONNRESET).
pub const CONNECTION_RESET: Code = 104;
/// `carla_server_connect*` called on an instance that is already connected (EISCONN).
pub const ALREADY_CONNECTED: Code = 106;

/// New: a required pointer argument was NULL.
pub const NULL_ARGUMENT: Code = -1;
/// New: an argument is invalid (bad UTF-8, a call out of protocol order, ...).
pub const INVALID_ARGUMENT: Code = -2;
/// New: the library caught an internal panic; the call had no effect.
pub const INTERNAL_PANIC: Code = -3;
/// New: the sensor id is not in the last scene description.
pub const UNKNOWN_SENSOR: Code = -4;
/// New: another thread is using the same single-producer (or single-consumer)
/// side right now (two threads writing one sensor id, say). Nothing was done.
pub const BUSY: Code = -5;

/// Maps an I/O error to the code the C API reports.
pub fn from_io(err: &io::Error) -> Code {
    if let Some(raw) = err.raw_os_error() {
        return raw;
    }
    match err.kind() {
        io::ErrorKind::UnexpectedEof => END_OF_FILE,
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => OPERATION_ABORTED,
        io::ErrorKind::BrokenPipe => BROKEN_PIPE,
        io::ErrorKind::ConnectionReset => CONNECTION_RESET,
        io::ErrorKind::AddrInUse => ADDRESS_IN_USE,
        io::ErrorKind::InvalidInput => INVALID_PORT,
        _ => OPERATION_ABORTED,
    }
}

/// A short human-readable name for a code, for log lines.
pub fn describe(code: Code) -> &'static str {
    match code {
        SUCCESS => "success",
        TRY_AGAIN => "try again",
        TIMED_OUT => "timed out",
        OPERATION_ABORTED => "operation aborted (no agent server, deadline or disconnect)",
        END_OF_FILE => "peer closed the connection",
        BAD_DESCRIPTOR => "not connected",
        INVALID_PORT => "invalid port",
        BROKEN_PIPE => "broken pipe",
        DECODE_FAILED => "message could not be decoded",
        MESSAGE_TOO_LONG => "message longer than the maximum",
        ADDRESS_IN_USE => "address already in use",
        CONNECTION_RESET => "connection reset by peer",
        ALREADY_CONNECTED => "already connected",
        NULL_ARGUMENT => "NULL argument",
        INVALID_ARGUMENT => "invalid argument",
        INTERNAL_PANIC => "internal panic caught",
        UNKNOWN_SENSOR => "unknown sensor id",
        BUSY => "another thread is using this side",
        _ => "system error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_map_to_errno_values() {
        let eof = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(from_io(&eof), END_OF_FILE);
        let reset = io::Error::from_raw_os_error(libc::ECONNRESET);
        assert_eq!(from_io(&reset), CONNECTION_RESET);
        let in_use = io::Error::from_raw_os_error(libc::EADDRINUSE);
        assert_eq!(from_io(&in_use), ADDRESS_IN_USE);
        assert_eq!(TRY_AGAIN, libc::EAGAIN);
        assert_eq!(TIMED_OUT, libc::ETIMEDOUT);
        assert_eq!(OPERATION_ABORTED, libc::ECANCELED);
        assert_eq!(MESSAGE_TOO_LONG, libc::EMSGSIZE);
    }
}
