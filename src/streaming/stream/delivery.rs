//! How a stream hands its messages to each subscriber: the three delivery
//! modes, and their encoding in one atomic (one load per send sees a
//! consistent mode).

/// Largest queue depth of a queued stream (`Stream::set_queued`).
pub(crate) const MAX_QUEUE_DEPTH: u32 = 64;

/// How a stream hands its messages to each subscriber.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// A one-message slot: newest wins, replaced messages counted dropped.
    Asynchronous,
    /// A one-message slot: a send waits up to `wait_ms` for a slow
    /// subscriber, never drops.
    Synchronous { wait_ms: u32 },
    /// A FIFO of `depth` (1..=`MAX_QUEUE_DEPTH`): every message in order; a
    /// send never waits; a full FIFO drops the new message for that
    /// subscriber only.
    Queued { depth: u32 },
}

impl Delivery {
    /// Capacity of each subscriber's FIFO.
    pub(crate) fn capacity(self) -> usize {
        match self {
            Delivery::Queued { depth } => depth as usize,
            _ => 1,
        }
    }

    /// Low 32 bits: the synchronous wait; high 32 bits: the queue depth.
    pub(super) fn encode(self) -> u64 {
        match self {
            Delivery::Asynchronous => 0,
            Delivery::Synchronous { wait_ms } => u64::from(wait_ms.max(1)),
            Delivery::Queued { depth } => u64::from(depth.max(1)) << 32,
        }
    }

    pub(super) fn decode(bits: u64) -> Delivery {
        match ((bits >> 32) as u32, bits as u32) {
            (0, 0) => Delivery::Asynchronous,
            (0, wait_ms) => Delivery::Synchronous { wait_ms },
            (depth, _) => Delivery::Queued { depth },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_survives_its_encoding() {
        for d in [
            Delivery::Asynchronous,
            Delivery::Synchronous { wait_ms: 1 },
            Delivery::Synchronous { wait_ms: u32::MAX },
            Delivery::Queued { depth: 1 },
            Delivery::Queued {
                depth: MAX_QUEUE_DEPTH,
            },
        ] {
            assert_eq!(Delivery::decode(d.encode()), d);
        }
        assert_eq!(Delivery::Queued { depth: 7 }.capacity(), 7);
        assert_eq!(Delivery::Synchronous { wait_ms: 9 }.capacity(), 1);
        assert_eq!(Delivery::Asynchronous.capacity(), 1);
    }
}
