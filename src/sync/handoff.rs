//! `Handoff<T>`: a one-value slot between any number of senders and one
//! writer thread (a stream subscriber's session, `stream/session.rs`).
//!
//! - `offer(v, replace = true)` (asynchronous stream): `v` takes the slot;
//!   a value still pending there is handed back as `Replaced` (the caller
//!   counts it dropped). The sender never waits.
//! - `offer(v, replace = false)` / `offer_waiting` (synchronous stream): a
//!   full slot hands `v` back, or the sender waits until the writer takes
//!   the pending value (or until a deadline, or until the handoff closes).
//! - `next` (the writer): waits for a value; after `close`, returns what is
//!   still pending, then `None`.
//!
//! Invariant (model-checked with loom in `src/sync/loom_models/`): every
//! offered value is, exactly once, taken by the writer, handed back to its
//! sender (`Replaced`, `Full`, `Closed`, time-out), or still pending; a
//! value taken from the slot is never taken twice; and no wait is lost:
//! a waiting writer is woken by every offer and by `close`, a waiting
//! synchronous sender by every `next` and by `close`. Values handed back
//! are dropped by the caller outside the lock.

use crate::sync::{Condvar, Mutex};
use std::time::Instant;

struct State<T> {
    pending: Option<T>,
    closing: bool,
}

/// The slot. See the module documentation.
pub(crate) struct Handoff<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
}

/// What happened to an offered value.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Offered<T> {
    /// In the slot, which was empty.
    Queued,
    /// In the slot in place of this older value (dropped from the stream).
    Replaced(T),
    /// Not replacing: the slot is full; the value is handed back.
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
    /// An empty, open handoff.
    pub(crate) fn new() -> Handoff<T> {
        Handoff {
            state: Mutex::new(State {
                pending: None,
                closing: false,
            }),
            cv: Condvar::new(),
        }
    }

    /// Offers `value` without waiting; `replace` lets it displace a
    /// pending value (asynchronous streams).
    pub(crate) fn offer(&self, value: T, replace: bool) -> Offered<T> {
        let mut s = self.state.lock();
        if s.closing {
            return Offered::Closed(value);
        }
        let outcome = match s.pending.take() {
            None => Offered::Queued,
            Some(old) if replace => Offered::Replaced(old),
            Some(old) => {
                s.pending = Some(old);
                return Offered::Full(value);
            }
        };
        s.pending = Some(value);
        drop(s);
        self.cv.notify_all();
        outcome
    }

    /// Waits until the slot is empty (or `deadline`), then queues `value`.
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
            if s.pending.is_none() {
                s.pending = Some(value);
                drop(s);
                self.cv.notify_all();
                return Ok(());
            }
            let (guard, timed_out) = self.cv.wait_until(s, deadline);
            s = guard;
            if timed_out && s.pending.is_some() && !s.closing {
                return Err(TimedOut(value));
            }
        }
    }

    /// The writer: the pending value, waiting for one; `None` once closed
    /// and empty. Taking a value wakes synchronous senders.
    pub(crate) fn next(&self) -> Option<T> {
        let mut s = self.state.lock();
        let value = loop {
            if let Some(v) = s.pending.take() {
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

    /// Closes: offers are refused from now on, waiting senders return,
    /// the writer gets what is pending and then `None`.
    pub(crate) fn close(&self) {
        self.state.lock().closing = true;
        self.cv.notify_all();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn asynchronous_offers_replace_and_hand_back_the_older_value() {
        let h = Handoff::new();
        assert_eq!(h.offer(1, true), Offered::Queued);
        assert_eq!(h.offer(2, true), Offered::Replaced(1));
        assert_eq!(h.offer(3, false), Offered::Full(3));
        assert_eq!(h.next(), Some(2));
        h.close();
        assert_eq!(h.offer(4, true), Offered::Closed(4));
        assert_eq!(h.next(), None);
    }

    #[test]
    fn a_pending_value_is_still_delivered_after_close() {
        let h = Handoff::new();
        assert_eq!(h.offer(7, true), Offered::Queued);
        h.close();
        assert_eq!((h.next(), h.next()), (Some(7), None));
    }

    #[test]
    fn a_synchronous_sender_times_out_on_a_full_slot_and_gets_its_value_back() {
        let h = Handoff::new();
        assert_eq!(h.offer(1, false), Offered::Queued);
        let deadline = Instant::now() + Duration::from_millis(20);
        assert_eq!(h.offer_waiting(2, deadline), Err(TimedOut(2)));
        assert_eq!(h.next(), Some(1), "the pending value is untouched");
    }

    #[test]
    fn a_synchronous_sender_waits_for_the_writer() {
        let h = Arc::new(Handoff::new());
        assert_eq!(h.offer(1, false), Offered::Queued);
        let writer = {
            let h = h.clone();
            thread::spawn(move || (h.next(), h.next()))
        };
        let far = Instant::now() + Duration::from_secs(30);
        assert_eq!(h.offer_waiting(2, far), Ok(()));
        assert_eq!(writer.join().unwrap(), (Some(1), Some(2)));
    }
}
