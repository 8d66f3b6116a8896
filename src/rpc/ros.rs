//! The RPC side of ROS 2 publishing ([`crate::ros2`]): CARLA's `ros_name`,
//! `ros_frame_id` and `ros_publish_tf` attributes (listed with the
//! blueprints, in `world`), the names of a sensor's topics (as CARLA 0.9.16
//! builds them), hero vehicles and what `/carla/objects` reports of an
//! actor. The stock client's `enable_for_ros()` calls and the controls read
//! from DDS are `ros_calls`.

use super::world::Actor;
use super::world::ActorKind;
use crate::ros2::{class, ActorShape, SensorNames, VehicleInfo, WheelInfo};
use std::collections::BTreeMap;

fn attribute<'a>(a: &'a Actor, key: &str) -> Option<&'a str> {
    a.attributes
        .iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, _, v)| v.as_str())
}

/// Whether CARLA registers the actor with ROS: sensors, and vehicles whose
/// role name is `hero`.
fn registered(a: &Actor) -> bool {
    a.sensor != 0 || (a.kind == ActorKind::Vehicle && attribute(a, "role_name") == Some("hero"))
}

/// Its ros name: `ros_name`, else `actor<id>`; "" when not registered.
fn ros_name(a: &Actor) -> String {
    if !registered(a) {
        return String::new();
    }
    match attribute(a, "ros_name") {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => format!("actor{}", a.id),
    }
}

/// Its frame: `ros_frame_id` for sensors, else its ros name.
fn frame_id(a: &Actor) -> String {
    match attribute(a, "ros_frame_id") {
        Some(f) if !f.is_empty() && a.sensor != 0 => f.to_owned(),
        _ => ros_name(a),
    }
}

/// A hero vehicle's ros name (None for other actors).
pub(crate) fn hero_name(a: &Actor) -> Option<String> {
    (a.sensor == 0 && registered(a)).then(|| ros_name(a))
}

/// Vehicle `a`'s `vehicle_info`: its id, blueprint, role name and physics
/// control (the applied one or the defaults) in SI units, wheels in the
/// vehicle's frame.
pub(crate) fn vehicle_info(a: &Actor) -> VehicleInfo {
    let c = a.local_physics_control();
    VehicleInfo {
        id: a.id,
        type_id: a.blueprint.clone(),
        role_name: attribute(a, "role_name").unwrap_or_default().to_owned(),
        wheels: c
            .wheels
            .iter()
            .map(|w| WheelInfo {
                tire_friction: w.tire_friction,
                damping_rate: w.damping_rate,
                max_steer_angle: w.max_steer_angle.to_radians(),
                radius: w.radius / 100.0,
                max_brake_torque: w.max_brake_torque,
                max_handbrake_torque: w.max_handbrake_torque,
                position: w.position,
            })
            .collect(),
        max_rpm: c.max_rpm,
        moi: c.moi,
        damping_rate_full_throttle: c.damping_rate_full_throttle,
        damping_rate_zero_throttle_clutch_engaged: c.damping_rate_zero_throttle_clutch_engaged,
        damping_rate_zero_throttle_clutch_disengaged: c
            .damping_rate_zero_throttle_clutch_disengaged,
        use_gear_autobox: c.use_gear_autobox,
        gear_switch_time: c.gear_switch_time,
        clutch_strength: c.clutch_strength,
        mass: c.mass,
        drag_coefficient: c.drag_coefficient,
        center_of_mass: c.center_of_mass,
    }
}

/// What `/carla/objects` and `/carla/traffic_lights/info` need of `a`:
/// its class (walkers pedestrians, vehicles by their `base_type`) and its
/// box (a traffic light's box is its trigger volume).
pub(crate) fn shape(a: &Actor) -> ActorShape {
    let class = match a.kind {
        ActorKind::Walker => class::PEDESTRIAN,
        ActorKind::Vehicle => match attribute(a, "base_type").unwrap_or_default() {
            "car" | "van" => class::CAR,
            "truck" | "bus" => class::TRUCK,
            "motorcycle" => class::MOTORCYCLE,
            "bicycle" => class::BIKE,
            _ => class::OTHER_VEHICLE,
        },
        _ => class::UNKNOWN,
    };
    ActorShape {
        class,
        center: a.bounding_box.location,
        extent: a.bounding_box.extent,
    }
}

/// The topic base and frames of sensor actor `a`: `rt/carla/` then the ros
/// names of its ancestors and its own, joined by `/` (an ancestor that is
/// not registered contributes "", as in CARLA).
pub(crate) fn sensor_names(actors: &BTreeMap<u32, Actor>, a: &Actor) -> SensorNames {
    let mut chain = vec![ros_name(a)];
    let mut parent = a.parent;
    while let Some(p) = actors.get(&parent).filter(|_| chain.len() < 16) {
        chain.push(ros_name(p));
        parent = p.parent;
    }
    chain.reverse();
    SensorNames {
        base: format!("rt/carla/{}", chain.join("/")),
        frame_id: frame_id(a),
        parent_frame: actors.get(&a.parent).map_or("map".into(), frame_id),
        publish_tf: attribute(a, "ros_publish_tf").is_none_or(|v| !v.eq_ignore_ascii_case("false")),
        transform: a.transform,
    }
}
