//! A client's walker as a character (rapier's kinematic character
//! controller): a capsule that walks where its control takes it, stops
//! against walls, poles, buildings and vehicles, steps up curbs, climbs
//! slopes up to 45°, keeps to the ground going down and falls off a ledge.
//! A car that runs into it shoves it along (the walker takes the car's
//! velocity for the step); it does not stop the car.

use super::{Part, Physics};
use carla_server::types::Vector3D;
use rapier3d::control::{CharacterAutostep, CharacterLength, KinematicCharacterController};
use rapier3d::prelude::*;

/// The capsule's radius, metres.
pub(crate) const RADIUS: f32 = 0.25;
/// The highest step a walker takes in its stride (a curb is 0.15 m).
const STEP: f32 = 0.3;
const G: f32 = 9.81;
/// How much faster than the car that shoves it a walker is carried.
const SHOVE: f32 = 1.2;
/// The least speed of a car that shoves a walker, m/s.
const SHOVING: f32 = 0.5;
/// A thrown walker's friction on the ground (it slides to a stop at
/// `FRICTION · g`).
const FRICTION: f32 = 0.6;

/// A walker's place and motion of its own between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Stride {
    /// Its feet, metres.
    pub feet: Vector3D,
    /// m/s: what a shove left it (horizontal) and its fall (vertical,
    /// negative down); its walk is on top of that.
    pub motion: Vector3D,
}

fn controller() -> KinematicCharacterController {
    KinematicCharacterController {
        up: Vector::Z,
        offset: CharacterLength::Absolute(0.02),
        slide: true,
        autostep: Some(CharacterAutostep {
            max_height: CharacterLength::Absolute(STEP),
            min_width: CharacterLength::Absolute(0.1),
            include_dynamic_bodies: false,
        }),
        max_slope_climb_angle: 45f32.to_radians(),
        min_slope_slide_angle: 50f32.to_radians(),
        snap_to_ground: Some(CharacterLength::Absolute(STEP)),
        ..KinematicCharacterController::default()
    }
}

impl Physics {
    /// Walks walker `id` (a capsule `half_height` from its feet to its
    /// centre) from `s` by `want` (metres, horizontal) over `dt` seconds:
    /// where it ends up and how fast it falls. Non-finite input leaves it
    /// where it is.
    pub(crate) fn walk(
        &self,
        id: u32,
        s: Stride,
        want: (f32, f32),
        half_height: f32,
        dt: f32,
    ) -> Stride {
        let f = s.feet;
        let m = s.motion;
        let ok = [f.x, f.y, f.z, m.x, m.y, m.z, want.0, want.1, dt]
            .iter()
            .all(|v| v.is_finite());
        if !ok || dt <= 0.0 {
            return s;
        }
        let half_height = half_height.max(RADIUS + 0.05);
        let shape = SharedShape::capsule_z(half_height - RADIUS, RADIUS);
        let at = Pose::from_translation(Vector::new(f.x, f.y, f.z + half_height));
        // A car running into it throws it a little faster than itself,
        // so it ends up ahead of the bumper (the car is left out of the
        // walker's obstacles meanwhile: it starts inside its box); on the
        // ground it slides to a stop.
        let mut slide = Vector::new(m.x, m.y, 0.0);
        let car = match self.shoved(id) {
            Some((v, body)) => {
                if v.length() * SHOVE > slide.length() {
                    slide = v * SHOVE;
                }
                Some(body)
            }
            None => None,
        };
        let fall = m.z - G * dt;
        let wanted = Vector::new(want.0 + slide.x * dt, want.1 + slide.y * dt, fall * dt);
        let w = &self.world;
        let own = self
            .movers
            .iter()
            .find(|(p, _, _, _)| *p == Part::Walker(id))
            .map(|&(_, b, _, _)| b);
        // Other walkers meet it as sensors (cars pass through them): they
        // count here, its own body and the shoving car do not.
        let keep = |_: ColliderHandle, c: &Collider| {
            let parent = c.parent();
            let other_walker = matches!(Part::of(c.user_data), Part::Walker(w) if w != id);
            (!c.is_sensor() || other_walker)
                && (parent.is_none() || (parent != own && parent != car))
        };
        let filter = QueryFilter::default().predicate(&keep);
        let queries = w.broad_phase.as_query_pipeline(
            w.narrow_phase.query_dispatcher(),
            &w.bodies,
            &w.colliders,
            filter,
        );
        let moved = controller().move_shape(dt, &queries, &*shape, &at, wanted, |_| {});
        let t = moved.translation;
        if !t.is_finite() {
            return s;
        }
        if moved.grounded {
            let speed = slide.length();
            slide *= (speed - FRICTION * G * dt).max(0.0) / speed.max(1e-6);
        }
        // What stopped it takes its slide too.
        let blocked = t.x * slide.x + t.y * slide.y < 0.5 * slide.length_squared() * dt * dt;
        if blocked && slide.length() > 0.0 && car.is_none() {
            slide = Vector::ZERO;
        }
        Stride {
            feet: Vector3D {
                x: f.x + t.x,
                y: f.y + t.y,
                z: f.z + t.z,
            },
            motion: Vector3D {
                x: slide.x,
                y: slide.y,
                z: if moved.grounded { 0.0 } else { fall },
            },
        }
    }

    /// The horizontal velocity and body of a car that overlaps walker `id`
    /// after the last step and moves (faster than [`SHOVING`]); a car at
    /// rest is an obstacle like any other.
    fn shoved(&self, id: u32) -> Option<(Vector, RigidBodyHandle)> {
        self.overlaps
            .iter()
            .filter(|(_, w)| *w == id)
            .filter_map(|(car, _)| self.cars.iter().find(|c| c.id == *car))
            .map(|c| {
                let v = self.world.bodies[c.body].linvel();
                (Vector::new(v.x, v.y, 0.0), c.body)
            })
            .find(|(v, _)| v.length() > SHOVING)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{statics::Statics, Drive, Mover, Part, Physics};
    use super::*;
    use crate::world::math::v3;
    use std::sync::Arc;

    const HALF: f32 = 0.9;
    const DT: f32 = 0.05;

    /// Flat ground at 0 with boxes `(centre, half size)`.
    fn level(boxes: &[([f32; 3], [f32; 3])]) -> Physics {
        let extra = boxes
            .iter()
            .map(|&(c, h)| {
                (
                    SharedShape::cuboid(h[0], h[1], h[2]),
                    Vector::new(c[0], c[1], c[2]),
                    Part::Static(0, 0),
                )
            })
            .collect();
        Physics::new(&Arc::new(Statics::with(0.0, extra)))
    }

    /// Walker 7 walking along +x at 1.4 m/s for `seconds` from `x`.
    fn walk_x(p: &Physics, x: f32, seconds: f32) -> Stride {
        let mut s = Stride {
            feet: v3(x, 0.0, 0.0),
            motion: Vector3D::default(),
        };
        for _ in 0..(seconds / DT) as usize {
            s = p.walk(7, s, (1.4 * DT, 0.0), HALF, DT);
        }
        s
    }

    #[test]
    fn a_walker_stops_at_a_wall_and_steps_up_a_curb_not_a_ledge() {
        let wall = level(&[([5.0, 0.0, 1.5], [0.2, 5.0, 1.5])]);
        let s = walk_x(&wall, 0.0, 6.0);
        assert!(
            (4.4..=4.8).contains(&s.feet.x) && s.feet.z.abs() < 0.05,
            "{s:?}"
        );
        // A 15 cm curb from x = 3 on: it walks on at its height.
        let curb = level(&[([13.0, 0.0, 0.075], [10.0, 5.0, 0.075])]);
        let s = walk_x(&curb, 0.0, 6.0);
        assert!(s.feet.x > 7.0 && (s.feet.z - 0.15).abs() < 0.05, "{s:?}");
        // A 60 cm ledge: it stays below.
        let ledge = level(&[([13.0, 0.0, 0.3], [10.0, 5.0, 0.3])]);
        let s = walk_x(&ledge, 0.0, 6.0);
        assert!(s.feet.x < 3.0 && s.feet.z.abs() < 0.05, "{s:?}");
    }

    #[test]
    fn a_walker_walks_off_a_ledge_and_falls() {
        // A 2 m platform ending at x = 3.
        let p = level(&[([0.0, 0.0, 1.0], [3.0, 5.0, 1.0])]);
        let mut s = Stride {
            feet: v3(0.0, 0.0, 2.0),
            motion: Vector3D::default(),
        };
        let mut lowest_fall = 0.0f32;
        for _ in 0..80 {
            s = p.walk(7, s, (1.4 * DT, 0.0), HALF, DT);
            lowest_fall = lowest_fall.min(s.motion.z);
        }
        assert!(s.feet.x > 3.0 && s.feet.z.abs() < 0.05, "{s:?}");
        assert!(lowest_fall < -3.0, "it fell: {lowest_fall}");
    }

    #[test]
    fn another_walker_is_in_the_way() {
        let mut p = level(&[]);
        p.set_movers(&[Mover {
            part: Part::Walker(8),
            centre: v3(3.0, 0.0, HALF),
            half: v3(0.3, 0.3, HALF),
            yaw: 0.0,
            velocity: v3(0.0, 0.0, 0.0),
        }]);
        p.step(DT, |_| None);
        let s = walk_x(&p, 0.0, 4.0);
        assert!((2.3..=2.7).contains(&s.feet.x), "{s:?}");
    }

    #[test]
    fn a_car_shoves_a_walker_along_and_both_feel_it() {
        let mut p = level(&[]);
        let control = carla_server::rpc::VehiclePhysicsControl::default_for(v3(2.3, 1.0, 0.75), 4);
        p.add_vehicle(
            1,
            v3(0.0, 0.0, 0.0),
            0.0,
            0.0,
            0.0,
            v3(2.3, 1.0, 0.75),
            0.0,
            &control,
        );
        p.step(DT, |_| None);
        p.set_velocity(1, v3(8.0, 0.0, 0.0), false);
        let mut s = Stride {
            feet: v3(6.0, 0.0, 0.0),
            motion: Vector3D::default(),
        };
        let mut felt = false;
        let coast = Drive::default();
        for _ in 0..20 {
            p.set_movers(&[Mover {
                part: Part::Walker(7),
                centre: v3(s.feet.x, s.feet.y, s.feet.z + HALF),
                half: v3(0.3, 0.3, HALF),
                yaw: 0.0,
                velocity: v3(0.0, 0.0, 0.0),
            }]);
            p.step(DT, |_| Some(coast));
            felt |= p
                .touches()
                .iter()
                .any(|t| t.vehicle == 1 && t.other == Part::Walker(7));
            s = p.walk(7, s, (0.0, 0.0), HALF, DT);
        }
        let car = p.state(1).unwrap();
        assert!(felt, "the collision was reported");
        assert!(s.feet.x > 9.0, "the walker was carried: {s:?}");
        assert!(
            s.feet.x > car.position.x + 2.0,
            "it is ahead of the car ({:?}): {s:?}",
            car.position
        );
        assert!(car.forward_speed > 6.0, "the car went on: {car:?}");
    }

    #[test]
    fn non_finite_input_leaves_it_where_it_was() {
        let p = level(&[]);
        let s = Stride {
            feet: v3(1.0, 2.0, 0.0),
            motion: Vector3D::default(),
        };
        assert_eq!(p.walk(7, s, (f32::NAN, 0.0), HALF, DT), s);
        assert_eq!(p.walk(7, s, (1.0, 0.0), HALF, f32::INFINITY), s);
    }
}
