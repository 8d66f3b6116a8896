//! The 0.8.4 protocol through the Rust API, one test binary: whole
//! episodes ([`episodes`]), bad input on every port ([`bad_input`]) and the
//! world port shared with 0.9.16 clients ([`shared_port`]).
//!
//! Together because nothing here touches process-wide state that another
//! test could disturb: each test has a server on ports of its own, no test
//! sets the log sink or level. The one process-wide thing is
//! [`bad_input`]'s `#[global_allocator]`, which records the largest single
//! allocation so the 4 GiB length prefix can be shown to allocate nothing
//! (under 256 MiB); it is the allocator of the whole binary, and no test
//! here allocates anything near 256 MiB at once (the largest is an 8 MiB
//! read limit). Kept out, each in a binary of its own: `episode_end` (it
//! captures the process-wide log sink and counts lines of call sites whose
//! rate limit, 10 lines a second, is process-wide too, so the episodes and
//! bad input here could crowd its lines out) and `faults` (it counts this
//! process's threads, descriptors and memory).

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod episodes;
mod shared_port;
