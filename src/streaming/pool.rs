//! Pooled byte buffers for the 0.9 streams.
//!
//! `Buffer` follows LibCarla's size/capacity rules: `reset(n)` makes the
//! size `n`; if the capacity is smaller it drops the old block (no copy) and
//! allocates exactly `n`, otherwise it keeps the block. So `reset(1024)`
//! allocates, `reset(512)` keeps the 1024-byte block, `reset(2048)`
//! allocates a new one. Bytes past what a caller writes are stale but always
//! initialised (fresh blocks are zeroed), so no `unsafe` is needed.
//!
//! `Pool` is one bounded lock-free queue per stream. A buffer taken from it
//! goes back when it drops (on whichever thread sent it last), keeping its
//! block; if the pool is full or gone, the block is freed. Steady state:
//! no allocation per message.
//!
//! Invariant (model-checked with loom in `src/sync/loom_models/`, from two
//! and three threads): every block allocated by a pool's buffers is, at
//! every moment, in exactly one place: owned by one `Buffer`, idle in the
//! pool's queue, or freed. In particular, whatever the interleaving of
//! buffer drops (on any threads), pops and the pool's own drop:
//! - a dropped buffer's block goes back to the pool if the pool is alive
//!   and below `max_idle` blocks, and is freed otherwise (never lost, never
//!   handed out twice, never more than `max_idle` idle);
//! - a buffer that outlives its pool frees its block (the `Weak` upgrade
//!   fails, or succeeds and the block dies with the last `Arc`);
//! - a block a reserve makes ([`Buffer::reserve_in_pool`], on any
//!   thread) goes to the queue, or is freed if the queue is full;
//! - `allocations` counts every block allocation exactly once.

use crate::sync::{AtomicU64, BoundedQueue, Ordering};
use std::sync::{Arc, Weak};

/// A growable byte buffer that returns to its pool when dropped.
///
/// `block.len()` is how much of the block has ever been initialised (so a
/// `reset` to a size already reached costs nothing); `size` is the buffer's
/// logical length.
#[derive(Default)]
pub(crate) struct Buffer {
    block: Vec<u8>,
    size: usize,
    pool: Weak<PoolInner>,
}

impl Buffer {
    /// A buffer of no pool (its block is simply freed on drop).
    pub(crate) fn new() -> Buffer {
        Buffer::default()
    }

    fn count_allocation(&self) {
        if let Some(pool) = self.pool.upgrade() {
            pool.allocations.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Sets the size to `n`, reallocating exactly `n` if the block is smaller.
    pub(crate) fn reset(&mut self, n: usize) {
        if self.block.capacity() < n {
            // Zeroed by the allocator (fresh pages from the system for a
            // large block), not byte by byte: a send that needs a new
            // multi-megabyte block, as a queued stream's under a stall, does
            // not pay a pass over it first (tens of ms in a debug build).
            self.block = vec![0; n];
            self.count_allocation();
        }
        if self.block.len() < n {
            self.block.resize(n, 0);
        }
        self.size = n;
    }

    /// Resets to `offset + src.len()` and copies `src` after `offset` bytes
    /// (left for a header written later).
    pub(crate) fn copy_from(&mut self, offset: usize, src: &[u8]) {
        self.reset(offset + src.len());
        self.block[offset..offset + src.len()].copy_from_slice(src);
    }

    /// Lets `write` append to the buffer's bytes as a `Vec` (a serializer);
    /// the block is reused, and grows only if needed.
    pub(crate) fn append_with<R>(&mut self, write: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        self.block.truncate(self.size);
        let capacity = self.block.capacity();
        let result = write(&mut self.block);
        if self.block.capacity() != capacity {
            self.count_allocation();
        }
        self.size = self.block.len();
        result
    }

    /// Tops its pool up to `idle` idle blocks of this buffer's block size,
    /// their pages written (faulted in) here, so the sends that will need
    /// them do not pay for fresh pages. For a thread other than the
    /// sender's, ahead of a peak it knows of (the ROS 2 thread, at a
    /// sensor's first message); bounded by the pool's `max_idle`.
    pub(crate) fn reserve_in_pool(&self, idle: usize) {
        let Some(pool) = self.pool.upgrade() else {
            return;
        };
        let size = self.block.capacity();
        let idle = idle.min(pool.queue.capacity());
        while size > 0 && pool.queue.len() < idle {
            pool.allocations.fetch_add(1, Ordering::Relaxed);
            if pool.queue.push(vec![1u8; size]).is_err() {
                break; // filled meanwhile by returning buffers: freed
            }
        }
    }

    /// Current size.
    pub(crate) fn len(&self) -> usize {
        self.size
    }

    /// Whether the size is 0.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Size of the block.
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.block.capacity()
    }

    /// The bytes (size long).
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.block[..self.size]
    }

    /// The bytes, writable.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.block[..self.size]
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.as_mut_slice()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.block.capacity() == 0 {
            return;
        }
        if let Some(pool) = self.pool.upgrade() {
            // A full pool frees the block instead of growing.
            let _ = pool.queue.push(std::mem::take(&mut self.block));
        }
    }
}

struct PoolInner {
    queue: BoundedQueue<Vec<u8>>,
    allocations: AtomicU64,
}

/// A bounded pool of blocks for one stream. Cheap to clone (shared).
#[derive(Clone)]
pub(crate) struct Pool(Arc<PoolInner>);

/// Counters of a pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PoolStats {
    /// Blocks allocated by buffers of this pool so far.
    pub allocations: u64,
    /// Blocks waiting in the pool now.
    pub idle: usize,
}

impl Pool {
    /// A pool keeping at most `max_idle` blocks (at least 1).
    pub(crate) fn new(max_idle: usize) -> Pool {
        Pool(Arc::new(PoolInner {
            queue: BoundedQueue::new(max_idle.max(1)),
            allocations: AtomicU64::new(0),
        }))
    }

    /// A buffer with a pooled block if one is idle (size 0, stale contents),
    /// else an empty one that allocates on its first `reset`.
    pub(crate) fn pop(&self) -> Buffer {
        Buffer {
            block: self.0.queue.pop().unwrap_or_default(),
            size: 0,
            pool: Arc::downgrade(&self.0),
        }
    }

    /// Counters so far.
    pub(crate) fn stats(&self) -> PoolStats {
        PoolStats {
            allocations: self.0.allocations.load(Ordering::Relaxed),
            idle: self.0.queue.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_follows_the_tutorials_size_and_capacity_rules() {
        let pool = Pool::new(4);
        let mut b = pool.pop();
        b.reset(1024);
        assert_eq!(
            (b.len(), b.capacity(), pool.stats().allocations),
            (1024, 1024, 1)
        );
        b.reset(512);
        assert_eq!(
            (b.len(), b.capacity(), pool.stats().allocations),
            (512, 1024, 1)
        );
        b.reset(2048);
        assert_eq!(
            (b.len(), b.capacity(), pool.stats().allocations),
            (2048, 2048, 2)
        );
    }

    #[test]
    fn dropped_buffers_return_to_the_pool_and_are_reused() {
        let pool = Pool::new(2);
        for round in 0..100u8 {
            let mut b = pool.pop();
            b.copy_from(12, &[round; 1000]);
            assert_eq!(b.len(), 1012);
            assert_eq!(b[12], round);
        }
        assert_eq!(pool.stats().allocations, 1, "one block served 100 messages");
        assert_eq!(pool.stats().idle, 1);
        // Stale contents survive, as in LibCarla: callers always reset.
        let mut b = pool.pop();
        assert!(b.is_empty());
        b.reset(1012);
        assert_eq!(b[12], 99);
    }

    #[test]
    fn serializers_append_into_pooled_blocks_without_reallocating() {
        let pool = Pool::new(2);
        for round in 0..10u8 {
            let mut b = pool.pop();
            b.reset(4); // room for a sub-header written first
            b.append_with(|v| v.extend_from_slice(&[round; 100]));
            assert_eq!((b.len(), b[4]), (104, round));
        }
        assert_eq!(pool.stats().allocations, 2, "first reset, then one growth");
    }

    #[test]
    fn a_reserve_tops_the_pool_up_to_what_is_asked_and_no_further() {
        let pool = Pool::new(3);
        let mut b = pool.pop();
        b.reset(5000);
        b.reserve_in_pool(2);
        assert_eq!(
            pool.stats(),
            PoolStats {
                allocations: 3,
                idle: 2
            }
        );
        b.reserve_in_pool(2); // already there
        b.reserve_in_pool(9); // past max_idle: stops at 3
        assert_eq!(
            pool.stats(),
            PoolStats {
                allocations: 4,
                idle: 3
            }
        );
        // The reserved blocks serve sends of that size without allocating.
        let taken: Vec<Buffer> = (0..3)
            .map(|_| {
                let mut t = pool.pop();
                t.reset(5000);
                t
            })
            .collect();
        assert_eq!(pool.stats().allocations, 4);
        assert!(taken.iter().all(|t| t.capacity() == 5000));
        // A buffer of no pool, or an empty one, reserves nothing.
        Buffer::new().reserve_in_pool(2);
        pool.pop().reserve_in_pool(3);
        assert_eq!(pool.stats().allocations, 4);
    }

    #[test]
    fn the_pool_is_bounded_and_outlived_safely() {
        let pool = Pool::new(2);
        let held: Vec<Buffer> = (0..5)
            .map(|_| {
                let mut b = pool.pop();
                b.reset(64);
                b
            })
            .collect();
        drop(held);
        assert_eq!(pool.stats().idle, 2, "only two blocks kept");
        let mut orphan = pool.pop();
        orphan.reset(8);
        drop(pool);
        drop(orphan); // pool gone: the block is just freed
    }
}
