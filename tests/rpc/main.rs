//! The CARLA 0.9.16 world protocol through the Rust API, one test binary:
//! hostile clients on the RPC port ([`bad_input`]), the game thread's side
//! allocating nothing per tick ([`game_thread`]), the unmodified `carla`
//! package of each release 0.9.12 – 0.9.16 against a Rust and a C host
//! ([`python`]) and loading maps ([`maps`]), a listener joining after its
//! tick ([`listen`]), the older releases' ports
//! through the Rust API ([`releases`]) and the recorder under load
//! ([`recorder`]).
//!
//! What is process-wide here and why it is safe together:
//! - [`game_thread`]'s `#[global_allocator]` is the allocator of the whole
//!   binary; it counts only on the thread that switched counting on (a
//!   thread-local flag), so other tests' allocations never reach its count.
//! - [`bad_input`]'s 4 GiB headers measure this process's peak memory
//!   (`VmHWM`, which only grows): that test holds [`MEMORY`] exclusively
//!   with [`measuring_memory`], and the tests that allocate megabytes in
//!   this process (the Rust host that streams 800×600 images to the Python
//!   client) hold it shared with [`allocating_megabytes`], so none runs
//!   while it measures. The other tests allocate kilobytes.
//! - No test sets the log sink or level.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod budgets;
mod commands;
mod game_thread;
mod listen;
mod maps;
mod python;
mod recorder;
mod releases;

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Held exclusively while a test measures this process's peak memory.
static MEMORY: RwLock<()> = RwLock::new(());

/// No test that allocates megabytes runs until this is dropped.
pub(crate) fn measuring_memory() -> RwLockWriteGuard<'static, ()> {
    MEMORY.write().unwrap_or_else(PoisonError::into_inner)
}

/// Waits for a memory measurement to end; none starts until this is dropped.
#[cfg_attr(not(unix), allow(dead_code))] // its users need a Linux Python
pub(crate) fn allocating_megabytes() -> RwLockReadGuard<'static, ()> {
    MEMORY.read().unwrap_or_else(PoisonError::into_inner)
}
