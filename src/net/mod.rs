//! Sockets: connections with deadlines and vectored sends ([`conn`]), and
//! bound ports with their accept threads ([`port`]). The one place a port
//! to another operating system touches.

pub(crate) mod conn;
pub(crate) mod port;
pub(crate) mod sniff;

pub(crate) use conn::*;
