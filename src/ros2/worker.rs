//! The `carla-ros2` thread: it turns the sensors' messages into ROS 2
//! messages and writes them on DDS, hands the hero vehicles' controls to
//! the host, and leaves and rejoins the DDS domain when a topic stays
//! blocked (see [`REJOIN_AFTER`]). Only this thread touches DDS.

use super::dds::{Cdr, Dds, Reader, TopicWriter, WINDOW};
use super::messages::{self, Cloud, LightInfo, Object, PixelFormat, Stamp, VehicleInfo};
use super::model::{ControlSink, Ros2Options, RosControl, SensorNames};
use super::state_topics::HeroState;
use super::state_topics::{writer, StateTopics, TF_MESSAGE};
use crate::sensor::SensorType;
use crate::streaming::stream::Message;
use crate::sync::shared_bytes::SharedBytes;
use crossbeam_queue::ArrayQueue;
use parking_lot::Mutex;
use rustdds::bytes::Bytes;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Messages of one sensor waiting, at most: a newer one past this is
/// dropped for ROS, so a slow DDS side holds at most this many of a
/// sensor's payloads (2 × 8 MB for a 1920x1080 camera).
pub(crate) const PER_SENSOR: usize = 2;

/// A published sensor's pooled blocks held away from its sender, at most:
/// PER_SENSOR waiting, one being encoded, and WINDOW samples in DDS (an
/// image's pixels are sent from its block).
pub(crate) const HELD_BLOCKS: usize = PER_SENSOR + 1 + WINDOW;

/// What the ROS 2 thread is asked to do.
pub(super) enum Job {
    /// A sensor's message; the counter is its messages waiting.
    Sensor(Arc<SensorNames>, u32, Arc<Message>, Arc<AtomicUsize>),
    Clock(f64),
    /// The map's OpenDRIVE text, for `/carla/map`.
    Map(Arc<str>),
    /// The traffic lights' `(id, state)`, for `/carla/traffic_lights/status`.
    Lights(Arc<[(u32, u8)]>),
    /// Their poses and trigger volumes, for `/carla/traffic_lights/info`.
    LightsInfo(Arc<[LightInfo]>),
    /// The vehicles and walkers at a tick (simulation seconds), for
    /// `/carla/objects`.
    Objects(f64, Arc<[Object]>),
    /// A hero vehicle's state this tick, for its `odometry`,
    /// `vehicle_status` and `/tf`.
    Hero(HeroState),
    /// A hero vehicle registered (its ros name and `vehicle_info`) or gone.
    Vehicle(u32, Option<Hero>),
    Forget(u32),
}

/// A hero vehicle's ros name and `vehicle_info`.
pub(super) type Hero = (String, Arc<VehicleInfo>);

#[derive(Default)]
pub(super) struct Counters {
    pub(super) published: AtomicU64,
    pub(super) dropped: AtomicU64,
    pub(super) controls: AtomicU64,
    pub(super) rejoins: AtomicU64,
}

/// A writer that has refused every sample this long makes the thread leave
/// the domain and join it again with a new participant. The writers
/// overwrite rather than wait for a reader that does not acknowledge (the
/// patched rustdds' KEEP_LAST writers), so they refuse a sample only while
/// 4 wait unsent on a socket that cannot send; a new participant, with new
/// sockets, is the remedy left. It knows only the live peers, which
/// discover it within a second or so.
///
/// The thread also rejoins when DDS drops a peer with readers of our
/// topics for want of news within its lease (`Dds::lost_a_reading_peer`:
/// under a burst of announcements rustdds drops live peers), at most once
/// every `REJOIN_AFTER`.
const REJOIN_AFTER: Duration = Duration::from_secs(10);
/// How often the writers are checked, and a failed rejoin tried again.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// One sensor's writers, made on its first message.
struct SensorWriters {
    /// The data topics (in `topics_of` order).
    data: Vec<TopicWriter>,
    /// `/tf`, if wanted.
    tf: Option<TopicWriter>,
}

/// The DDS side as joined: a participant, the writers made so far, the
/// hero vehicles' control readers.
struct Joined {
    dds: Dds,
    sensors: HashMap<u32, SensorWriters>,
    readers: HashMap<u32, Vec<ControlReader>>,
    clock: Option<TopicWriter>,
    /// The world's topics (map, lights, objects, heroes).
    state: StateTopics,
}

impl Joined {
    /// Writers and readers on `dds`: `/clock`, the world's topics (with
    /// `map`, the text known so far), and each hero vehicle of `vehicles`
    /// (sensors get theirs on their next message).
    fn on(mut dds: Dds, vehicles: &HashMap<u32, Hero>, map: Option<&str>) -> Joined {
        let clock = writer(&mut dds, "rt/clock", CLOCK);
        let state = StateTopics::on(&mut dds);
        let mut joined = Joined {
            dds,
            sensors: HashMap::new(),
            readers: HashMap::new(),
            clock,
            state,
        };
        for (actor, hero) in vehicles {
            joined.add_vehicle(*actor, hero);
        }
        if let Some(text) = map {
            joined.state.write_map(text);
        }
        joined
    }

    /// A hero vehicle: its control readers and its writers.
    fn add_vehicle(&mut self, actor: u32, (name, info): &Hero) {
        self.add_reader(actor, name);
        self.state.add_hero(&mut self.dds, actor, name, info);
    }

    /// A hero vehicle's control readers, as CARLA's: `vehicle_control_cmd`
    /// and `ackermann_control_cmd`.
    fn add_reader(&mut self, actor: u32, name: &str) {
        let mut readers = Vec::new();
        for (suffix, type_name, ackermann) in [
            ("vehicle_control_cmd", CONTROL, false),
            ("ackermann_control_cmd", ACKERMANN, true),
        ] {
            let topic = format!("rt/carla/{name}/{suffix}");
            match self.dds.reader(&topic, type_name) {
                Ok(reader) => readers.push(ControlReader {
                    topic,
                    reader,
                    ackermann,
                }),
                Err(e) => crate::log_error!("ros2: {}", e),
            }
        }
        self.readers.insert(actor, readers);
    }

    /// The writer that has refused every sample longest, if that is past
    /// [`REJOIN_AFTER`].
    fn blocked(&self, now: Instant) -> Option<(String, Duration)> {
        let sensors = self.sensors.values();
        let writers = sensors.flat_map(|s| s.data.iter().chain(&s.tf));
        writers
            .chain(&self.clock)
            .map(|w| (w.refused_for(now), w))
            .filter(|(d, _)| *d >= REJOIN_AFTER)
            .max_by_key(|(d, _)| *d)
            .map(|(d, w)| (w.topic().to_owned(), d))
    }
}

/// The ROS 2 thread's state: its participant, and what it keeps to
/// publish again after a rejoin.
struct Worker {
    options: Ros2Options,
    joined: Option<Joined>,
    /// Hero vehicles (actor id → ros name and info).
    vehicles: HashMap<u32, Hero>,
    /// The map's text.
    map: Option<Arc<str>>,
    /// The lights' last states and info.
    lights: Option<Arc<[(u32, u8)]>>,
    lights_info: Option<Arc<[LightInfo]>>,
    warned: HashMap<u64, ()>,
    next_check: Instant,
    /// A peer lost (see REJOIN_AFTER); when the last rejoin was.
    peer_lost: bool,
    joined_at: Instant,
}

/// The ROS 2 thread, on `dds` (joined as `options` say) until `stop`.
pub(super) fn run(
    dds: Dds,
    options: Ros2Options,
    queue: &ArrayQueue<Job>,
    stop: &AtomicBool,
    counters: &Counters,
    sink: Arc<Mutex<Option<ControlSink>>>,
) {
    let vehicles = HashMap::new();
    let mut w = Worker {
        options,
        joined: Some(Joined::on(dds, &vehicles, None)),
        vehicles,
        map: None,
        lights: None,
        lights_info: None,
        warned: HashMap::new(),
        next_check: Instant::now() + CHECK_EVERY,
        peer_lost: false,
        joined_at: Instant::now(),
    };
    while !stop.load(Ordering::Acquire) {
        while let Some(job) = queue.pop() {
            w.job(job, counters);
        }
        if let Some(j) = w.joined.as_mut().filter(|j| !j.readers.is_empty()) {
            let sink = sink.lock().clone();
            for (actor, readers) in &mut j.readers {
                for reader in readers {
                    reader.hand_over(*actor, sink.as_ref(), counters);
                }
            }
        }
        w.check(counters);
        std::thread::park_timeout(Duration::from_millis(5));
    }
}

impl Worker {
    /// Publishes or notes one job of the game thread's.
    fn job(&mut self, job: Job, counters: &Counters) {
        match job {
            Job::Sensor(names, id, msg, waiting) => {
                let done = self
                    .joined
                    .as_mut()
                    .map(|j| publish(j, &names, id, &msg, &mut self.warned));
                match done {
                    // Release: what the publish did before (a pool's
                    // reserve) is seen by a reader of the count (Acquire).
                    Some(Some(true)) => counters.published.fetch_add(1, Ordering::Release),
                    Some(None) => 0,
                    _ => counters.dropped.fetch_add(1, Ordering::Relaxed),
                };
                // Its payload goes back to the pool once DDS (an image's pixels)
                // and the TCP streams are done with it.
                drop(msg);
                waiting.fetch_sub(1, Ordering::AcqRel);
            }
            Job::Clock(seconds) => {
                if let Some(w) = self.joined.as_mut().and_then(|j| j.clock.as_mut()) {
                    w.write(messages::clock(Stamp::from_seconds(seconds)));
                }
            }
            Job::Hero(h) => self.on_joined(|j| j.state.write_hero(&h)),
            Job::Lights(now) => {
                self.on_joined(|j| j.state.write_lights(&now));
                self.lights = Some(now);
            }
            Job::LightsInfo(now) => {
                self.on_joined(|j| j.state.write_lights_info(&now));
                self.lights_info = Some(now);
            }
            Job::Objects(seconds, objects) => {
                self.on_joined(|j| j.state.write_objects(seconds, &objects))
            }
            Job::Map(text) => {
                self.on_joined(|j| j.state.write_map(&text));
                self.map = Some(text);
            }
            Job::Forget(id) => self.on_joined(|j| {
                j.sensors.remove(&id);
            }),
            Job::Vehicle(actor, Some(hero)) => {
                self.on_joined(|j| j.add_vehicle(actor, &hero));
                self.vehicles.insert(actor, hero);
            }
            Job::Vehicle(actor, None) => {
                self.vehicles.remove(&actor);
                self.on_joined(|j| {
                    j.readers.remove(&actor);
                    j.state.remove_hero(actor);
                });
            }
        }
    }

    /// Runs `f` on the DDS side, when joined.
    fn on_joined(&mut self, f: impl FnOnce(&mut Joined)) {
        if let Some(j) = &mut self.joined {
            f(j);
        }
    }

    /// Every `CHECK_EVERY`: leaves the domain and joins it again when a
    /// writer has refused every sample for `REJOIN_AFTER` or DDS dropped a
    /// reading peer.
    fn check(&mut self, counters: &Counters) {
        if let Some(j) = &mut self.joined {
            self.peer_lost |= j.dds.lost_a_reading_peer();
        }
        let now = Instant::now();
        if now >= self.next_check {
            self.next_check = now + CHECK_EVERY;
            let blocked = self.joined.as_ref().map(|j| j.blocked(now));
            if let Some(Some((topic, refused))) = &blocked {
                crate::log_warn!(
                    "ros2: {} refused every sample for {:.0} s (its samples wait unsent); \
                     leaving DDS domain {} and joining it again",
                    topic,
                    refused.as_secs_f64(),
                    self.options.domain_id
                );
            }
            let lost = self.peer_lost && now.duration_since(self.joined_at) >= REJOIN_AFTER;
            if lost {
                crate::log_warn!(
                    "ros2: leaving DDS domain {} and joining it again, to be found anew by \
                     the peer DDS dropped",
                    self.options.domain_id
                );
            }
            if lost || !matches!(blocked, Some(None)) {
                drop(self.joined.take()); // leaves the domain before joining anew
                self.joined = rejoin(self.options, &self.vehicles, self.map.as_deref(), counters);
                if let Some(j) = &mut self.joined {
                    if let Some(l) = self.lights.as_deref() {
                        j.state.write_lights(l);
                    }
                    if let Some(l) = self.lights_info.as_deref() {
                        j.state.write_lights_info(l);
                    }
                }
                (self.peer_lost, self.joined_at) = (false, now);
            }
        }
    }
}

/// A new participant as `options` say, or None (logged; tried again later).
fn rejoin(
    options: Ros2Options,
    vehicles: &HashMap<u32, Hero>,
    map: Option<&str>,
    counters: &Counters,
) -> Option<Joined> {
    match Dds::new(options) {
        Ok(dds) => {
            counters.rejoins.fetch_add(1, Ordering::Relaxed);
            crate::log_info!("ros2: joined DDS domain {} again", options.domain_id);
            Some(Joined::on(dds, vehicles, map))
        }
        Err(e) => {
            crate::log_error!("ros2: {}; trying again in {:?}", e, CHECK_EVERY);
            None
        }
    }
}

const IMAGE: &str = "sensor_msgs::msg::dds_::Image_";
const CAMERA_INFO: &str = "sensor_msgs::msg::dds_::CameraInfo_";
const POINT_CLOUD: &str = "sensor_msgs::msg::dds_::PointCloud2_";
const IMU: &str = "sensor_msgs::msg::dds_::Imu_";
const NAV_SAT_FIX: &str = "sensor_msgs::msg::dds_::NavSatFix_";
const CLOCK: &str = "rosgraph_msgs::msg::dds_::Clock_";
const CONTROL: &str = "carla_msgs::msg::dds_::CarlaEgoVehicleControl_";
const ACKERMANN: &str = "ackermann_msgs::msg::dds_::AckermannDriveStamped_";
const COLLISION: &str = "carla_msgs::msg::dds_::CarlaCollisionEvent_";

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
        S::DvsCamera => &[
            ("/point_cloud", POINT_CLOUD),
            ("/image", IMAGE),
            ("/camera_info", CAMERA_INFO),
        ],
        S::Imu => &[("", IMU)],
        S::Gnss => &[("", NAV_SAT_FIX)],
        S::Collision => &[("", COLLISION)],
        _ => &[],
    }
}

/// The CDR of each topic of a message (same order as `topics_of`). An
/// image's pixels are not copied: its CDR's second part is a view of
/// them in `msg`'s pooled buffer.
fn encode(sensor: SensorType, stamp: Stamp, frame: &str, msg: &Arc<Message>) -> Option<Vec<Cdr>> {
    use SensorType as S;
    let payload = (**msg).as_ref();
    Some(match sensor {
        S::Lidar => vec![messages::point_cloud(stamp, frame, Cloud::Lidar, payload)?.into()],
        S::SemanticLidar => {
            vec![messages::point_cloud(stamp, frame, Cloud::SemanticLidar, payload)?.into()]
        }
        S::Radar => vec![messages::point_cloud(stamp, frame, Cloud::Radar, payload)?.into()],
        S::Imu => vec![messages::imu(stamp, frame, payload)?.into()],
        S::Gnss => vec![messages::nav_sat_fix(stamp, frame, payload)?.into()],
        S::Collision => vec![messages::collision_event(stamp, frame, payload)?.into()],
        S::DvsCamera => {
            let (w, h, fov, _) = messages::image_parts(payload)?;
            vec![
                messages::dvs_point_cloud(stamp, frame, payload)?.into(),
                messages::dvs_image(stamp, frame, payload)?.into(),
                messages::camera_info(stamp, frame, w, h, fov).into(),
            ]
        }
        _ => {
            let format = match sensor {
                S::OpticalFlowCamera => PixelFormat::Flow32fc2,
                _ => PixelFormat::Bgra8,
            };
            let (w, h, fov, _) = messages::image_parts(payload)?;
            let (head, pixels) = messages::image_head(stamp, frame, payload, format)?;
            let shared = Bytes::from_owner(SharedBytes::new(msg.clone(), 0)).slice(pixels);
            vec![
                Cdr::in_parts(head, shared),
                messages::camera_info(stamp, frame, w, h, fov).into(),
            ]
        }
    })
}

/// Writes one sensor message on its topics (and `/tf`): Some(true) if DDS
/// took its data, Some(false) if DDS refused it (samples waiting unsent),
/// None if it has nothing to publish (a sensor type without topics, a
/// malformed payload).
fn publish(
    joined: &mut Joined,
    names: &SensorNames,
    id: u32,
    msg: &Arc<Message>,
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
    let Some(encoded) = encode(sensor, stamp, &names.frame_id, msg) else {
        crate::log_warn!(
            "ros2: a malformed {} message of sensor {} was not published",
            sensor,
            id
        );
        return None;
    };
    let dds = &mut joined.dds;
    if let std::collections::hash_map::Entry::Vacant(slot) = joined.sensors.entry(id) {
        // Up to HELD_BLOCKS of the sensor's blocks will now be held here
        // and by DDS, besides the one its sender fills: its pool gets them
        // now, from this thread, rather than the game thread allocating
        // them one by one (fresh pages, milliseconds each for a camera's)
        // over the next frames.
        msg.reserve_in_pool(HELD_BLOCKS);
        let mut data = Vec::new();
        for (suffix, type_name) in topics {
            match dds.writer(&format!("{}{}", names.base, suffix), type_name) {
                Ok(w) => data.push(w),
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
    let writers = joined.sensors.get_mut(&id).expect("made above");
    // CARLA publishes camera_info before the image.
    let mut taken = true;
    for (w, cdr) in writers.data.iter_mut().zip(encoded).rev() {
        taken &= w.write(cdr);
    }
    if let Some(w) = &mut writers.tf {
        let tf = messages::tf(
            stamp,
            &names.parent_frame,
            &names.frame_id,
            &names.transform,
        );
        w.write(tf);
    }
    Some(taken)
}

/// A control topic of a hero vehicle.
struct ControlReader {
    topic: String,
    reader: Reader,
    /// `AckermannDriveStamped`, else `CarlaEgoVehicleControl`.
    ackermann: bool,
}

impl ControlReader {
    /// Hands the newest control read to the host.
    fn hand_over(&mut self, actor: u32, sink: Option<&ControlSink>, counters: &Counters) {
        let mut newest = None;
        while let Ok(Some(sample)) = self.reader.take_next_sample() {
            newest = Some(sample.into_value());
        }
        let Some(received) = newest else {
            return;
        };
        let bytes = &received.bytes;
        let control = match (received.little_endian, self.ackermann) {
            (false, _) => None,
            (true, false) => messages::vehicle_control(bytes)
                .ok()
                .map(RosControl::Vehicle),
            (true, true) => messages::ackermann_drive(bytes)
                .ok()
                .map(RosControl::Ackermann),
        };
        match (control, sink) {
            (Some(c), Some(sink)) => {
                counters.controls.fetch_add(1, Ordering::Relaxed);
                sink(actor, c);
            }
            (None, _) => crate::log_warn!(
                "ros2: a malformed or big-endian message on {} ({} bytes) was ignored",
                self.topic,
                bytes.len()
            ),
            (Some(_), None) => {}
        }
    }
}
