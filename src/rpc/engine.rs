//! The requests only the engine can carry out, queued for the host.
//!
//! RPC threads push; the host polls once per Tick (with a time-out of its
//! choice) and answers each request. The queue is bounded
//! (`crossbeam_queue::ArrayQueue`): when it is full a blocking call gets a
//! clear error at once, so a client cannot make the library hold more than
//! `QUEUE_BOUND` requests. A blocking call waits for its answer at most the
//! configured bound, then answers the client with an error naming the
//! request; an answer that comes later is dropped.
//!
//! Invariant: every request taken from the queue is answered exactly once:
//! by the host, or by `Drop` ("the host dropped the request") if the host
//! lets it go unanswered, so no RPC thread waits on a request nobody holds.
//! A request may carry an undo (a spawn's sensor, made before the host was
//! asked): a refusal or a drop runs it on the answering thread before the
//! waiter hears, so once `fail` returns the sensor is gone; a success
//! drops it unrun.

use super::actor_commands::{ActorCommand, WorldCommand};
use super::clients::InFlight;
use crate::episode::{EpisodeSettings, OpendriveGenerationParameters, VehicleControl09, Weather};
use crate::types::{ActorTransform, Vector3D};
use crossbeam_queue::ArrayQueue;
use parking_lot::{Condvar, Mutex};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Requests waiting for the host, at most.
pub(crate) const QUEUE_BOUND: usize = 4096;

/// What the engine is asked to do.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineCall {
    /// Spawn `blueprint` as actor `actor_id` at `transform` (relative to
    /// `parent_id` when it is not 0). `sensor_id` is non-zero when the
    /// library made a sensor for it: capture into that sensor every tick.
    SpawnActor {
        actor_id: u32,
        blueprint: String,
        attributes: Vec<(String, String)>,
        transform: ActorTransform,
        parent_id: u32,
        /// 0 rigid, 1 spring arm, 2 spring arm ghost.
        attachment: u8,
        sensor_id: u32,
    },
    /// Destroy actor `actor_id` (stop capturing if `sensor_id` is not 0).
    DestroyActor {
        actor_id: u32,
        sensor_id: u32,
    },
    /// Apply these episode settings (synchronous mode, fixed time step, ...).
    SetEpisodeSettings(EpisodeSettings),
    /// Synchronous mode: run one tick of the fixed time step, send its
    /// sensor data and episode state, answer with its frame.
    Tick,
    SetActorTransform {
        actor_id: u32,
        transform: ActorTransform,
    },
    SetActorTargetVelocity {
        actor_id: u32,
        velocity: Vector3D,
    },
    ApplyVehicleControl {
        actor_id: u32,
        control: VehicleControl09,
    },
    SetWeather(Weather),
    /// Carry out `command` on actor `actor_id` (its kind already checked:
    /// walker commands name walkers, traffic-light commands lights, ...).
    Actor {
        actor_id: u32,
        command: ActorCommand,
    },
    /// A command for every traffic light.
    World(WorldCommand),
    /// `load_world` / `reload_world`: start a new episode of map `map`
    /// (the town's own actors back at their start, every client actor
    /// gone): build it, describe it with [`crate::rpc::RpcServer::set_map`]
    /// if it is another map than the one loaded, call
    /// [`crate::rpc::RpcServer::new_episode`] and register the host's
    /// actors again, then answer. `reset_settings`: the episode settings go
    /// back to CARLA's defaults (the library's copy already does on
    /// success).
    LoadEpisode {
        /// The map's canonical bare name: one of the host's
        /// [`crate::rpc::RpcServer::set_available_maps`] as the host spelled
        /// it, the current map's (`reload_world`), or `"OpenDriveMap"`, the
        /// world last built by [`EngineCall::LoadOpenDrive`].
        map: String,
        reset_settings: bool,
    },
    /// `generate_opendrive_world` (its first half, the client's
    /// `copy_opendrive_to_file`): build a world from this OpenDRIVE text
    /// and keep it as the map `"OpenDriveMap"`, then answer; failing names
    /// why (the client's `RuntimeError`). The client then asks for a
    /// [`EngineCall::LoadEpisode`] of `"OpenDriveMap"`: start an episode of
    /// that world, with `set_map("Carla/Maps/OpenDriveMap", …, opendrive)`
    /// so `map.to_opendrive()` gives the client its own text back.
    LoadOpenDrive {
        /// The text as the client sent it (shared, not copied, by clones).
        opendrive: Arc<str>,
        params: OpendriveGenerationParameters,
    },
    /// `get_telemetry_data`: report the vehicle's telemetry with
    /// [`crate::rpc::RpcServer::set_vehicle_telemetry`], then answer (an
    /// answer without a report: the library tells what it knows, the
    /// speed, controls and gear of the last state).
    VehicleTelemetry {
        actor_id: u32,
    },
    /// `get_bones_transform` (a client's `walker.get_bones()`): report the
    /// walker's skeleton with [`crate::rpc::RpcServer::set_walker_bones`],
    /// then answer (an answer without a report: the client is told the
    /// walker has no skeleton on this host).
    WalkerBones {
        actor_id: u32,
    },
}

impl EngineCall {
    /// Short name for log lines and errors.
    pub fn name(&self) -> &'static str {
        match self {
            EngineCall::SpawnActor { .. } => "spawn actor",
            EngineCall::DestroyActor { .. } => "destroy actor",
            EngineCall::SetEpisodeSettings(_) => "episode settings",
            EngineCall::Tick => "tick",
            EngineCall::SetActorTransform { .. } => "actor transform",
            EngineCall::SetActorTargetVelocity { .. } => "actor target velocity",
            EngineCall::ApplyVehicleControl { .. } => "vehicle control",
            EngineCall::SetWeather(_) => "weather",
            EngineCall::Actor { command, .. } => command.name(),
            EngineCall::World(WorldCommand::FreezeAllTrafficLights(_)) => {
                "freeze all traffic lights"
            }
            EngineCall::World(WorldCommand::ResetAllTrafficLights) => "reset all traffic lights",
            EngineCall::World(WorldCommand::HoldTraffic(_)) => "hold traffic",
            EngineCall::LoadEpisode { .. } => "load episode",
            EngineCall::LoadOpenDrive { .. } => "load OpenDRIVE",
            EngineCall::VehicleTelemetry { .. } => "vehicle telemetry",
            EngineCall::WalkerBones { .. } => "walker bones",
        }
    }
}

/// Where an answer goes.
#[derive(Default, Debug)]
pub(crate) struct ReplySlot {
    answer: Mutex<Option<Result<u64, String>>>,
    ready: Condvar,
}

impl ReplySlot {
    fn put(&self, answer: Result<u64, String>) {
        *self.answer.lock() = Some(answer);
        self.ready.notify_all();
    }

    /// The answer, waiting up to `bound`.
    pub(crate) fn wait(&self, bound: Duration) -> Option<Result<u64, String>> {
        let deadline = Instant::now() + bound;
        let mut answer = self.answer.lock();
        while answer.is_none() {
            if self.ready.wait_until(&mut answer, deadline).timed_out() {
                break;
            }
        }
        answer.take()
    }
}

/// What the library prepared for a request and takes back if the host
/// refuses it (the sensor of a spawn).
pub(crate) type Undo = Box<dyn FnOnce() + Send>;

/// A request taken by the host. Answer it with [`EngineRequest::succeed`]
/// or [`EngineRequest::fail`]; dropping it unanswered fails it.
pub struct EngineRequest {
    call: EngineCall,
    reply: Option<Arc<ReplySlot>>,
    /// Run by `fail` and `Drop` before the answer, dropped by `succeed`.
    undo: Option<Undo>,
    /// Counts in its client's share until the host is done with it.
    _in_flight: Option<InFlight>,
}

impl EngineRequest {
    /// What to do.
    pub fn call(&self) -> &EngineCall {
        &self.call
    }

    /// Whether a client waits for the answer (fire-and-forget calls such
    /// as transforms and controls do not).
    pub fn expects_answer(&self) -> bool {
        self.reply.is_some()
    }

    /// Done; `value` is the frame for `Tick` (ignored otherwise).
    pub fn succeed(mut self, value: u64) {
        self.undo = None;
        if let Some(r) = self.reply.take() {
            r.put(Ok(value));
        }
    }

    /// Refused; the client gets `message` (a Python `RuntimeError`). A
    /// refused spawn's sensor is destroyed before this returns.
    pub fn fail(mut self, message: &str) {
        self.run_undo();
        if let Some(r) = self.reply.take() {
            r.put(Err(message.to_owned()));
        }
    }

    fn run_undo(&mut self) {
        if let Some(undo) = self.undo.take() {
            undo();
        }
    }
}

impl Drop for EngineRequest {
    fn drop(&mut self) {
        self.run_undo();
        if let Some(r) = self.reply.take() {
            r.put(Err(format!(
                "the simulator dropped the {} request without answering",
                self.call.name()
            )));
        }
    }
}

impl std::fmt::Debug for EngineRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EngineRequest({:?})", self.call)
    }
}

/// The queue between the RPC threads and the host.
pub(crate) struct EngineQueue {
    queue: ArrayQueue<EngineRequest>,
    /// Bumped on every push; the host's poll waits on it.
    pushes: Mutex<u64>,
    pushed: Condvar,
}

impl Default for EngineQueue {
    fn default() -> Self {
        EngineQueue {
            queue: ArrayQueue::new(QUEUE_BOUND),
            pushes: Mutex::new(0),
            pushed: Condvar::new(),
        }
    }
}

impl EngineQueue {
    /// Queues a call; with `wait` the caller gets a slot to wait on.
    /// `undo` runs if the host refuses or drops the request (or the queue
    /// is full).
    pub(crate) fn push(
        &self,
        call: EngineCall,
        wait: bool,
        undo: Option<Undo>,
        in_flight: Option<InFlight>,
    ) -> Result<Option<Arc<ReplySlot>>, String> {
        let reply = wait.then(|| Arc::new(ReplySlot::default()));
        let name = call.name();
        let request = EngineRequest {
            call,
            reply: reply.clone(),
            undo,
            _in_flight: in_flight,
        };
        if let Err(mut refused) = self.queue.push(request) {
            refused.reply = None; // answered here, not by its Drop
            return Err(format!(
                "the simulator has {QUEUE_BOUND} requests waiting; the {name} request was refused"
            ));
        }
        *self.pushes.lock() += 1;
        self.pushed.notify_all();
        Ok(reply)
    }

    /// The next request, waiting up to `timeout` (zero: only what is
    /// queued now). Allocates nothing.
    pub(crate) fn poll(&self, timeout: Duration) -> Option<EngineRequest> {
        if let Some(r) = self.queue.pop() {
            return Some(r);
        }
        if timeout.is_zero() {
            return None;
        }
        let deadline = Instant::now() + timeout;
        let mut pushes = self.pushes.lock();
        let seen = *pushes;
        loop {
            if let Some(r) = self.queue.pop() {
                return Some(r);
            }
            if *pushes != seen {
                return None; // woken (`wake`), or another poller took it
            }
            if self.pushed.wait_until(&mut pushes, deadline).timed_out() {
                return self.queue.pop();
            }
        }
    }

    /// Ends a waiting `poll` early with nothing (its caller has something
    /// else to look at: a held tick's deadline).
    pub(crate) fn wake(&self) {
        *self.pushes.lock() += 1;
        self.pushed.notify_all();
    }

    /// Fails every waiting request (the endpoint is closing).
    pub(crate) fn drain(&self) {
        while let Some(r) = self.queue.pop() {
            r.fail("the simulator closed its RPC endpoint");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_ends_a_waiting_poll_with_nothing() {
        let q = Arc::new(EngineQueue::default());
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Woken again and again: a wake before the poll began waiting
        // must not be what the test depends on.
        let waker = {
            let (q, done) = (q.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                    q.wake();
                }
            })
        };
        let started = Instant::now();
        assert!(q.poll(Duration::from_secs(60)).is_none());
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the wake was missed"
        );
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        waker.join().unwrap();
    }

    #[test]
    fn answers_reach_the_waiter_and_drops_fail() {
        let q = EngineQueue::default();
        let slot = q.push(EngineCall::Tick, true, None, None).unwrap().unwrap();
        let r = q.poll(Duration::ZERO).unwrap();
        assert_eq!(r.call(), &EngineCall::Tick);
        r.succeed(42);
        assert_eq!(slot.wait(Duration::from_secs(1)), Some(Ok(42)));
        let slot = q.push(EngineCall::Tick, true, None, None).unwrap().unwrap();
        drop(q.poll(Duration::ZERO));
        let err = slot.wait(Duration::from_secs(1)).unwrap().unwrap_err();
        assert!(err.contains("dropped the tick request"), "{err}");
        assert!(q.poll(Duration::from_millis(5)).is_none());
    }

    #[test]
    fn a_full_queue_refuses_at_once() {
        let q = EngineQueue::default();
        for _ in 0..QUEUE_BOUND {
            assert!(q
                .push(EngineCall::Tick, false, None, None)
                .unwrap()
                .is_none());
        }
        let err = q.push(EngineCall::Tick, true, None, None).unwrap_err();
        assert!(err.contains("4096 requests waiting"), "{err}");
        q.drain();
        assert!(q.poll(Duration::ZERO).is_none());
    }

    #[test]
    fn poll_wakes_when_a_request_arrives() {
        let q = Arc::new(EngineQueue::default());
        let q2 = q.clone();
        let t = std::thread::spawn(move || q2.poll(Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(20));
        q.push(EngineCall::SetWeather([1.0; 14]), false, None, None)
            .unwrap();
        let got = t.join().unwrap().unwrap();
        assert_eq!(got.call(), &EngineCall::SetWeather([1.0; 14]));
    }

    #[test]
    fn a_refusal_or_a_drop_runs_the_undo_before_the_waiter_hears_a_success_never() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let q = EngineQueue::default();
        let undone = Arc::new(AtomicU32::new(0));
        let undo = || {
            let u = undone.clone();
            Some(Box::new(move || {
                u.fetch_add(1, Ordering::SeqCst);
            }) as Undo)
        };
        let ask = |undo| q.push(EngineCall::Tick, true, undo, None).unwrap().unwrap();
        let slot = ask(undo());
        q.poll(Duration::ZERO).unwrap().succeed(1);
        assert_eq!(slot.wait(Duration::from_secs(1)), Some(Ok(1)));
        assert_eq!(undone.load(Ordering::SeqCst), 0, "a success keeps it");
        let slot = ask(undo());
        q.poll(Duration::ZERO).unwrap().fail("no");
        assert_eq!(undone.load(Ordering::SeqCst), 1, "undone when fail returns");
        assert_eq!(slot.wait(Duration::from_secs(1)), Some(Err("no".into())));
        let slot = ask(undo());
        drop(q.poll(Duration::ZERO));
        assert_eq!(undone.load(Ordering::SeqCst), 2, "a drop undoes too");
        assert!(slot.wait(Duration::from_secs(1)).unwrap().is_err());
        let _slot = ask(undo());
        q.drain();
        assert_eq!(undone.load(Ordering::SeqCst), 3, "so does closing");
    }
}
