//! The descriptor budget: how many sockets the library's ports may hold,
//! so a flood on one port cannot take the descriptors the world port needs.
//!
//! A process may open at most `RLIMIT_NOFILE` descriptors (1024 by default
//! on many Linux systems). Past it `accept` fails, and so does everything
//! else that opens one (a poller, a file), so a flood of idle connections
//! to the streaming port used to make the next world client fail to set
//! up. Every connection the library accepts takes a [`Ticket`] first, for
//! what it will cost ([`CONN_FDS`]), in one of two classes:
//!
//! - [`Class::World`]: the world and agent ports and the RPC port, which
//!   may use every descriptor of the budget;
//! - [`Class::Streams`]: the streaming port, which leaves [`reserve`]
//!   descriptors to the world class.
//!
//! A port whose class is out of tickets stops accepting: new connections
//! wait in the kernel's backlog (they complete their TCP handshake there)
//! and are taken as soon as tickets come back, when connections close or
//! their handshake deadline passes, or when a new connection takes over
//! the ticket of one that has sent nothing ([`super::reactor`]). The budget is the soft limit, less the
//! descriptors open when the library first needed it (the host's own) and
//! [`HOST_MARGIN`] for what the host opens later.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Descriptors one accepted connection holds on Linux: the socket, its
/// duplicate (to shut it down from another thread), its poller and the
/// poller's wake-up.
pub(crate) const CONN_FDS: usize = 4;

/// Descriptors left to the host beyond those open at start.
pub(crate) const HOST_MARGIN: usize = 64;

/// Which ports a ticket is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// World, agent and RPC ports: may use the whole budget.
    World,
    /// The streaming port: leaves the reserve to the world class.
    Streams,
}

/// Descriptors held by the library's connections now.
static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// The whole budget, measured once.
fn budget() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let limit = soft_limit();
        let open = open_now();
        let budget = limit.saturating_sub(open + HOST_MARGIN);
        crate::log_info!(
            "descriptors: limit {}, {} open at start, {} for connections ({} reserved for the world and RPC ports)",
            limit,
            open,
            budget,
            reserve_of(budget)
        );
        budget
    })
}

/// What the streaming port leaves to the world class: room for 64 world
/// or RPC clients, or half the budget if that is smaller.
fn reserve_of(budget: usize) -> usize {
    (64 * CONN_FDS).min(budget / 2)
}

/// Descriptors reserved for the world class.
pub(crate) fn reserve() -> usize {
    reserve_of(budget())
}

/// Connections one port may hold waiting for their first bytes: half of
/// its class's share, so a flood on one port (an older release's RPC port,
/// say) leaves the other ports of the class room to take their clients.
pub(crate) fn pending_share(class: Class) -> usize {
    let cap = match class {
        Class::World => budget(),
        Class::Streams => budget() - reserve(),
    };
    (cap / 2 / CONN_FDS).max(1)
}

/// Descriptors the library's connections hold now.
#[cfg(test)]
fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// Descriptors held for one connection; given back when dropped.
#[derive(Debug)]
pub(crate) struct Ticket {
    fds: usize,
}

impl Ticket {
    /// Takes `fds` descriptors for a connection of `class`, or `None` if
    /// that would pass the class's share.
    pub(crate) fn take(class: Class, fds: usize) -> Option<Ticket> {
        let cap = match class {
            Class::World => budget(),
            Class::Streams => budget() - reserve(),
        };
        IN_USE
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n + fds <= cap).then_some(n + fds)
            })
            .ok()
            .map(|_| Ticket { fds })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        IN_USE.fetch_sub(self.fds, Ordering::AcqRel);
    }
}

/// The soft descriptor limit (Unix); elsewhere a nominal 16,384 (Windows
/// sockets are handles with no such small limit).
fn soft_limit() -> usize {
    #[cfg(unix)]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes one rlimit struct we own.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } == 0 {
            return usize::try_from(lim.rlim_cur)
                .unwrap_or(usize::MAX)
                .min(1 << 20);
        }
        1024
    }
    #[cfg(not(unix))]
    {
        16_384
    }
}

/// Descriptors open now (Linux: `/proc/self/fd`; elsewhere a guess of 32).
fn open_now() -> usize {
    #[cfg(target_os = "linux")]
    if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
        return dir.count();
    }
    32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streaming_class_leaves_the_reserve_to_the_world_class() {
        let streams_cap = budget() - reserve();
        let mut held = Vec::new();
        while let Some(t) = Ticket::take(Class::Streams, CONN_FDS) {
            held.push(t);
            assert!(held.len() < 1 << 20, "no cap");
        }
        // Other tests may hold tickets meanwhile: the cap is what counts.
        assert!(in_use() + CONN_FDS > streams_cap);
        let world = Ticket::take(Class::World, CONN_FDS);
        assert!(world.is_some(), "the world class has its reserve");
        drop(held);
        drop(world);
        assert!(Ticket::take(Class::Streams, CONN_FDS).is_some());
    }

    #[test]
    fn the_reserve_is_at_most_half() {
        assert_eq!(reserve_of(100), 50);
        assert_eq!(reserve_of(10_000), 64 * CONN_FDS);
    }
}
