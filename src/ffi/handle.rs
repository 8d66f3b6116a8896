//! What a `CarlaServerPtr` points to: the [`Server`] and the state the C
//! side keeps beside it (the settings text handed out by pointer, the 0.9
//! requests polled and not answered yet), and [`server`], the one way an
//! export reaches it.

use super::args::{handle, write_if_given};
use super::codes::Fail;
use super::structs::CarlaServerPtr;
use crate::{Error, Server};
use parking_lot::Mutex;
use std::net::SocketAddr;

/// What a `CarlaServerPtr` points to.
pub(crate) struct ServerHandle {
    pub(crate) server: Server,
    /// The last settings text, NUL-terminated, handed out by pointer.
    pub(crate) ini: Mutex<Vec<u8>>,
    /// 0.9 requests handed out by `carla_rpc_poll`, not answered yet.
    pub(crate) rpc: super::rpc_pending::Pending,
}

/// The server behind a `CarlaServerPtr`.
///
/// # Safety
/// `p` is NULL or a live pointer from `carla_make_server`.
pub(crate) unsafe fn server<'a>(p: CarlaServerPtr) -> Result<&'a ServerHandle, Fail> {
    // SAFETY: the caller's contract.
    unsafe { handle(p as *const ServerHandle) }
}

/// Opens one of `server`'s ports with `listen` (0: the system picks one)
/// and writes the port bound to `bound_port`, if given.
///
/// # Safety
/// `server` NULL or live; `bound_port` NULL or writable.
pub(crate) unsafe fn listen(
    server: CarlaServerPtr,
    port: u32,
    bound_port: *mut u32,
    listen: impl FnOnce(&Server, u16) -> Result<SocketAddr, Error>,
) -> Result<(), Fail> {
    // SAFETY: the caller's contract.
    let h = unsafe { self::server(server)? };
    let port = u16::try_from(port).map_err(|_| Error::InvalidPort)?;
    let addr = listen(&h.server, port)?;
    // SAFETY: the caller's contract.
    unsafe { write_if_given(bound_port, u32::from(addr.port())) };
    Ok(())
}

impl ServerHandle {
    /// An idle server (nothing bound until `carla_server_connect`).
    pub(crate) fn new() -> ServerHandle {
        ServerHandle {
            server: Server::new(),
            ini: Mutex::new(vec![0]),
            rpc: Default::default(),
        }
    }
}
