//! The registry of Traffic Managers. In 0.9.x a Traffic Manager runs in a
//! client's process; the server only remembers which port has one (and
//! where it listens), so a second client's `get_trafficmanager(port)`
//! talks to the running one instead of starting its own.
//!
//! Each entry belongs to the connection that registered it and goes when
//! that connection closes: a client that crashed without
//! `destroy_traffic_manager` leaves no stale entry that would send the next
//! client to a Traffic Manager nobody runs.

use super::error::RpcError;
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// Entries at most (a client cannot grow the registry without bound).
pub(crate) const MAX_TRAFFIC_MANAGERS: usize = 256;

#[derive(Default)]
pub(crate) struct TrafficManagers {
    /// Port → (host it listens on, its port, owner connection).
    by_port: Mutex<BTreeMap<u16, (String, u16, u64)>>,
}

impl TrafficManagers {
    pub(crate) fn is_running(&self, port: u16) -> bool {
        self.by_port.lock().contains_key(&port)
    }

    /// Where the Traffic Manager of `port` listens.
    pub(crate) fn get(&self, port: u16) -> Option<(String, u16)> {
        self.by_port
            .lock()
            .get(&port)
            .map(|(h, p, _)| (h.clone(), *p))
    }

    /// Registers a Traffic Manager for `owner`; false if `port` has one.
    pub(crate) fn add(&self, host: &str, port: u16, owner: u64) -> Result<bool, RpcError> {
        let mut map = self.by_port.lock();
        if map.contains_key(&port) {
            return Ok(false);
        }
        if map.len() >= MAX_TRAFFIC_MANAGERS {
            return Err(RpcError::Refused(format!(
                "this server keeps at most {MAX_TRAFFIC_MANAGERS} Traffic Managers"
            )));
        }
        map.insert(port, (host.to_owned(), port, owner));
        Ok(true)
    }

    /// Whether connection `owner` registered any Traffic Manager (runs
    /// one in its process).
    pub(crate) fn owns(&self, owner: u64) -> bool {
        self.by_port.lock().values().any(|(_, _, o)| *o == owner)
    }

    pub(crate) fn remove(&self, port: u16) {
        self.by_port.lock().remove(&port);
    }

    /// Forgets every Traffic Manager `owner` registered.
    pub(crate) fn forget_owner(&self, owner: u64) {
        self.by_port.lock().retain(|_, (_, _, o)| *o != owner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_belong_to_their_connection() {
        let tm = TrafficManagers::default();
        assert!(tm.add("10.0.0.1", 8000, 1).unwrap());
        assert!(!tm.add("10.0.0.2", 8000, 2).unwrap(), "port taken");
        assert!(tm.add("10.0.0.2", 8001, 2).unwrap());
        assert_eq!(tm.get(8000), Some(("10.0.0.1".to_owned(), 8000)));
        assert!(tm.owns(1) && tm.owns(2) && !tm.owns(3));
        tm.forget_owner(1);
        assert!(!tm.is_running(8000));
        assert!(!tm.owns(1));
        assert!(tm.is_running(8001));
        tm.remove(8001);
        assert!(!tm.is_running(8001));
    }

    #[test]
    fn the_registry_is_bounded() {
        let tm = TrafficManagers::default();
        for p in 0..MAX_TRAFFIC_MANAGERS as u16 {
            assert!(tm.add("h", p, 7).unwrap());
        }
        assert!(tm
            .add("h", 60000, 7)
            .unwrap_err()
            .to_string()
            .contains("at most"));
    }
}
