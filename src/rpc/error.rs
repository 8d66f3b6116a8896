//! Why an RPC call failed. Its `Display` is the message the client gets
//! in a failed `Response` (the stock client's Python raises it as a
//! `RuntimeError`), so the variants say what kind of failure it was
//! without changing a word of what clients read.
//!
//! [`Closed`] is why a whole connection ended, which the log says.

use super::framing::FrameError;
use std::fmt;
use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RpcError {
    /// An argument the call cannot take: the wrong shape, out of range, a
    /// name or id of the wrong kind. The text names it.
    Argument(String),
    /// An actor id the world does not know.
    UnknownActor(u32),
    /// Refused by this server: a limit (its caps, the client's budget, a
    /// full queue) or what the call asks is not possible here or now.
    Refused(String),
    /// The host (the simulator) refused the request or did not answer it
    /// in time.
    Host(String),
    /// A CARLA method this server knows and does not carry out.
    Unsupported(String),
    /// The call panicked inside the library (logged; the server goes on).
    Internal(String),
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RpcError::Argument(text)
            | RpcError::Refused(text)
            | RpcError::Host(text)
            | RpcError::Unsupported(text)
            | RpcError::Internal(text) => f.write_str(text),
            RpcError::UnknownActor(id) => {
                write!(
                    f,
                    "actor {id} not found (never spawned or already destroyed)"
                )
            }
        }
    }
}

/// A refusal with its text (what most checks of a call give).
impl From<String> for RpcError {
    fn from(text: String) -> RpcError {
        RpcError::Refused(text)
    }
}

impl From<&str> for RpcError {
    fn from(text: &str) -> RpcError {
        RpcError::Refused(text.to_owned())
    }
}

/// A library error met by a call (a sensor the table refused, ...).
impl From<crate::Error> for RpcError {
    fn from(e: crate::Error) -> RpcError {
        RpcError::Refused(e.to_string())
    }
}

/// An [`RpcError::Argument`] whose text is `format!`'s.
macro_rules! bad_arg {
    ($($t:tt)*) => {
        $crate::rpc::error::RpcError::Argument(format!($($t)*))
    };
}

/// An [`RpcError::Refused`] whose text is `format!`'s.
macro_rules! refused {
    ($($t:tt)*) => {
        $crate::rpc::error::RpcError::Refused(format!($($t)*))
    };
}

pub(crate) use {bad_arg, refused};

/// Why the server closed a client's connection (the log line says it; the
/// client only sees the socket close). Its `Display` is that line's text.
#[derive(Debug)]
pub(crate) enum Closed {
    /// Bytes that break the framing: over a bound, too deep, not msgpack.
    Framing(FrameError),
    /// A request over the byte bound whose rest broke the framing too.
    OversizedFraming { method: String, error: FrameError },
    /// Bytes the msgpack decoder refused.
    NotMsgpack(String),
    /// A msgpack object that is not an RPC request or notification.
    NotRpc,
    /// A request that did not arrive whole within the time-out.
    Trickled { bytes: usize, timeout: Duration },
    /// A request over the byte bound whose rest did not come fast enough.
    OversizedTrickled {
        bytes: u64,
        method: String,
        /// What must come within each time-out.
        mib: usize,
        timeout: Duration,
    },
    /// The client did not take a reply within the time-out.
    ReplyRefused { id: u32, error: crate::Error },
    /// The socket ended in the middle of a request, or failed.
    Ended(crate::Error),
}

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const CLOSED: &str = "connection closed";
        match self {
            Closed::Framing(e) => write!(f, "sent {e}; {CLOSED}"),
            Closed::OversizedFraming { method, error } => write!(
                f,
                "sent {error} as a {method} request, over the byte bound; {CLOSED}"
            ),
            Closed::NotMsgpack(e) => write!(f, "sent bytes that are not msgpack ({e}); {CLOSED}"),
            Closed::NotRpc => write!(
                f,
                "sent a msgpack object that is not an RPC request; {CLOSED}"
            ),
            Closed::Trickled { bytes, timeout } => write!(
                f,
                "sent {bytes} bytes of a request, not all of it within {timeout:?}; {CLOSED}"
            ),
            Closed::OversizedTrickled {
                bytes,
                method,
                mib,
                timeout,
            } => write!(
                f,
                "sent {bytes} bytes of a request over the byte bound ({method}), not {mib} MiB more within {timeout:?}; {CLOSED}"
            ),
            Closed::ReplyRefused { id, error } => write!(
                f,
                "did not take the reply to request {id} ({error}); {CLOSED}"
            ),
            Closed::Ended(e) => write!(f, "connection ended ({e})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::wire::{as_settings, as_u32};
    use rmpv::Value;

    // What clients read is the Display; the kind says where it came from.
    #[test]
    fn each_kind_displays_the_text_clients_read() {
        assert_eq!(
            RpcError::UnknownActor(42).to_string(),
            "actor 42 not found (never spawned or already destroyed)"
        );
        let e = as_u32(&Value::from("x"), "actor id").unwrap_err();
        assert!(matches!(e, RpcError::Argument(_)), "{e:?}");
        assert_eq!(
            e.to_string(),
            "actor id: expected an unsigned 32-bit integer, got \"x\""
        );
        let e = as_settings(&Value::from(1)).unwrap_err();
        assert!(matches!(e, RpcError::Argument(_)), "{e:?}");
        let refused: RpcError = String::from("over the budget").into();
        assert_eq!(refused, RpcError::Refused("over the budget".into()));
        assert_eq!(refused.to_string(), "over the budget");
        let host = RpcError::Host("the host refused".into());
        assert_eq!(host.to_string(), "the host refused");
        assert_eq!(
            bad_arg!("{} of {}", 1, 2),
            RpcError::Argument("1 of 2".into())
        );
        assert_eq!(
            refused!("at most {}", 3),
            RpcError::Refused("at most 3".into())
        );
    }

    // The log line of a closed connection, word for word as it was.
    #[test]
    fn why_a_connection_closed_reads_as_the_log_said() {
        let second = Duration::from_secs(1);
        let cases = [
            (
                Closed::Framing(FrameError::TooLarge { limit: 16 }),
                format!(
                    "sent {}; connection closed",
                    FrameError::TooLarge { limit: 16 }
                ),
            ),
            (
                Closed::OversizedFraming {
                    method: "apply_batch".into(),
                    error: FrameError::TooDeep { limit: 64 },
                },
                format!(
                    "sent {} as a apply_batch request, over the byte bound; connection closed",
                    FrameError::TooDeep { limit: 64 }
                ),
            ),
            (
                Closed::NotRpc,
                "sent a msgpack object that is not an RPC request; connection closed".into(),
            ),
            (
                Closed::Trickled {
                    bytes: 3,
                    timeout: second,
                },
                "sent 3 bytes of a request, not all of it within 1s; connection closed".into(),
            ),
            (
                Closed::OversizedTrickled {
                    bytes: 5,
                    method: "spawn_actor".into(),
                    mib: 16,
                    timeout: second,
                },
                "sent 5 bytes of a request over the byte bound (spawn_actor), not 16 MiB more \
                 within 1s; connection closed"
                    .into(),
            ),
            (
                Closed::ReplyRefused {
                    id: 7,
                    error: crate::Error::DeadlinePassed,
                },
                format!(
                    "did not take the reply to request 7 ({}); connection closed",
                    crate::Error::DeadlinePassed
                ),
            ),
            (
                Closed::Ended(crate::Error::PeerClosed),
                format!("connection ended ({})", crate::Error::PeerClosed),
            ),
        ];
        for (closed, text) in cases {
            assert_eq!(closed.to_string(), text);
        }
        let e = super::super::endpoint::parse_request(&[0x92]).unwrap_err(); // cut short
        assert!(matches!(e, Closed::NotMsgpack(_)), "{e:?}");
        let e = super::super::endpoint::parse_request(&[0x90]).unwrap_err();
        assert!(matches!(e, Closed::NotRpc), "{e:?}");
    }
}
