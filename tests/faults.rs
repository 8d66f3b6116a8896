//! Fault tests: one test per fault, each failing
//! if the property breaks.
//!
//! - `episodes`: 1000 short episodes in a row; resident memory, threads and
//!   file descriptors stay flat;
//! - `killed_client`: a client process killed mid-frame 100 times;
//! - `slow_reader`: a client reading at 1 MB/s never slows the game thread
//!   (0.8 stream port and 0.9 stream, asynchronous mode);
//! - `ports`: surplus connections on every port, a port already in use;
//! - `free`: `carla_free_server` under load returns within 100 ms.
//!
//! Tests that measure process-wide counts (threads, descriptors, memory) or
//! a time bound take the gate exclusively, so no other test of this binary
//! runs meanwhile; the others share it.
//!
//! Linux only: the counts and the blocked-thread check read `/proc`, and
//! the killed client is a forked process killed with SIGKILL.
#![cfg(target_os = "linux")]

mod common;

pub(crate) use common::{closed_by_server, wait_for};

#[path = "faults/episodes.rs"]
mod episodes;
#[path = "faults/free.rs"]
mod free;
#[path = "faults/killed_client.rs"]
mod killed_client;
#[path = "faults/ports.rs"]
mod ports;
#[path = "faults/slow_reader.rs"]
mod slow_reader;
#[path = "faults/wire.rs"]
mod wire;

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread;
use std::time::{Duration, Instant};

static GATE: RwLock<()> = RwLock::new(());

/// For tests that measure the whole process: no other test runs meanwhile.
pub fn exclusive() -> RwLockWriteGuard<'static, ()> {
    GATE.write().unwrap_or_else(PoisonError::into_inner)
}

/// For the other tests: they may run together.
pub fn shared() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(PoisonError::into_inner)
}

/// Library threads, open descriptors and resident memory of this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Threads named `carla-…` (the library's; the test harness starts and
    /// ends its own threads while a test runs).
    pub threads: usize,
    pub fds: usize,
    pub rss_kib: u64,
}

impl Usage {
    pub fn now() -> Usage {
        let threads = std::fs::read_dir("/proc/self/task")
            .expect("/proc/self/task")
            .flatten()
            .filter(|t| {
                std::fs::read_to_string(t.path().join("comm"))
                    // `carla-log` writes owed log summaries, `carla-trim`
                    // returns freed memory; each exits within about a
                    // second (one at most): not leaks.
                    .is_ok_and(|name| {
                        let name = name.trim();
                        name.starts_with("carla-") && name != "carla-log" && name != "carla-trim"
                    })
            })
            .count();
        let fds = std::fs::read_dir("/proc/self/fd")
            .expect("/proc/self/fd")
            .count();
        let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
        let pages: u64 = statm
            .split_whitespace()
            .nth(1)
            .and_then(|v| v.parse().ok())
            .expect("resident pages in statm");
        // SAFETY: sysconf only reads a configuration value.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
        Usage {
            threads,
            fds,
            rss_kib: pages * page / 1024,
        }
    }

    /// Waits up to 5 s for threads and descriptors to come back to at most
    /// `base` plus `slack` (threads that were told to stop take a moment to
    /// leave `/proc`), then returns the last reading.
    pub fn settle_to(base: Usage, slack: usize) -> Usage {
        let started = Instant::now();
        loop {
            let now = Usage::now();
            let settled = now.threads <= base.threads + slack && now.fds <= base.fds + slack;
            if settled || started.elapsed() > Duration::from_secs(5) {
                return now;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// Runs `f` and returns its result and how long it took.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let started = Instant::now();
    let r = f();
    (r, started.elapsed())
}
