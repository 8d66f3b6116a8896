//! A counting allocator: counts every allocation of the process while
//! counting is on, except on threads that opted out (the benchmark's own
//! clients, which are not the server).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub(crate) struct Counting;
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ON: AtomicBool = AtomicBool::new(false);
static TRACE: AtomicBool = AtomicBool::new(false);
/// When set, only threads that called `mark_this_thread` are counted.
static ONLY_MARKED: AtomicBool = AtomicBool::new(false);
thread_local! {
    static IGNORED: Cell<bool> = const { Cell::new(false) };
    static MARKED: Cell<bool> = const { Cell::new(false) };
}

impl Counting {
    fn count(&self) {
        let excluded = ONLY_MARKED.load(Ordering::Relaxed) && !MARKED.with(Cell::get);
        if ON.load(Ordering::Relaxed) && !IGNORED.with(Cell::get) && !excluded {
            let n = ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            if TRACE.load(Ordering::Relaxed) && n < 5 {
                // Where the first counted allocations come from; the
                // capture itself allocates, so this thread is ignored
                // meanwhile.
                IGNORED.with(|c| c.set(true));
                eprintln!(
                    "counted allocation:\n{}",
                    std::backtrace::Backtrace::force_capture()
                );
                IGNORED.with(|c| c.set(false));
            }
        }
    }
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.count();
        // SAFETY: the caller's layout contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.count();
        // SAFETY: `ptr` came from `System` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// This thread's allocations are not counted (a client of the bench).
pub(crate) fn ignore_this_thread() {
    IGNORED.with(|c| c.set(true));
}

/// Counts only this thread (and other marked ones) until `stop` (the game
/// thread, when library threads allocate per request by design).
pub(crate) fn start_marked() {
    MARKED.with(|c| c.set(true));
    ONLY_MARKED.store(true, Ordering::SeqCst);
    start();
}

/// Starts counting from zero (`BENCH_ALLOC_TRACE=1` prints a backtrace
/// of the first counted allocations).
pub(crate) fn start() {
    TRACE.store(
        std::env::var_os("BENCH_ALLOC_TRACE").is_some(),
        Ordering::Relaxed,
    );
    ALLOCATIONS.store(0, Ordering::SeqCst);
    ON.store(true, Ordering::SeqCst);
}

/// Stops counting and returns the count.
pub(crate) fn stop() -> u64 {
    ON.store(false, Ordering::SeqCst);
    ONLY_MARKED.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}
