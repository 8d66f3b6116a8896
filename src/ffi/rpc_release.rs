//! The C API of the CARLA client releases served besides 0.9.16.

use super::args::text;
use super::handle::{listen, server};
use super::structs::CarlaServerPtr;
use crate::{Error, Release};
use std::ffi::c_char;

/// Serves clients of CARLA release `release` ("0.9.12", "0.9.13",
/// "0.9.14" or "0.9.15") on an RPC port of their own (`port` 0 picks one;
/// the bound port goes to `bound_port`, which may be NULL), in the same
/// world as the 0.9.16 port: a client never says its release, so the port
/// it dials decides how it is spoken to. After `carla_rpc_listen`.
/// An unknown release is `CARLA_SERVER_INVALID_ARGUMENT` (the log names
/// the releases served); a release already served,
/// 106 (already connected, as for
/// `carla_rpc_listen`).
///
/// # Safety
/// `server` NULL or live; `release` NULL or a NUL-terminated string;
/// `bound_port` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_listen_release(
    server: CarlaServerPtr,
    release: *const c_char,
    port: u32,
    bound_port: *mut u32,
) -> i32 {
    export!({
        self::server(server)?; // a NULL handle is named before a bad release
        let release: Release = text(release)?.parse().map_err(|e: String| {
            crate::log_error!("{}", e);
            Error::InvalidArgument(e)
        })?;
        listen(server, port, bound_port, |s, port| {
            s.listen_rpc_release(release, port)
        })
    })
}
