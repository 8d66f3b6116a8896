//! Why an RPC call failed. Its `Display` is the message the client gets
//! in a failed `Response` (the stock client's Python raises it as a
//! `RuntimeError`), so the variants say what kind of failure it was
//! without changing a word of what clients read.

use std::fmt;

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
}
