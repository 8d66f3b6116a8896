//! The 0.9 sensor pipeline through the Rust API, one test binary: sensors
//! feeding both protocols, the zero-copy path and destroy ([`sensors`]),
//! and queued delivery ([`queued`]).
//!
//! [`queued`] sets the process-wide log sink for one test and counts the
//! stall lines of its own subscriber (the lines name its address), so
//! lines from other tests are filtered out; the stall lines come from the
//! queued-delivery call sites, which only [`queued`] reaches here (no
//! sensor in [`sensors`] is queued), so their process-wide rate limit
//! stays its own. No other test sets the sink or the log level. The C
//! hosts' streaming test is in `c_api`.

#[path = "../common/mod.rs"]
mod common;

mod queued;
mod sensors;
