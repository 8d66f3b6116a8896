//! The C API, one test binary: the committed header against cbindgen
//! ([`header`]), the settings parser's C functions ([`settings`]), and the
//! C and C++ hosts compiled with the `cc` crate and linked to this build's
//! library, each run as a process of its own: 0.8 episodes
//! ([`legacy_hosts`]), 0.9 sensors from two threads ([`streaming_host`]),
//! lidars mirrored to 0.8 ([`lidar_mirror`]), the host's own 0.9.16
//! actors ([`rpc_actors`]), its walkers' skeletons ([`rpc_bones`]) and its
//! maps ([`rpc_maps`]).
//!
//! Together because nothing here touches process-wide state: the hosts run
//! in processes of their own on ports of their own, every compiled host has
//! its own output directory, and no test sets the log sink or level or
//! reads this process's counts. `scripts/sanitize.sh` runs the
//! `legacy_hosts` and `streaming_host` modules of this binary.

#[path = "../common/mod.rs"]
mod common;

mod header;
mod legacy_hosts;
mod lidar_mirror;
mod recorder;
mod rpc_actors;
mod rpc_bones;
mod rpc_maps;
mod settings;
mod streaming_host;
