//! Pacing synchronous ticks around a client's Traffic Manager, so CARLA's
//! client does not deadlock on its own race (CARLA issue 9172).
//!
//! In synchronous mode the Traffic Manager's worker thread, in the
//! client's process, ends each cycle with `apply_batch` (no tick), wakes
//! the thread in `world.tick()`, asks for the episode settings, and then
//! waits for the next tick's wake-up. The ticking thread sends `tick_cue`,
//! waits for the frame, and sets the wake-up flag *without the worker's
//! lock*: if that lands between the worker's check of the flag and its
//! sleep, the wake-up is lost and both threads wait for ever. Against a
//! server that makes a frame in milliseconds the worker is long asleep by
//! then; a fast one (this) makes the frame while the worker is still
//! asking for the settings, and the race hits every few thousand ticks.
//!
//! So a `tick_cue` from a client that registered a Traffic Manager is held
//! until `GAP` after that client's last `get_episode_settings` (the
//! worker's last call before it sleeps): when the tick came after the
//! client's `apply_batch` without a tick but before that call, until the
//! call comes and `GAP` more, or `HOLD_AT_MOST` (a Traffic Manager that
//! was shut down asks nothing more). Only a batch between a tick and the
//! next settings call is the worker's: the walkers' navigation
//! (`ApplyWalkerState` before every `tick_cue`) and a script's own batches
//! come while the worker sleeps, and holding their ticks would cost each
//! tick `HOLD_AT_MOST` (8.7 ticks/s with 16 AI walkers, before this). Measured with the 0.9.16 client, 5
//! autopilot cars, 2,000-tick runs (benches/wheel/startup.py's machine):
//! without holding the client hung after 382 to 6,041 ticks (7 of 7 runs);
//! with a 1 ms or a 300 µs gap, 40,000 ticks without a hang. Ticks of
//! clients without a Traffic Manager are queued at once, as before.
//!
//! Invariant: a held tick is pushed exactly once, by the host's poll after
//! its deadline or when its client goes (`expired` takes it out of `held`
//! under the lock).

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The longest a tick is held for a Traffic Manager's settings call.
pub(crate) const HOLD_AT_MOST: Duration = Duration::from_millis(100);

/// How long after the worker's settings call its tick may be made.
pub(crate) const GAP: Duration = Duration::from_micros(300);

/// How often the host's poll looks at the held ticks' deadlines.
pub(crate) const RECHECK: Duration = Duration::from_micros(100);

/// Where a client is in its Traffic Manager's cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cycle {
    /// A tick went (or is held): the worker runs its cycle for it.
    Ticked,
    /// After a tick, a batch without a tick came; the worker has not asked
    /// for the settings yet (it is not waiting for the next tick).
    BatchApplied,
    /// The worker asked for the settings at this time.
    Asked(Instant),
}

/// A tick waiting for its client's Traffic Manager.
struct Held<T> {
    client: u64,
    deadline: Instant,
    tick: T,
}

/// The clients' cycles and the ticks held; `T` is what pushes a tick.
pub(crate) struct Pacing<T> {
    cycles: Mutex<BTreeMap<u64, Cycle>>,
    held: Mutex<Vec<Held<T>>>,
}

impl<T> Default for Pacing<T> {
    fn default() -> Self {
        Pacing {
            cycles: Mutex::new(BTreeMap::new()),
            held: Mutex::new(Vec::new()),
        }
    }
}

impl<T> Pacing<T> {
    /// `client` applied a batch without a tick: its worker's when it
    /// follows a tick (see the module's comment).
    pub(crate) fn batch_applied(&self, client: u64) {
        if let Some(c @ Cycle::Ticked) = self.cycles.lock().get_mut(&client) {
            *c = Cycle::BatchApplied;
        }
    }

    /// `client` asked for the episode settings at `now`: its held tick
    /// (if any) may go `GAP` later.
    pub(crate) fn settings_asked(&self, client: u64, now: Instant) {
        self.cycles.lock().insert(client, Cycle::Asked(now));
        let mut held = self.held.lock();
        if let Some(h) = held.iter_mut().find(|h| h.client == client) {
            h.deadline = h.deadline.min(now + GAP);
        }
    }

    /// A tick from `client`, which runs a Traffic Manager if
    /// `has_traffic_manager`: `Some(tick)` to push now, `None` when it is
    /// held (pushed by `expired` later).
    pub(crate) fn tick(
        &self,
        client: u64,
        has_traffic_manager: bool,
        tick: T,
        now: Instant,
    ) -> Option<T> {
        if !has_traffic_manager {
            return Some(tick);
        }
        let deadline = {
            let mut cycles = self.cycles.lock();
            let deadline = match cycles.get(&client) {
                Some(Cycle::BatchApplied) => Some(now + HOLD_AT_MOST),
                Some(Cycle::Asked(at)) if *at + GAP > now => Some(*at + GAP),
                _ => None,
            };
            cycles.insert(client, Cycle::Ticked);
            match deadline {
                Some(d) => d,
                None => return Some(tick),
            }
        };
        let mut held = self.held.lock();
        if held.iter().any(|h| h.client == client) {
            return Some(tick);
        }
        held.push(Held {
            client,
            deadline,
            tick,
        });
        None
    }

    /// Hands `due` the held ticks whose time is up (and all of `gone`'s,
    /// when that client leaves; its cycle is forgotten), to be pushed now.
    /// Allocates nothing.
    pub(crate) fn expired(&self, now: Instant, gone: Option<u64>, mut due: impl FnMut(T)) {
        if let Some(client) = gone {
            self.cycles.lock().remove(&client);
        }
        let mut held = self.held.lock();
        let mut i = 0;
        while i < held.len() {
            if held[i].deadline <= now || Some(held[i].client) == gone {
                due(held.swap_remove(i).tick);
            } else {
                i += 1;
            }
        }
    }

    /// Whether any tick is held (for the host's poll).
    pub(crate) fn holding(&self) -> bool {
        !self.held.lock().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expired(p: &Pacing<u32>, now: Instant, gone: Option<u64>) -> Vec<u32> {
        let mut due = Vec::new();
        p.expired(now, gone, |t| due.push(t));
        due
    }

    #[test]
    fn a_tick_waits_for_the_traffic_managers_settings_call_and_the_gap() {
        let p: Pacing<u32> = Pacing::default();
        let t0 = Instant::now();
        // No cycle seen, or no Traffic Manager: at once.
        assert_eq!(p.tick(1, true, 10, t0), Some(10));
        p.batch_applied(1);
        assert_eq!(p.tick(1, false, 11, t0), Some(11));
        // The worker's batch after that tick, then a tick before the
        // settings call: held.
        assert_eq!(p.tick(1, true, 12, t0), None);
        assert!(p.holding());
        // Another client's call does not move it.
        p.settings_asked(2, t0);
        assert!(expired(&p, t0 + GAP, None).is_empty());
        // Its own call: it goes GAP after.
        let asked = t0 + Duration::from_millis(3);
        p.settings_asked(1, asked);
        assert!(expired(&p, asked + GAP / 2, None).is_empty());
        assert_eq!(expired(&p, asked + GAP, None), vec![12]);
        assert!(!p.holding());
        // Settings asked just before the tick: held for the rest of GAP.
        assert_eq!(p.tick(1, true, 13, asked + GAP / 3), None);
        assert_eq!(expired(&p, asked + GAP, None), vec![13]);
        // Long enough after: at once.
        assert_eq!(p.tick(1, true, 14, asked + GAP), Some(14));
    }

    #[test]
    fn batches_while_the_worker_sleeps_hold_no_tick() {
        let p: Pacing<u32> = Pacing::default();
        let t0 = Instant::now();
        // Before any tick (a script spawning its cars): not the worker's.
        p.batch_applied(1);
        assert_eq!(p.tick(1, true, 1, t0), Some(1));
        // The worker's cycle: its batch, its settings call.
        p.batch_applied(1);
        p.settings_asked(1, t0);
        // The walkers' navigation batch before the next tick_cue.
        p.batch_applied(1);
        let later = t0 + GAP;
        assert_eq!(p.tick(1, true, 2, later), Some(2));
        // And again for the next cycle: a script's batch after world.tick().
        p.batch_applied(1);
        p.settings_asked(1, later);
        p.batch_applied(1);
        assert_eq!(p.tick(1, true, 3, later + GAP), Some(3));
        assert!(!p.holding());
    }

    #[test]
    fn a_held_tick_goes_at_its_deadline_or_with_its_client() {
        let p: Pacing<u32> = Pacing::default();
        let t0 = Instant::now();
        for client in [1, 2] {
            assert_eq!(p.tick(client, true, 0, t0), Some(0));
            p.batch_applied(client);
        }
        assert_eq!(p.tick(1, true, 1, t0), None);
        assert_eq!(p.tick(2, true, 2, t0), None);
        // A second tick of a client already held is not held behind it.
        assert_eq!(p.tick(1, true, 3, t0), Some(3));
        assert!(expired(&p, t0 + HOLD_AT_MOST / 2, None).is_empty());
        assert_eq!(expired(&p, t0 + HOLD_AT_MOST / 2, Some(2)), vec![2]);
        // A shut-down Traffic Manager never asks: the deadline.
        assert_eq!(expired(&p, t0 + HOLD_AT_MOST, None), vec![1]);
        assert!(!p.holding());
        // Pushed once: a late settings call finds nothing to move.
        p.settings_asked(1, t0 + HOLD_AT_MOST);
        assert!(expired(&p, t0 + HOLD_AT_MOST * 2, None).is_empty());
        // A client that went is forgotten: its next tick goes at once.
        assert_eq!(p.tick(2, true, 4, t0), Some(4));
    }
}
