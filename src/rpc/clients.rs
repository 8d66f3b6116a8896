//! Each 0.9 client's share of the server: sensors, actors, sensor bytes
//! per tick, requests waiting for the simulator and connections from one
//! address ([`ClientBudget`]), beside the server-wide caps, so one client
//! cannot take everything (the 0.8 settings budget does the same for an
//! episode's sensors).
//!
//! A client is one RPC connection. Its thread carries its [`ClientShare`]
//! (a thread-local set while it serves requests), so the engine queue can
//! count the requests it left waiting; actors carry their owner, so its
//! sensors, actors and bytes are counted from the actor table itself (no
//! second count to drift). Actors outlive their client, as in CARLA, and
//! count against nobody once it left.

use super::error::RpcError;
use crate::release::Release;
use parking_lot::{Mutex, RwLock};
use std::cell::RefCell;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// What one client may hold at once. `carla-host` flags:
/// `--max-client-sensors`, `--max-client-actors`, `--max-client-requests`,
/// `--max-client-frame-mb`, `--max-connections-per-address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientBudget {
    /// Library sensors (each a stream): 64, a quarter of the server's 256.
    pub max_sensors: usize,
    /// Live actors, sensors included: 2,500, a quarter of the server's
    /// 10,000 (CARLA's traffic scripts spawn a few hundred).
    pub max_actors: usize,
    /// Requests waiting for the simulator (controls, transforms, commands
    /// it has not taken yet): 1,024, a quarter of the queue's 4,096 (a
    /// Traffic Manager's batch of controls for 400 cars is 400).
    pub max_requests: usize,
    /// Bytes its sensors produce per tick (cameras: width × height ×
    /// pixel bytes; lidars: 100 ms of points): 128 MiB, as the 0.8 budget.
    pub max_frame_bytes: u64,
    /// RPC connections from one IP address: 32 of the server's 64.
    pub max_connections_per_address: usize,
}

impl Default for ClientBudget {
    fn default() -> Self {
        ClientBudget {
            max_sensors: 64,
            max_actors: 2_500,
            max_requests: 1_024,
            max_frame_bytes: 128 << 20,
            max_connections_per_address: 32,
        }
    }
}

/// What one connected client holds now (for a status line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientUsage {
    /// The server's number for the connection (1, 2, ... in order).
    pub id: u64,
    pub peer: SocketAddr,
    pub sensors: usize,
    pub actors: usize,
    pub frame_bytes: u64,
    /// Requests waiting for the simulator.
    pub requests: usize,
    /// Calls refused for a limit of its budget so far.
    pub refused: u64,
    /// The client release it connected as (the port it dialled).
    pub release: Release,
}

/// One connected client's counters.
#[derive(Debug)]
pub(crate) struct ClientShare {
    pub(crate) id: u64,
    pub(crate) release: Release,
    peer: SocketAddr,
    requests: AtomicUsize,
    refused: AtomicU64,
    max_requests: AtomicUsize,
}

/// A request of a client waiting for the simulator; counted until dropped.
#[derive(Debug)]
pub(crate) struct InFlight(Arc<ClientShare>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::AcqRel);
    }
}

impl ClientShare {
    /// Counts one more waiting request, or refuses it past the budget.
    pub(crate) fn request(self: &Arc<Self>) -> Result<InFlight, RpcError> {
        let max = self.max_requests.load(Ordering::Relaxed);
        let taken = self
            .requests
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            });
        match taken {
            Ok(_) => Ok(InFlight(self.clone())),
            Err(_) => Err(RpcError::Refused(self.refuse(format!(
                "client {} has {max} requests waiting for the simulator \
                 (max_requests, the per-client budget); this one was refused",
                self.id
            )))),
        }
    }

    /// Counts a refusal and hands its message back.
    pub(crate) fn refuse(&self, message: String) -> String {
        self.refused.fetch_add(1, Ordering::Relaxed);
        message
    }
}

thread_local! {
    /// The client whose request this thread is serving.
    static CURRENT: RefCell<Option<Arc<ClientShare>>> = const { RefCell::new(None) };
}

/// The client this thread serves, if any (None on the host's threads).
pub(crate) fn current() -> Option<Arc<ClientShare>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The connected clients and their budget.
#[derive(Default)]
pub(crate) struct Clients {
    budget: RwLock<ClientBudget>,
    connected: Mutex<HashMap<u64, Arc<ClientShare>>>,
}

impl Clients {
    pub(crate) fn budget(&self) -> ClientBudget {
        *self.budget.read()
    }

    pub(crate) fn set_budget(&self, budget: ClientBudget) {
        *self.budget.write() = budget;
        for c in self.connected.lock().values() {
            c.max_requests.store(budget.max_requests, Ordering::Relaxed);
        }
    }

    /// Admits connection `id` from `peer`, or says which limit refuses it.
    pub(crate) fn connect(
        &self,
        id: u64,
        peer: SocketAddr,
        release: Release,
    ) -> Result<Arc<ClientShare>, String> {
        let budget = self.budget();
        let mut connected = self.connected.lock();
        let same = connected
            .values()
            .filter(|c| c.peer.ip() == peer.ip())
            .count();
        if same >= budget.max_connections_per_address {
            return Err(format!(
                "{} connections from {} already (max_connections_per_address, the per-client budget)",
                same,
                peer.ip()
            ));
        }
        let share = Arc::new(ClientShare {
            id,
            release,
            peer,
            requests: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            max_requests: AtomicUsize::new(budget.max_requests),
        });
        connected.insert(id, share.clone());
        Ok(share)
    }

    /// Forgets connection `id`.
    pub(crate) fn disconnect(&self, id: u64) {
        self.connected.lock().remove(&id);
    }

    /// Runs `f` on this thread as client `share`.
    pub(crate) fn serve<R>(share: &Arc<ClientShare>, f: impl FnOnce() -> R) -> R {
        CURRENT.with(|c| *c.borrow_mut() = Some(share.clone()));
        let r = f();
        CURRENT.with(|c| *c.borrow_mut() = None);
        r
    }

    /// The connected clients, in connection order, with what they hold
    /// (`held` sums a client's actors: (sensors, actors, frame bytes)).
    pub(crate) fn usage(&self, held: impl Fn(u64) -> (usize, usize, u64)) -> Vec<ClientUsage> {
        let mut list: Vec<ClientUsage> = self
            .connected
            .lock()
            .values()
            .map(|c| {
                let (sensors, actors, frame_bytes) = held(c.id);
                ClientUsage {
                    id: c.id,
                    peer: c.peer,
                    sensors,
                    actors,
                    frame_bytes,
                    requests: c.requests.load(Ordering::Relaxed),
                    refused: c.refused.load(Ordering::Relaxed),
                    release: c.release,
                }
            })
            .collect();
        list.sort_by_key(|u| u.id);
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn within(budget: ClientBudget) -> Clients {
        let clients = Clients::default();
        clients.set_budget(budget);
        clients
    }

    #[test]
    fn requests_are_counted_until_dropped_and_refused_past_the_share() {
        let clients = within(ClientBudget {
            max_requests: 2,
            ..Default::default()
        });
        let share = clients
            .connect(7, "127.0.0.1:1".parse().unwrap(), Release::NATIVE)
            .unwrap();
        let a = share.request().unwrap();
        let _b = share.request().unwrap();
        let e = share.request().unwrap_err().to_string();
        assert!(e.contains("max_requests") && e.contains("client 7"), "{e}");
        drop(a);
        assert!(share.request().is_ok());
        let usage = clients.usage(|_| (0, 0, 0));
        assert_eq!((usage[0].requests, usage[0].refused), (1, 1));
    }

    #[test]
    fn one_address_gets_its_share_of_connections() {
        let clients = within(ClientBudget {
            max_connections_per_address: 2,
            ..Default::default()
        });
        let a: SocketAddr = "10.0.0.1:5".parse().unwrap();
        let b: SocketAddr = "10.0.0.2:5".parse().unwrap();
        clients.connect(1, a, Release::NATIVE).unwrap();
        clients.connect(2, a, Release::NATIVE).unwrap();
        let e = clients.connect(3, a, Release::NATIVE).unwrap_err();
        assert!(e.contains("max_connections_per_address"), "{e}");
        clients.connect(4, b, Release::NATIVE).unwrap();
        clients.disconnect(1);
        clients.connect(5, a, Release::NATIVE).unwrap();
    }
}
