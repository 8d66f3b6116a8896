//! A minimal Rust client of the 0.9.16 RPC port (for tests, benchmarks and
//! tools): one blocking call at a time, results unwrapped from CARLA's
//! `Response` envelope.

use rmpv::Value;
use std::io::{self, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// A connection to an RPC port.
pub struct RpcClient {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    next_id: u32,
    request: Vec<u8>,
}

/// Why a call failed.
#[derive(Debug)]
pub enum RpcError {
    /// The connection failed or closed.
    Io(io::Error),
    /// rpclib-level error (unknown method, wrong argument count).
    Rpc(String),
    /// The server's `Response` carried an error message.
    Failed(String),
    /// The reply was not shaped like a response.
    BadReply(String),
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Io(e) => write!(f, "connection: {e}"),
            RpcError::Rpc(m) => write!(f, "rpc error: {m}"),
            RpcError::Failed(m) => write!(f, "failed: {m}"),
            RpcError::BadReply(m) => write!(f, "bad reply: {m}"),
        }
    }
}

impl std::error::Error for RpcError {}

impl RpcClient {
    /// Connects (TCP_NODELAY on); `timeout` bounds connecting and each read.
    pub fn connect(addr: impl ToSocketAddrs, timeout: Duration) -> io::Result<RpcClient> {
        let addr = addr
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address"))?;
        let stream = TcpStream::connect_timeout(&addr, timeout)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout))?;
        Ok(RpcClient {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
            next_id: 1,
            request: Vec::new(),
        })
    }

    /// Calls `method` with `args` (the metadata element is added) and
    /// returns the value inside a successful `Response` (`[[1, value]]`),
    /// or the whole result for calls that return no envelope.
    pub fn call(&mut self, method: &str, args: &[Value]) -> Result<Value, RpcError> {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        let mut params = Vec::with_capacity(args.len() + 1);
        params.push(Value::Array(vec![Value::Boolean(false)]));
        params.extend_from_slice(args);
        let request = Value::Array(vec![
            Value::from(0),
            Value::from(id),
            Value::from(method),
            Value::Array(params),
        ]);
        self.request.clear();
        rmpv::encode::write_value(&mut self.request, &request)
            .map_err(|e| RpcError::Io(io::Error::other(e)))?;
        self.writer.write_all(&self.request).map_err(RpcError::Io)?;
        let reply = rmpv::decode::read_value(&mut self.reader).map_err(|e| match e {
            rmpv::decode::Error::InvalidMarkerRead(e) | rmpv::decode::Error::InvalidDataRead(e) => {
                RpcError::Io(e)
            }
            other => RpcError::BadReply(other.to_string()),
        })?;
        let bad = || RpcError::BadReply(format!("{reply}"));
        let items = reply.as_array().ok_or_else(bad)?;
        if items.len() != 4 || items[1].as_u64() != Some(id.into()) {
            return Err(bad());
        }
        if !items[2].is_nil() {
            return Err(RpcError::Rpc(items[2].as_str().unwrap_or("?").to_owned()));
        }
        unwrap_response(&items[3]).ok_or_else(bad)?
    }
}

/// `[[1, v]]` → Ok(v); `[[0, [msg]]]` → Err; `[[false]]` → Ok(nil);
/// `[[true, [msg]]]` → Err; anything else is returned as is.
fn unwrap_response(result: &Value) -> Option<Result<Value, RpcError>> {
    let inner = match result.as_array().map(Vec::as_slice) {
        Some([inner]) => inner.as_array()?,
        _ => return Some(Ok(result.clone())),
    };
    let message = |v: &Value| {
        let text = v.as_array().and_then(|m| m.first()).and_then(Value::as_str);
        RpcError::Failed(text.unwrap_or("?").to_owned())
    };
    Some(match inner.as_slice() {
        [Value::Integer(i), v] if i.as_u64() == Some(1) => Ok(v.clone()),
        [Value::Integer(i), m] if i.as_u64() == Some(0) => Err(message(m)),
        [Value::Boolean(false)] => Ok(Value::Nil),
        [Value::Boolean(true), m] => Err(message(m)),
        _ => Ok(result.clone()),
    })
}
