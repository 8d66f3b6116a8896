//! A CARLA 0.8.4-compatible simulator server library.

#[path = "error.rs"]
pub mod codes;
#[macro_use]
pub mod log;
pub mod client;
pub mod ffi;
#[doc(hidden)]
pub mod fuzzing;
pub mod legacy;
pub mod net;
pub mod server;
pub mod streaming;
pub mod sync;
#[cfg(test)]
mod test_util;
pub mod threads;
pub mod types;

pub use server::{Server, ServerConfig};
