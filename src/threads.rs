//! The library's own threads (accept, world, stream, control, subscriber).
//!
//! They are started with the `SCHED_BATCH` policy on Linux. A batch
//! thread's wake-up never preempts the thread that woke it: when the game
//! thread publishes a frame and wakes a sender, the sender runs on an idle
//! core, or when the game thread's time slice ends, instead of taking the
//! game thread's core in the middle of its tick. On a machine with fewer
//! free cores than busy threads this is what keeps the game thread's calls
//! short (see the Performance section of the README). `SCHED_BATCH` needs
//! no privilege; if it is refused, the thread keeps the normal policy.

use std::io;
use std::thread::JoinHandle;

/// Spawns a named library thread that yields to the game thread on wake-up.
pub fn spawn<F, T>(name: impl Into<String>, body: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            yield_on_wake_up();
            body()
        })
}

#[cfg(target_os = "linux")]
fn yield_on_wake_up() {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param
    // (priority 0 is the only one SCHED_BATCH accepts).
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    if rc != 0 {
        crate::log_debug!(
            "SCHED_BATCH refused for a library thread: {}",
            io::Error::last_os_error()
        );
    }
}

#[cfg(not(target_os = "linux"))]
fn yield_on_wake_up() {}

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
}
