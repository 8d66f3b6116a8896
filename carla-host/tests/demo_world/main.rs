//! The `carla-host` binary end to end, one test binary for the demo world
//! (`env!("CARGO_BIN_EXE_carla-host")` exists only in this package's
//! tests). Every test starts its own `carla-host` process on ports of its
//! own and measures only that process (its `/proc/PID/status`, its log), so
//! the modules share nothing global and run side by side:
//! - [`legacy`]: 0.8.4 episodes driven by the Rust client;
//! - [`attacks`]: requests that ask too much (Linux: peak memory from `/proc`);
//! - [`hardening`]: descriptor floods, handshake deadlines, the log's
//!   summaries and timestamps, per-client budgets (Linux: `/proc`);
//! - [`flood_episode`]: a new 0.8 episode after a synchronous one, under
//!   a second descriptor flood (Linux: `ulimit`);
//! - [`town_09`]: the unmodified `carla==0.9.16` package and the examples
//!   (Unix: the client is a Linux Python);
//! - [`maps`]: the same package on any OpenDRIVE map as the world: the
//!   built-in town and generated test maps, bad maps, a route drive.

mod attacks;
#[path = "../../../tests/common/basics.rs"]
mod common;
mod flood_episode;
mod hardening;
// Its /proc readers and log helpers serve the Linux-only modules.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod host_process;
mod legacy;
mod maps;
mod town_09;
