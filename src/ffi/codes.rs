//! Return codes: the four exported 0.8.4 constants, the new negative
//! codes, and the one place a Rust [`Error`] (or a NULL argument, or a
//! caught panic) becomes an `int32_t`.
//!
//! Network failures keep 0.8.4's habit of returning the `errno`-style
//! value (2 for "peer closed", 104 for a reset, ...); codes 0.8.4 never had
//! are negative, so a host that branches on 0 / 11 / other keeps working.

use crate::Error;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Success.
#[no_mangle]
pub static CARLA_SERVER_SUCCESS: i32 = 0;
/// Nothing available within the time-out.
#[no_mangle]
pub static CARLA_SERVER_TRY_AGAIN: i32 = Error::TryAgain.code();
/// A world write did not complete within the time-out (it is still sent).
#[no_mangle]
pub static CARLA_SERVER_TIMED_OUT: i32 = Error::TimedOut.code();
/// No agent server, an expired network deadline, or a disconnect.
#[no_mangle]
pub static CARLA_SERVER_OPERATION_ABORTED: i32 = Error::Aborted.code();

/// New: a required pointer was NULL.
pub const CARLA_SERVER_NULL_ARGUMENT: i32 = -1;
/// New: an argument was invalid or a call was out of protocol order.
pub const CARLA_SERVER_INVALID_ARGUMENT: i32 = -2;
/// New: an internal panic was caught; the call had no effect.
pub const CARLA_SERVER_INTERNAL_PANIC: i32 = -3;
/// New: the sensor id is not in the last scene description.
pub const CARLA_SERVER_UNKNOWN_SENSOR: i32 = -4;
/// New: another thread is using the same producer (or consumer) side now.
pub const CARLA_SERVER_BUSY: i32 = -5;

/// Why an exported call failed, before it becomes a code.
#[derive(Debug)]
pub(crate) enum Fail {
    /// A required pointer argument was NULL.
    Null,
    /// The library refused the call.
    Lib(Error),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Lib(e)
    }
}

impl Fail {
    fn code(&self) -> i32 {
        match self {
            Fail::Null => CARLA_SERVER_NULL_ARGUMENT,
            Fail::Lib(e) => e.code(),
        }
    }
}

/// Logs `e` as an error line and passes it on (for calls whose failures a
/// host should see in its log, such as a refused sensor send).
pub(crate) fn logged(e: Error) -> Fail {
    crate::log_error!("{}", e);
    Fail::Lib(e)
}

/// Runs an export's body (see `export!`): `Ok` is `CARLA_SERVER_SUCCESS`,
/// `Err` its code, a panic `CARLA_SERVER_INTERNAL_PANIC`, logged with the
/// function's name (the last segment of `path`).
pub(crate) fn run(path: &str, body: impl FnOnce() -> Result<(), Fail>) -> i32 {
    match run_for(path, body) {
        Ok(()) => CARLA_SERVER_SUCCESS,
        Err(code) => code,
    }
}

/// Runs an export's body that yields a value (see `export!`): the value,
/// or the code of its failure (a panic: `CARLA_SERVER_INTERNAL_PANIC`,
/// logged with the function's name, the last segment of `path`).
pub(crate) fn run_for<T>(path: &str, body: impl FnOnce() -> Result<T, Fail>) -> Result<T, i32> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(fail)) => Err(fail.code()),
        Err(_) => {
            let name = path.rsplit("::").nth(1).unwrap_or(path);
            crate::log_error!("{}: internal panic caught; the call had no effect", name);
            Err(CARLA_SERVER_INTERNAL_PANIC)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_constants_equal_the_library_codes() {
        assert_eq!(CARLA_SERVER_TRY_AGAIN, 11);
        assert_eq!(CARLA_SERVER_TIMED_OUT, 110);
        assert_eq!(CARLA_SERVER_OPERATION_ABORTED, 125);
        assert_eq!(
            CARLA_SERVER_INVALID_ARGUMENT,
            Error::InvalidArgument(String::new()).code()
        );
        assert_eq!(CARLA_SERVER_UNKNOWN_SENSOR, Error::UnknownSensor(7).code());
        assert_eq!(CARLA_SERVER_BUSY, Error::Busy.code());
        assert_eq!(Fail::Null.code(), CARLA_SERVER_NULL_ARGUMENT);
    }

    #[test]
    fn a_panic_is_a_code_and_names_its_function() {
        let (code, lines) = crate::log::capture(|| {
            run("carla_server::ffi::carla_demo::function_name", || {
                panic!("on purpose")
            })
        });
        assert_eq!(code, CARLA_SERVER_INTERNAL_PANIC);
        assert!(lines
            .iter()
            .any(|(_, l)| l.starts_with("carla_demo: internal panic caught")));
    }
}
