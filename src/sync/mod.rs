//! Synchronisation primitives, swapped for loom's model-checked versions
//! with the internal `loom` feature (see the models in `loom_models/`):
//! - atomics and `UnsafeCell` for the lock-free slot (`slot.rs`);
//! - `AtomicU64` and `BoundedQueue` for the buffer pool (`streaming/pool.rs`);
//! - `Mutex` and `Condvar` for the subscriber hand-off, a bounded FIFO
//!   (`handoff.rs`).
//!
//! Each shim has the same API in both builds, so the code under test is
//! the code that ships.

#[cfg(feature = "loom")]
pub(crate) use loom::cell::UnsafeCell;
#[cfg(feature = "loom")]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

#[cfg(not(feature = "loom"))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

use std::time::Instant;

/// `std::cell::UnsafeCell` with loom's `with`/`with_mut` access API.
#[cfg(not(feature = "loom"))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(feature = "loom"))]
impl<T> UnsafeCell<T> {
    pub(crate) fn new(value: T) -> Self {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

// ------------------------------------------------------- bounded queue

/// A bounded multi-producer multi-consumer queue: crossbeam's lock-free
/// `ArrayQueue` in real builds.
#[cfg(not(feature = "loom"))]
pub(crate) struct BoundedQueue<T>(crossbeam_queue::ArrayQueue<T>);

#[cfg(not(feature = "loom"))]
impl<T> BoundedQueue<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        BoundedQueue(crossbeam_queue::ArrayQueue::new(capacity))
    }

    /// Appends `value`, or hands it back if the queue is full.
    pub(crate) fn push(&self, value: T) -> Result<(), T> {
        self.0.push(value)
    }

    pub(crate) fn pop(&self) -> Option<T> {
        self.0.pop()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }
}

/// Under loom: the same bounded semantics over a loom `Mutex<VecDeque>`
/// (loom cannot see inside crossbeam's queue, so the model checks the
/// pool's use of a bounded queue, not crossbeam itself). The full check
/// and the push are one critical section, as `ArrayQueue::push` is atomic.
#[cfg(feature = "loom")]
pub(crate) struct BoundedQueue<T> {
    items: loom::sync::Mutex<std::collections::VecDeque<T>>,
    capacity: usize,
}

#[cfg(feature = "loom")]
impl<T> BoundedQueue<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        assert!(capacity > 0, "a bounded queue needs room for one item");
        BoundedQueue {
            items: loom::sync::Mutex::new(std::collections::VecDeque::new()),
            capacity,
        }
    }

    pub(crate) fn push(&self, value: T) -> Result<(), T> {
        let mut items = self.items.lock().unwrap();
        if items.len() >= self.capacity {
            return Err(value);
        }
        items.push_back(value);
        Ok(())
    }

    pub(crate) fn pop(&self) -> Option<T> {
        self.items.lock().unwrap().pop_front()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }
}

// ------------------------------------------------------ mutex, condvar

#[cfg(not(feature = "loom"))]
pub(crate) use parking_lot::MutexGuard;

/// A mutex (parking_lot's in real builds; it cannot be poisoned).
#[cfg(not(feature = "loom"))]
pub(crate) struct Mutex<T>(parking_lot::Mutex<T>);

#[cfg(not(feature = "loom"))]
impl<T> Mutex<T> {
    pub(crate) fn new(value: T) -> Self {
        Mutex(parking_lot::Mutex::new(value))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock()
    }
}

/// A condition variable for [`Mutex`], with by-value guards (std's style).
#[cfg(not(feature = "loom"))]
pub(crate) struct Condvar(parking_lot::Condvar);

#[cfg(not(feature = "loom"))]
impl Condvar {
    pub(crate) fn new() -> Self {
        Condvar(parking_lot::Condvar::new())
    }

    pub(crate) fn wait<'a, T>(&self, mut guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(&mut guard);
        guard
    }

    /// Waits for a notification or `deadline`; `true` if the deadline passed.
    pub(crate) fn wait_until<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        deadline: Instant,
    ) -> (MutexGuard<'a, T>, bool) {
        let timed_out = self.0.wait_until(&mut guard, deadline).timed_out();
        (guard, timed_out)
    }

    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
}

#[cfg(feature = "loom")]
pub(crate) use loom::sync::MutexGuard;

/// Under loom: loom's mutex (a panic while holding it aborts the model, so
/// poisoning never needs handling).
#[cfg(feature = "loom")]
pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

#[cfg(feature = "loom")]
impl<T> Mutex<T> {
    pub(crate) fn new(value: T) -> Self {
        Mutex(loom::sync::Mutex::new(value))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap()
    }
}

/// Under loom: loom's condvar. Its timed wait never times out, so a model
/// proves that every wait ends by a notification (no lost wake-up).
#[cfg(feature = "loom")]
pub(crate) struct Condvar(loom::sync::Condvar);

#[cfg(feature = "loom")]
impl Condvar {
    pub(crate) fn new() -> Self {
        Condvar(loom::sync::Condvar::new())
    }

    pub(crate) fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(guard).unwrap()
    }

    pub(crate) fn wait_until<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        deadline: Instant,
    ) -> (MutexGuard<'a, T>, bool) {
        let left = deadline.saturating_duration_since(Instant::now());
        let (guard, result) = self.0.wait_timeout(guard, left).unwrap();
        (guard, result.timed_out())
    }

    pub(crate) fn notify_all(&self) {
        self.0.notify_all();
    }
}

pub(crate) mod handoff;
pub(crate) mod shared_bytes;
pub(crate) mod slot;

#[cfg(all(test, feature = "loom"))]
mod loom_models;
