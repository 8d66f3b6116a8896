//! The world-state topics the ROS 2 thread (`worker.rs`) writes, under
//! carla-ros-bridge's names: `/carla/map`, the traffic lights' `status`
//! and `info`, `/carla/objects`, and each hero vehicle's `odometry`,
//! `vehicle_status`, `vehicle_info` and REP-105 frames on `/tf`.

use super::dds::{Dds, TopicWriter};
use super::messages::{self, LightInfo, Object, Stamp, VehicleInfo};
use crate::episode::VehicleControl09;
use crate::types::{ActorTransform, Vector3D};
use std::collections::HashMap;

/// A hero vehicle's state at a tick.
pub(super) struct HeroState {
    pub(super) actor: u32,
    /// Simulation seconds.
    pub(super) seconds: f64,
    pub(super) transform: ActorTransform,
    /// m/s, deg/s and m/s², CARLA's axes.
    pub(super) velocity: Vector3D,
    pub(super) angular: Vector3D,
    pub(super) acceleration: Vector3D,
    pub(super) control: VehicleControl09,
}

const STRING: &str = "std_msgs::msg::dds_::String_";
const LIGHT_STATUS: &str = "carla_msgs::msg::dds_::CarlaTrafficLightStatusList_";
const LIGHT_INFO: &str = "carla_msgs::msg::dds_::CarlaTrafficLightInfoList_";
const OBJECTS: &str = "derived_object_msgs::msg::dds_::ObjectArray_";
const ODOMETRY: &str = "nav_msgs::msg::dds_::Odometry_";
const VEHICLE_STATUS: &str = "carla_msgs::msg::dds_::CarlaEgoVehicleStatus_";
const VEHICLE_INFO: &str = "carla_msgs::msg::dds_::CarlaEgoVehicleInfo_";
pub(super) const TF_MESSAGE: &str = "tf2_msgs::msg::dds_::TFMessage_";

/// A writer of `type_name` on `topic`, or None (logged).
pub(super) fn writer(dds: &mut Dds, topic: &str, type_name: &str) -> Option<TopicWriter> {
    dds.writer(topic, type_name)
        .map_err(|e| crate::log_error!("ros2: {}", e))
        .ok()
}

/// A hero vehicle's writers and REP-105 frame names.
struct Hero {
    name: String,
    odometry: Option<TopicWriter>,
    status: Option<TopicWriter>,
    /// Kept: its one sample stays for readers that join later.
    _info: Option<TopicWriter>,
    tf: Option<TopicWriter>,
    /// `odom` and `base_link` (prefixed with the name but for `hero`).
    odom: String,
    base_link: String,
}

/// The writers, made when the participant joins.
pub(super) struct StateTopics {
    map: Option<TopicWriter>,
    lights: Option<TopicWriter>,
    lights_info: Option<TopicWriter>,
    objects: Option<TopicWriter>,
    heroes: HashMap<u32, Hero>,
}

impl StateTopics {
    pub(super) fn on(dds: &mut Dds) -> StateTopics {
        StateTopics {
            map: writer(dds, "rt/carla/map", STRING),
            lights: writer(dds, "rt/carla/traffic_lights/status", LIGHT_STATUS),
            lights_info: writer(dds, "rt/carla/traffic_lights/info", LIGHT_INFO),
            objects: writer(dds, "rt/carla/objects", OBJECTS),
            heroes: HashMap::new(),
        }
    }

    /// A hero vehicle's writers; its `vehicle_info` is written now
    /// (transient local: a reader that joins later gets it too).
    pub(super) fn add_hero(&mut self, dds: &mut Dds, actor: u32, name: &str, info: &VehicleInfo) {
        let topic = |suffix: &str| format!("rt/carla/{name}/{suffix}");
        let mut info_writer = writer(dds, &topic("vehicle_info"), VEHICLE_INFO);
        if let Some(w) = &mut info_writer {
            w.write(messages::vehicle_info(info));
        }
        let (odom, base_link) = messages::rep105_frames(name);
        let hero = Hero {
            name: name.to_owned(),
            odometry: writer(dds, &topic("odometry"), ODOMETRY),
            status: writer(dds, &topic("vehicle_status"), VEHICLE_STATUS),
            _info: info_writer,
            tf: writer(dds, "rt/tf", TF_MESSAGE),
            odom,
            base_link,
        };
        self.heroes.insert(actor, hero);
    }

    pub(super) fn remove_hero(&mut self, actor: u32) {
        self.heroes.remove(&actor);
    }

    /// A hero vehicle's `odometry`, `vehicle_status` and frames on `/tf`:
    /// `map` → `odom` (the same place), `odom` → `base_link` (the vehicle's
    /// pose), `base_link` → its ros name (the same place; the frame its
    /// sensors hang from), so REP-105's chain reaches every sensor frame.
    pub(super) fn write_hero(&mut self, h: &HeroState) {
        let Some(hero) = self.heroes.get_mut(&h.actor) else {
            return;
        };
        let stamp = Stamp::from_seconds(h.seconds);
        let t = &h.transform;
        if let Some(w) = &mut hero.odometry {
            w.write(messages::odometry(
                stamp, &hero.name, t, h.velocity, h.angular,
            ));
        }
        if let Some(w) = &mut hero.status {
            let status = messages::VehicleStatus {
                transform: t,
                velocity: h.velocity,
                acceleration: h.acceleration,
                control: &h.control,
            };
            w.write(messages::vehicle_status(stamp, &status));
        }
        if let Some(w) = &mut hero.tf {
            let same = ActorTransform::default();
            w.write(messages::tf_chain(
                stamp,
                &[
                    ("map", &hero.odom, &same),
                    (&hero.odom, &hero.base_link, t),
                    (&hero.base_link, &hero.name, &same),
                ],
            ));
        }
    }

    pub(super) fn write_lights(&mut self, lights: &[(u32, u8)]) {
        if let Some(w) = &mut self.lights {
            w.write(messages::traffic_light_status(lights));
        }
    }

    pub(super) fn write_lights_info(&mut self, lights: &[LightInfo]) {
        if let Some(w) = &mut self.lights_info {
            w.write(messages::traffic_light_info(lights));
        }
    }

    pub(super) fn write_objects(&mut self, seconds: f64, objects: &[Object]) {
        if let Some(w) = &mut self.objects {
            w.write(messages::objects(Stamp::from_seconds(seconds), objects));
        }
    }

    pub(super) fn write_map(&mut self, text: &str) {
        if let Some(w) = &mut self.map {
            w.write(messages::string(text));
        }
    }
}
