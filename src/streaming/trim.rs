//! Giving freed memory back to the system after a burst of large frees.
//!
//! glibc's `malloc` raises its mmap threshold each time a large mmapped
//! block is freed (up to 32 MiB). After 300 stalled subscribers of a
//! camera were cut once, the 1.9 MB image blocks of the next such burst
//! came from the heap instead, and freeing them kept them there: the
//! server stayed at 170 MiB resident after a second round where the first
//! left it at 30 MiB (measured; with `MALLOC_MMAP_THRESHOLD_` fixed the
//! second round left 30 MiB too). The memory was the allocator's, not
//! ours: every block had been freed. So when a subscriber is cut (the
//! moment a burst of large frees happens), [`trim_soon`] asks for a
//! `malloc_trim`, which returns the free pages of every arena, 200 ms after
//! the last such request, on a short-lived thread (`carla-trim`) so no game
//! or network thread pays for it. Other systems' allocators give large
//! blocks back on free; there it does nothing.

/// Asks for the allocator to return free memory soon (debounced).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn trim_soon() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    const QUIET: Duration = Duration::from_millis(200);
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    static DUE_MS: AtomicU64 = AtomicU64::new(0);
    static RUNNING: AtomicBool = AtomicBool::new(false);
    let epoch = *EPOCH.get_or_init(Instant::now);
    let now_ms = move || epoch.elapsed().as_millis() as u64;
    DUE_MS.store(now_ms() + QUIET.as_millis() as u64, Ordering::SeqCst);
    if RUNNING.swap(true, Ordering::SeqCst) {
        return; // the running thread sees the new due time
    }
    let spawned = std::thread::Builder::new()
        .name("carla-trim".into())
        .spawn(move || loop {
            let due = DUE_MS.load(Ordering::SeqCst);
            let now = now_ms();
            if now < due {
                std::thread::sleep(Duration::from_millis(due - now));
                continue;
            }
            // SAFETY: malloc_trim only walks the allocator's own state.
            unsafe { libc::malloc_trim(0) };
            RUNNING.store(false, Ordering::SeqCst);
            // A request after `due` was read relies on this thread unless
            // it started another: go on if so.
            if DUE_MS.load(Ordering::SeqCst) == due || RUNNING.swap(true, Ordering::SeqCst) {
                return;
            }
        });
    if spawned.is_err() {
        RUNNING.store(false, Ordering::SeqCst);
    }
}

/// Other allocators give large blocks back when they are freed.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn trim_soon() {}
