//! The C boundary: the functions, structs and constants of
//! `include/carla/carla_server.h`, and nothing else. Rust sees them as C
//! does, in one flat list (`carla_server::ffi::carla_server_connect`); the
//! files that hold them are private:
//!
//! - `legacy`: the 0.8.4 functions (binary-compatible) and a few
//!   additions (bind address, message bound, log callback, panic self-test);
//! - `sensors`: the 0.9 sensor pipeline; `sensors_delivery`: its
//!   delivery modes, 0.8 mirror and subscriber count;
//!   `sensors_gbuffer`: an RGB camera's G-buffer streams;
//! - `rpc`: the CARLA 0.9.16 world protocol (RPC port, engine requests,
//!   episode state); `rpc_request`: the request a C host polls
//!   (`carla_rpc_request`) and its first kinds; `rpc_commands`: the actor
//!   commands clients send; `rpc_values`: their packed values by name;
//!   `rpc_actors`: the host's own actors, new episodes, the client count;
//!   `rpc_budget`: each client's share of the server; `rpc_release`: the
//!   client releases served besides 0.9.16;
//! - `recorder`: the recorder and replayer; `ros2`: ROS 2 publishing;
//! - `settings`: the CarlaSettings.ini parser;
//! - `structs`: structs that exist only here because they carry pointers;
//! - `codes`: the return codes, and where a Rust [`crate::Error`] becomes
//!   one.
//!
//! Inside only:
//! - `handle`: what a `CarlaServerPtr` points to, and `server()`, the
//!   one way an export reaches it;
//! - `rpc_pending`: how a request is filled in and kept until its answer;
//! - `args`: the pointer helpers.
//!
//! Every export has the same shape: its body is one `export!` block.
//! `export!` names the function in log lines, catches any panic (nothing
//! crosses into the host) and turns the body's `Result` into what the
//! function returns: a code (`CARLA_SERVER_INTERNAL_PANIC` for a panic),
//! or, for a function that returns a value, the value or its fallback. Pointer arguments are
//! read and written only through the helpers of `args`, which reject NULL
//! with `CARLA_SERVER_NULL_ARGUMENT`; everything else a pointer must be
//! (live, large enough) is the caller's side of the contract, written in
//! each function's `# Safety` section. Input memory is borrowed for the call
//! only.

/// Runs the body of an exported function; see the module documentation.
/// The body is a block that may call the (unsafe) helpers of [`args`]
/// directly.
///
/// - `export!({ body })`: the body evaluates to `Result<(), Fail>`; the
///   export returns its code.
/// - `export!(or fallback, { body })`: the body evaluates to
///   `Result<T, Fail>`; the export returns the `T`, or `fallback` when the
///   body failed or panicked (logged as for a code).
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
    (or $fallback:expr, $body:block) => {{
        fn function_name() {}
        $crate::ffi::codes::run_for(::std::any::type_name_of_val(&function_name), || {
            #[allow(unused_unsafe)]
            // SAFETY: as in the form above: pointers only through `ffi::args`.
            let result: ::std::result::Result<_, $crate::ffi::codes::Fail> = unsafe { $body };
            result
        })
        .unwrap_or($fallback)
    }};
}

mod args;
pub(crate) mod codes;
mod handle;
mod legacy;
mod recorder;
mod ros2;
mod rpc;
mod rpc_actors;
mod rpc_budget;
mod rpc_commands;
mod rpc_pending;
mod rpc_release;
mod rpc_request;
mod rpc_values;
mod sensors;
mod sensors_delivery;
mod sensors_gbuffer;
mod settings;
mod structs;

pub use codes::*;
pub use legacy::*;
pub use recorder::*;
pub use ros2::*;
pub use rpc::*;
pub use rpc_actors::*;
pub use rpc_budget::*;
pub use rpc_commands::*;
pub use rpc_release::*;
pub use rpc_request::*;
pub use rpc_values::*;
pub use sensors::*;
pub use sensors_delivery::*;
pub use sensors_gbuffer::*;
pub use settings::*;
pub use structs::*;
