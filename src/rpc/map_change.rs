//! The MapChange flag of the episode states after a map change (the world
//! holds it; `maps` raises it; each state sent reads it).

use super::episode_state::SIMULATION_STATE_MAP_CHANGE;
use std::time::{Duration, Instant};

/// After a map change, the episode states carry the MapChange flag for at
/// least this many states and this long, so a client whose world stream
/// dropped a state (asynchronous delivery keeps only the newest) still
/// sees one.
const MAP_CHANGE_STATES: u32 = 4;
const MAP_CHANGE_TIME: Duration = Duration::from_secs(1);

/// Whether the next episode states carry the MapChange flag. The 0.9
/// client fetches the map again (`get_map_info`, `get_map_data`) at its
/// next `world.get_map()` only when a state it received had the flag, or
/// when it made a new episode object itself (0.9.16's `load_world`; the
/// older clients keep theirs), so every map change must reach every
/// connected client this way.
#[derive(Debug, Default)]
pub(crate) struct MapChange {
    pending: bool,
    /// When the first flagged state went out, and how many did.
    first: Option<Instant>,
    sent: u32,
}

impl MapChange {
    /// The map changed: flag the next states.
    pub(crate) fn changed(&mut self) {
        *self = MapChange {
            pending: true,
            first: None,
            sent: 0,
        };
    }

    /// The `simulation_state` of the state about to be sent at `now`.
    pub(crate) fn next_state(&mut self, now: Instant) -> u32 {
        if !self.pending {
            return 0;
        }
        let first = *self.first.get_or_insert(now);
        self.sent += 1;
        if self.sent >= MAP_CHANGE_STATES && now.duration_since(first) >= MAP_CHANGE_TIME {
            self.pending = false;
        }
        SIMULATION_STATE_MAP_CHANGE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_change_flags_at_least_four_states_and_one_second() {
        let mut c = MapChange::default();
        let t0 = Instant::now();
        assert_eq!(c.next_state(t0), 0);
        c.changed();
        for i in 0..10u64 {
            assert_eq!(c.next_state(t0 + Duration::from_millis(i)), 1, "state {i}");
        }
        assert_eq!(c.next_state(t0 + Duration::from_secs(1)), 1);
        assert_eq!(c.next_state(t0 + Duration::from_secs(2)), 0);
        c.changed();
        let t1 = t0 + Duration::from_secs(10);
        assert_eq!(c.next_state(t1), 1);
        assert_eq!(c.next_state(t1 + Duration::from_secs(5)), 1);
        assert_eq!(c.next_state(t1 + Duration::from_secs(6)), 1);
        assert_eq!(c.next_state(t1 + Duration::from_secs(7)), 1, "the fourth");
        assert_eq!(c.next_state(t1 + Duration::from_secs(8)), 0);
    }
}
