//! What a `CarlaServerPtr` points to: the [`Server`] and the state the C
//! side keeps beside it (the settings text handed out by pointer, the 0.9
//! requests polled and not answered yet), and [`server`], the one way an
//! export reaches it.

use super::args::handle;
use super::codes::Fail;
use super::structs::CarlaServerPtr;
use crate::Server;
use parking_lot::Mutex;

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
