//! Reused message shells, so a send allocates nothing in steady state.
//!
//! A message is shared by its subscribers through an `Arc`. Allocating that
//! `Arc` per send would cost one heap allocation per message, so each
//! stream keeps up to `MAX_SHELLS` of them (a queued stream more: what a
//! stalled subscriber's queue holds, so a long stall does not allocate a
//! shell per send either). The ring itself holds one
//! reference to every shell; a shell is free again when `Arc::get_mut`
//! succeeds on it, i.e. every subscriber and sender has dropped its clone.
//! `Arc::get_mut` is the synchronisation: it observes the other references'
//! drops with acquire ordering, so the subscribers' reads of the old message
//! happen before it is overwritten. No `unsafe` is involved.
//!
//! A free shell still holds the payload of its last message; `reclaim`
//! hands those payloads back to the stream's pool (they drop into it)
//! before the host takes its next buffer, so the pool sees every block
//! again as soon as the last subscriber is done with it.

use super::Message;
use crate::sensor::header::HEADER_SIZE;
use crate::streaming::pool::Buffer;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Shells kept per stream: more than the messages one stream has in flight
/// (one per subscriber plus the one being sent) in any usual set-up; past
/// it, a send allocates a shell that is not kept.
const MAX_SHELLS: usize = 16;

/// Shells made with the stream: enough for one subscriber (one message
/// being written, one waiting, one being sent) plus one, so a steady
/// single-subscriber stream never makes one after its creation.
const INITIAL_SHELLS: usize = 4;

pub(super) struct Shells {
    ring: Mutex<Vec<Arc<Message>>>,
    /// Shells kept at most: `MAX_SHELLS`, plus a queue's depth beyond one.
    limit: AtomicUsize,
}

impl Shells {
    pub(super) fn new() -> Shells {
        let mut ring = Vec::with_capacity(MAX_SHELLS);
        ring.extend((0..INITIAL_SHELLS).map(|_| {
            Arc::new(Message {
                prefix: [0; 4],
                header: [0; HEADER_SIZE],
                payload: Buffer::new(),
            })
        }));
        Shells {
            ring: Mutex::new(ring),
            limit: AtomicUsize::new(MAX_SHELLS),
        }
    }

    /// Keeps enough shells for subscribers' queues of `capacity` messages
    /// (1: the one-message slot; never fewer than `MAX_SHELLS`).
    pub(super) fn keep_at_least(&self, capacity: usize) {
        let limit = MAX_SHELLS + capacity.saturating_sub(1);
        self.limit.fetch_max(limit, Ordering::Relaxed);
    }

    /// A shared message for `payload`: a free shell overwritten in place,
    /// or a new one (kept if the ring has room).
    pub(super) fn message(
        &self,
        prefix: [u8; 4],
        header: &[u8; HEADER_SIZE],
        payload: Buffer,
    ) -> Arc<Message> {
        let mut ring = self.ring.lock();
        for shell in ring.iter_mut() {
            if let Some(m) = Arc::get_mut(shell) {
                m.prefix = prefix;
                m.header = *header;
                let old = std::mem::replace(&mut m.payload, payload);
                let msg = shell.clone();
                drop(ring);
                drop(old); // back to the pool, outside the lock
                return msg;
            }
        }
        let msg = Arc::new(Message {
            prefix,
            header: *header,
            payload,
        });
        if ring.len() < self.limit.load(Ordering::Relaxed) {
            ring.push(msg.clone());
        }
        msg
    }

    /// Returns the payloads of free shells to their pool.
    pub(super) fn reclaim(&self) {
        let mut ring = self.ring.lock();
        for shell in ring.iter_mut() {
            if let Some(m) = Arc::get_mut(shell) {
                // `Buffer::default()` owns no block: no allocation.
                drop(std::mem::take(&mut m.payload));
            }
        }
    }

    /// Lets go of every shell (the stream closed); messages still being
    /// written live until their subscribers drop them.
    pub(super) fn clear(&self) {
        let shells = std::mem::take(&mut *self.ring.lock());
        drop(shells);
    }

    /// Shells kept now.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.ring.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streaming::pool::Pool;

    fn filled(pool: &Pool, byte: u8) -> Buffer {
        let mut b = pool.pop();
        b.copy_from(0, &[byte; 64]);
        b
    }

    #[test]
    fn a_shell_is_reused_only_after_every_holder_let_go() {
        let pool = Pool::new(8);
        let shells = Shells::new();
        let a = shells.message([1; 4], &[1; HEADER_SIZE], filled(&pool, 1));
        let held = a.clone(); // a subscriber still writing it
        drop(a);
        let b = shells.message([2; 4], &[2; HEADER_SIZE], filled(&pool, 2));
        assert!(!Arc::ptr_eq(&held, &b), "a held shell was overwritten");
        assert_eq!(held.header, [1; HEADER_SIZE]);
        assert_eq!(&held.payload[..], &[1; 64][..]);
        assert_eq!(shells.len(), INITIAL_SHELLS);
        let b_ptr = Arc::as_ptr(&b);
        drop(b);
        let c = shells.message([3; 4], &[3; HEADER_SIZE], filled(&pool, 3));
        assert_eq!(Arc::as_ptr(&c), b_ptr, "the free shell was not reused");
        assert_eq!((c.prefix, c.header), ([3; 4], [3; HEADER_SIZE]));
        assert_eq!(&c.payload[..], &[3; 64][..]);
        assert_eq!(shells.len(), INITIAL_SHELLS);
    }

    #[test]
    fn reclaim_returns_payloads_of_free_shells_to_the_pool() {
        let pool = Pool::new(8);
        let shells = Shells::new();
        for i in 0..100u8 {
            shells.reclaim();
            drop(shells.message([0; 4], &[0; HEADER_SIZE], filled(&pool, i)));
        }
        assert_eq!(pool.stats().allocations, 1, "blocks were not recycled");
        assert_eq!(shells.len(), INITIAL_SHELLS);
    }

    #[test]
    fn past_the_ring_size_shells_are_not_kept() {
        let pool = Pool::new(32);
        let shells = Shells::new();
        let held: Vec<_> = (0..MAX_SHELLS + 4)
            .map(|i| shells.message([0; 4], &[0; HEADER_SIZE], filled(&pool, i as u8)))
            .collect();
        assert_eq!(shells.len(), MAX_SHELLS);
        drop(held);
        shells.clear();
        assert_eq!(shells.len(), 0);
    }

    #[test]
    fn a_queued_stream_keeps_shells_for_its_queue() {
        let pool = Pool::new(8);
        let shells = Shells::new();
        shells.keep_at_least(1);
        shells.keep_at_least(64);
        shells.keep_at_least(8); // never lowered
        let held: Vec<_> = (0..MAX_SHELLS + 70)
            .map(|i| shells.message([0; 4], &[0; HEADER_SIZE], filled(&pool, i as u8)))
            .collect();
        assert_eq!(shells.len(), MAX_SHELLS + 63);
        drop(held);
    }
}
