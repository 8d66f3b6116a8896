//! The ROS 2 thread and what feeds it. A sensor enabled for ROS gets a tap
//! on its stream: each message the host sends is handed (an `Arc`, no
//! copy) to a bounded lock-free queue, and the `carla-ros2` thread turns it
//! into CDR (one copy of the data) and writes it on DDS. A full queue drops
//! the message for ROS only (counted); the host never waits.

use super::dds::{self, Dds, Reader, Writer};
use super::messages::{self, Cloud, PixelFormat, Stamp};
use crate::rpc::VehicleControl09;
use crate::sensor::SensorType;
use crate::streaming::stream::{Message, Stream, Tap};
use crate::types::ActorTransform;
use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};
use std::time::Duration;

/// Messages waiting for the ROS 2 thread, at most.
const QUEUE: usize = 64;
/// Messages of one sensor waiting, at most: a newer one past this is
/// dropped for ROS, so a slow DDS side holds at most this many of a
/// sensor's payloads (2 × 8 MB for a 1920x1080 camera).
const PER_SENSOR: usize = 2;

/// Where a sensor's topics go, as CARLA 0.9.16 names them.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorNames {
    /// `rt/carla/<parent ros name>/<ros name>` (topics add `/image`,
    /// `/camera_info`, `/point_cloud`, or nothing).
    pub base: String,
    /// The sensor's frame (`ros_frame_id`, else its ros name).
    pub frame_id: String,
    /// Its parent's frame, `map` when it has none.
    pub parent_frame: String,
    /// Whether `/tf` carries its transform.
    pub publish_tf: bool,
    /// Its transform relative to its parent (CARLA units and axes).
    pub transform: ActorTransform,
}

/// Called with a hero vehicle's actor id and the control read for it.
pub(crate) type ControlSink = Arc<dyn Fn(u32, VehicleControl09) + Send + Sync>;

enum Job {
    /// A sensor's message; the counter is its messages waiting.
    Sensor(Arc<SensorNames>, u32, Arc<Message>, Arc<AtomicUsize>),
    Clock(f64),
    Vehicle(u32, Option<String>),
    Forget(u32),
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
}

#[derive(Default)]
struct Counters {
    published: AtomicU64,
    dropped: AtomicU64,
    controls: AtomicU64,
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
    /// Hero vehicles: actor id → ros name.
    vehicles: HashMap<u32, String>,
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
    /// Joins DDS domain `domain_id` and starts publishing the enabled
    /// sensors. Starting twice is an error naming the domain in use.
    pub(crate) fn start(&self, domain_id: u16) -> Result<(), String> {
        let mut st = self.state.lock();
        if let Some(r) = &st.running {
            return Err(format!(
                "ROS 2 publishing already runs on DDS domain {}",
                r.domain_id
            ));
        }
        let dds = Dds::new(domain_id)?;
        let queue = Arc::new(ArrayQueue::new(QUEUE));
        let stop = Arc::new(AtomicBool::new(false));
        let (q, s, c, sink) = (
            queue.clone(),
            stop.clone(),
            self.counters.clone(),
            self.sink.clone(),
        );
        let handle = crate::threads::spawn("carla-ros2", move || run(dds, &q, &s, &c, sink))
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
        for (id, name) in &st.vehicles {
            running.push(Job::Vehicle(*id, Some(name.clone())), &self.counters);
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

    /// A hero vehicle: its control topic is read from now on.
    pub(crate) fn register_vehicle(&self, actor_id: u32, ros_name: &str) {
        let mut st = self.state.lock();
        st.vehicles.insert(actor_id, ros_name.to_owned());
        if let Some(r) = &st.running {
            r.push(
                Job::Vehicle(actor_id, Some(ros_name.to_owned())),
                &self.counters,
            );
        }
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

    /// `/clock` for a tick at `seconds` of simulation time.
    pub(crate) fn tick(&self, seconds: f64) {
        if let Some(r) = &self.state.lock().running {
            r.push(Job::Clock(seconds), &self.counters);
        }
    }

    pub(crate) fn stats(&self) -> Ros2Stats {
        Ros2Stats {
            published: self.counters.published.load(Ordering::Relaxed),
            dropped: self.counters.dropped.load(Ordering::Relaxed),
            controls: self.counters.controls.load(Ordering::Relaxed),
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

/// One sensor's writers, made on its first message.
struct SensorWriters {
    /// (topic name, writer): the data topics, then `/tf` if wanted.
    data: Vec<(String, Writer)>,
    tf: Option<Writer>,
}

const IMAGE: &str = "sensor_msgs::msg::dds_::Image_";
const CAMERA_INFO: &str = "sensor_msgs::msg::dds_::CameraInfo_";
const POINT_CLOUD: &str = "sensor_msgs::msg::dds_::PointCloud2_";
const IMU: &str = "sensor_msgs::msg::dds_::Imu_";
const NAV_SAT_FIX: &str = "sensor_msgs::msg::dds_::NavSatFix_";
const TF_MESSAGE: &str = "tf2_msgs::msg::dds_::TFMessage_";
const CLOCK: &str = "rosgraph_msgs::msg::dds_::Clock_";
const CONTROL: &str = "carla_msgs::msg::dds_::CarlaEgoVehicleControl_";

/// What a sensor type publishes: (suffix, type name) per topic.
fn topics_of(sensor: SensorType) -> &'static [(&'static str, &'static str)] {
    use SensorType as S;
    match sensor {
        S::RgbCamera
        | S::DepthCamera
        | S::SemanticSegmentationCamera
        | S::InstanceSegmentationCamera
        | S::NormalsCamera
        | S::OpticalFlowCamera
        | S::CosmosControl => &[("/image", IMAGE), ("/camera_info", CAMERA_INFO)],
        S::Lidar | S::SemanticLidar | S::Radar => &[("/point_cloud", POINT_CLOUD)],
        S::Imu => &[("", IMU)],
        S::Gnss => &[("", NAV_SAT_FIX)],
        _ => &[],
    }
}

/// The CDR of each topic of a message (same order as `topics_of`).
fn encode(sensor: SensorType, stamp: Stamp, frame: &str, payload: &[u8]) -> Option<Vec<Vec<u8>>> {
    use SensorType as S;
    Some(match sensor {
        S::Lidar => vec![messages::point_cloud(stamp, frame, Cloud::Lidar, payload)?],
        S::SemanticLidar => vec![messages::point_cloud(
            stamp,
            frame,
            Cloud::SemanticLidar,
            payload,
        )?],
        S::Radar => vec![messages::point_cloud(stamp, frame, Cloud::Radar, payload)?],
        S::Imu => vec![messages::imu(stamp, frame, payload)?],
        S::Gnss => vec![messages::nav_sat_fix(stamp, frame, payload)?],
        _ => {
            let format = match sensor {
                S::OpticalFlowCamera => PixelFormat::Flow32fc2,
                _ => PixelFormat::Bgra8,
            };
            let (w, h, fov, _) = messages::image_parts(payload)?;
            vec![
                messages::image(stamp, frame, payload, format)?,
                messages::camera_info(stamp, frame, w, h, fov),
            ]
        }
    })
}

/// The ROS 2 thread.
fn run(
    mut dds: Dds,
    queue: &ArrayQueue<Job>,
    stop: &AtomicBool,
    counters: &Counters,
    sink: Arc<Mutex<Option<ControlSink>>>,
) {
    let mut sensors: HashMap<u32, SensorWriters> = HashMap::new();
    let mut readers: HashMap<u32, (String, Reader)> = HashMap::new();
    let clock = dds.writer("rt/clock", CLOCK);
    let mut warned: HashMap<u64, ()> = HashMap::new();
    while !stop.load(Ordering::Acquire) {
        while let Some(job) = queue.pop() {
            match job {
                Job::Sensor(names, id, msg, waiting) => {
                    match publish(&mut dds, &mut sensors, &names, id, &msg, &mut warned) {
                        Some(true) => counters.published.fetch_add(1, Ordering::Relaxed),
                        Some(false) => counters.dropped.fetch_add(1, Ordering::Relaxed),
                        None => 0,
                    };
                    drop(msg); // its payload goes back to the pool
                    waiting.fetch_sub(1, Ordering::AcqRel);
                }
                Job::Clock(seconds) => {
                    if let Ok(w) = &clock {
                        dds::write(w, "rt/clock", messages::clock(Stamp::from_seconds(seconds)));
                    }
                }
                Job::Forget(id) => {
                    sensors.remove(&id);
                }
                Job::Vehicle(actor, Some(name)) => {
                    let topic = format!("rt/carla/{name}/vehicle_control_cmd");
                    match dds.reader(&topic, CONTROL) {
                        Ok(r) => {
                            readers.insert(actor, (topic, r));
                        }
                        Err(e) => crate::log_error!("ros2: {}", e),
                    }
                }
                Job::Vehicle(actor, None) => {
                    readers.remove(&actor);
                }
            }
        }
        if !readers.is_empty() {
            let sink = sink.lock().clone();
            for (actor, (topic, reader)) in &mut readers {
                read_controls(*actor, topic, reader, sink.as_ref(), counters);
            }
        }
        std::thread::park_timeout(Duration::from_millis(5));
    }
}

/// Writes one sensor message on its topics (and `/tf`): Some(true) if DDS
/// took its data, Some(false) if DDS refused it (a reliable reader behind),
/// None if it has nothing to publish (a sensor type without topics, a
/// malformed payload).
fn publish(
    dds: &mut Dds,
    sensors: &mut HashMap<u32, SensorWriters>,
    names: &SensorNames,
    id: u32,
    msg: &Message,
    warned: &mut HashMap<u64, ()>,
) -> Option<bool> {
    let header = msg.header();
    let kind = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
    let sensor = usize::try_from(kind)
        .ok()
        .and_then(|i| SensorType::ALL.get(i).copied())?;
    let topics = topics_of(sensor);
    if topics.is_empty() {
        if warned.insert(kind, ()).is_none() {
            crate::log_warn!(
                "ros2: {} has no ROS 2 topic here; its data is not published",
                sensor
            );
        }
        return None;
    }
    let seconds = f64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    let stamp = Stamp::from_seconds(seconds);
    let Some(encoded) = encode(sensor, stamp, &names.frame_id, msg.as_ref()) else {
        crate::log_warn!(
            "ros2: a malformed {} message of sensor {} was not published",
            sensor,
            id
        );
        return None;
    };
    if let std::collections::hash_map::Entry::Vacant(slot) = sensors.entry(id) {
        let mut data = Vec::new();
        for (suffix, type_name) in topics {
            let topic = format!("{}{}", names.base, suffix);
            match dds.writer(&topic, type_name) {
                Ok(w) => data.push((topic, w)),
                Err(e) => {
                    crate::log_error!("ros2: {}", e);
                    return None;
                }
            }
        }
        let tf = names
            .publish_tf
            .then(|| dds.writer("rt/tf", TF_MESSAGE))
            .and_then(|w| w.map_err(|e| crate::log_error!("ros2: {}", e)).ok());
        slot.insert(SensorWriters { data, tf });
    }
    let writers = &sensors[&id];
    // CARLA publishes camera_info before the image.
    let mut taken = true;
    for ((topic, w), cdr) in writers.data.iter().zip(encoded).rev() {
        taken &= dds::write(w, topic, cdr);
    }
    if let Some(w) = &writers.tf {
        let tf = messages::tf(
            stamp,
            &names.parent_frame,
            &names.frame_id,
            &names.transform,
        );
        dds::write(w, "rt/tf", tf);
    }
    Some(taken)
}

/// Hands the newest control of a vehicle's topic to the host.
fn read_controls(
    actor: u32,
    topic: &str,
    reader: &mut Reader,
    sink: Option<&ControlSink>,
    counters: &Counters,
) {
    let mut newest = None;
    while let Ok(Some(sample)) = reader.take_next_sample() {
        newest = Some(sample.into_value());
    }
    let Some(received) = newest else {
        return;
    };
    let control = if received.little_endian {
        messages::vehicle_control(&received.bytes).ok()
    } else {
        None
    };
    match (control, sink) {
        (Some(c), Some(sink)) => {
            counters.controls.fetch_add(1, Ordering::Relaxed);
            sink(actor, c);
        }
        (None, _) => crate::log_warn!(
            "ros2: a malformed or big-endian message on {} ({} bytes) was ignored",
            topic,
            received.bytes.len()
        ),
        (Some(_), None) => {}
    }
}
