//! Model checks with loom of the buffer pool (`src/streaming/pool.rs`) and
//! of a stream subscriber's hand-off (`src/sync/handoff.rs`): the
//! one-message slot of asynchronous and synchronous streams and the bounded
//! FIFO of queued ones; every interleaving of two or three threads.
//!
//! Blocks are tracked by the allocator: the loom test binary's global
//! allocator counts the live allocations of a few marker sizes (only these
//! models' buffers use them), so "freed", "leaked" and "kept" are
//! observable.

use crate::streaming::pool::{Buffer, Pool};
use crate::sync::handoff::{Handoff, Offered};
use loom::sync::Arc;
use loom::thread;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

// ------------------------------------------------- block accounting

/// Block sizes of the models' buffers (odd, so nothing else allocates them).
const A: usize = 4093;
const B: usize = 4091;

struct CountingAlloc;

thread_local! {
    /// Live blocks of a marker size. Loom runs a model's threads as
    /// coroutines on one OS thread, so one counter sees all of them, and
    /// tests running in parallel on other OS threads do not interfere.
    static LIVE_BLOCKS: Cell<isize> = const { Cell::new(0) };
}

fn is_block(layout: Layout) -> bool {
    layout.align() == 1 && [A, B].contains(&layout.size())
}

fn count(delta: isize) {
    // `try_with`: the allocator may run while thread locals are torn down.
    let _ = LIVE_BLOCKS.try_with(|n| n.set(n.get() + delta));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// only addition is a thread-local counter that never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_block(layout) {
            count(1);
        }
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_block(layout) {
            count(1);
        }
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_block(layout) {
            count(-1);
        }
        // SAFETY: `ptr` came from `System` with this layout (we forward all).
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn live_blocks() -> isize {
    LIVE_BLOCKS.with(Cell::get)
}

/// Every interleaving of `f`'s threads; after each, no block is left
/// alive. (Counts are relative: a failed run may have leaked blocks.)
fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(None, f);
}

/// `model`, with at most `preemptions` forced thread switches per run
/// (loom's bound: most bugs need 2 or 3; exhaustive would take minutes).
fn model_bounded(preemptions: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if preemptions.is_some() {
        builder.preemption_bound = preemptions;
    }
    builder.check(move || {
        let before = live_blocks();
        f();
        assert_eq!(live_blocks(), before, "a block leaked (or was freed twice)");
    });
}

/// A buffer of `pool` holding a fresh block of `size` bytes.
fn filled(pool: &Pool, size: usize) -> Buffer {
    let mut b = pool.pop();
    b.reset(size);
    b
}

/// The capacities of the blocks idle in `pool` (which get them back).
fn drain(pool: &Pool) -> Vec<usize> {
    let mut held = Vec::new();
    while pool.stats().idle > 0 {
        held.push(pool.pop());
    }
    let caps = held.iter().map(Buffer::capacity).collect();
    // Back in, so the pool (not this helper) frees them.
    drop(held);
    caps
}

fn sorted(mut v: Vec<usize>) -> Vec<usize> {
    v.sort_unstable();
    v
}

// ------------------------------------------------------------- the pool

#[test]
fn buffers_dropped_on_two_threads_return_while_a_third_pops() {
    model(|| {
        let pool = Pool::new(2);
        let base = live_blocks();
        let (a, b) = (filled(&pool, A), filled(&pool, B));
        let t1 = thread::spawn(move || drop(a));
        let t2 = thread::spawn(move || drop(b));
        // Either block, or none yet: never a fresh allocation.
        let popped = pool.pop();
        t1.join().unwrap();
        t2.join().unwrap();
        let mut blocks = drain(&pool);
        if popped.capacity() != 0 {
            blocks.push(popped.capacity());
        }
        assert_eq!(sorted(blocks), [B, A], "each block exactly once");
        assert_eq!(live_blocks() - base, 2, "nothing freed, nothing copied");
        assert_eq!(pool.stats().allocations, 2);
        drop(popped);
        assert_eq!(pool.stats().idle, 2);
        drop(pool); // frees both idle blocks (checked by `model`)
    });
}

#[test]
fn a_full_pool_frees_the_block_instead_of_growing() {
    model(|| {
        let pool = Pool::new(1);
        let base = live_blocks();
        let (a, b) = (filled(&pool, A), filled(&pool, B));
        let t1 = thread::spawn(move || drop(a));
        let t2 = thread::spawn(move || drop(b));
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(pool.stats().idle, 1, "bounded at max_idle");
        assert_eq!(live_blocks() - base, 1, "the other block was freed");
        assert_eq!(pool.stats().allocations, 2);
    });
}

#[test]
fn buffers_in_flight_when_the_pool_drops_free_their_blocks() {
    model(|| {
        let pool = Pool::new(2);
        let base = live_blocks();
        let (a, b) = (filled(&pool, A), filled(&pool, B));
        let t1 = thread::spawn(move || drop(a));
        let t2 = thread::spawn(move || drop(b));
        // Races with the drops: each one finds the pool gone (frees its
        // block), or returns it to a pool that then dies (which frees it).
        drop(pool);
        t1.join().unwrap();
        t2.join().unwrap();
        assert_eq!(live_blocks(), base, "both blocks freed");
    });
}

#[test]
fn allocations_from_two_threads_are_all_counted() {
    model(|| {
        let pool = Pool::new(2);
        let threads: Vec<_> = [A, B]
            .into_iter()
            .map(|size| {
                let pool = pool.clone();
                thread::spawn(move || filled(&pool, size))
            })
            .collect();
        let held: Vec<Buffer> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(pool.stats().allocations, 2);
        drop(held);
        assert_eq!(sorted(drain(&pool)), [B, A]);
    });
}

#[test]
fn a_reserve_racing_a_returning_buffer_keeps_the_pool_bounded() {
    model(|| {
        let pool = Pool::new(2);
        let base = live_blocks();
        let (a, b) = (filled(&pool, A), filled(&pool, A));
        // The ROS 2 thread tops the pool up while the sender's buffer
        // comes back: every block ends idle, held or freed, at most two
        // idle, and every allocation counted.
        let t = thread::spawn(move || {
            a.reserve_in_pool(2);
            a
        });
        drop(b);
        let a = t.join().unwrap();
        let idle = pool.stats().idle;
        assert!((1..=2).contains(&idle), "{idle} idle");
        assert_eq!(
            live_blocks() - base,
            1 + idle as isize,
            "held + idle, the rest freed"
        );
        let reserved = pool.stats().allocations - 2;
        assert!(reserved <= 2, "{reserved} reserved");
        drop(a);
        assert_eq!(drain(&pool), [A; 2]);
    });
}

// -------------------------------------------- the subscriber's handoff

/// Far enough that no model times out (loom's timed waits never do).
fn far() -> Instant {
    Instant::now() + Duration::from_secs(3600)
}

/// The writer thread: takes values until the handoff closes.
fn writer(h: &Arc<Handoff<u32>>) -> thread::JoinHandle<Vec<u32>> {
    let h = h.clone();
    thread::spawn(move || std::iter::from_fn(|| h.next()).collect())
}

#[test]
fn asynchronous_offers_are_each_delivered_or_counted_dropped() {
    // Three threads, three offers: exhaustive takes ~100 s; 5 preemptions
    // take ~2 s (and 3 already catch the bugs tried, see `docs/reliability.md`).
    model_bounded(Some(5), || {
        let h = Arc::new(Handoff::new());
        let w = writer(&h);
        let offer = |h: &Handoff<u32>, v| match h.offer(v, 1, true) {
            Offered::Queued => None,
            Offered::Replaced(old) => Some(old),
            other => panic!("asynchronous offer of {v}: {other:?}"),
        };
        let other = {
            let h = h.clone();
            thread::spawn(move || offer(&h, 10))
        };
        let mut dropped: Vec<u32> = [1, 2].into_iter().filter_map(|v| offer(&h, v)).collect();
        dropped.extend(other.join().unwrap());
        h.close(); // must wake the writer, which first drains the slot
        let delivered = w.join().unwrap();
        let mut all = [delivered.clone(), dropped].concat();
        all.sort_unstable();
        assert_eq!(all, [1, 2, 10], "each value exactly once");
        // Newest wins: one sender's values arrive in order.
        let mine: Vec<u32> = delivered.iter().copied().filter(|v| *v < 10).collect();
        assert!(mine.windows(2).all(|w| w[0] < w[1]), "{delivered:?}");
    });
}

#[test]
fn a_synchronous_sender_is_woken_by_the_writer_and_drops_nothing() {
    model(|| {
        let h = Arc::new(Handoff::new());
        let w = writer(&h);
        for v in 1..=3 {
            // A lost wake-up here is a deadlock, which loom reports.
            assert_eq!(h.offer_waiting(v, far()), Ok(()));
        }
        h.close();
        assert_eq!(w.join().unwrap(), [1, 2, 3], "in order, none dropped");
    });
}

#[test]
fn close_wakes_a_waiting_synchronous_sender() {
    model(|| {
        let h = Arc::new(Handoff::new());
        assert_eq!(h.offer(1, 1, false), Offered::Queued);
        let sender = {
            let h = h.clone();
            // The slot is full and nobody reads: only `close` ends this.
            thread::spawn(move || h.offer_waiting(2, far()))
        };
        h.close();
        assert_eq!(sender.join().unwrap(), Ok(()), "not the sender's error");
        assert_eq!(h.offer(3, 1, true), Offered::Closed(3));
        // The writer still gets what was pending, then the end.
        assert_eq!((h.next(), h.next()), (Some(1), None));
    });
}

#[test]
fn close_wakes_a_waiting_writer() {
    model(|| {
        let h = Arc::new(Handoff::new());
        let w = writer(&h);
        h.close();
        assert_eq!(w.join().unwrap(), [] as [u32; 0]);
    });
}

// ---------------------------------- the queued stream's bounded FIFO

/// A queued sender: offers `values` without waiting (never replacing),
/// checks the bound after each offer, returns the ones handed back full.
fn queued_sender(h: &Handoff<u32>, values: [u32; 2], depth: usize) -> Vec<u32> {
    let mut full = Vec::new();
    for v in values {
        match h.offer(v, depth, false) {
            Offered::Queued => {}
            Offered::Full(v) => full.push(v),
            other => panic!("queued offer of {v}: {other:?}"),
        }
        assert!(h.len() <= depth, "the FIFO grew past its depth");
    }
    full
}

#[test]
fn a_queued_fifo_keeps_each_senders_order_and_drops_only_past_its_depth() {
    // Two senders of two values each, depth 2, the writer, close.
    model_bounded(Some(4), || {
        let h = Arc::new(Handoff::new());
        let w = writer(&h);
        let other = {
            let h = h.clone();
            thread::spawn(move || queued_sender(&h, [10, 11], 2))
        };
        let mut dropped = queued_sender(&h, [1, 2], 2);
        dropped.extend(other.join().unwrap());
        h.close(); // wakes the writer, which first drains the FIFO
        let delivered = w.join().unwrap();
        let mut all = [delivered.clone(), dropped.clone()].concat();
        all.sort_unstable();
        assert_eq!(all, [1, 2, 10, 11], "each value exactly once");
        // Queued (not newest-wins): each sender's values arrive in order.
        for mine in [1..10, 10..20] {
            let got: Vec<u32> = delivered
                .iter()
                .copied()
                .filter(|v| mine.contains(v))
                .collect();
            assert!(got.windows(2).all(|w| w[0] < w[1]), "{delivered:?}");
        }
        // Four values into a FIFO of two: at most two can have been full.
        assert!(
            dropped.len() <= 2,
            "dropped {dropped:?}, delivered {delivered:?}"
        );
    });
}

#[test]
fn a_queued_fifo_of_depth_2_never_drops_for_a_writer_that_keeps_up() {
    // One sender, two values, depth 2: whatever the writer does meanwhile,
    // both fit (it holds at most two), so none is handed back.
    model(|| {
        let h = Arc::new(Handoff::new());
        let w = writer(&h);
        assert_eq!(queued_sender(&h, [1, 2], 2), [] as [u32; 0]);
        h.close();
        assert_eq!(w.join().unwrap(), [1, 2], "in order, none dropped");
    });
}

#[test]
fn a_synchronous_sender_on_a_full_fifo_is_woken_by_the_writer() {
    model(|| {
        let h = Arc::new(Handoff::new());
        assert_eq!(h.offer(1, 2, false), Offered::Queued);
        assert_eq!(h.offer(2, 2, false), Offered::Queued);
        let w = writer(&h);
        // Full until the writer takes one: a lost wake-up is a deadlock.
        assert_eq!(h.offer_waiting(3, far()), Ok(()));
        h.close();
        assert_eq!(w.join().unwrap(), [1, 2, 3]);
    });
}
