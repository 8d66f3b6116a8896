//! What the library itself knows of the 0.9 world, so that calls which do
//! not need the engine are answered on the RPC threads: the blueprint
//! library, the live actors (id, parent, description, bounding box, sensor
//! stream), the settings and weather last applied, the map.

use super::error::RpcError;
use super::physics::VehiclePhysicsControl;
use crate::episode::{
    ActorBox, BoneTransform, EpisodeSettings, VehicleControl09, VehicleTelemetry, Weather,
    DEFAULT_WEATHER,
};
use crate::sensor::blueprint::{AttributeType, DEFINITIONS};
use crate::sensor::compose;
use crate::types::{ActorTransform, Vector3D};
use parking_lot::{Condvar, Mutex, RwLock};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `ActorAttributeType` of the 0.9.16 client (1-based), defined once with
/// the C API's names.
pub use crate::episode::{
    CARLA_RPC_ATTRIBUTE_BOOL as ATTR_BOOL, CARLA_RPC_ATTRIBUTE_FLOAT as ATTR_FLOAT,
    CARLA_RPC_ATTRIBUTE_INT as ATTR_INT, CARLA_RPC_ATTRIBUTE_RGB as ATTR_RGB,
    CARLA_RPC_ATTRIBUTE_STRING as ATTR_STRING,
};

/// The attributes CARLA 0.9.16 adds to every blueprint: (id, type,
/// default).
pub(crate) const ROS_ATTRIBUTES: [(&str, u8, &str); 3] = [
    ("ros_name", ATTR_STRING, ""),
    ("ros_frame_id", ATTR_STRING, ""),
    ("ros_publish_tf", ATTR_BOOL, "true"),
];

/// Whether `key` is one of them (not a sensor setting).
pub(crate) fn is_ros_attribute(key: &str) -> bool {
    ROS_ATTRIBUTES.iter().any(|(k, _, _)| *k == key)
}

/// The three as blueprint attributes, for a blueprint that lacks them.
pub(crate) fn blueprint_attributes() -> impl Iterator<Item = BlueprintAttribute> {
    ROS_ATTRIBUTES
        .iter()
        .map(|(id, kind, value)| BlueprintAttribute {
            id: (*id).into(),
            kind: *kind,
            value: (*value).into(),
            recommended: vec![(*value).into()],
            modifiable: true,
            restricted: false,
        })
}

/// One attribute of a blueprint.
#[derive(Clone, Debug, PartialEq)]
pub struct BlueprintAttribute {
    pub id: String,
    /// `ATTR_BOOL` … `ATTR_RGB`.
    pub kind: u8,
    /// Default value, as text that parses as `kind`.
    pub value: String,
    /// Recommended values (scripts pick from them).
    pub recommended: Vec<String>,
    pub modifiable: bool,
    /// Whether the client refuses values that are not recommended.
    pub restricted: bool,
}

/// A blueprint of the library (`get_actor_definitions`).
#[derive(Clone, Debug, PartialEq)]
pub struct Blueprint {
    pub id: String,
    pub attributes: Vec<BlueprintAttribute>,
    /// Bounding box of actors made from it.
    pub bounding_box: ActorBox,
    /// Whether the library makes a sensor (with a stream) for it.
    pub library_sensor: bool,
    /// A vehicle's physics as its actors start (`get_physics_control`;
    /// wheel positions local, metres, as
    /// [`VehiclePhysicsControl::default_for`] places them). `None`: that
    /// default for its box and `number_of_wheels`.
    pub physics: Option<Box<VehiclePhysicsControl>>,
}

fn role_name() -> BlueprintAttribute {
    BlueprintAttribute {
        id: "role_name".into(),
        kind: ATTR_STRING,
        value: String::new(),
        recommended: Vec::new(),
        modifiable: true,
        restricted: false,
    }
}

/// The blueprint of the walker controller: the client drives it (a crowd
/// on the navigation mesh, `set_navigation`); the server only keeps the
/// actor, attached to its walker.
pub(crate) const WALKER_CONTROLLER: &str = "controller.ai.walker";

/// The library's blueprints: its sensors and the walker controller.
fn library_blueprints() -> Vec<Blueprint> {
    let mut all = sensor_blueprints();
    all.push(Blueprint {
        id: WALKER_CONTROLLER.into(),
        attributes: vec![role_name()],
        bounding_box: ActorBox::default(),
        library_sensor: false,
        physics: None,
    });
    all
}

/// The library's own sensor blueprints, with `role_name` added as CARLA has.
fn sensor_blueprints() -> Vec<Blueprint> {
    DEFINITIONS
        .iter()
        .map(|d| Blueprint {
            id: d.id.to_owned(),
            attributes: d
                .attributes
                .iter()
                .map(|a| BlueprintAttribute {
                    id: a.id.to_owned(),
                    kind: match a.ty {
                        AttributeType::Bool => ATTR_BOOL,
                        AttributeType::Int => ATTR_INT,
                        AttributeType::Float => ATTR_FLOAT,
                        AttributeType::String => ATTR_STRING,
                    },
                    value: a.default.to_owned(),
                    // As CARLA's variations: the allowed values, or else the
                    // default as the one recommended value (scripts read
                    // `recommended_values[0]`).
                    recommended: if a.allowed.is_empty() {
                        vec![a.default.to_owned()]
                    } else {
                        a.allowed.iter().map(|s| (*s).to_owned()).collect()
                    },
                    modifiable: true,
                    restricted: !a.allowed.is_empty(),
                })
                .chain(std::iter::once(role_name()))
                .collect(),
            bounding_box: ActorBox::default(),
            library_sensor: true,
            physics: None,
        })
        .collect()
}

/// The error for an actor id the world does not know.
pub(crate) fn unknown_actor(id: u32) -> RpcError {
    RpcError::UnknownActor(id)
}

/// What an actor is, parsed once from its blueprint id when it is added
/// (a host that spawns what clients ask for parses it with [`ActorKind::of`]
/// too, rather than testing the id's prefix).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ActorKind {
    /// `vehicle.*`
    Vehicle,
    /// `walker.*` (not the walkers' AI controllers, `controller.ai.walker`).
    Walker,
    /// `traffic.traffic_light*`
    TrafficLight,
    /// Other `traffic.*` (signs, stops, yields).
    TrafficSign,
    /// `sensor.*`
    Sensor,
    /// The spectator, controllers, props.
    #[default]
    Other,
}

impl ActorKind {
    /// The kind of blueprint id `blueprint` (`vehicle.*`, `walker.*`, ...).
    pub fn of(blueprint: &str) -> ActorKind {
        let family = blueprint.split('.').next().unwrap_or("");
        match family {
            "vehicle" => ActorKind::Vehicle,
            "walker" => ActorKind::Walker,
            "traffic" if blueprint.starts_with("traffic.traffic_light") => ActorKind::TrafficLight,
            "traffic" => ActorKind::TrafficSign,
            "sensor" => ActorKind::Sensor,
            _ => ActorKind::Other,
        }
    }
}

/// A live actor.
#[derive(Clone, Debug, Default)]
pub(crate) struct Actor {
    pub(crate) id: u32,
    pub(crate) parent: u32,
    /// What it is ([`ActorKind::of`] its blueprint).
    pub(crate) kind: ActorKind,
    /// Index into the blueprint list + 1 (the definition's uid).
    pub(crate) uid: u32,
    pub(crate) blueprint: String,
    /// `(id, type, value)` as spawned.
    pub(crate) attributes: Vec<(String, u8, String)>,
    pub(crate) bounding_box: ActorBox,
    /// The library sensor's id (= its stream id), 0 for other actors.
    pub(crate) sensor: u32,
    /// Relative to the parent if attached, else the world transform at
    /// spawn (the host's actors: [`Actor::current_transform`] since).
    pub(crate) transform: ActorTransform,
    /// Vehicles: `carla.VehicleLightState` flags a client set.
    pub(crate) light_state: u32,
    /// Sensors: whether clients get the stream token with the actor (only
    /// for data a stock client can decode, or when asked for).
    pub(crate) token_for_clients: bool,
    /// Vehicles: the physics control a client applied (`None`: the
    /// defaults, see [`super::physics`]).
    pub(crate) physics: Option<Box<VehiclePhysicsControl>>,
    /// Vehicles: the Ackermann controller gains a client applied (`None`:
    /// CARLA's defaults).
    pub(crate) ackermann: Option<[f32; 6]>,
    /// The host's actors: what the last episode state said of it.
    pub(crate) last: LastState,
    /// The client connection that spawned it (0: the host's).
    pub(crate) owner: u64,
    /// Sensors: what it counts per tick in its owner's budget.
    pub(crate) frame_bytes: u64,
}

/// What the last episode state said of a host actor.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Seen {
    pub(crate) transform: ActorTransform,
    /// m/s.
    pub(crate) velocity: Vector3D,
    /// Vehicles: the control the state carried (zero for others).
    pub(crate) control: VehicleControl09,
}

impl Seen {
    /// The velocity along the actor's heading, m/s.
    pub(crate) fn forward_speed(&self) -> f32 {
        let r = &self.transform.rotation;
        let (yaw, pitch) = (r.yaw.to_radians(), r.pitch.to_radians());
        let v = self.velocity;
        pitch.cos() * (yaw.cos() * v.x + yaw.sin() * v.y) + pitch.sin() * v.z
    }
}

/// A host actor's last episode state, written by the tick under the actor
/// table's read lock, read by RPC threads; a vehicle's telemetry and a
/// walker's bones as the host last reported them.
#[derive(Debug, Default)]
pub(crate) struct LastState {
    seen: Mutex<Option<Seen>>,
    telemetry: Mutex<Option<Box<VehicleTelemetry>>>,
    bones: Mutex<BoneReports>,
}

/// A walker's bones as the host last reported them, and how many reports
/// came: a call asks the host and reads the bones only if a report came
/// since it asked.
#[derive(Clone, Debug, Default)]
struct BoneReports {
    reports: u64,
    last: Option<Arc<[BoneTransform]>>,
}

impl LastState {
    pub(crate) fn set(&self, seen: Seen) {
        *self.seen.lock() = Some(seen);
    }
    pub(crate) fn get(&self) -> Option<Seen> {
        *self.seen.lock()
    }
    pub(crate) fn set_telemetry(&self, t: &VehicleTelemetry) {
        let mut slot = self.telemetry.lock();
        match slot.as_mut() {
            Some(b) => **b = *t,
            None => *slot = Some(Box::new(*t)),
        }
    }
    pub(crate) fn telemetry(&self) -> Option<VehicleTelemetry> {
        self.telemetry.lock().as_deref().copied()
    }
    /// Keeps a report of the walker's bones (checked by the caller).
    pub(crate) fn set_bones(&self, bones: &[BoneTransform]) {
        let mut b = self.bones.lock();
        b.reports += 1;
        b.last = Some(bones.into());
    }
    /// How many bone reports came so far.
    pub(crate) fn bone_reports(&self) -> u64 {
        self.bones.lock().reports
    }
    /// The bones last reported, if more than `seen` reports came (one
    /// since the caller read [`LastState::bone_reports`]).
    pub(crate) fn bones_since(&self, seen: u64) -> Option<Arc<[BoneTransform]>> {
        let b = self.bones.lock();
        (b.reports > seen).then(|| b.last.clone()).flatten()
    }
}

impl Clone for LastState {
    fn clone(&self) -> LastState {
        LastState {
            seen: Mutex::new(self.get()),
            telemetry: Mutex::new(self.telemetry.lock().clone()),
            bones: Mutex::new(self.bones.lock().clone()),
        }
    }
}

impl Actor {
    /// Its world transform as last known (the last episode state; for
    /// actors the host does not report, the spawn transform).
    pub(crate) fn current_transform(&self) -> ActorTransform {
        self.last.get().map_or(self.transform, |s| s.transform)
    }

    /// Its speed along its heading in the last episode state, m/s (0
    /// before one).
    pub(crate) fn forward_speed(&self) -> f32 {
        self.last.get().map_or(0.0, |s| s.forward_speed())
    }

    /// Its steer in the last episode state (0 before one).
    pub(crate) fn steer(&self) -> f32 {
        self.last.get().map_or(0.0, |s| s.control.steer)
    }

    /// Its physics control now: the applied one or the defaults, wheels
    /// placed in the world.
    pub(crate) fn physics_control(&self) -> VehiclePhysicsControl {
        self.local_physics_control()
            .placed(&self.current_transform())
    }

    /// [`Actor::physics_control`] with the wheels where the library keeps
    /// them: metres, from the box's centre, in the vehicle's frame.
    pub(crate) fn local_physics_control(&self) -> VehiclePhysicsControl {
        let wheels = self
            .attributes
            .iter()
            .find(|(k, _, _)| k == "number_of_wheels")
            .and_then(|(_, _, v)| v.parse().ok())
            .unwrap_or(4);
        match &self.physics {
            Some(c) => (**c).clone(),
            None => VehiclePhysicsControl::default_for(self.bounding_box.extent, wheels),
        }
    }
}

/// The map as the host describes it.
#[derive(Clone, Debug, Default)]
pub(crate) struct MapInfo {
    pub(crate) name: String,
    pub(crate) spawn_points: Vec<ActorTransform>,
    pub(crate) opendrive: String,
    /// The navigation file clients download: its name (under `Nav/`, with
    /// a hash of the content, since clients cache files by name for ever)
    /// and bytes.
    pub(crate) navigation: Option<(String, std::sync::Arc<[u8]>)>,
}

pub(crate) struct World {
    pub(crate) blueprints: RwLock<Vec<Blueprint>>,
    pub(crate) actors: RwLock<BTreeMap<u32, Actor>>,
    next_actor: AtomicU32,
    pub(crate) episode_id: AtomicU64,
    pub(crate) settings: Mutex<EpisodeSettings>,
    pub(crate) weather: Mutex<Weather>,
    pub(crate) map: RwLock<MapInfo>,
    /// The maps clients may load, bare names as the host gave them
    /// (`set_available_maps`); `None`: the host never said (the current
    /// map only).
    pub(crate) available_maps: RwLock<Option<Vec<String>>>,
    /// A world built from a client's OpenDRIVE text exists: `OpenDriveMap`
    /// may be loaded.
    pub(crate) opendrive_world: AtomicBool,
    /// Whether the next episode states tell clients the map changed.
    pub(crate) map_change: Mutex<super::map_change::MapChange>,
    /// Frame of the last episode state sent (0: none yet).
    pub(crate) last_frame: AtomicU64,
    /// Episode states composed (counted while the actor list is read) and
    /// sent: a state numbered above the count seen when an actor was added
    /// includes it.
    pub(crate) states_composed: AtomicU64,
    states_sent: AtomicU64,
    /// Notified after each episode state is sent.
    state_sent: (Mutex<()>, Condvar),
    /// `world.get/set_imui_sensor_gravity`, m/s² (f32 bits).
    pub(crate) imu_gravity: AtomicU32,
    /// Traffic-light groups the host described: each light's group.
    pub(crate) light_groups: RwLock<BTreeMap<u32, std::sync::Arc<[u32]>>>,
    pub(crate) spectator: u32,
}

impl World {
    pub(crate) fn new() -> World {
        let world = World {
            blueprints: RwLock::new(library_blueprints()),
            actors: RwLock::new(BTreeMap::new()),
            next_actor: AtomicU32::new(1),
            episode_id: AtomicU64::new(1),
            settings: Mutex::new(EpisodeSettings::default()),
            weather: Mutex::new(DEFAULT_WEATHER),
            map: RwLock::new(MapInfo {
                name: "Carla/Maps/Headless".into(),
                ..Default::default()
            }),
            available_maps: RwLock::new(None),
            opendrive_world: AtomicBool::new(false),
            map_change: Mutex::default(),
            last_frame: AtomicU64::new(0),
            states_composed: AtomicU64::new(0),
            states_sent: AtomicU64::new(0),
            state_sent: (Mutex::new(()), Condvar::new()),
            imu_gravity: AtomicU32::new(9.81f32.to_bits()),
            light_groups: RwLock::new(BTreeMap::new()),
            spectator: 1,
        };
        let id = world.new_actor_id();
        world.actors.write().insert(
            id,
            Actor {
                id,
                parent: 0,
                uid: 0,
                kind: ActorKind::Other,
                blueprint: "spectator".into(),
                attributes: Vec::new(),
                bounding_box: ActorBox::default(),
                sensor: 0,
                transform: ActorTransform::default(),
                light_state: 0,
                token_for_clients: false,
                physics: None,
                ackermann: None,
                last: LastState::default(),
                owner: 0,
                frame_bytes: 0,
            },
        );
        world
    }

    /// Records that state number `seq` (of `frame`) went out; wakes who
    /// waits.
    pub(crate) fn state_sent(&self, frame: u64, seq: u64) {
        let _guard = self.state_sent.0.lock();
        self.last_frame.store(frame, Ordering::Relaxed);
        self.states_sent.fetch_max(seq, Ordering::Relaxed);
        self.state_sent.1.notify_all();
    }

    /// Waits (up to `bound`) until a state numbered above `seq` is sent.
    /// False on time-out.
    pub(crate) fn wait_for_state_after(&self, seq: u64, bound: Duration) -> bool {
        let deadline = Instant::now() + bound;
        let mut guard = self.state_sent.0.lock();
        while self.states_sent.load(Ordering::Relaxed) <= seq {
            if self
                .state_sent
                .1
                .wait_until(&mut guard, deadline)
                .timed_out()
            {
                return false;
            }
        }
        true
    }

    /// A fresh id for an actor a client spawns: the next one not used by
    /// a live actor (the host's own actors take ids of their choice).
    pub(crate) fn new_actor_id(&self) -> u32 {
        let actors = self.actors.read();
        loop {
            let id = self.next_actor.fetch_add(1, Ordering::Relaxed);
            if id != 0 && !actors.contains_key(&id) {
                return id;
            }
        }
    }

    /// `id` if it is not 0, not in use and below the next fresh id.
    pub(crate) fn free_id_below_next(&self, id: u32) -> Option<u32> {
        let actors = self.actors.read();
        (id != 0 && id < self.next_actor.load(Ordering::Relaxed) && !actors.contains_key(&id))
            .then_some(id)
    }

    /// Makes an actor of the host's known to clients (listed by
    /// `get_actors_by_id`, destroyable): id `id` (not in use), made from
    /// blueprint `blueprint` with `attributes` over its defaults.
    pub(crate) fn add_host_actor(
        &self,
        id: u32,
        blueprint: &str,
        attributes: &[(&str, &str)],
        transform: ActorTransform,
    ) -> Result<(), String> {
        let attributes_given = attributes;
        let (uid, bp) = self
            .blueprint(blueprint)
            .ok_or_else(|| format!("unknown blueprint {blueprint:?} (add it first)"))?;
        let mut actors = self.actors.write();
        if id == 0 || actors.contains_key(&id) {
            return Err(format!("actor id {id} is 0 or in use"));
        }
        let mut attributes: Vec<(String, u8, String)> = bp
            .attributes
            .iter()
            .map(|a| {
                let value = attributes
                    .iter()
                    .find(|(k, _)| *k == a.id)
                    .map_or(a.value.as_str(), |(_, v)| *v);
                (a.id.clone(), a.kind, value.to_owned())
            })
            .collect();
        // CARLA's ROS 2 attributes, which every blueprint has on the wire.
        for (key, kind, _) in ROS_ATTRIBUTES {
            let given = attributes_given.iter().find(|(k, _)| *k == key);
            if let (Some((_, v)), false) = (given, attributes.iter().any(|(k, _, _)| k == key)) {
                attributes.push((key.to_owned(), kind, (*v).to_owned()));
            }
        }
        actors.insert(
            id,
            Actor {
                id,
                parent: 0,
                uid,
                kind: ActorKind::of(&bp.id),
                blueprint: bp.id,
                attributes,
                bounding_box: bp.bounding_box,
                sensor: 0,
                transform,
                light_state: 0,
                token_for_clients: false,
                physics: bp.physics,
                ackermann: None,
                last: LastState::default(),
                owner: 0,
                frame_bytes: 0,
            },
        );
        Ok(())
    }

    /// Adds (or replaces, by id) a blueprint of the host's.
    pub(crate) fn add_blueprint(&self, bp: Blueprint) {
        let mut list = self.blueprints.write();
        match list.iter_mut().find(|b| b.id == bp.id) {
            Some(old) => *old = bp,
            None => list.push(bp),
        }
    }

    /// The blueprint with this id and its uid.
    pub(crate) fn blueprint(&self, id: &str) -> Option<(u32, Blueprint)> {
        let list = self.blueprints.read();
        let i = list.iter().position(|b| b.id == id)?;
        Some((i as u32 + 1, list[i].clone()))
    }

    /// The world transform of actor `a` given the world transforms of this
    /// tick (`lookup`), following parents up to 8 levels. Rotations of
    /// attached actors are added angle by angle (exact for the usual yaw
    /// and small pitch/roll offsets).
    pub(crate) fn world_transform(
        actors: &BTreeMap<u32, Actor>,
        a: &Actor,
        lookup: &impl Fn(u32) -> Option<ActorTransform>,
    ) -> ActorTransform {
        let mut t = a.transform;
        let mut parent = a.parent;
        for _ in 0..8 {
            if parent == 0 {
                break;
            }
            let p = match (lookup(parent), actors.get(&parent)) {
                (Some(world), _) => {
                    return compose(&world, &t);
                }
                (None, Some(p)) => p,
                (None, None) => break,
            };
            t = compose(&p.transform, &t);
            parent = p.parent;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32, z: f32) -> Vector3D {
        Vector3D { x, y, z }
    }

    #[test]
    fn a_blueprint_id_is_parsed_into_its_kind() {
        for (id, kind) in [
            ("vehicle.tesla.model3", ActorKind::Vehicle),
            ("walker.pedestrian.0001", ActorKind::Walker),
            ("controller.ai.walker", ActorKind::Other),
            ("traffic.traffic_light", ActorKind::TrafficLight),
            ("traffic.stop", ActorKind::TrafficSign),
            ("sensor.camera.rgb", ActorKind::Sensor),
            ("spectator", ActorKind::Other),
            ("vehicles.not_a_family", ActorKind::Other),
            ("", ActorKind::Other),
        ] {
            assert_eq!(ActorKind::of(id), kind, "{id}");
        }
    }
    use crate::types::{Rotation3D, Vector3D};

    #[test]
    fn every_library_blueprint_value_parses_as_its_type() {
        // The client refuses the whole library if one value does not: it
        // reads ints as int32, floats as float and bools as true/false.
        let world = World::new();
        let list = world.blueprints.read();
        for b in list.iter() {
            for a in &b.attributes {
                let ok = match a.kind {
                    ATTR_BOOL => a.value == "true" || a.value == "false",
                    ATTR_INT => a.value.parse::<i32>().is_ok(),
                    ATTR_FLOAT => a.value.parse::<f32>().is_ok_and(f32::is_finite),
                    ATTR_STRING => true,
                    _ => false,
                };
                assert!(ok, "{}.{} = {:?}", b.id, a.id, a.value);
                assert!(
                    !a.restricted || a.recommended.contains(&a.value),
                    "{}",
                    a.id
                );
            }
        }
        // Every sensor blueprint is listed with all its attributes and
        // role_name, then the walker controller.
        assert_eq!(list.len(), DEFINITIONS.len() + 1);
        assert_eq!(list[DEFINITIONS.len()].id, WALKER_CONTROLLER);
        assert!(!list[DEFINITIONS.len()].library_sensor);
        for (b, d) in list.iter().zip(DEFINITIONS) {
            assert_eq!(
                (b.id.as_str(), b.attributes.len()),
                (d.id, d.attributes.len() + 1)
            );
            assert!(b.library_sensor && b.attributes.iter().any(|a| a.id == "role_name"));
        }
        let find = |id: &str| list.iter().find(|b| b.id == id).unwrap();
        let radar = find("sensor.other.radar");
        let range = radar.attributes.iter().find(|a| a.id == "range").unwrap();
        assert_eq!((range.kind, range.value.as_str()), (ATTR_FLOAT, "100"));
        let obstacle = find("sensor.other.obstacle");
        let only = obstacle.attributes.iter().find(|a| a.id == "only_dynamics");
        assert_eq!(
            only.map(|a| (a.kind, a.value.as_str())),
            Some((ATTR_BOOL, "false"))
        );
        let ids: Vec<&str> = find("sensor.other.collision")
            .attributes
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        assert_eq!(ids, ["role_name"]);
        assert_eq!(find("sensor.camera.rgb").attributes.len(), 42);
    }

    #[test]
    fn an_attached_sensor_follows_its_parent() {
        let parent = ActorTransform {
            location: v(10.0, 0.0, 0.0),
            rotation: Rotation3D {
                yaw: 90.0,
                ..Default::default()
            },
        };
        let rel = ActorTransform {
            location: v(2.0, 0.0, 1.0),
            ..Default::default()
        };
        let w = compose(&parent, &rel);
        assert!((w.location.x - 10.0).abs() < 1e-4, "{w:?}");
        assert!((w.location.y - 2.0).abs() < 1e-4, "{w:?}");
        assert!((w.location.z - 1.0).abs() < 1e-4, "{w:?}");
        assert_eq!(w.rotation.yaw, 90.0);
    }
}
