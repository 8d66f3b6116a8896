//! The RPC port: one thread per client connection (at most `MAX_CLIENTS`),
//! reading concatenated msgpack objects (no length prefix), answering each
//! request in order. A connection with no request in progress may stay
//! idle for ever (the 0.9 client sends no heartbeat) once it sent its first
//! request (the port gives it the time-out for its first byte); one whose
//! request does not arrive whole within the time-out of its first byte,
//! that sends bytes that are not msgpack-RPC, or breaks a bound is closed
//! with one log line. Other clients are never affected.
//!
//! A request over the byte bound whose head (message id, method) came
//! before its large part is not kept: the rest of it is read and dropped
//! as it arrives (at least 16 MiB per time-out, at most 1 GiB in all), then
//! the client gets a failed `Response` of that method's shape naming the
//! limit, and the connection goes on.

use super::clients::{ClientShare, Clients};
use super::error::{Closed, RpcError};
use super::framing::{FrameError, Framer, Limits, Skipper};
use super::methods::{self, Outcome};
use super::wire;
use super::RpcShared;
use crate::net::{deadline_in, Conn};
use crate::release::Release;
use rmpv::Value;
use std::io::IoSlice;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Clients connected at once, at most; more are closed on arrival.
pub(crate) const MAX_CLIENTS: usize = 64;

/// Bounds of one request: 16 MiB (a large `apply_batch`), 64 levels, a
/// million values.
pub(crate) const LIMITS: Limits = Limits {
    max_bytes: 16 << 20,
    max_depth: 64,
    max_elements: 1_000_000,
};

/// The most of one request over the byte bound that is read and dropped;
/// past it the connection is closed.
pub(crate) const MAX_DROPPED: u64 = 1 << 30;

/// What is known of a request over the byte bound from its first bytes.
#[derive(Debug, PartialEq)]
pub(crate) struct Head {
    /// `None`: a notification.
    pub(crate) msgid: Option<u32>,
    pub(crate) method: String,
    /// CARLA's `[true]` metadata came first (the client discards the answer).
    pub(crate) is_async: bool,
}

/// A request over the byte bound being dropped.
struct Oversized {
    head: Head,
    skipper: Skipper,
    /// Bytes of it so far, and when the deadline was last moved.
    bytes: u64,
    renewed_at: u64,
}

/// The head of a request from its first bytes (`[0, msgid, method,
/// [[async?] ...` or `[2, method, ...`), if they hold it whole.
pub(crate) fn request_head(mut b: &[u8]) -> Option<Head> {
    use rmp::decode;
    let len = decode::read_array_len(&mut b).ok()?;
    let kind: u64 = decode::read_int(&mut b).ok()?;
    let msgid = match (kind, len) {
        (0, 4) => Some(decode::read_int::<u32, _>(&mut b).ok()?),
        (2, 3) => None,
        _ => return None,
    };
    let n = decode::read_str_len(&mut b).ok()? as usize;
    let method = std::str::from_utf8(b.get(..n)?).ok()?.to_owned();
    b = &b[n..];
    let is_async = decode::read_array_len(&mut b).is_ok() && b.starts_with(&[0x91, 0xc3]);
    Some(Head {
        msgid,
        method,
        is_async,
    })
}

/// Serves one client until it leaves or breaks the protocol.
pub(crate) fn serve(shared: Arc<RpcShared>, conn: Conn, share: Arc<ClientShare>) {
    let peer = conn.peer();
    let caller = share.id;
    crate::log_info!("rpc: client {} connected (client {})", peer, caller);
    let release = share.release;
    let served = Clients::serve(&share, || serve_requests(&shared, caller, release, &conn));
    let why = match served {
        Ok(()) => "left".to_owned(),
        Err(e) => e.to_string(),
    };
    crate::log_info!("rpc: client {} {}", peer, why);
    shared.traffic_managers.forget_owner(caller);
    shared.release_held_ticks(Some(caller));
    // The server's list holds a clone of the socket (to abort it when the
    // server closes), so dropping `conn` alone would not close it.
    conn.aborter().abort();
}

fn serve_requests(s: &RpcShared, caller: u64, release: Release, conn: &Conn) -> Result<(), Closed> {
    let mut buf: Vec<u8> = Vec::with_capacity(64 << 10);
    let mut chunk = vec![0u8; 64 << 10];
    let mut framer = Framer::new(LIMITS);
    let mut out = Vec::with_capacity(4 << 10);
    // A request must arrive whole within the time-out of its first byte
    // (a client that trickles one byte at a time cannot stretch it); one
    // being dropped, 16 MiB more of it within each time-out.
    let mut request_deadline = None;
    let mut oversized: Option<Oversized> = None;
    loop {
        let mut start = 0;
        loop {
            if let Some(o) = &mut oversized {
                let (n, done) = o.skipper.advance(&buf[start..]).map_err(|error| {
                    let method = o.head.method.clone();
                    Closed::OversizedFraming { method, error }
                })?;
                start += n;
                o.bytes += n as u64;
                if !done {
                    if o.bytes - o.renewed_at >= LIMITS.max_bytes as u64 {
                        o.renewed_at = o.bytes;
                        request_deadline = deadline_in(s.timeout);
                    }
                    break;
                }
                if let Some(o) = oversized.take() {
                    answer_oversized(s, conn, &o, &mut out)?;
                }
                continue;
            }
            match framer.advance(&buf[start..]) {
                Ok(Some(n)) => {
                    request(s, caller, release, conn, &buf[start..start + n], &mut out)?;
                    start += n;
                }
                Ok(None) => break,
                Err(FrameError::TooLarge { limit }) => {
                    let (at, skipper) = framer.give_up(MAX_DROPPED);
                    let Some(head) = request_head(&buf[start..start + at]) else {
                        return Err(Closed::Framing(FrameError::TooLarge { limit }));
                    };
                    start += at;
                    oversized = Some(Oversized {
                        head,
                        skipper,
                        bytes: at as u64,
                        renewed_at: at as u64,
                    });
                    request_deadline = deadline_in(s.timeout);
                }
                Err(e) => return Err(Closed::Framing(e)),
            }
        }
        buf.drain(..start);
        if oversized.is_some() {
            // Its deadline moves with what arrives (above).
        } else if buf.is_empty() {
            request_deadline = None;
        } else if start > 0 || request_deadline.is_none() {
            // A new request began (in this read or the last).
            request_deadline = deadline_in(s.timeout);
        }
        match conn.read_some(&mut chunk, request_deadline) {
            Ok(n) => {
                if buf.is_empty() && oversized.is_none() {
                    request_deadline = deadline_in(s.timeout);
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(crate::Error::PeerClosed) if buf.is_empty() && oversized.is_none() => return Ok(()),
            Err(crate::Error::DeadlinePassed) => {
                return Err(match oversized {
                    Some(o) => Closed::OversizedTrickled {
                        bytes: o.bytes,
                        method: o.head.method,
                        mib: LIMITS.max_bytes >> 20,
                        timeout: s.timeout,
                    },
                    None => Closed::Trickled {
                        bytes: buf.len(),
                        timeout: s.timeout,
                    },
                })
            }
            Err(e) => return Err(Closed::Ended(e)),
        }
    }
}

/// Answers a request that was over the byte bound (now dropped) with a
/// failed `Response` naming the limit, in the shape its client reads.
fn answer_oversized(
    s: &RpcShared,
    conn: &Conn,
    o: &Oversized,
    out: &mut Vec<u8>,
) -> Result<(), Closed> {
    let message = format!(
        "{}: a request of {} bytes is over this server's limit of {} MiB",
        o.head.method,
        o.bytes,
        LIMITS.max_bytes >> 20
    );
    crate::log_warn!("rpc: {} (dropped)", message);
    let Some(id) = o.head.msgid else {
        return Ok(()); // a notification: nobody waits
    };
    out.clear();
    wire::reply_head(out, id);
    if o.head.is_async {
        wire::void_ok(out); // as every asynchronous call; the client discards it
    } else if methods::answers_void(&o.head.method) {
        wire::void_failed(out, &message);
    } else {
        wire::failed(out, &message);
    }
    send(s, conn, out, id)
}

fn rpclib_unknown(method: &str, args: usize) -> String {
    format!("rpclib: server could not find function '{method}' with argument count {args}.")
}

/// One decoded request, or a notification (`msgid` is `None`).
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) msgid: Option<u32>,
    pub(crate) method: String,
    /// The metadata `[true]` came first (answered at once, then run).
    pub(crate) is_async: bool,
    /// The arguments after the metadata.
    pub(crate) args: Vec<Value>,
}

/// The decoder's recursion bound for an object the framer accepted (at
/// most `LIMITS.max_depth` open containers): rmpv spends 2 levels per
/// container and up to 3 on the innermost value (a str or ext), so the
/// framer's bound is the one that refuses.
pub(crate) const DECODE_DEPTH: usize = 2 * LIMITS.max_depth + 3;

/// Decodes one whole msgpack object (as [`Framer`] delimits it) into a
/// request; `Err` says why the connection is closed.
pub(crate) fn parse_request(bytes: &[u8]) -> Result<Request, Closed> {
    let value = rmpv::decode::read_value_with_max_depth(&mut &bytes[..], DECODE_DEPTH)
        .map_err(|e| Closed::NotMsgpack(e.to_string()))?;
    let not_rpc = || Closed::NotRpc;
    let Value::Array(items) = value else {
        return Err(not_rpc());
    };
    let mut items = items.into_iter();
    let fields = (
        items.next(),
        items.next(),
        items.next(),
        items.next(),
        items.next(),
    );
    let (msgid, method, mut params) = match fields {
        (Some(Value::Integer(t)), Some(id), Some(m), Some(Value::Array(p)), None)
            if t.as_u64() == Some(0) =>
        {
            let id = id.as_u64().and_then(|i| u32::try_from(i).ok());
            (Some(id.ok_or_else(not_rpc)?), m, p)
        }
        (Some(Value::Integer(t)), Some(m), Some(Value::Array(p)), None, None)
            if t.as_u64() == Some(2) =>
        {
            (None, m, p)
        }
        _ => return Err(not_rpc()),
    };
    let method = match method {
        Value::String(m) => m.into_str().ok_or_else(not_rpc)?,
        _ => return Err(not_rpc()),
    };
    // rpclib of CARLA puts `[asynchronous: bool]` before the arguments.
    let meta = match params.first() {
        Some(Value::Array(meta)) => match meta.as_slice() {
            [Value::Boolean(b)] => Some(*b),
            _ => None,
        },
        _ => None,
    };
    if meta.is_some() {
        params.remove(0);
    }
    Ok(Request {
        msgid,
        method,
        is_async: meta == Some(true),
        args: params,
    })
}

/// Decodes and answers one request (or runs one notification).
fn request(
    s: &RpcShared,
    caller: u64,
    release: Release,
    conn: &Conn,
    bytes: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Closed> {
    let req = parse_request(bytes)?;
    let (msgid, method, is_async, args) = (req.msgid, &req.method[..], req.is_async, &req.args[..]);
    out.clear();
    if let Some(id) = msgid {
        wire::reply_head(out, id);
    }
    let head = out.len();
    if is_async {
        // Answered at once with a default (the client discards it), then run.
        if let Some(id) = msgid {
            wire::void_ok(out);
            send(s, conn, out, id)?;
        }
        let mut ignored = Vec::new();
        match run(s, caller, release, method, args, &mut ignored) {
            Ok(Outcome::Done) => {}
            Ok(Outcome::Unknown) => crate::log_warn!("rpc: {}", rpclib_unknown(method, args.len())),
            Err(e) => crate::log_warn!("rpc: {} (asynchronous) failed: {}", method, e),
        }
        return Ok(());
    }
    match run(s, caller, release, method, args, out) {
        Ok(Outcome::Done) => {}
        Ok(Outcome::Unknown) => {
            let text = rpclib_unknown(method, args.len());
            crate::log_warn!("rpc: {}", text);
            out.clear();
            if let Some(id) = msgid {
                wire::rpc_error(out, id, &text);
            }
        }
        Err(e) => {
            crate::log_info!("rpc: {} failed: {}", method, e);
            out.truncate(head);
            wire::failed(out, &e.to_string());
        }
    }
    match msgid {
        Some(id) => send(s, conn, out, id),
        None => Ok(()),
    }
}

/// Runs a call, turning a panic into a failed response.
fn run(
    s: &RpcShared,
    caller: u64,
    release: Release,
    method: &str,
    args: &[Value],
    out: &mut Vec<u8>,
) -> Result<Outcome, RpcError> {
    match catch_unwind(AssertUnwindSafe(|| {
        methods::call(s, caller, release, method, args, out)
    })) {
        Ok(r) => r,
        Err(_) => {
            crate::log_error!("rpc: internal error (panic) in {}", method);
            Err(RpcError::Internal(format!("internal error in {method}")))
        }
    }
}

fn send(s: &RpcShared, conn: &Conn, out: &[u8], id: u32) -> Result<(), Closed> {
    conn.write_all_vectored(&mut [IoSlice::new(out)], deadline_in(s.timeout))
        .map_err(|error| Closed::ReplyRefused { id, error })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::hex;

    #[test]
    fn the_head_of_a_request_is_read_from_its_first_bytes() {
        // `[0, 7, "version", [[false] ...` as the 0.9.16 client sends it.
        let head = request_head(&hex("94 00 07 a7 76 65 72 73 69 6f 6e 92 91 c2"));
        let want = |msgid, is_async| Head {
            msgid,
            method: "version".into(),
            is_async,
        };
        assert_eq!(head, Some(want(Some(7), false)));
        let head = request_head(&hex("94 00 07 a7 76 65 72 73 69 6f 6e 92 91 c3"));
        assert_eq!(head, Some(want(Some(7), true)), "asynchronous");
        // A notification, `[2, "version", [...`.
        let head = request_head(&hex("93 02 a7 76 65 72 73 69 6f 6e 92"));
        assert_eq!(head, Some(want(None, false)));
        // The method name cut short, not a request, a msgid over u32.
        assert_eq!(request_head(&hex("94 00 07 a7 76 65 72")), None);
        assert_eq!(request_head(&hex("94 01 07 a7 76 65 72 73 69 6f 6e")), None);
        assert_eq!(request_head(&hex("93 00 07 a7 76 65 72 73 69 6f 6e")), None);
        let big_id = hex("94 00 cf 00 00 00 01 00 00 00 00 a7 76 65 72 73 69 6f 6e");
        assert_eq!(request_head(&big_id), None);
        assert_eq!(request_head(&[]), None);
    }
}
