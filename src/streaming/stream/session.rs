//! One subscriber of one stream: a thread that writes the stream's messages
//! to its socket, one at a time, each as a single vectored write.
//!
//! Between the senders and that thread sits a bounded FIFO
//! (`crate::sync::handoff::Handoff`, model-checked with loom), whose
//! capacity follows the stream's delivery mode:
//! - asynchronous stream (capacity 1): a new message replaces a pending
//!   one, which is counted as dropped (newest wins; the sender never waits);
//! - synchronous stream (capacity 1): the sender waits, up to the stream's
//!   bound, for the slot to empty, so nothing is dropped; past the bound it
//!   gets a clear error and the message is not queued for that subscriber;
//! - queued stream (capacity = its depth): every message is queued in
//!   order; when `depth` are already unsent, the new one is dropped for
//!   this subscriber only (counted; one log line when such a stall starts
//!   and one when it ends). The sender never waits.

use super::{Delivery, Message};
use crate::net::{deadline_in, Aborter, Conn};
use crate::release::Release;
use crate::sensor::header::HEADER_SIZE;
use crate::sync::handoff::{Handoff, Offered, TimedOut};
use crate::Error;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `Session::stalled_at` when the subscriber is not stalled.
const NOT_STALLED: u64 = u64::MAX;

/// A subscriber.
pub(super) struct Session {
    slot: Handoff<Arc<Message>>,
    aborter: Option<Aborter>,
    pub(super) dropped: AtomicU64,
    pub(super) sent: AtomicU64,
    /// Queued streams: `dropped` when the current stall began, or
    /// `NOT_STALLED`.
    stalled_at: AtomicU64,
    peer: std::net::SocketAddr,
    /// The client release it subscribed as (its stream id's tag).
    release: Release,
}

/// What happened to a message offered to a session.
pub(super) enum Offer {
    Queued,
    /// Queued in place of an older message, which was dropped.
    Replaced,
    /// Queued stream: the FIFO is full; the message was dropped for this
    /// subscriber.
    Dropped,
    /// Sync mode: the slot is full; the message is handed back.
    Full(Arc<Message>),
    /// The session is gone.
    Closed,
}

impl Session {
    pub(super) fn new(conn: &Conn, release: Release) -> Session {
        Session {
            slot: Handoff::new(),
            aborter: Some(conn.aborter()),
            dropped: AtomicU64::new(0),
            sent: AtomicU64::new(0),
            stalled_at: AtomicU64::new(NOT_STALLED),
            peer: conn.peer(),
            release,
        }
    }

    /// `" (as a CARLA 0.9.X client)"` for another release than the
    /// library's, for the log.
    pub(super) fn release_note(&self) -> String {
        match self.release {
            Release::NATIVE => String::new(),
            r => format!(" (as a CARLA {r} client)"),
        }
    }

    /// Offers a message without waiting, as the stream's `delivery` says.
    /// Messages handed back are dropped here, outside the FIFO's lock.
    pub(super) fn offer(&self, msg: &Arc<Message>, delivery: Delivery) -> Offer {
        let capacity = delivery.capacity();
        let queued = matches!(delivery, Delivery::Queued { .. });
        let replace = delivery == Delivery::Asynchronous;
        match self.slot.offer(msg.clone(), capacity, replace) {
            Offered::Queued => {
                if queued {
                    self.stall_ended();
                }
                Offer::Queued
            }
            Offered::Replaced(_older) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
                Offer::Replaced
            }
            Offered::Full(msg) if queued => {
                drop(msg);
                let before = self.dropped.fetch_add(1, Ordering::Relaxed);
                self.stall_began(before, capacity);
                Offer::Dropped
            }
            Offered::Full(msg) => Offer::Full(msg),
            Offered::Closed(_) => Offer::Closed,
        }
    }

    /// Queued stream, FIFO full: logs once per stall, at its start.
    fn stall_began(&self, dropped_before: u64, depth: usize) {
        let started = self
            .stalled_at
            .compare_exchange(
                NOT_STALLED,
                dropped_before,
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok();
        if started {
            crate::log_warn!(
                "stream subscriber {}: {} messages queued and unsent; new messages are dropped for it until it reads again",
                self.peer,
                depth
            );
        }
    }

    /// Queued stream, a message fitted: ends a stall (one log line).
    fn stall_ended(&self) {
        if self.stalled_at.load(Ordering::Relaxed) == NOT_STALLED {
            return;
        }
        let began = self.stalled_at.swap(NOT_STALLED, Ordering::Relaxed);
        if began != NOT_STALLED {
            crate::log_info!(
                "stream subscriber {} reads again; {} messages were dropped for it",
                self.peer,
                self.dropped.load(Ordering::Relaxed).saturating_sub(began)
            );
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

    /// Rewrites the header's sensor type `native` (its first 8 bytes) into this
    /// subscriber's release's id; false (one log line) if that release has
    /// no decoder for it, which ends the session.
    fn rewrite_type(&self, header: &mut [u8; HEADER_SIZE], native: u64) -> bool {
        match self.release.sensor_type(native) {
            Some(id) => {
                header[..8].copy_from_slice(&id.to_le_bytes());
                true
            }
            None => {
                crate::log_warn!(
                    "stream subscriber {}: its stream carries sensor type {} ({}), which CARLA {} clients cannot decode; subscription closed",
                    self.peer,
                    native,
                    usize::try_from(native)
                        .ok()
                        .and_then(|i| crate::sensor::SensorType::ALL.get(i))
                        .map_or("unknown", |s| s.name()),
                    self.release
                );
                false
            }
        }
    }

    /// The writer loop; returns when the session ends: false if it ended
    /// because a write failed (the subscriber left or stalled past the
    /// time-out), true if the stream closed it.
    pub(super) fn run(&self, conn: &Conn, write_timeout: Duration) -> bool {
        let mut rewritten: [u8; HEADER_SIZE];
        // A relabelled payload (old releases' semantic labels), reused.
        let mut relabelled = Vec::new();
        while let Some(msg) = self.slot.next() {
            let mut slices = if self.release == Release::NATIVE {
                msg.slices(&msg.header, &msg.payload)
            } else {
                rewritten = msg.header;
                let native = u64::from_le_bytes(rewritten[..8].try_into().expect("8 bytes"));
                if !self.rewrite_type(&mut rewritten, native) {
                    self.close();
                    return false;
                }
                let payload = if self.release.relabels(native) {
                    self.release.relabel(native, &msg.payload, &mut relabelled);
                    &relabelled[..]
                } else {
                    &msg.payload[..]
                };
                msg.slices(&rewritten, payload)
            };
            if let Err(code) = conn.write_all_vectored(&mut slices, deadline_in(write_timeout)) {
                crate::log_info!("stream subscriber {} left: {}", self.peer, code);
                self.close();
                return false;
            }
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
        conn.aborter().abort();
        true
    }
}
