//! Rust clients of both protocols.

pub mod legacy;
pub mod stream;

pub use legacy::*;
pub use stream::{SensorMessage, StreamClient};
