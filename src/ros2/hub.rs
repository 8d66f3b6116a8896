//! What feeds the ROS 2 thread (`worker.rs`). A sensor enabled for ROS
//! gets a tap on its stream: each message the host sends is handed (an
//! `Arc`, no copy) to a bounded lock-free queue, and the `carla-ros2`
//! thread turns it into CDR (one copy of the data) and writes it on DDS. A
//! full queue drops the message for ROS only (counted); the host never
//! waits.

use super::dds::Dds;
use super::messages::{LightInfo, Object, VehicleInfo};
use super::model::{ControlSink, Ros2Options, SensorNames};
use super::state_topics::HeroState;
use super::worker::{self, Counters, Job, PER_SENSOR};
use crate::episode::{
    ActorState, CARLA_ACTOR_TRAFFIC_LIGHT, CARLA_ACTOR_VEHICLE, CARLA_ACTOR_WALKER,
};
use crate::streaming::stream::{Message, Stream, Tap};
use crate::types::Vector3D;
use crate::Error;
use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};

/// Messages waiting for the ROS 2 thread, at most.
const QUEUE: usize = 64;

/// What `/carla/objects` and `/carla/traffic_lights/info` need of an
/// actor beyond its state: its class (`derived_object_msgs/Object`'s
/// constants) and its box (a traffic light's: its trigger volume), centre
/// relative to the actor and half sizes, metres.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ActorShape {
    pub(crate) class: u8,
    pub(crate) center: Vector3D,
    pub(crate) extent: Vector3D,
}

/// Counters of the ROS 2 side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ros2Stats {
    /// Sensor messages written on DDS.
    pub published: u64,
    /// Sensor messages the queue had no room for.
    pub dropped: u64,
    /// Controls read from DDS and handed to the host.
    pub controls: u64,
    /// Times the library left its DDS domain and joined it again: a topic
    /// refused every sample for 10 s, or DDS dropped a peer reading our
    /// topics (docs/ros2.md).
    pub rejoins: u64,
}

struct Running {
    queue: Arc<ArrayQueue<Job>>,
    thread: Thread,
    handle: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    domain_id: u16,
}

impl Running {
    fn push(&self, job: Job, counters: &Counters) {
        if self.queue.push(job).is_err() {
            counters.dropped.fetch_add(1, Ordering::Relaxed);
        }
        self.thread.unpark();
    }
}

#[derive(Default)]
struct State {
    running: Option<Running>,
    /// Sensors enabled for ROS (published while running), with the stream
    /// their tap sits on.
    sensors: HashMap<u32, (Arc<SensorNames>, Stream)>,
    /// Hero vehicles: actor id → ros name and `vehicle_info`.
    vehicles: HashMap<u32, (String, Arc<VehicleInfo>)>,
    /// The map's OpenDRIVE text (`/carla/map`), once the host gave one.
    map: Option<Arc<str>>,
    /// The traffic lights' states last published (`/carla/traffic_lights/
    /// status`, written when they change), and this tick's, gathered in
    /// a buffer kept from tick to tick.
    lights: Option<Arc<[(u32, u8)]>>,
    lights_now: Vec<(u32, u8)>,
    /// The lights whose `/carla/traffic_lights/info` was last written.
    lights_described: Vec<u32>,
}

/// The library's ROS 2 publishing, one per server. Sensors can be enabled
/// before it starts; nothing goes on DDS until [`Hub::start`].
#[derive(Default)]
pub(crate) struct Hub {
    state: Mutex<State>,
    counters: Arc<Counters>,
    /// Where controls read from DDS go (the RPC endpoint, once bound).
    sink: Arc<Mutex<Option<ControlSink>>>,
}

impl Hub {
    /// Joins DDS as `options` say and starts publishing the enabled
    /// sensors. Starting twice is [`Error::AlreadyStarted`], naming the
    /// domain in use; a domain DDS refuses or a datagram size over
    /// [`Ros2Options::MAX_DATAGRAM`] is [`Error::InvalidArgument`].
    pub(crate) fn start(&self, options: Ros2Options) -> Result<(), Error> {
        if options.other_host_datagram > Ros2Options::MAX_DATAGRAM {
            return Err(Error::InvalidArgument(format!(
                "a ROS 2 datagram of {} bytes is over the {} allowed",
                options.other_host_datagram,
                Ros2Options::MAX_DATAGRAM
            )));
        }
        let mut st = self.state.lock();
        if let Some(r) = &st.running {
            return Err(Error::AlreadyStarted(format!(
                "ROS 2 publishing already runs on DDS domain {}",
                r.domain_id
            )));
        }
        self.start_on(&mut st, options)
            .map_err(Error::InvalidArgument)
    }

    /// `start` once nothing runs: the participant, then the thread.
    fn start_on(&self, st: &mut State, options: Ros2Options) -> Result<(), String> {
        let domain_id = options.domain_id;
        // Made on a bulk thread: DDS's own threads (rustdds' event loop and
        // discovery) inherit its batch policy and nice value, so the game
        // thread gets the CPU first (`crate::threads::spawn_bulk`).
        let dds = crate::threads::spawn_bulk("carla-ros2-start", move || Dds::new(options))
            .map_err(|e| format!("cannot start the ROS 2 thread: {e}"))?
            .join()
            .map_err(|_| "the DDS participant could not be made".to_string())??;
        let queue = Arc::new(ArrayQueue::new(QUEUE));
        let stop = Arc::new(AtomicBool::new(false));
        let (q, s, c, sink) = (
            queue.clone(),
            stop.clone(),
            self.counters.clone(),
            self.sink.clone(),
        );
        let handle = crate::threads::spawn_bulk("carla-ros2", move || {
            worker::run(dds, options, &q, &s, &c, sink)
        })
        .map_err(|e| format!("cannot start the ROS 2 thread: {e}"))?;
        let running = Running {
            queue,
            thread: handle.thread().clone(),
            handle: Some(handle),
            stop,
            domain_id,
        };
        for (id, (names, stream)) in &st.sensors {
            stream.set_tap(Some(self.tap(&running, names.clone(), *id)));
        }
        for (id, vehicle) in &st.vehicles {
            running.push(Job::Vehicle(*id, Some(vehicle.clone())), &self.counters);
        }
        if let Some(text) = &st.map {
            running.push(Job::Map(text.clone()), &self.counters);
        }
        if let Some(lights) = &st.lights {
            running.push(Job::Lights(lights.clone()), &self.counters);
        }
        crate::log_info!("ros2: publishing on DDS domain {}", domain_id);
        st.running = Some(running);
        Ok(())
    }

    /// The DDS domain in use, if publishing.
    pub(crate) fn domain(&self) -> Option<u16> {
        self.state.lock().running.as_ref().map(|r| r.domain_id)
    }

    fn tap(&self, running: &Running, names: Arc<SensorNames>, id: u32) -> Tap {
        let (queue, thread, counters) = (
            running.queue.clone(),
            running.thread.clone(),
            self.counters.clone(),
        );
        let waiting = Arc::new(AtomicUsize::new(0));
        Arc::new(move |msg: &Arc<Message>| {
            // Invariant: at most PER_SENSOR of this sensor's messages wait
            // (a sender that sees fewer adds one; concurrent senders of one
            // sensor may overshoot by their number, never more).
            if waiting.load(Ordering::Acquire) >= PER_SENSOR {
                counters.dropped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            waiting.fetch_add(1, Ordering::AcqRel);
            let job = Job::Sensor(names.clone(), id, msg.clone(), waiting.clone());
            if queue.push(job).is_err() {
                waiting.fetch_sub(1, Ordering::AcqRel);
                counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
            thread.unpark();
        })
    }

    /// Publishes sensor `id` (its `stream`) under `names` from now on.
    pub(crate) fn enable_sensor(&self, id: u32, names: SensorNames, stream: &Stream) {
        let mut st = self.state.lock();
        let names = Arc::new(names);
        if let Some(r) = &st.running {
            stream.set_tap(Some(self.tap(r, names.clone(), id)));
        }
        st.sensors.insert(id, (names, stream.clone()));
    }

    /// Stops publishing sensor `id` (its writers go).
    pub(crate) fn disable_sensor(&self, id: u32) {
        let mut st = self.state.lock();
        if let Some((_, stream)) = st.sensors.remove(&id) {
            stream.set_tap(None);
            if let Some(r) = &st.running {
                r.push(Job::Forget(id), &self.counters);
            }
        }
    }

    pub(crate) fn is_enabled(&self, id: u32) -> bool {
        self.state.lock().sensors.contains_key(&id)
    }

    /// A hero vehicle: its control topic is read from now on, and `info`
    /// is its `vehicle_info`.
    pub(crate) fn register_vehicle(&self, actor_id: u32, ros_name: &str, info: VehicleInfo) {
        let mut st = self.state.lock();
        let vehicle = (ros_name.to_owned(), Arc::new(info));
        if let Some(r) = &st.running {
            r.push(
                Job::Vehicle(actor_id, Some(vehicle.clone())),
                &self.counters,
            );
        }
        st.vehicles.insert(actor_id, vehicle);
    }

    /// Forgets a vehicle (destroyed).
    pub(crate) fn forget_vehicle(&self, actor_id: u32) {
        let mut st = self.state.lock();
        if st.vehicles.remove(&actor_id).is_some() {
            if let Some(r) = &st.running {
                r.push(Job::Vehicle(actor_id, None), &self.counters);
            }
        }
    }

    /// Where controls read from DDS go from now on.
    pub(crate) fn set_control_sink(&self, sink: ControlSink) {
        *self.sink.lock() = Some(sink);
    }

    /// The map's OpenDRIVE text, published on `/carla/map` (now, if
    /// publishing, and whenever publishing starts or rejoins).
    pub(crate) fn set_map(&self, text: &str) {
        let text: Arc<str> = Arc::from(text);
        let mut st = self.state.lock();
        if let Some(r) = &st.running {
            r.push(Job::Map(text.clone()), &self.counters);
        }
        st.map = Some(text);
    }

    /// `/clock` for a tick at `seconds` of simulation time, the traffic
    /// lights' states when they changed (and their poses and trigger
    /// volumes when the set of lights did), the vehicles and walkers on
    /// `/carla/objects`, and each hero vehicle's `odometry`,
    /// `vehicle_status` and frames on `/tf` from its state this tick.
    /// `shape` gives an actor's class and box. While publishing, a tick
    /// allocates the objects' list.
    pub(crate) fn tick(
        &self,
        seconds: f64,
        states: &[ActorState],
        shape: &dyn Fn(u32) -> Option<ActorShape>,
    ) {
        let mut guard = self.state.lock();
        let st = &mut *guard;
        let Some(r) = &st.running else {
            return;
        };
        r.push(Job::Clock(seconds), &self.counters);
        // The lights' states, when they changed (or were never written):
        // allocates only then.
        st.lights_now.clear();
        let lights = states
            .iter()
            .filter(|s| s.kind == CARLA_ACTOR_TRAFFIC_LIGHT);
        (st.lights_now).extend(lights.map(|s| (s.id, s.traffic_light_state)));
        st.lights_now.sort_unstable();
        if st.lights.as_deref() != Some(&st.lights_now[..]) {
            let now: Arc<[(u32, u8)]> = Arc::from(&st.lights_now[..]);
            r.push(Job::Lights(now.clone()), &self.counters);
            st.lights = Some(now);
        }
        let ids = st.lights_now.iter().map(|l| l.0);
        if !ids.eq(st.lights_described.iter().copied()) {
            st.lights_described = st.lights_now.iter().map(|l| l.0).collect();
            r.push(Job::LightsInfo(light_infos(states, shape)), &self.counters);
        }
        r.push(
            Job::Objects(seconds, objects(states, shape)),
            &self.counters,
        );
        if st.vehicles.is_empty() {
            return;
        }
        for s in states.iter().filter(|s| st.vehicles.contains_key(&s.id)) {
            let job = Job::Hero(HeroState {
                actor: s.id,
                seconds,
                transform: s.transform,
                velocity: s.velocity,
                angular: s.angular_velocity,
                acceleration: s.acceleration,
                control: s.vehicle_control,
            });
            r.push(job, &self.counters);
        }
    }

    pub(crate) fn stats(&self) -> Ros2Stats {
        Ros2Stats {
            published: self.counters.published.load(Ordering::Acquire),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            controls: self.counters.controls.load(Ordering::Relaxed),
            rejoins: self.counters.rejoins.load(Ordering::Relaxed),
        }
    }

    /// Leaves DDS: taps removed, the thread joined.
    pub(crate) fn stop(&self) {
        let running = {
            let mut st = self.state.lock();
            for (_, stream) in st.sensors.values() {
                stream.set_tap(None);
            }
            st.running.take()
        };
        if let Some(mut r) = running {
            r.stop.store(true, Ordering::Release);
            r.thread.unpark();
            if let Some(h) = r.handle.take() {
                let _ = h.join();
            }
        }
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The traffic lights of `states`, sorted by id, with their trigger
/// volumes.
fn light_infos(
    states: &[ActorState],
    shape: &dyn Fn(u32) -> Option<ActorShape>,
) -> Arc<[LightInfo]> {
    let mut lights: Vec<LightInfo> = states
        .iter()
        .filter(|s| s.kind == CARLA_ACTOR_TRAFFIC_LIGHT)
        .map(|s| {
            let volume = shape(s.id).unwrap_or_default();
            LightInfo {
                id: s.id,
                transform: s.transform,
                trigger_center: volume.center,
                trigger_extent: volume.extent,
            }
        })
        .collect();
    lights.sort_unstable_by_key(|l| l.id);
    lights.into()
}

/// The vehicles and walkers of `states` as `/carla/objects` lists them.
fn objects(states: &[ActorState], shape: &dyn Fn(u32) -> Option<ActorShape>) -> Arc<[Object]> {
    states
        .iter()
        .filter(|s| s.kind == CARLA_ACTOR_VEHICLE || s.kind == CARLA_ACTOR_WALKER)
        .map(|s| {
            let sh = shape(s.id).unwrap_or_default();
            Object {
                id: s.id,
                class: sh.class,
                transform: s.transform,
                extent: sh.extent,
                velocity: s.velocity,
                angular: s.angular_velocity,
                acceleration: s.acceleration,
            }
        })
        .collect()
}
