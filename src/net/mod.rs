//! Sockets: connections with deadlines and vectored sends ([`conn`]), and
//! bound ports with their accept threads ([`port`]). The one place a port
//! to another operating system touches.

pub mod conn;
pub mod port;

pub use conn::*;
