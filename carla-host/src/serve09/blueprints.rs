//! The blueprints the town adds to the library's sensor blueprints:
//! vehicles, pedestrians, the traffic light (CARLA's ids and attribute
//! names). Every vehicle is the same box-shaped car model underneath (the
//! world has one car model); the ids are CARLA's so scripts that look one up
//! by name find it.

use carla_server::rpc::{
    ActorBox, Blueprint, BlueprintAttribute, ATTR_BOOL, ATTR_INT, ATTR_RGB, ATTR_STRING,
};
use carla_server::types::Vector3D;

/// Vehicle blueprint ids and their default colours.
pub(crate) const VEHICLES: [(&str, &str); 8] = [
    ("vehicle.tesla.model3", "17,37,103"),
    ("vehicle.audi.a2", "246,246,246"),
    ("vehicle.lincoln.mkz_2020", "220,220,220"),
    ("vehicle.mercedes.coupe_2020", "20,20,20"),
    ("vehicle.toyota.prius", "180,20,20"),
    ("vehicle.nissan.patrol", "60,90,60"),
    ("vehicle.mini.cooper_s", "200,160,20"),
    ("vehicle.dodge.charger_2020", "90,90,100"),
];

/// Pedestrian blueprint ids.
pub(crate) const WALKERS: [&str; 4] = [
    "walker.pedestrian.0001",
    "walker.pedestrian.0002",
    "walker.pedestrian.0003",
    "walker.pedestrian.0004",
];

pub(crate) const TRAFFIC_LIGHT: &str = "traffic.traffic_light";

fn attr(id: &str, kind: u8, value: &str) -> BlueprintAttribute {
    BlueprintAttribute {
        id: id.into(),
        kind,
        value: value.into(),
        recommended: Vec::new(),
        modifiable: false,
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

/// Every blueprint the town adds, with the car's and a pedestrian's box.
pub(crate) fn all(car_extent: Vector3D, walker_extent: Vector3D) -> Vec<Blueprint> {
    let mut out = Vec::new();
    for (id, colour) in VEHICLES {
        let make = id.split('.').nth(1).unwrap_or("");
        out.push(Blueprint {
            id: id.into(),
            attributes: vec![
                attr("base_type", ATTR_STRING, "car"),
                modifiable(attr("color", ATTR_RGB, colour)),
                attr("generation", ATTR_INT, "2"),
                attr("has_dynamic_doors", ATTR_BOOL, "false"),
                attr("has_lights", ATTR_BOOL, "true"),
                attr("number_of_wheels", ATTR_INT, "4"),
                attr("object_type", ATTR_STRING, ""),
                modifiable(attr("role_name", ATTR_STRING, "autopilot")),
                attr("special_type", ATTR_STRING, ""),
                modifiable(attr("sticky_control", ATTR_BOOL, "true")),
                modifiable(attr("terramechanics", ATTR_BOOL, "false")),
                attr("manufacturer", ATTR_STRING, make),
            ],
            bounding_box: boxed(car_extent),
            library_sensor: false,
        });
    }
    for (i, id) in WALKERS.iter().enumerate() {
        let mut speed = modifiable(attr("speed", carla_server::rpc::ATTR_FLOAT, "1.4"));
        speed.recommended = vec!["0.0".into(), "1.4".into(), "2.6".into()];
        out.push(Blueprint {
            id: (*id).into(),
            attributes: vec![
                attr("age", ATTR_STRING, "adult"),
                attr("can_use_wheelchair", ATTR_BOOL, "false"),
                attr(
                    "gender",
                    ATTR_STRING,
                    if i % 2 == 0 { "male" } else { "female" },
                ),
                attr("generation", ATTR_INT, "2"),
                modifiable(attr("is_invincible", ATTR_BOOL, "true")),
                modifiable(attr("role_name", ATTR_STRING, "pedestrian")),
                speed,
            ],
            bounding_box: boxed(walker_extent),
            library_sensor: false,
        });
    }
    out.push(Blueprint {
        id: "spectator".into(),
        attributes: vec![modifiable(attr("role_name", ATTR_STRING, ""))],
        bounding_box: ActorBox::default(),
        library_sensor: false,
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
    });
    out
}
