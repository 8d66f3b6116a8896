//! One subscriber of one stream: a thread that writes the stream's messages
//! to its socket, one at a time, each as a single vectored write.
//!
//! Between the senders and that thread sits a one-message slot:
//! - asynchronous stream: a new message replaces a pending one, which is
//!   counted as dropped (newest wins; the sender never waits);
//! - synchronous stream: the sender waits, up to the stream's bound, for the
//!   slot to empty, so nothing is dropped; past the bound it gets a clear
//!   error and the message is not queued for that subscriber.

use super::Message;
use crate::codes::{self, Code};
use crate::net::{deadline_in, Aborter, Conn};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Slot {
    pending: Option<Arc<Message>>,
    closing: bool,
}

/// A subscriber.
pub struct Session {
    slot: Mutex<Slot>,
    cv: Condvar,
    aborter: Option<Aborter>,
    pub(super) dropped: AtomicU64,
    pub(super) sent: AtomicU64,
    peer: std::net::SocketAddr,
}

/// What happened to a message offered to a session.
pub enum Offer {
    Queued,
    /// Queued in place of an older message, which was dropped.
    Replaced,
    /// Sync mode: the slot is full; the message is handed back.
    Full(Arc<Message>),
    /// The session is gone.
    Closed,
}

impl Session {
    pub(super) fn new(conn: &Conn) -> Session {
        Session {
            slot: Mutex::new(Slot::default()),
            cv: Condvar::new(),
            aborter: conn.aborter().ok(),
            dropped: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            peer: conn.peer(),
        }
    }

    /// Offers a message without waiting.
    pub(super) fn offer(&self, msg: &Arc<Message>, synchronous: bool) -> Offer {
        let mut s = self.slot.lock();
        if s.closing {
            return Offer::Closed;
        }
        let outcome = match (&s.pending, synchronous) {
            (None, _) => Offer::Queued,
            (Some(_), false) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                Offer::Replaced
            }
            (Some(_), true) => return Offer::Full(msg.clone()),
        };
        s.pending = Some(msg.clone());
        self.cv.notify_all();
        outcome
    }

    /// Sync mode: waits up to `bound` for room, then queues.
    pub(super) fn offer_waiting(&self, msg: Arc<Message>, bound: Duration) -> Result<(), Code> {
        let deadline = Instant::now() + bound;
        let mut s = self.slot.lock();
        loop {
            if s.closing {
                return Ok(()); // a closed subscriber is not the sender's error
            }
            if s.pending.is_none() {
                s.pending = Some(msg);
                self.cv.notify_all();
                return Ok(());
            }
            if self.cv.wait_until(&mut s, deadline).timed_out() {
                crate::log_error!(
                    "stream subscriber {}: still busy after {:?} in synchronous mode; message not queued",
                    self.peer,
                    bound
                );
                return Err(codes::TIMED_OUT);
            }
        }
    }

    /// Ends the session after the message being written (no cut messages).
    pub(super) fn close(&self) {
        self.slot.lock().closing = true;
        self.cv.notify_all();
    }

    /// Ends the session at once (teardown).
    pub(super) fn abort(&self) {
        self.close();
        if let Some(a) = &self.aborter {
            a.abort();
        }
    }

    /// The writer loop; returns when the session ends.
    pub(super) fn run(&self, conn: &Conn, write_timeout: Duration) {
        loop {
            let msg = {
                let mut s = self.slot.lock();
                loop {
                    if let Some(m) = s.pending.take() {
                        break Some(m);
                    }
                    if s.closing {
                        break None;
                    }
                    self.cv.wait(&mut s);
                }
            };
            self.cv.notify_all(); // room for a waiting synchronous sender
            let Some(msg) = msg else {
                let _ = conn.aborter().map(|a| a.abort());
                return;
            };
            let mut slices = msg.slices();
            if let Err(code) = conn.write_all_vectored(&mut slices, deadline_in(write_timeout)) {
                crate::log_info!(
                    "stream subscriber {} left: {}",
                    self.peer,
                    codes::describe(code)
                );
                self.close();
                return;
            }
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
    }
}
