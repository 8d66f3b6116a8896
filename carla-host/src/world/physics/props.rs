//! Props (`static.prop.*`) as bodies: a box of the prop's size and mass
//! standing on its origin. As CARLA's, a prop does not simulate physics
//! until a client asks (`set_simulate_physics(True)`): until then its body
//! is kinematic, stays where it was put and stops what runs into it;
//! simulated, it falls, tips over and is pushed, and impulses, forces and
//! velocities act on it.

use super::{pose, Part, Physics};
use carla_server::types::Vector3D;
use rapier3d::prelude::*;

/// A prop's body.
pub(crate) struct PropBody {
    pub id: u32,
    pub body: RigidBodyHandle,
}

impl Physics {
    /// Adds prop `id` at its origin `at` (yaw, radians), a box of half size
    /// `extent` standing on it, of `mass` kg, not simulated.
    pub(crate) fn add_prop(
        &mut self,
        id: u32,
        at: Vector3D,
        yaw: f32,
        extent: Vector3D,
        mass: f32,
    ) {
        self.remove(id);
        let w = &mut self.world;
        let body = w
            .bodies
            .insert(RigidBodyBuilder::kinematic_position_based().pose(pose(at, yaw, 0.0, 0.0)));
        let half = Vector::new(extent.x, extent.y, extent.z).max(Vector::splat(0.01));
        let mass = if mass.is_finite() {
            mass.clamp(0.01, 1e6)
        } else {
            10.0
        };
        w.colliders.insert_with_parent(
            ColliderBuilder::cuboid(half.x, half.y, half.z)
                .translation(Vector::new(0.0, 0.0, half.z))
                .mass(mass)
                .friction(0.6)
                .user_data(Part::Prop(id).data()),
            body,
            &mut w.bodies,
        );
        self.props.push(PropBody { id, body });
    }

    /// The body of prop `id`.
    pub(super) fn prop_body(&self, id: u32) -> Option<RigidBodyHandle> {
        self.props.iter().find(|p| p.id == id).map(|p| p.body)
    }

    /// `set_simulate_physics` on prop `id`: a simulated prop is a dynamic
    /// body; false if it is not a prop.
    pub(crate) fn set_prop_simulated(&mut self, id: u32, on: bool) -> bool {
        let Some(h) = self.prop_body(id) else {
            return false;
        };
        super::simulate(&mut self.world.bodies[h], on);
        true
    }

    /// Whether prop `id` simulates physics.
    #[cfg(test)]
    pub(crate) fn prop_simulated(&self, id: u32) -> bool {
        self.prop_body(id)
            .is_some_and(|h| self.world.bodies[h].is_dynamic())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{statics::Statics, Drive, Part, Physics};
    use crate::world::math::v3;
    use carla_server::rpc::VehiclePhysicsControl;
    use std::sync::Arc;

    const CAR: carla_server::types::Vector3D = carla_server::types::Vector3D {
        x: 2.3,
        y: 1.0,
        z: 0.75,
    };

    fn flat() -> Physics {
        Physics::new(&Arc::new(Statics::with(0.0, Vec::new())))
    }

    /// A car at 10 m/s from x = 0 on half throttle towards a prop at x =
    /// 10 (a box of half size `half`, `mass` kg, simulated or not) for 3 s:
    /// the prop's travel, the car's last speed and whether the car felt
    /// it.
    fn drive_into(half: [f32; 3], mass: f32, simulated: bool) -> (f32, f32, bool) {
        let mut p = flat();
        let control = VehiclePhysicsControl::default_for(CAR, 4);
        p.add_vehicle(1, v3(0.0, 0.0, 0.0), 0.0, 0.0, 0.0, CAR, 0.0, &control);
        p.add_prop(
            9,
            v3(10.0, 0.0, 0.0),
            0.0,
            v3(half[0], half[1], half[2]),
            mass,
        );
        assert!(p.set_prop_simulated(9, simulated));
        assert_eq!(p.prop_simulated(9), simulated);
        p.step(0.05, |_| None);
        p.set_velocity(1, v3(10.0, 0.0, 0.0), false);
        let mut felt = false;
        let drive = Drive {
            throttle: 0.5,
            ..Drive::default()
        };
        for _ in 0..60 {
            p.step(0.05, |_| Some(drive));
            felt |= p
                .touches()
                .iter()
                .any(|t| t.vehicle == 1 && t.other == Part::Prop(9));
        }
        let prop = p.state(9).unwrap();
        (
            prop.position.x - 10.0,
            p.state(1).unwrap().forward_speed,
            felt,
        )
    }

    #[test]
    fn a_still_prop_stops_a_car_and_a_simulated_one_is_pushed() {
        // A concrete barrier that does not simulate physics: the car stops.
        let (moved, speed, felt) = drive_into([0.3, 1.5, 0.5], 500.0, false);
        assert!(felt && moved == 0.0 && speed.abs() < 1.0, "{moved} {speed}");
        // A 3 kg cone that does: pushed along, the car goes on.
        let (moved, speed, felt) = drive_into([0.2, 0.2, 0.35], 3.0, true);
        assert!(felt && moved > 3.0 && speed > 7.0, "{moved} {speed}");
    }

    #[test]
    fn a_simulated_prop_falls_and_takes_impulses_by_its_mass() {
        let mut p = flat();
        p.add_prop(9, v3(0.0, 0.0, 3.0), 0.0, v3(0.3, 0.3, 0.3), 20.0);
        p.step(0.5, |_| None);
        assert!(
            (p.state(9).unwrap().position.z - 3.0).abs() < 1e-4,
            "a still prop floats"
        );
        p.set_prop_simulated(9, true);
        for _ in 0..40 {
            p.step(0.05, |_| None);
        }
        let s = p.state(9).unwrap();
        assert!(s.position.z.abs() < 0.05, "it fell: {s:?}");
        assert!(p.impulse(9, v3(0.0, 0.0, 100.0), false));
        p.step(1.0 / 60.0, |_| None);
        let v = p.state(9).unwrap().velocity.z;
        assert!((v - 100.0 / 20.0).abs() < 0.5, "dv = J/m: {v}");
    }
}
