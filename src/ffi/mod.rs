//! The C boundary: the functions, structs and constants of
//! `include/carla/carla_server.h`, and nothing else.
//!
//! - [`legacy`]: the 0.8.4 functions (binary-compatible) and a few
//!   additions (bind address, message bound, log callback, panic self-test);
//! - [`sensors`]: the 0.9 sensor pipeline; [`sensors_delivery`]: its
//!   delivery modes, 0.8 mirror and subscriber count;
//! - [`rpc`]: the CARLA 0.9.16 world protocol (RPC port, engine requests,
//!   episode state); [`rpc_actors`]: the host's own actors, new episodes,
//!   the client count;
//! - [`settings`]: the CarlaSettings.ini parser;
//! - [`structs`]: structs that exist only here because they carry pointers;
//! - [`codes`]: the return codes, and where a Rust [`crate::Error`] becomes
//!   one.
//!
//! Every export has the same shape: its body is one `export!` block.
//! `export!` names the function in log lines, catches any panic (the call
//! then returns `CARLA_SERVER_INTERNAL_PANIC` and nothing crosses into the
//! host) and turns the body's `Result` into a code. Pointer arguments are
//! read and written only through the helpers of `args`, which reject NULL
//! with `CARLA_SERVER_NULL_ARGUMENT`; everything else a pointer must be
//! (live, large enough) is the caller's side of the contract, written in
//! each function's `# Safety` section. Input memory is borrowed for the call
//! only.

/// Runs the body of an exported function; see the module documentation.
/// The body is a block that evaluates to `Result<(), Fail>` and may call
/// the (unsafe) helpers of [`args`] directly.
macro_rules! export {
    ($body:block) => {{
        fn function_name() {}
        $crate::ffi::codes::run(::std::any::type_name_of_val(&function_name), || {
            #[allow(unused_unsafe)]
            // SAFETY: the body reaches the function's pointer arguments only
            // through the helpers of `ffi::args`, which check NULL; that the
            // rest of each pointer is valid (live memory of the stated size,
            // a handle not yet freed) is what the function's `# Safety`
            // section asks of its caller.
            let result: ::std::result::Result<(), $crate::ffi::codes::Fail> = unsafe { $body };
            result
        })
    }};
}

mod args;
pub mod codes;
pub mod legacy;
pub mod rpc;
pub mod rpc_actors;
pub mod sensors;
pub mod sensors_delivery;
pub mod settings;
pub mod structs;

pub use codes::*;
pub use legacy::*;
pub use rpc::*;
pub use rpc_actors::*;
pub use sensors::*;
pub use sensors_delivery::*;
pub use settings::*;
pub use structs::*;
