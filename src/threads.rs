//! The library's own threads (accept, world, stream, control, subscriber).
//!
//! They are started with the `SCHED_BATCH` policy on Linux. A batch
//! thread's wake-up never preempts the thread that woke it: when the game
//! thread publishes a frame and wakes a sender, the sender runs on an idle
//! core, or when the game thread's time slice ends, instead of taking the
//! game thread's core in the middle of its tick. On a machine with fewer
//! free cores than busy threads this is what keeps the game thread's calls
//! short (see `docs/performance.md`). `SCHED_BATCH` needs
//! no privilege; if it is refused, the thread keeps the normal policy.
//!
//! The price: when every core is busy, a woken sender waits for the end of
//! the running thread's slice (a few ms) instead of running at once, so
//! small asynchronous frames reach the client later.
//! `set_yield_to_game_thread(false)` keeps the normal policy for threads
//! started afterwards.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

static YIELD: AtomicBool = AtomicBool::new(true);

/// Whether library threads started from now on use `SCHED_BATCH` (the
/// default) or the normal policy. Process-wide.
pub fn set_yield_to_game_thread(on: bool) {
    YIELD.store(on, Ordering::Relaxed);
}

/// Spawns a named library thread that yields to the game thread on wake-up.
pub(crate) fn spawn<F, T>(name: impl Into<String>, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let batch = YIELD.load(Ordering::Relaxed);
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            if batch {
                yield_on_wake_up();
            }
            body()
        })
}

#[cfg(target_os = "linux")]
fn yield_on_wake_up() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param
    // (priority 0 is the only one SCHED_BATCH accepts).
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    log_refused(rc, "SCHED_BATCH", "a library thread");
}

/// Logs, at debug level, that the system refused `what` for `thread` when
/// `rc` (a libc return code, just returned) is not 0.
#[cfg(target_os = "linux")]
fn log_refused(rc: libc::c_int, what: impl std::fmt::Display, thread: &str) {
    if rc != 0 {
        let e = io::Error::last_os_error();
        crate::log_debug!("{} refused for {}: {}", what, thread, e);
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_on_wake_up() {}

/// Nice value of the bulk threads ([`spawn_bulk`]; Linux only).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(crate) const BULK_NICE: i32 = 10;

/// Spawns a library thread for bulk work the game thread must not wait
/// behind (DDS's copies and sends of large images): the batch policy of
/// [`spawn`] and, on Linux, a nice value of [`BULK_NICE`], so when every
/// core is busy the game thread (and the TCP senders) get the CPU first.
/// Threads it starts inherit both.
pub(crate) fn spawn_bulk<F, T>(name: impl Into<String>, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn(name, move || {
        lower_priority();
        body()
    })
}

#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: the gettid system call has no preconditions (called as a
    // system call: glibc before 2.30, which the wheel targets, has no
    // wrapper); setpriority on PRIO_PROCESS with a thread id changes only
    // that thread's nice value (Linux semantics).
    let rc = unsafe {
        let tid = libc::syscall(libc::SYS_gettid);
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BULK_NICE)
    };
    log_refused(rc, format_args!("nice {BULK_NICE}"), "a bulk thread");
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn library_threads_run_with_the_batch_policy() {
        // SAFETY: sched_getscheduler(0) only reads the calling thread's policy.
        let policy = super::spawn("t", || unsafe { libc::sched_getscheduler(0) })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(policy, libc::SCHED_BATCH);
        // SAFETY: as above; the test thread itself is untouched.
        assert_eq!(unsafe { libc::sched_getscheduler(0) }, libc::SCHED_OTHER);
    }

    #[test]
    fn bulk_threads_and_their_children_run_niced() {
        // SAFETY: getpriority only reads the calling thread's nice value.
        let nice = || unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        let (own, child) = super::spawn_bulk("t", move || {
            let child = std::thread::spawn(nice).join().unwrap();
            (nice(), child)
        })
        .unwrap()
        .join()
        .unwrap();
        assert_eq!((own, child), (super::BULK_NICE, super::BULK_NICE));
        assert_eq!(nice(), 0);
    }
}
