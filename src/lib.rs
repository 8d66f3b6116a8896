//! A CARLA 0.8.4-compatible simulator server library.
//!
//! An engine (Unreal, a test, the `carla-host` binary) drives a [`Server`]
//! every tick: it reads the client's control and writes measurements and
//! sensor data; the library serialises and streams them on three ports
//! (world P, stream P+1, control P+2) with the 0.8.4 wire protocol, so the
//! official 0.8 clients work unmodified. The same API is exported to C
//! (`include/carla/carla_server.h`, see [`ffi`]); [`client`] is a Rust
//! client for the same protocol.

pub mod codes;
#[macro_use]
pub mod log;
pub mod acceptor;
pub mod agent;
pub mod buffer;
pub mod client;
pub mod encode;
pub mod ffi;
pub mod framing;
#[doc(hidden)]
pub mod fuzzing;
pub mod handoff;
pub mod net;
pub mod proto;
pub mod sensor;
pub mod sensors;
pub mod server;
pub mod settings;
pub mod slot;
pub mod stream;
pub mod stream_client;
mod sync;
#[cfg(test)]
mod test_util;
pub mod threads;
pub mod types;
pub mod world;

pub use server::{Server, ServerConfig};
