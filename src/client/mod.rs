//! Rust clients of the protocols: 0.8.4 (`legacy`), 0.9 streams (`stream`)
//! and the 0.9.16 RPC port (`rpc`).

pub mod legacy;
pub(crate) mod rpc;
pub(crate) mod stream;

pub use legacy::{protocol_error, read_message, write_message, Client, Frame, SensorRecord};
pub use rpc::{RpcClient, RpcError};
pub use stream::{SensorMessage, StreamClient};
