//! What the vehicles ran into in a step: the solver's contacts with
//! everything but the road (while the two close on each other), and
//! walkers a car passes through.

use super::{vec3, Part, Physics};
use carla_server::types::Vector3D;
use rapier3d::prelude::*;

/// A walker's mass, kg (a car's contact impulse on one).
const WALKER_KG: f32 = 80.0;
/// How fast two bodies must close on each other for their contact to be
/// a collision, m/s.
const CLOSING: f32 = 0.05;

/// A contact of a step between a client's vehicle and something.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Touch {
    pub vehicle: u32,
    pub other: Part,
    /// The impulse on the vehicle, N·s.
    pub impulse: Vector3D,
}

impl Physics {
    /// Adds this step's contacts of the vehicles (level surfaces left
    /// out: the road under a car is not a collision), with the velocities
    /// the cars had before the step (`before`, in the order of `cars`).
    /// A contact counts while the two close on each other: once they move
    /// together (or apart), what the solver still pushes is its correction
    /// of their overlap, which moves neither, and not an impulse of the
    /// collision.
    pub(super) fn collect_touches(&mut self, before: &[Vector]) {
        self.collect_walkers(before);
        let w = &self.world;
        let movers = &self.movers;
        let velocity_of = |collider: ColliderHandle| -> Vector {
            let Some(b) = w.colliders[collider].parent() else {
                return Vector::ZERO;
            };
            match self.cars.iter().position(|c| c.body == b) {
                Some(i) => before[i],
                None => mover_velocity(movers, b),
            }
        };
        for (i, c) in self.cars.iter().enumerate() {
            for pair in w.narrow_phase.contact_pairs_with(c.collider) {
                if !pair.has_any_active_contact() {
                    continue;
                }
                let (other, sign) = if pair.collider1 == c.collider {
                    (pair.collider2, -1.0)
                } else {
                    (pair.collider1, 1.0)
                };
                let part = Part::of(w.colliders[other].user_data);
                if part == Part::Surface {
                    continue;
                }
                let j = pair.total_impulse() * sign;
                // The impulse pushes the car away from the other: they
                // closed if the car moved against it.
                let away = j.normalize_or_zero();
                let closing = (velocity_of(other) - before[i]).dot(away);
                if closing < CLOSING {
                    continue;
                }
                match self
                    .touches
                    .iter_mut()
                    .find(|t| t.vehicle == c.id && t.other == part)
                {
                    Some(t) => {
                        t.impulse.x += j.x;
                        t.impulse.y += j.y;
                        t.impulse.z += j.z;
                    }
                    None => self.touches.push(Touch {
                        vehicle: c.id,
                        other: part,
                        impulse: vec3(j),
                    }),
                }
            }
        }
    }

    /// A car that runs into a walker: one contact when they start to
    /// overlap, the impulse a walker of [`WALKER_KG`] takes from the car's
    /// speed relative to it (on the car, against its motion).
    fn collect_walkers(&mut self, before: &[Vector]) {
        let w = &self.world;
        let mut now = Vec::new();
        let mut pushed = Vec::new();
        for (i, c) in self.cars.iter().enumerate() {
            for (a, b, touching) in w.narrow_phase.intersection_pairs_with(c.collider) {
                let other = if a == c.collider { b } else { a };
                let Part::Walker(walker) = Part::of(w.colliders[other].user_data) else {
                    continue;
                };
                if !touching {
                    continue;
                }
                now.push((c.id, walker));
                if self.overlaps.contains(&(c.id, walker)) {
                    continue;
                }
                let them = w.colliders[other]
                    .parent()
                    .map_or(Vector::ZERO, |p| mover_velocity(&self.movers, p));
                let j = (them - before[i]) * WALKER_KG;
                self.touches.push(Touch {
                    vehicle: c.id,
                    other: Part::Walker(walker),
                    impulse: vec3(j),
                });
                pushed.push((c.body, j));
            }
        }
        self.overlaps = now;
        // The car gives the walker that momentum (it shoves it along; see
        // `walkers`): it loses as much.
        for (body, j) in pushed {
            if j.is_finite() {
                self.world.bodies[body].apply_impulse(j, true);
            }
        }
    }
}

/// The velocity the world gave mover `body` (zero for other bodies).
fn mover_velocity(
    movers: &[(Part, RigidBodyHandle, ColliderHandle, Vector)],
    body: RigidBodyHandle,
) -> Vector {
    movers
        .iter()
        .find(|m| m.1 == body)
        .map_or(Vector::ZERO, |m| m.3)
}
