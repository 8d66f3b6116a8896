//! `Latest<T>`: a single-producer / single-consumer "newest value" slot
//! (triple buffer) used between the game thread and the network threads.
//!
//! Invariant (model-checked in `src/sync/loom_models/slot.rs`, stress-tested by
//! this module's release-mode test): the three cells are at every instant owned by
//! exactly one party each: the writer's cell (index held by the `Writer`),
//! the reader's cell (index held by the `Reader`) and the back cell (index in
//! `back`, owned by nobody). Ownership only changes through one atomic `swap`
//! on `back`, which exchanges the caller's cell with the back cell. The
//! `DIRTY` bit in `back` is set exactly when the back cell holds a value that
//! was published and not yet taken. Consequences:
//! - the writer never waits and never allocates (publishing is one swap);
//! - the newest published value wins (an untaken older one is overwritten);
//! - each published value is taken at most once (taking clears `DIRTY` in the
//!   same swap), and a value published after the last take is always seen by
//!   the next `update` (no stuck values, unlike the 0.8.4 double buffer);
//! - a `Reader` keeps its cell for as long as it likes (a socket write from
//!   it) without ever blocking the writer.
//!
//! Each side is guarded by a `busy` flag so that two threads that both try
//! to write (or read) get `Busy` instead of a data race.

use crate::sync::{AtomicBool, AtomicU8, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;

const INDEX: u8 = 0b011;
const DIRTY: u8 = 0b100;

/// Another thread holds this side of the slot right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Busy;

struct Side {
    busy: AtomicBool,
    /// Cell owned by this side; only touched while `busy` is held.
    index: AtomicU8,
}

impl Side {
    fn new(index: u8) -> Self {
        Side {
            busy: AtomicBool::new(false),
            index: AtomicU8::new(index),
        }
    }

    fn acquire(&self) -> Result<u8, Busy> {
        self.busy
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .map_err(|_| Busy)?;
        Ok(self.index.load(Ordering::Relaxed))
    }

    fn release(&self, index: u8) {
        self.index.store(index, Ordering::Relaxed);
        self.busy.store(false, Ordering::Release);
    }
}

/// The slot. See the module documentation for its invariant.
pub(crate) struct Latest<T> {
    cells: [CachePadded<UnsafeCell<T>>; 3],
    back: CachePadded<AtomicU8>,
    writer: CachePadded<Side>,
    reader: CachePadded<Side>,
}

// SAFETY: a cell is only accessed by the party that owns it (module
// invariant), and ownership moves with acquire/release swaps on `back`, so a
// `T: Send` value is handed between threads, never shared.
unsafe impl<T: Send> Sync for Latest<T> {}
// SAFETY: as above; moving the slot moves the values it owns.
unsafe impl<T: Send> Send for Latest<T> {}

impl<T: Default> Default for Latest<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Default> Latest<T> {
    /// A slot with three default cells and nothing published.
    pub(crate) fn new() -> Self {
        Latest {
            cells: [(); 3].map(|_| CachePadded::new(UnsafeCell::new(T::default()))),
            back: CachePadded::new(AtomicU8::new(2)),
            writer: CachePadded::new(Side::new(0)),
            reader: CachePadded::new(Side::new(1)),
        }
    }
}

impl<T> Latest<T> {
    /// Takes the writer side; `Busy` if another thread holds it.
    pub(crate) fn writer(&self) -> Result<Writer<'_, T>, Busy> {
        let index = self.writer.acquire()?;
        Ok(Writer { slot: self, index })
    }

    /// Takes the reader side; `Busy` if another thread holds it.
    pub(crate) fn reader(&self) -> Result<Reader<'_, T>, Busy> {
        let index = self.reader.acquire()?;
        Ok(Reader { slot: self, index })
    }

    /// Whether a value was published and not yet taken.
    pub(crate) fn has_new(&self) -> bool {
        self.back.load(Ordering::Acquire) & DIRTY != 0
    }
}

/// The producer's handle: fill the writer cell in place, then `publish`.
pub(crate) struct Writer<'a, T> {
    slot: &'a Latest<T>,
    index: u8,
}

impl<T> Writer<'_, T> {
    /// Runs `f` on the writer cell (which holds an older value to reuse).
    pub(crate) fn with_mut<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: the writer cell is owned by this `Writer` alone (invariant).
        self.slot.cells[self.index as usize].with_mut(|p| f(unsafe { &mut *p }))
    }

    /// Makes the writer cell the newest value and takes the old back cell.
    pub(crate) fn publish(&mut self) {
        let old = self.slot.back.swap(self.index | DIRTY, Ordering::AcqRel);
        self.index = old & INDEX;
    }
}

impl<T> Drop for Writer<'_, T> {
    fn drop(&mut self) {
        self.slot.writer.release(self.index);
    }
}

/// The consumer's handle: `update` to take the newest value, then read it.
pub(crate) struct Reader<'a, T> {
    slot: &'a Latest<T>,
    index: u8,
}

impl<T> Reader<'_, T> {
    /// Takes the newest unread value into the reader cell; false if there is
    /// none (the reader cell then still holds the previously taken value).
    pub(crate) fn update(&mut self) -> bool {
        if self.slot.back.load(Ordering::Relaxed) & DIRTY == 0 {
            return false;
        }
        let old = self.slot.back.swap(self.index, Ordering::AcqRel);
        self.index = old & INDEX;
        true
    }

    /// Runs `f` on the reader cell.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        // SAFETY: the reader cell is owned by this `Reader` alone (invariant).
        self.slot.cells[self.index as usize].with(|p| f(unsafe { &*p }))
    }

    /// Runs `f` on the reader cell, mutably (to let go of what the taken
    /// value holds once it has been used).
    pub(crate) fn with_mut<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: the reader cell is owned by this `Reader` alone (invariant),
        // and `&mut self` excludes any borrow from `get`.
        self.slot.cells[self.index as usize].with_mut(|p| f(unsafe { &mut *p }))
    }

    /// The reader cell, borrowed until the next `update`. (Under loom only
    /// the access itself is tracked, not the borrow; the model uses `with`.)
    pub(crate) fn get(&self) -> &T {
        // SAFETY: owned by this `Reader` (invariant); `update` takes `&mut
        // self`, so the cell cannot change while this borrow lives.
        self.slot.cells[self.index as usize].with(|p| unsafe { &*p })
    }
}

impl<T> Drop for Reader<'_, T> {
    fn drop(&mut self) {
        self.slot.reader.release(self.index);
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    fn publish(slot: &Latest<u32>, v: u32) {
        let mut w = slot.writer().unwrap();
        w.with_mut(|c| *c = v);
        w.publish();
    }

    #[test]
    fn newest_value_wins_and_is_taken_once() {
        let slot = Latest::<u32>::new();
        let mut r = slot.reader().unwrap();
        assert!(!r.update());
        publish(&slot, 1);
        publish(&slot, 2);
        assert!(r.update());
        assert_eq!(*r.get(), 2);
        assert!(!r.update(), "a value is delivered once");
        publish(&slot, 3);
        assert!(slot.has_new());
        assert!(r.update());
        assert_eq!(*r.get(), 3);
    }

    #[test]
    fn a_second_writer_or_reader_gets_busy() {
        let slot = Latest::<u32>::new();
        let w = slot.writer().unwrap();
        assert_eq!(slot.writer().err(), Some(Busy));
        drop(w);
        assert!(slot.writer().is_ok());
        let r = slot.reader().unwrap();
        assert_eq!(slot.reader().err(), Some(Busy));
        drop(r);
        assert!(slot.reader().is_ok());
    }

    #[test]
    fn value_published_while_reader_holds_its_cell_is_not_stuck() {
        // The 0.8.4 double buffer lost this value until the next write.
        let slot = Latest::<u32>::new();
        publish(&slot, 1);
        let mut r = slot.reader().unwrap();
        assert!(r.update());
        publish(&slot, 2); // reader still holds cell with 1
        assert_eq!(*r.get(), 1);
        drop(r);
        let mut r = slot.reader().unwrap();
        assert!(r.update());
        assert_eq!(*r.get(), 2);
    }

    #[test]
    fn writer_cells_are_reused_without_allocation() {
        let slot = Latest::<Vec<u8>>::new();
        let mut r = slot.reader().unwrap();
        for round in 0..10u8 {
            let mut w = slot.writer().unwrap();
            w.with_mut(|v| {
                v.clear();
                v.extend_from_slice(&[round; 64]);
            });
            w.publish();
            drop(w);
            assert!(r.update());
            assert_eq!(r.get()[0], round);
        }
        // After warm-up every cell has capacity: the writer finds one ready.
        let mut w = slot.writer().unwrap();
        assert!(w.with_mut(|v| v.capacity()) >= 64);
    }

    // Stress test across real threads: 200,000 rounds in `cargo test`
    // (CI), 5 million with `cargo test --release --lib sync::slot` (by
    // hand). It complements the loom model with real interleavings.
    const WORDS: usize = 16;

    #[test]
    fn concurrent_writer_and_reader_never_see_torn_stale_or_duplicate_values() {
        let rounds: u64 = if cfg!(debug_assertions) {
            200_000
        } else {
            5_000_000
        };
        let slot = Arc::new(Latest::<[u64; WORDS]>::new());
        let done = Arc::new(AtomicBool::new(false));
        // The writer waits for the reader's first value before the rest,
        // so the reader sees one before the last even where the writer's
        // thread would otherwise run all its rounds before the reader's is
        // scheduled (a busy machine).
        let first_taken = Arc::new(AtomicBool::new(false));
        let writer = {
            let (slot, done, first_taken) = (slot.clone(), done.clone(), first_taken.clone());
            thread::spawn(move || {
                let mut w = slot.writer().unwrap();
                for v in 1..=rounds {
                    w.with_mut(|c| c.fill(v));
                    w.publish();
                    while v == 1 && !first_taken.load(Ordering::Acquire) {
                        thread::yield_now();
                    }
                }
                done.store(true, Ordering::Release);
            })
        };
        let mut r = slot.reader().unwrap();
        let (mut last, mut taken) = (0u64, 0u64);
        loop {
            let finished = done.load(Ordering::Acquire);
            if r.update() {
                let cell = *r.get();
                assert!(cell.iter().all(|&x| x == cell[0]), "torn read: {cell:?}");
                assert!(cell[0] > last, "value {} after {last}", cell[0]);
                last = cell[0];
                taken += 1;
                first_taken.store(true, Ordering::Release);
            } else if finished {
                break;
            }
        }
        writer.join().unwrap();
        assert_eq!(last, rounds, "the newest value must be delivered");
        assert!(taken > 1);
    }
}
