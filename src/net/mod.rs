//! Sockets: connections with deadlines and vectored sends ([`conn`]), and
//! bound ports with their accept threads ([`port`]), the same code on
//! Linux, macOS and Windows (readiness from `mio`, sends from `socket2`).
//! The only system-specific part left is [`tcp_info`] (Linux tells how much
//! a peer acknowledged; elsewhere it is unknown).

pub(crate) mod conn;
pub(crate) mod fds;
pub(crate) mod port;
pub(crate) mod reactor;
pub(crate) mod sniff;
pub(crate) mod tcp_info;

pub(crate) use conn::*;
