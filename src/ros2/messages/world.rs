//! The world's state for an autonomy stack, under carla-ros-bridge's names
//! and types: a hero vehicle's `vehicle_info`, the actors around
//! (`/carla/objects`), the traffic lights' poses and trigger volumes
//! (`/carla/traffic_lights/info`) and the REP-105 frames on `/tf`. Values
//! are in SI units and ROS's axes (y negated, as everywhere in the
//! library's ROS 2 messages).

use super::{header, pose, vector3, Stamp};
use crate::ros2::cdr::Writer;
use crate::types::{ActorTransform, Vector3D};

/// One wheel of [`VehicleInfo`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct WheelInfo {
    pub(crate) tire_friction: f32,
    pub(crate) damping_rate: f32,
    /// Radians.
    pub(crate) max_steer_angle: f32,
    /// Metres.
    pub(crate) radius: f32,
    /// N·m.
    pub(crate) max_brake_torque: f32,
    pub(crate) max_handbrake_torque: f32,
    /// Metres, in the vehicle's frame (CARLA's axes; converted when sent).
    pub(crate) position: Vector3D,
}

/// What `carla_msgs/CarlaEgoVehicleInfo` says of a hero vehicle: its
/// identity and its physics control, as a client's
/// `get_physics_control()` reads it when the vehicle is registered.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct VehicleInfo {
    pub(crate) id: u32,
    /// The blueprint id (`vehicle.tesla.model3`).
    pub(crate) type_id: String,
    /// Its `role_name` attribute.
    pub(crate) role_name: String,
    pub(crate) wheels: Vec<WheelInfo>,
    pub(crate) max_rpm: f32,
    pub(crate) moi: f32,
    pub(crate) damping_rate_full_throttle: f32,
    pub(crate) damping_rate_zero_throttle_clutch_engaged: f32,
    pub(crate) damping_rate_zero_throttle_clutch_disengaged: f32,
    pub(crate) use_gear_autobox: bool,
    pub(crate) gear_switch_time: f32,
    pub(crate) clutch_strength: f32,
    /// kg.
    pub(crate) mass: f32,
    pub(crate) drag_coefficient: f32,
    /// Metres, in the vehicle's frame (CARLA's axes).
    pub(crate) center_of_mass: Vector3D,
}

/// `derived_object_msgs/Object` classifications (its constants).
pub(crate) mod class {
    pub(crate) const UNKNOWN: u8 = 0;
    pub(crate) const PEDESTRIAN: u8 = 4;
    pub(crate) const BIKE: u8 = 5;
    pub(crate) const CAR: u8 = 6;
    pub(crate) const TRUCK: u8 = 7;
    pub(crate) const MOTORCYCLE: u8 = 8;
    pub(crate) const OTHER_VEHICLE: u8 = 9;
}

/// One actor of `/carla/objects` at a tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Object {
    pub(crate) id: u32,
    /// One of [`class`].
    pub(crate) class: u8,
    /// Its bounding box's centre in the world (the pose's position) and
    /// the actor's rotation.
    pub(crate) transform: ActorTransform,
    /// Half sizes, metres.
    pub(crate) extent: Vector3D,
    /// World velocity (m/s), angular velocity (deg/s), acceleration
    /// (m/s²), CARLA's axes.
    pub(crate) velocity: Vector3D,
    pub(crate) angular: Vector3D,
    pub(crate) acceleration: Vector3D,
}

/// One traffic light of `/carla/traffic_lights/info`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LightInfo {
    pub(crate) id: u32,
    pub(crate) transform: ActorTransform,
    /// Its trigger volume: centre (relative to the light, metres) and half
    /// sizes.
    pub(crate) trigger_center: Vector3D,
    pub(crate) trigger_extent: Vector3D,
}

/// A vector in CARLA's axes as ROS's (y negated).
fn ros(w: &mut Writer, v: Vector3D) {
    vector3(w, [f64::from(v.x), -f64::from(v.y), f64::from(v.z)]);
}

/// An angular velocity (deg/s, CARLA's left-handed axes) in rad/s, ROS's
/// axes: y flips, and so do the senses of the rotations about x and z.
fn ros_angular(w: &mut Writer, v: Vector3D) {
    let r = |d: f32| f64::from(d.to_radians());
    vector3(w, [-r(v.x), r(v.y), -r(v.z)]);
}

/// A box's full sizes from half sizes.
fn sizes(extent: Vector3D) -> [f64; 3] {
    [extent.x, extent.y, extent.z].map(|e| 2.0 * f64::from(e))
}

/// `carla_msgs/CarlaEgoVehicleInfo` (no header).
pub(crate) fn vehicle_info(v: &VehicleInfo) -> Vec<u8> {
    let mut w = Writer::with_capacity(160 + 64 * v.wheels.len());
    w.u32(v.id);
    w.string(&v.type_id);
    w.string(&v.role_name);
    w.u32(v.wheels.len() as u32);
    for wheel in &v.wheels {
        for x in [
            wheel.tire_friction,
            wheel.damping_rate,
            wheel.max_steer_angle,
            wheel.radius,
            wheel.max_brake_torque,
            wheel.max_handbrake_torque,
        ] {
            w.f32(x);
        }
        ros(&mut w, wheel.position);
    }
    for x in [
        v.max_rpm,
        v.moi,
        v.damping_rate_full_throttle,
        v.damping_rate_zero_throttle_clutch_engaged,
        v.damping_rate_zero_throttle_clutch_disengaged,
    ] {
        w.f32(x);
    }
    w.u8(u8::from(v.use_gear_autobox));
    for x in [
        v.gear_switch_time,
        v.clutch_strength,
        v.mass,
        v.drag_coefficient,
    ] {
        w.f32(x);
    }
    ros(&mut w, v.center_of_mass);
    w.out
}

/// `derived_object_msgs/ObjectArray` in `map` at `stamp`, as
/// carla-ros-bridge fills it: each object detected and classified
/// (certainty 255), its box as a `shape_msgs/SolidPrimitive` BOX (ROS 2
/// Humble's layout, with the empty polygon it added), its twist and
/// acceleration in `map`.
pub(crate) fn objects(stamp: Stamp, objects: &[Object]) -> Vec<u8> {
    let mut w = Writer::with_capacity(32 + 400 * objects.len());
    header(&mut w, stamp, "map");
    w.u32(objects.len() as u32);
    for o in objects {
        header(&mut w, stamp, "map");
        w.u32(o.id);
        w.u8(0); // detection_level: OBJECT_DETECTED
        w.u8(1); // object_classified
        pose(&mut w, &o.transform);
        ros(&mut w, o.velocity);
        ros_angular(&mut w, o.angular);
        ros(&mut w, o.acceleration);
        vector3(&mut w, [0.0; 3]);
        w.u32(0); // polygon: no points
        w.u8(1); // shape: BOX
        w.u32(3);
        for s in sizes(o.extent) {
            w.f64(s);
        }
        w.u32(0); // shape's polygon: no points
        w.u8(o.class);
        w.u8(255); // classification_certainty
        w.u32(0); // classification_age
    }
    w.out
}

/// `carla_msgs/CarlaTrafficLightInfoList`: each light's id, pose and
/// trigger volume (`CarlaBoundingBox`: centre relative to the light, full
/// sizes).
pub(crate) fn traffic_light_info(lights: &[LightInfo]) -> Vec<u8> {
    let mut w = Writer::with_capacity(4 + 112 * lights.len());
    w.u32(lights.len() as u32);
    for l in lights {
        w.u32(l.id);
        pose(&mut w, &l.transform);
        ros(&mut w, l.trigger_center);
        vector3(&mut w, sizes(l.trigger_extent));
    }
    w.out
}

/// `tf2_msgs/TFMessage` with several transforms, each `(parent, child,
/// child's transform in parent's frame)`, CARLA's axes.
pub(crate) fn tf_chain(stamp: Stamp, links: &[(&str, &str, &ActorTransform)]) -> Vec<u8> {
    let mut w = Writer::with_capacity(40 + 120 * links.len());
    w.u32(links.len() as u32);
    for (parent, child, t) in links {
        header(&mut w, stamp, parent);
        w.string(child);
        pose(&mut w, t);
    }
    w.out
}

/// The REP-105 frames of hero vehicle `name`: `odom` and `base_link` for
/// the vehicle named `hero` (CARLA's ego role), `<name>/odom` and
/// `<name>/base_link` for another.
pub(crate) fn rep105_frames(name: &str) -> (String, String) {
    if name == "hero" {
        ("odom".into(), "base_link".into())
    } else {
        (format!("{name}/odom"), format!("{name}/base_link"))
    }
}

#[cfg(test)]
mod tests;
