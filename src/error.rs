//! [`Error`]: the one error type of the Rust API.
//!
//! Each variant says what went wrong in words a host can act on. The C API
//! (`crate::ffi`) turns it into the `int32_t` codes of the 0.8.4 header:
//! the four original outcomes, the `errno`-style values 0.8.4 returned for
//! network failures (2 for "peer closed", 104 for a reset, ...) and, for
//! failures 0.8.4 had no code for, new negative codes that can never be
//! mistaken for one of those. [`Error::code`] is that table.

use crate::sensor::blueprint::BlueprintError;
use std::fmt;
use std::io;

/// What a library call failed with.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// Nothing arrived within the call's time-out (C: 11, `EAGAIN`).
    TryAgain,
    /// A world message was not sent within the call's time-out; it is still
    /// sent later (C: 110, `ETIMEDOUT`).
    TimedOut,
    /// No episode is running, or the server was disconnected (C: 125,
    /// `ECANCELED`).
    Aborted,
    /// A network deadline (the server time-out `T`) passed: a client sent
    /// or read nothing for `T` (C: 125 as well, 0.8.4's code for it).
    DeadlinePassed,
    /// The peer closed the connection (C: 2).
    PeerClosed,
    /// The server is not connected (C: 9).
    NotConnected,
    /// The port (or the port + 2 of the control port) is not usable (C: 22).
    InvalidPort,
    /// The peer went away while the server was writing (C: 32, `EPIPE`).
    BrokenPipe,
    /// A received message could not be decoded; the connection was closed
    /// (C: 84, `EILSEQ`).
    Malformed,
    /// A length prefix exceeded the configured maximum; the connection was
    /// closed and nothing was allocated for it (C: 90, `EMSGSIZE`).
    TooLong,
    /// The port is already in use by another socket (C: 98, `EADDRINUSE`).
    AddressInUse,
    /// The peer reset the connection (C: 104, `ECONNRESET`).
    ConnectionReset,
    /// The server is already connected to a 0.8 world client (C: 106,
    /// `EISCONN`).
    AlreadyConnected,
    /// What a server starts once was started again: a port already
    /// listening, a client release already served, ROS 2 already publishing;
    /// the text says which (C: 106, `EISCONN`, as the 0.8 case).
    AlreadyStarted(String),
    /// Another operating-system error, by its `errno` (C: that value).
    Os(i32),
    /// An argument was refused: text that is not UTF-8, a world message out
    /// of protocol order, a record too large for its length prefix, ...
    /// (C: -2).
    InvalidArgument(String),
    /// No sensor with this id: not in the last scene description (0.8.4) or
    /// never created or already destroyed (0.9) (C: -4).
    UnknownSensor(u32),
    /// Another thread is using the same single-producer (or single-consumer)
    /// side right now, such as two threads writing one sensor; nothing was
    /// done (C: -5).
    Busy,
    /// A sensor blueprint or one of its attributes was refused (C: -2).
    Blueprint(BlueprintError),
    /// The call does not fit this kind of sensor, such as an image sent to
    /// a lidar (C: -2).
    WrongSensorKind {
        /// The sensor's blueprint id.
        sensor: &'static str,
        /// What was attempted.
        call: &'static str,
    },
    /// A synchronous subscriber of the stream stayed busy past the stream's
    /// bound; the message was not queued for it (C: 110).
    SubscriberBusy {
        /// The stream (sensor) id.
        stream: u32,
    },
    /// The stream is closed: its sensor was destroyed or the server freed
    /// (C: 125).
    StreamClosed {
        /// The stream (sensor) id.
        stream: u32,
    },
}

/// `Result` with the library's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The error an I/O failure is reported as: the `errno` 0.8.4 returned,
    /// or the closest variant when the system gave no number. The codes are
    /// Linux's `errno` values on every system: elsewhere (Windows' `WSAE…`
    /// numbers, macOS's own `errno` values) the kind of the failure picks
    /// the variant Linux's number would have, and an error of another kind
    /// keeps the system's number ([`Error::Os`]).
    pub fn from_io(err: &io::Error) -> Error {
        if let Some(raw) = err.raw_os_error() {
            if cfg!(target_os = "linux") {
                return Error::from_code(raw);
            }
            return Error::from_os_kind(err.kind()).unwrap_or(Error::Os(raw));
        }
        match err.kind() {
            io::ErrorKind::UnexpectedEof => Error::PeerClosed,
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Error::Aborted,
            io::ErrorKind::BrokenPipe => Error::BrokenPipe,
            io::ErrorKind::ConnectionReset => Error::ConnectionReset,
            io::ErrorKind::AddrInUse => Error::AddressInUse,
            io::ErrorKind::InvalidInput => Error::InvalidPort,
            _ => Error::Aborted,
        }
    }

    /// The variant Linux's `errno` value would give for a system error of
    /// this kind (off Linux, where the numbers differ).
    fn from_os_kind(kind: io::ErrorKind) -> Option<Error> {
        Some(match kind {
            io::ErrorKind::WouldBlock => Error::TryAgain,
            io::ErrorKind::TimedOut => Error::TimedOut,
            io::ErrorKind::BrokenPipe => Error::BrokenPipe,
            // Windows reports a connection its stack dropped as aborted.
            io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted => {
                Error::ConnectionReset
            }
            io::ErrorKind::AddrInUse => Error::AddressInUse,
            io::ErrorKind::InvalidInput => Error::InvalidPort,
            _ => return None,
        })
    }

    /// The `int32_t` the C API returns for this error.
    pub const fn code(&self) -> i32 {
        match self {
            Error::TryAgain => 11,
            Error::TimedOut | Error::SubscriberBusy { .. } => 110,
            Error::Aborted | Error::DeadlinePassed | Error::StreamClosed { .. } => 125,
            Error::PeerClosed => 2,
            Error::NotConnected => 9,
            Error::InvalidPort => 22,
            Error::BrokenPipe => 32,
            Error::Malformed => 84,
            Error::TooLong => 90,
            Error::AddressInUse => 98,
            Error::ConnectionReset => 104,
            Error::AlreadyConnected | Error::AlreadyStarted(_) => 106,
            Error::Os(errno) => *errno,
            Error::InvalidArgument(_) | Error::Blueprint(_) | Error::WrongSensorKind { .. } => -2,
            Error::UnknownSensor(_) => -4,
            Error::Busy => -5,
        }
    }

    /// The variant of a network code (an `errno` value). Connections park
    /// their error in an atomic as its code; this brings it back.
    pub(crate) fn from_code(code: i32) -> Error {
        match code {
            11 => Error::TryAgain,
            110 => Error::TimedOut,
            125 => Error::Aborted,
            2 => Error::PeerClosed,
            9 => Error::NotConnected,
            22 => Error::InvalidPort,
            32 => Error::BrokenPipe,
            84 => Error::Malformed,
            90 => Error::TooLong,
            98 => Error::AddressInUse,
            104 => Error::ConnectionReset,
            106 => Error::AlreadyConnected,
            -5 => Error::Busy,
            other => Error::Os(other),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TryAgain => f.write_str("try again"),
            Error::TimedOut => f.write_str("timed out"),
            Error::Aborted => {
                f.write_str("operation aborted: no episode is running (none started, or it ended)")
            }
            Error::DeadlinePassed => f.write_str("the server time-out passed (a network deadline)"),
            Error::PeerClosed => f.write_str("peer closed the connection"),
            Error::NotConnected => f.write_str("not connected"),
            Error::InvalidPort => f.write_str("invalid port"),
            Error::BrokenPipe => f.write_str("broken pipe"),
            Error::Malformed => f.write_str("message could not be decoded"),
            Error::TooLong => f.write_str("message longer than the maximum"),
            Error::AddressInUse => f.write_str("address already in use"),
            Error::ConnectionReset => f.write_str("connection reset by peer"),
            Error::AlreadyConnected => f.write_str("already connected"),
            Error::AlreadyStarted(what) => f.write_str(what),
            Error::Os(errno) => write!(f, "system error {errno}"),
            Error::InvalidArgument(what) => f.write_str(what),
            Error::UnknownSensor(id) => write!(f, "unknown sensor id {id}"),
            Error::Busy => f.write_str("another thread is using this side"),
            Error::Blueprint(e) => write!(f, "{e}"),
            Error::WrongSensorKind { sensor, call } => {
                write!(f, "{call} is not valid for {sensor}")
            }
            Error::SubscriberBusy { stream } => write!(f, "stream {stream}: timed out"),
            Error::StreamClosed { stream } => write!(f, "stream {stream}: closed"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Blueprint(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BlueprintError> for Error {
    fn from(e: BlueprintError) -> Self {
        Error::Blueprint(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Linux's errno values are the codes themselves.
    #[cfg(target_os = "linux")]
    #[test]
    fn io_errors_map_to_errno_values() {
        let eof = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(Error::from_io(&eof), Error::PeerClosed);
        let reset = io::Error::from_raw_os_error(libc::ECONNRESET);
        assert_eq!(Error::from_io(&reset), Error::ConnectionReset);
        let in_use = io::Error::from_raw_os_error(libc::EADDRINUSE);
        assert_eq!(Error::from_io(&in_use), Error::AddressInUse);
        assert_eq!(Error::TryAgain.code(), libc::EAGAIN);
        assert_eq!(Error::TimedOut.code(), libc::ETIMEDOUT);
        assert_eq!(Error::Aborted.code(), libc::ECANCELED);
        assert_eq!(Error::TooLong.code(), libc::EMSGSIZE);
    }

    /// Windows' own numbers map to the codes Linux's errno values give.
    #[cfg(windows)]
    #[test]
    fn windows_socket_errors_map_to_the_linux_codes() {
        let code = |raw| Error::from_io(&io::Error::from_raw_os_error(raw)).code();
        assert_eq!(code(10054), 104, "WSAECONNRESET");
        assert_eq!(code(10053), 104, "WSAECONNABORTED");
        assert_eq!(code(10048), 98, "WSAEADDRINUSE");
        assert_eq!(code(10035), 11, "WSAEWOULDBLOCK");
        assert_eq!(code(10060), 110, "WSAETIMEDOUT");
        assert_eq!(code(10051), 10051, "WSAENETUNREACH keeps its number");
        let eof = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert_eq!(Error::from_io(&eof), Error::PeerClosed);
    }

    #[test]
    fn network_codes_survive_the_round_trip_through_an_atomic() {
        for e in [
            Error::TryAgain,
            Error::TimedOut,
            Error::Aborted,
            Error::PeerClosed,
            Error::BrokenPipe,
            Error::Malformed,
            Error::TooLong,
            Error::ConnectionReset,
            Error::Os(113),
        ] {
            assert_eq!(Error::from_code(e.code()), e);
        }
    }
}
