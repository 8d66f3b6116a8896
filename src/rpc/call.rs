//! What an RPC method's handler is given: the call (who asked, in which
//! release's dialect, which method), its arguments and the answer to write.
//! `methods` lists the handlers; the modules that hold them read this, so
//! neither points back at the table.

use super::wire::ArgResult;
use super::RpcShared;
use crate::release::Release;
use rmpv::Value;

/// An answer being written.
pub(crate) type Out = Vec<u8>;

/// One call being answered: who asked, in which release's dialect, and the
/// method's name (the handlers shared by several methods read it).
pub(crate) struct Call<'a> {
    pub s: &'a RpcShared,
    pub caller: u64,
    pub release: Release,
    pub method: &'a str,
}

/// Runs a call: writes its whole `result` (the `Response` envelope
/// included) or returns the message of a failed `Response`.
pub(crate) type Handler = fn(&Call, &[Value], &mut Out) -> ArgResult<()>;
