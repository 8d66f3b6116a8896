//! No world-observer message while a map load is under way.
//!
//! The stock client's `load_world` / `reload_world` drops its episode
//! object right after the server answers and subscribes a new one to the
//! world-observer stream. If a world message is being handled on the
//! client's stream thread just then, that thread holds the old episode and
//! drops it last: its unsubscription then mutates the client's map of
//! streams while the main thread inserts the new subscription, and the
//! client aborts (`close: Bad file descriptor`) or segfaults. The
//! measurements point at a message sent while the load runs (four servers
//! and clients on two cores, a camera each, 15 reloads in asynchronous
//! mode: 3 of 8 runs crashed; with no message between a load's request and
//! its answer, none of 40; quiet windows around the answer, 20 to 250 ms,
//! did no better and cost up to half a second a load).
//!
//! So from a load's request until its answer the ticks go on but their
//! world messages are not sent (a client sees the frame numbers jump, as
//! at any load).

use std::sync::atomic::{AtomicU32, Ordering};

/// How many map loads are under way.
#[derive(Debug, Default)]
pub(crate) struct Quiet {
    loading: AtomicU32,
}

impl Quiet {
    /// Whether a world message may go out now.
    pub(crate) fn may_send(&self) -> bool {
        self.loading.load(Ordering::Acquire) == 0
    }

    /// A load begins: no world message until it [`Quiet::release`]s.
    pub(crate) fn hold(&self) {
        self.loading.fetch_add(1, Ordering::AcqRel);
    }

    /// The load answers (or failed).
    pub(crate) fn release(&self) {
        let _ = self
            .loading
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_under_way_hold_the_stream_until_the_last_answers() {
        let q = Quiet::default();
        assert!(q.may_send());
        q.hold();
        q.hold();
        assert!(!q.may_send());
        q.release();
        assert!(!q.may_send(), "one load still runs");
        q.release();
        assert!(q.may_send());
        q.release();
        assert!(q.may_send(), "an extra release is harmless");
    }
}
