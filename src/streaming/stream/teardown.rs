//! Dropping the streaming port: every stream closes, subscribers that keep
//! reading get the messages already sent for a bounded time, stalled ones
//! are cut at once, and every subscriber thread is joined.

use super::StreamServer;
use std::time::{Duration, Instant};

/// How long dropping the server lets subscribers that keep reading finish
/// the messages already sent before their connections are cut.
pub(crate) const FLUSH_BOUND: Duration = Duration::from_secs(1);

/// A subscriber whose peer acknowledges nothing for this long while the
/// server is dropped has stopped reading: it is cut at once.
const FLUSH_STALL: Duration = Duration::from_millis(25);

impl Drop for StreamServer {
    /// Closes every stream; subscribers get the messages already sent for
    /// at most `FLUSH_BOUND` while their peers keep acknowledging data (one
    /// that acknowledges nothing for `FLUSH_STALL` is cut at once), then
    /// the connections are cut and every subscriber thread is joined.
    fn drop(&mut self) {
        let streams: Vec<_> = self.shared.streams.lock().drain().map(|(_, s)| s).collect();
        for s in streams {
            s.close(false);
        }
        let subscribers = std::mem::take(&mut *self.shared.subscribers.lock());
        let started = Instant::now();
        let mut progress: Vec<(Option<u64>, Instant)> = subscribers
            .iter()
            .map(|(_, s)| (s.upgrade().and_then(|s| s.bytes_acked()), started))
            .collect();
        loop {
            let now = Instant::now();
            let mut flushing = false;
            for ((handle, session), (acked, since)) in subscribers.iter().zip(&mut progress) {
                let Some(session) = session.upgrade().filter(|_| !handle.is_finished()) else {
                    continue;
                };
                // Unknown (no TCP_INFO) counts as progress: the plain bound.
                let a = session.bytes_acked();
                if a.is_none() || a != *acked {
                    (*acked, *since) = (a, now);
                }
                if now - *since >= FLUSH_STALL {
                    session.abort();
                } else {
                    flushing = true;
                }
            }
            if !flushing || now - started >= FLUSH_BOUND {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        for (handle, session) in subscribers {
            if let Some(session) = session.upgrade() {
                session.abort();
            }
            let _ = handle.join();
        }
    }
}
