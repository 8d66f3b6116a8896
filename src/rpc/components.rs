//! An actor's named parts, for `actor.get_component_names()`,
//! `get_component_world_transform(name)`, `get_component_relative_transform(name)`,
//! `get_socket_names()`, `get_socket_world_transforms()` and
//! `get_socket_relative_transforms()`.
//!
//! CARLA answers from the actor's Unreal components and its mesh's sockets
//! and bones, which come from each vehicle's asset. This library has no
//! asset: it places the parts a CARLA vehicle has on the blueprint's box,
//! the same for every vehicle of a kind:
//!
//! * components: `VehicleMesh` (the root, at the actor's origin),
//!   `VehicleBounds` (the box's centre), the lights in CARLA's naming
//!   (`front-blinker-r-1`: where, what, side, number) at the box's front
//!   and rear faces, and for four-wheelers the doors (`door-fl`, `door-fr`,
//!   `door-rl`, `door-rr`) on its sides and the mirrors (`mirror-l`,
//!   `mirror-r`) beside the front doors;
//! * sockets: the skeleton's bones `Vehicle_Base` and one per wheel
//!   (`Wheel_Front_Left` ... or `Wheel_Front` / `Wheel_Rear` on two
//!   wheels), where the physics control puts the wheels.
//!
//! Walkers have `CollisionCylinder` and `CharacterMesh0` (Unreal's
//! character components) and no sockets (skeletons are not available);
//! other actors a `DefaultSceneRoot`. Relative transforms are in the
//! actor's frame, world ones follow the actor (its last episode state).

use super::world::Actor;
use super::world::ActorKind;
use crate::sensor::compose;
use crate::types::{ActorTransform, Rotation3D, Vector3D};

/// `(name, where in the actor's frame)`.
pub(crate) type Part = (String, ActorTransform);

fn at(x: f32, y: f32, z: f32) -> ActorTransform {
    ActorTransform {
        location: Vector3D { x, y, z },
        rotation: Rotation3D::default(),
    }
}

/// Lights: (where, what, along x as a fraction of the half length, height
/// as a fraction of the half height, across y as a fraction of the half
/// width). `front-low_beam-l-1` is left (negative y), `-r-` right.
const LIGHTS: [(&str, &str, f32, f32, f32); 9] = [
    ("front", "low_beam", 0.97, 0.1, 0.7),
    ("front", "high_beam", 0.97, 0.1, 0.55),
    ("front", "blinker", 0.95, 0.1, 0.85),
    ("front", "position", 0.97, 0.05, 0.8),
    ("front", "fog", 0.98, -0.4, 0.75),
    ("rear", "brake", -0.98, 0.25, 0.75),
    ("rear", "blinker", -0.97, 0.25, 0.85),
    ("rear", "reverse", -0.98, 0.15, 0.5),
    ("rear", "position", -0.98, 0.3, 0.8),
];

fn wheels(actor: &Actor) -> usize {
    actor.local_physics_control().wheels.len()
}

/// The actor's components in its own frame.
pub(crate) fn components(actor: &Actor) -> Vec<Part> {
    let b = &actor.bounding_box;
    let (c, e) = (b.location, b.extent);
    if actor.kind == ActorKind::Walker {
        return vec![
            ("CollisionCylinder".into(), at(0.0, 0.0, 0.0)),
            ("CharacterMesh0".into(), at(0.0, 0.0, -e.z)),
        ];
    }
    if actor.kind != ActorKind::Vehicle {
        return vec![("DefaultSceneRoot".into(), at(0.0, 0.0, 0.0))];
    }
    let mut parts = vec![
        ("VehicleMesh".to_owned(), at(0.0, 0.0, 0.0)),
        ("VehicleBounds".to_owned(), at(c.x, c.y, c.z)),
    ];
    let four = wheels(actor) >= 4;
    for (end, light, x, z, y) in LIGHTS {
        let (x, z) = (c.x + x * e.x, c.z + z * e.z);
        if four {
            for (side, sign) in [("l", -1.0), ("r", 1.0)] {
                let name = format!("{end}-{light}-{side}-1");
                parts.push((name, at(x, c.y + sign * y * e.y, z)));
            }
        } else {
            parts.push((format!("{end}-{light}-c-1"), at(x, c.y, z)));
        }
    }
    if four {
        for (name, x, sign) in [
            ("door-fl", 0.15, -1.0),
            ("door-fr", 0.15, 1.0),
            ("door-rl", -0.35, -1.0),
            ("door-rr", -0.35, 1.0),
        ] {
            parts.push((name.into(), at(c.x + x * e.x, c.y + sign * e.y, c.z)));
        }
        for (name, sign) in [("mirror-l", -1.0), ("mirror-r", 1.0)] {
            let y = c.y + sign * (e.y + 0.1);
            parts.push((name.into(), at(c.x + 0.4 * e.x, y, c.z + 0.3 * e.z)));
        }
    }
    parts
}

/// The actor's sockets (its skeleton's bones) in its own frame.
pub(crate) fn sockets(actor: &Actor) -> Vec<Part> {
    if actor.kind != ActorKind::Vehicle {
        return Vec::new();
    }
    let c = actor.bounding_box.location;
    let control = actor.local_physics_control();
    let names: &[&str] = if control.wheels.len() == 2 {
        &["Wheel_Front", "Wheel_Rear"]
    } else {
        &[
            "Wheel_Front_Left",
            "Wheel_Front_Right",
            "Wheel_Rear_Left",
            "Wheel_Rear_Right",
        ]
    };
    let base = ("Vehicle_Base".to_owned(), at(0.0, 0.0, 0.0));
    let wheels = control.wheels.iter().zip(names).map(|(w, name)| {
        let p = w.position;
        ((*name).to_owned(), at(c.x + p.x, c.y + p.y, c.z + p.z))
    });
    std::iter::once(base).chain(wheels).collect()
}

/// A part's world transform for an actor at `actor`.
pub(crate) fn in_world(actor: &ActorTransform, part: &ActorTransform) -> ActorTransform {
    compose(actor, part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::ActorBox;

    fn v(x: f32, y: f32, z: f32) -> Vector3D {
        Vector3D { x, y, z }
    }

    fn vehicle(wheels: &str) -> Actor {
        Actor {
            kind: ActorKind::Vehicle,
            blueprint: "vehicle.test.box".into(),
            attributes: vec![("number_of_wheels".into(), 2, wheels.into())],
            bounding_box: ActorBox {
                location: v(0.1, 0.0, 0.7),
                extent: v(2.0, 1.0, 0.7),
            },
            ..Default::default()
        }
    }

    fn find<'a>(parts: &'a [Part], name: &str) -> &'a ActorTransform {
        &parts.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_cars_parts_sit_on_its_box() {
        let car = vehicle("4");
        let parts = components(&car);
        let blinker = find(&parts, "front-blinker-r-1").location;
        assert!(
            blinker.x > 1.9 && blinker.x <= 2.1 && blinker.y > 0.8,
            "{blinker:?}"
        );
        let brake = find(&parts, "rear-brake-l-1").location;
        assert!(brake.x < -1.8 && brake.y < -0.7, "{brake:?}");
        assert_eq!(find(&parts, "VehicleBounds").location.z, 0.7);
        assert!(
            find(&parts, "mirror-l").location.y < -1.0,
            "outside the box"
        );
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        let sockets = sockets(&car);
        let wheel = find(&sockets, "Wheel_Front_Right").location;
        assert!(wheel.x > 1.0 && wheel.y > 0.5 && wheel.z < 0.7, "{wheel:?}");
        assert_eq!(sockets.len(), 5);
    }

    #[test]
    fn a_bike_has_two_wheels_and_no_doors_and_a_walker_no_sockets() {
        let bike = vehicle("2");
        let names: Vec<String> = components(&bike).into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"front-low_beam-c-1".to_owned()));
        assert!(!names.iter().any(|n| n.starts_with("door")));
        let s: Vec<String> = sockets(&bike).into_iter().map(|(n, _)| n).collect();
        assert_eq!(s, ["Vehicle_Base", "Wheel_Front", "Wheel_Rear"]);
        let walker = Actor {
            kind: ActorKind::Walker,
            blueprint: "walker.pedestrian.0001".into(),
            ..vehicle("4")
        };
        assert!(sockets(&walker).is_empty());
        assert_eq!(components(&walker)[0].0, "CollisionCylinder");
    }

    #[test]
    fn world_transforms_follow_the_actor() {
        let at = ActorTransform {
            location: v(10.0, 5.0, 0.0),
            rotation: Rotation3D {
                yaw: 90.0,
                ..Default::default()
            },
        };
        let part = ActorTransform {
            location: v(2.0, 0.5, 0.7),
            ..Default::default()
        };
        let w = in_world(&at, &part).location;
        // Turned 90° right: forward is +y, right is -x.
        assert!(
            (w.x - 9.5).abs() < 1e-4 && (w.y - 7.0).abs() < 1e-4 && (w.z - 0.7).abs() < 1e-4,
            "{w:?}"
        );
    }
}
