//! The C API's return codes by name, for the targets that check what an
//! export returns (and for the Rust-side readers, whose `Error` is compared
//! through its code).

use crate::ffi;
use crate::Error;

/// A C return code.
pub(super) type Code = i32;

pub(super) const TRY_AGAIN: Code = Error::TryAgain.code();
pub(super) const TIMED_OUT: Code = Error::TimedOut.code();
pub(super) const OPERATION_ABORTED: Code = Error::Aborted.code();
pub(super) const END_OF_FILE: Code = Error::PeerClosed.code();
pub(super) const MESSAGE_TOO_LONG: Code = Error::TooLong.code();
pub(super) const NULL_ARGUMENT: Code = ffi::CARLA_SERVER_NULL_ARGUMENT;
pub(super) const INVALID_ARGUMENT: Code = ffi::CARLA_SERVER_INVALID_ARGUMENT;
pub(super) const UNKNOWN_SENSOR: Code = ffi::CARLA_SERVER_UNKNOWN_SENSOR;
