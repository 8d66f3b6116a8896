//! The blueprints the town adds to the library's sensor blueprints:
//! CARLA 0.9.16's 41 vehicles (their ids, attributes, recommended colours
//! and bounding boxes: [`super::vehicle_catalog`]), pedestrians, the
//! traffic light, and its props ([`super::prop_catalog`]). Every vehicle is the world's box-shaped car model
//! underneath, of its blueprint's size.

use super::prop_catalog::{PropModel, PROPS};
use super::vehicle_catalog::{VehicleModel, VEHICLES};
use carla_server::rpc::{
    ActorBox, Blueprint, BlueprintAttribute, VehiclePhysicsControl, ATTR_BOOL, ATTR_INT, ATTR_RGB,
    ATTR_STRING,
};
use carla_server::types::Vector3D;

/// The id of pedestrian blueprint number `n` (1 to
/// [`pedestrians::BLUEPRINTS`](crate::world::simulation::pedestrians::BLUEPRINTS)).
pub(crate) fn walker_id(n: u32) -> String {
    format!("walker.pedestrian.{n:04}")
}

pub(crate) const TRAFFIC_LIGHT: &str = "traffic.traffic_light";
/// CARLA's speed-limit sign blueprints.
pub(crate) const SPEED_LIMITS: [&str; 8] = [
    "traffic.speed_limit.30",
    "traffic.speed_limit.40",
    "traffic.speed_limit.50",
    "traffic.speed_limit.60",
    "traffic.speed_limit.90",
    "traffic.speed_limit.100",
    "traffic.speed_limit.120",
    "traffic.speed_limit.130",
];
pub(crate) const STOP: &str = "traffic.stop";
pub(crate) const YIELD: &str = "traffic.yield";

/// The speed-limit blueprint nearest to `kmh`.
pub(crate) fn speed_limit(kmh: f32) -> &'static str {
    SPEED_LIMITS
        .iter()
        .min_by(|a, b| {
            let value = |id: &&str| {
                id.rsplit('.')
                    .next()
                    .and_then(|v| v.parse::<f32>().ok())
                    .unwrap_or(0.0)
            };
            (value(a) - kmh).abs().total_cmp(&(value(b) - kmh).abs())
        })
        .copied()
        .unwrap_or(SPEED_LIMITS[0])
}

fn attr(id: &str, kind: u8, value: &str) -> BlueprintAttribute {
    BlueprintAttribute {
        id: id.into(),
        kind,
        value: value.into(),
        recommended: Vec::new(),
        modifiable: false,
        restricted: false,
    }
}

fn modifiable(mut a: BlueprintAttribute) -> BlueprintAttribute {
    a.modifiable = true;
    a
}

fn boxed(extent: Vector3D) -> ActorBox {
    ActorBox {
        location: Vector3D {
            x: 0.0,
            y: 0.0,
            z: extent.z,
        },
        extent,
    }
}

/// A vehicle's blueprint: CARLA's attributes (in its order), values and
/// box.
fn vehicle(m: &VehicleModel) -> Blueprint {
    let flag = |b: bool| if b { "true" } else { "false" };
    // Recommended values; only the bike's drivers are restricted to them.
    let listed = |id: &str, kind, values: &[&str]| {
        let mut a = modifiable(attr(id, kind, values[0]));
        a.recommended = values.iter().map(|v| (*v).to_owned()).collect();
        a.restricted = id == "driver_id";
        a
    };
    let mut attributes = vec![attr("base_type", ATTR_STRING, m.base_type)];
    if !m.colors.is_empty() {
        attributes.push(listed("color", ATTR_RGB, m.colors));
    }
    if !m.drivers.is_empty() {
        attributes.push(listed("driver_id", ATTR_INT, m.drivers));
    }
    attributes.extend([
        attr("generation", ATTR_INT, &m.generation.to_string()),
        attr("has_dynamic_doors", ATTR_BOOL, flag(m.has_dynamic_doors)),
        attr("has_lights", ATTR_BOOL, flag(m.has_lights)),
        attr("number_of_wheels", ATTR_INT, &m.wheels.to_string()),
        attr("object_type", ATTR_STRING, ""),
        listed(
            "role_name",
            ATTR_STRING,
            &["autopilot", "scenario", "ego_vehicle"],
        ),
        attr("special_type", ATTR_STRING, m.special_type),
        modifiable(attr("sticky_control", ATTR_BOOL, "true")),
        modifiable(attr("terramechanics", ATTR_BOOL, "false")),
    ]);
    let v = |a: [f32; 3]| Vector3D {
        x: a[0],
        y: a[1],
        z: a[2],
    };
    Blueprint {
        id: m.id.into(),
        attributes,
        bounding_box: ActorBox {
            location: v(m.location),
            extent: v(m.extent),
        },
        library_sensor: false,
        physics: Some(Box::new(physics(m))),
    }
}

/// A model's physics: the library's default for its box and wheels at the
/// model's mass, the engine's torque and the brakes scaled with it (a
/// 14 t fire truck pulls away and stops like a 1.5 t car).
fn physics(m: &VehicleModel) -> VehiclePhysicsControl {
    let mut c = VehiclePhysicsControl::default_for(extent_of(m), m.wheels as u32);
    let scale = m.mass / c.mass;
    c.mass = m.mass;
    for p in &mut c.torque_curve {
        p[1] *= scale;
    }
    for w in &mut c.wheels {
        w.max_brake_torque *= scale;
        w.max_handbrake_torque *= scale;
    }
    c
}

fn extent_of(m: &VehicleModel) -> Vector3D {
    Vector3D {
        x: m.extent[0],
        y: m.extent[1],
        z: m.extent[2],
    }
}

/// The physics vehicle blueprint `id`'s actors start with.
pub(crate) fn vehicle_physics(id: &str) -> Option<VehiclePhysicsControl> {
    VEHICLES.iter().find(|m| m.id == id).map(physics)
}

/// The size of vehicle blueprint `id` (half extents) and how far ahead of
/// its origin its bounding box is centred, if it is one.
pub(crate) fn vehicle_extent(id: &str) -> Option<(Vector3D, f32)> {
    let m = VEHICLES.iter().find(|m| m.id == id)?;
    Some((extent_of(m), m.location[0]))
}

/// The blueprint that best fits a town vehicle of `extent` (the town's
/// cars and vans come in two sizes; `id` varies the model).
pub(crate) fn fitting_vehicle(extent: (f32, f32, f32), id: u32) -> &'static str {
    let misfit = |m: &VehicleModel| {
        (m.extent[0] - extent.0).abs()
            + (m.extent[1] - extent.1).abs()
            + (m.extent[2] - extent.2).abs()
    };
    let four_wheeled = || VEHICLES.iter().filter(|m| m.wheels == 4);
    let best = four_wheeled().map(misfit).fold(f32::MAX, f32::min);
    let close: Vec<&VehicleModel> = four_wheeled().filter(|m| misfit(m) <= best + 0.3).collect();
    close[id as usize % close.len()].id
}

/// Every blueprint the town adds, with a pedestrian's box.
pub(crate) fn all(walker_extent: Vector3D) -> Vec<Blueprint> {
    let mut out: Vec<Blueprint> = VEHICLES.iter().map(vehicle).collect();
    for n in 1..=crate::world::simulation::pedestrians::BLUEPRINTS {
        let child = crate::world::simulation::pedestrians::is_child(n);
        let mut speed = modifiable(attr("speed", carla_server::rpc::ATTR_FLOAT, "1.4"));
        speed.recommended = vec!["0.0".into(), "1.4".into(), "2.6".into()];
        // As CARLA's walkers that cannot use one: only "false" recommended.
        let mut wheelchair = modifiable(attr("use_wheelchair", ATTR_BOOL, "false"));
        wheelchair.recommended = vec!["false".into()];
        wheelchair.restricted = true;
        out.push(Blueprint {
            id: walker_id(n),
            attributes: vec![
                attr("age", ATTR_STRING, if child { "child" } else { "adult" }),
                attr("can_use_wheelchair", ATTR_BOOL, "false"),
                attr(
                    "gender",
                    ATTR_STRING,
                    if n % 2 == 1 { "male" } else { "female" },
                ),
                attr("generation", ATTR_INT, "2"),
                modifiable(attr("is_invincible", ATTR_BOOL, "true")),
                modifiable(attr("role_name", ATTR_STRING, "pedestrian")),
                speed,
                wheelchair,
            ],
            // Centred on the walker's origin (its capsule's centre).
            bounding_box: ActorBox {
                location: Vector3D::default(),
                extent: walker_extent,
            },
            library_sensor: false,
            physics: None,
        });
    }
    out.push(Blueprint {
        id: "spectator".into(),
        attributes: vec![modifiable(attr("role_name", ATTR_STRING, ""))],
        bounding_box: ActorBox::default(),
        library_sensor: false,
        physics: None,
    });
    out.push(Blueprint {
        id: TRAFFIC_LIGHT.into(),
        attributes: vec![modifiable(attr("role_name", ATTR_STRING, ""))],
        bounding_box: boxed(Vector3D {
            x: 0.3,
            y: 0.3,
            z: 2.5,
        }),
        library_sensor: false,
        physics: None,
    });
    for id in SPEED_LIMITS.iter().chain(&[STOP, YIELD]) {
        out.push(Blueprint {
            id: (*id).into(),
            attributes: vec![modifiable(attr("role_name", ATTR_STRING, ""))],
            bounding_box: boxed(Vector3D {
                x: 0.35,
                y: 0.35,
                z: 1.45,
            }),
            library_sensor: false,
            physics: None,
        });
    }
    for p in &PROPS {
        out.push(Blueprint {
            id: p.id.into(),
            attributes: vec![
                modifiable(attr("role_name", ATTR_STRING, "")),
                attr("size", ATTR_STRING, p.size),
            ],
            bounding_box: boxed(extent_of_prop(p)),
            library_sensor: false,
            physics: None,
        });
    }
    out
}

fn extent_of_prop(p: &PropModel) -> Vector3D {
    Vector3D {
        x: p.extent[0],
        y: p.extent[1],
        z: p.extent[2],
    }
}

/// Prop blueprint `id`'s half size and mass, if it is one.
pub(crate) fn prop(id: &str) -> Option<(Vector3D, f32)> {
    let p = PROPS.iter().find(|p| p.id == id)?;
    Some((extent_of_prop(p), p.mass))
}
