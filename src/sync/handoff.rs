//! `Handoff<T>`: a bounded FIFO of values between any number of senders
//! and one writer thread (a stream subscriber's session,
//! `stream/session.rs`). Its capacity is 1 for asynchronous and
//! synchronous streams (a one-value slot) and the queue depth for queued
//! streams; each offer names it, so a stream's mode change reaches the
//! FIFO with its next message, under the FIFO's lock.
//!
//! - `offer(v, capacity, replace = true)` (asynchronous stream): `v` is
//!   queued; if the FIFO was full, its oldest value is handed back as
//!   `Replaced` (the caller counts it dropped). The sender never waits.
//! - `offer(v, capacity, replace = false)`: a full FIFO hands `v` back as
//!   `Full` (queued stream: the caller drops it and counts it; synchronous
//!   stream: the caller then waits with `offer_waiting`). Never waits.
//! - `offer_waiting(v, deadline)` (synchronous stream): waits until the
//!   FIFO has room under the last offer's capacity (the writer took a
//!   value), a deadline passes or the handoff closes.
//! - `next` (the writer): waits for a value and takes the oldest; after
//!   `close`, returns what is still pending, in order, then `None`.
//!
//! A lowered capacity keeps the values already pending (the writer drains
//! them); a raised one allocates room for itself once, so offers at a
//! steady capacity never allocate.
//!
//! Invariant (model-checked with loom in `src/sync/loom_models/`): every
//! offered value is, exactly once, taken by the writer, handed back to its
//! sender (`Replaced`, `Full`, `Closed`, time-out), or still pending; the
//! writer takes values in the order they were queued, never one twice;
//! an offer adds a value only while fewer than its `capacity` are pending
//! (a replacing offer swaps the oldest out), so the FIFO never holds more
//! than the largest capacity offered; and no wait is lost: a waiting writer is woken by every offer
//! and by `close`, a waiting synchronous sender by every `next` and by
//! `close`. Values handed back are dropped by the caller outside the lock.

use crate::sync::{Condvar, Mutex};
use std::collections::VecDeque;
use std::time::Instant;

struct State<T> {
    /// Oldest first.
    pending: VecDeque<T>,
    capacity: usize,
    closing: bool,
}

/// The FIFO. See the module documentation.
pub(crate) struct Handoff<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
}

/// What happened to an offered value.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Offered<T> {
    /// Queued; the FIFO had room.
    Queued,
    /// Queued in place of this older value (dropped from the stream).
    Replaced(T),
    /// Not replacing: the FIFO is full; the value is handed back.
    Full(T),
    /// The handoff is closed; the value is handed back.
    Closed(T),
}

/// A synchronous sender waited until its deadline; its value comes back.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TimedOut<T>(pub T);

impl<T> Default for Handoff<T> {
    fn default() -> Self {
        Handoff::new()
    }
}

impl<T> Handoff<T> {
    /// An empty, open one-value slot (capacity 1 until an offer says
    /// otherwise).
    pub(crate) fn new() -> Handoff<T> {
        Handoff {
            state: Mutex::new(State {
                pending: VecDeque::with_capacity(1),
                capacity: 1,
                closing: false,
            }),
            cv: Condvar::new(),
        }
    }

    /// Offers `value` without waiting to a FIFO of at most `capacity`
    /// values (at least 1); `replace` lets it displace the oldest pending
    /// value of a full FIFO (asynchronous streams).
    pub(crate) fn offer(&self, value: T, capacity: usize, replace: bool) -> Offered<T> {
        let mut s = self.state.lock();
        if s.closing {
            return Offered::Closed(value);
        }
        let capacity = capacity.max(1);
        if s.capacity != capacity {
            s.capacity = capacity;
            let room = capacity.saturating_sub(s.pending.len());
            s.pending.reserve(room);
        }
        let outcome = if s.pending.len() < s.capacity {
            Offered::Queued
        } else if replace {
            match s.pending.pop_front() {
                Some(oldest) => Offered::Replaced(oldest),
                None => Offered::Queued, // unreachable: capacity >= 1
            }
        } else {
            return Offered::Full(value);
        };
        s.pending.push_back(value);
        drop(s);
        self.cv.notify_all();
        outcome
    }

    /// Waits until the FIFO has room (or `deadline`), then queues `value`.
    /// A closed handoff takes the value and drops it: a subscriber that
    /// left is not its sender's error.
    pub(crate) fn offer_waiting(&self, value: T, deadline: Instant) -> Result<(), TimedOut<T>> {
        let mut s = self.state.lock();
        loop {
            if s.closing {
                drop(s);
                drop(value);
                return Ok(());
            }
            if s.pending.len() < s.capacity {
                s.pending.push_back(value);
                drop(s);
                self.cv.notify_all();
                return Ok(());
            }
            let (guard, timed_out) = self.cv.wait_until(s, deadline);
            s = guard;
            if timed_out && s.pending.len() >= s.capacity && !s.closing {
                return Err(TimedOut(value));
            }
        }
    }

    /// The writer: the oldest pending value, waiting for one; `None` once
    /// closed and empty. Taking a value wakes synchronous senders.
    pub(crate) fn next(&self) -> Option<T> {
        let mut s = self.state.lock();
        let value = loop {
            if let Some(v) = s.pending.pop_front() {
                break Some(v);
            }
            if s.closing {
                break None;
            }
            s = self.cv.wait(s);
        };
        drop(s);
        self.cv.notify_all(); // room for a waiting synchronous sender
        value
    }

    /// Values pending now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.state.lock().pending.len()
    }

    /// Closes: offers are refused from now on, waiting senders return,
    /// the writer gets what is pending and then `None`.
    pub(crate) fn close(&self) {
        self.state.lock().closing = true;
        self.cv.notify_all();
    }
}

#[cfg(all(test, not(feature = "loom")))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn asynchronous_offers_replace_and_hand_back_the_older_value() {
        let h = Handoff::new();
        assert_eq!(h.offer(1, 1, true), Offered::Queued);
        assert_eq!(h.offer(2, 1, true), Offered::Replaced(1));
        assert_eq!(h.offer(3, 1, false), Offered::Full(3));
        assert_eq!(h.next(), Some(2));
        h.close();
        assert_eq!(h.offer(4, 1, true), Offered::Closed(4));
        assert_eq!(h.next(), None);
    }

    #[test]
    fn a_pending_value_is_still_delivered_after_close() {
        let h = Handoff::new();
        assert_eq!(h.offer(7, 1, true), Offered::Queued);
        h.close();
        assert_eq!((h.next(), h.next()), (Some(7), None));
    }

    #[test]
    fn a_synchronous_sender_times_out_on_a_full_slot_and_gets_its_value_back() {
        let h = Handoff::new();
        assert_eq!(h.offer(1, 1, false), Offered::Queued);
        let deadline = Instant::now() + Duration::from_millis(20);
        assert_eq!(h.offer_waiting(2, deadline), Err(TimedOut(2)));
        assert_eq!(h.next(), Some(1), "the pending value is untouched");
    }

    #[test]
    fn a_synchronous_sender_waits_for_the_writer() {
        let h = Arc::new(Handoff::new());
        assert_eq!(h.offer(1, 1, false), Offered::Queued);
        let writer = {
            let h = h.clone();
            thread::spawn(move || (h.next(), h.next()))
        };
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(h.offer_waiting(2, far), Ok(()));
        assert_eq!(writer.join().unwrap(), (Some(1), Some(2)));
    }

    #[test]
    fn a_fifo_keeps_order_hands_back_when_full_and_replaces_the_oldest() {
        let h = Handoff::new();
        for v in 1..=3 {
            assert_eq!(h.offer(v, 3, false), Offered::Queued);
        }
        assert_eq!(h.offer(4, 3, false), Offered::Full(4), "full: handed back");
        assert_eq!(h.len(), 3);
        assert_eq!(h.next(), Some(1));
        assert_eq!(h.offer(5, 3, false), Offered::Queued, "room again");
        assert_eq!(h.offer(6, 3, true), Offered::Replaced(2), "the oldest goes");
        h.close();
        let rest: Vec<i32> = std::iter::from_fn(|| h.next()).collect();
        assert_eq!(rest, [3, 5, 6], "in order, after close too");
    }

    #[test]
    fn a_lowered_capacity_keeps_what_is_pending_and_bounds_new_offers() {
        let h = Handoff::new();
        for v in 1..=4 {
            assert_eq!(h.offer(v, 4, false), Offered::Queued);
        }
        assert_eq!(h.offer(5, 1, false), Offered::Full(5));
        assert_eq!(
            h.offer(6, 1, true),
            Offered::Replaced(1),
            "never grows past 4"
        );
        assert_eq!(h.len(), 4);
        let deadline = Instant::now() + Duration::from_millis(10);
        assert_eq!(h.offer_waiting(7, deadline), Err(TimedOut(7)));
        for want in [2, 3, 4] {
            assert_eq!(h.next(), Some(want));
        }
        // One pending (6) = the new capacity: still full until it is taken.
        assert_eq!(h.offer(8, 1, false), Offered::Full(8));
        assert_eq!(h.next(), Some(6));
        assert_eq!(h.offer(8, 1, false), Offered::Queued);
        assert_eq!(h.offer(9, 2, false), Offered::Queued, "raised again");
        assert_eq!((h.next(), h.next()), (Some(8), Some(9)));
    }
}
