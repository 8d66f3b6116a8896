//! One subscriber of one stream: a thread that writes the stream's messages
//! to its socket, one at a time, each as a single vectored write.
//!
//! Between the senders and that thread sits a one-message slot
//! (`crate::sync::handoff::Handoff`, model-checked with loom):
//! - asynchronous stream: a new message replaces a pending one, which is
//!   counted as dropped (newest wins; the sender never waits);
//! - synchronous stream: the sender waits, up to the stream's bound, for the
//!   slot to empty, so nothing is dropped; past the bound it gets a clear
//!   error and the message is not queued for that subscriber.

use super::Message;
use crate::net::{deadline_in, Aborter, Conn};
use crate::sync::handoff::{Handoff, Offered, TimedOut};
use crate::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A subscriber.
pub(super) struct Session {
    slot: Handoff<Arc<Message>>,
    aborter: Option<Aborter>,
    pub(super) dropped: AtomicU64,
    pub(super) sent: AtomicU64,
    peer: std::net::SocketAddr,
}

/// What happened to a message offered to a session.
pub(super) enum Offer {
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
            slot: Handoff::new(),
            aborter: Some(conn.aborter()),
            dropped: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            peer: conn.peer(),
        }
    }

    /// Offers a message without waiting. Messages handed back are dropped
    /// here, outside the slot's lock.
    pub(super) fn offer(&self, msg: &Arc<Message>, synchronous: bool) -> Offer {
        match self.slot.offer(msg.clone(), !synchronous) {
            Offered::Queued => Offer::Queued,
            Offered::Replaced(_older) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                Offer::Replaced
            }
            Offered::Full(msg) => Offer::Full(msg),
            Offered::Closed(_) => Offer::Closed,
        }
    }

    /// Sync mode: waits up to `bound` for room, then queues.
    pub(super) fn offer_waiting(&self, msg: Arc<Message>, bound: Duration) -> Result<(), Error> {
        match self.slot.offer_waiting(msg, Instant::now() + bound) {
            Ok(()) => Ok(()),
            Err(TimedOut(_msg)) => {
                crate::log_error!(
                    "stream subscriber {}: still busy after {:?} in synchronous mode; message not queued",
                    self.peer,
                    bound
                );
                Err(Error::TimedOut)
            }
        }
    }

    /// Ends the session after the message being written (no cut messages).
    pub(super) fn close(&self) {
        self.slot.close();
    }

    /// Bytes the peer has acknowledged so far (None: unknown).
    pub(super) fn bytes_acked(&self) -> Option<u64> {
        self.aborter.as_ref()?.bytes_acked()
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
        while let Some(msg) = self.slot.next() {
            let mut slices = msg.slices();
            if let Err(code) = conn.write_all_vectored(&mut slices, deadline_in(write_timeout)) {
                crate::log_info!("stream subscriber {} left: {}", self.peer, code);
                self.close();
                return;
            }
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
        conn.aborter().abort();
    }
}
