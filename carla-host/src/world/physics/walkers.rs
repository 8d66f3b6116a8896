//! A client's walker as a character: a capsule that walks where its
//! control takes it and stops against walls, poles, buildings, vehicles,
//! props and other walkers (rapier's kinematic character controller, for
//! the horizontal stride), on the level's ground (the scene's surfaces, for
//! its height): it steps up anything up to [`STEP`] (a curb is 0.15 m),
//! climbs slopes up to 45°, keeps to the ground walking down one and falls
//! off a ledge under gravity. A car that runs into it throws it ahead (it
//! slides to a stop); it does not stop the car.
//!
//! The stride leaves the level's surfaces out of the controller's casts
//! and takes the height from the ground under the new place: a capsule
//! cast against a road's triangle mesh every tick cost 28 µs a walker (50
//! walkers: 1.4 ms a tick, most of the physics budget), the split 4 µs.

use super::{Part, Physics, G};
use carla_server::types::Vector3D;
use rapier3d::control::{CharacterLength, KinematicCharacterController};
use rapier3d::prelude::*;

/// The capsule's radius, metres.
pub(crate) const RADIUS: f32 = 0.25;
/// The highest step a walker takes in its stride (a curb is 0.15 m); the
/// capsule that meets obstacles starts this far above its feet.
pub(crate) const STEP: f32 = 0.3;
/// The steepest ground a walker climbs: the least upward share of its
/// normal (45°).
const CLIMB: f32 = std::f32::consts::FRAC_1_SQRT_2;
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

/// The ground under `(x, y)` a walker whose feet are at `z` can stand on
/// (the highest surface at most [`STEP`] above them) and its normal.
pub(crate) type Ground<'a> = &'a dyn Fn(f32, f32, f32) -> (f32, Vector3D);

fn controller() -> KinematicCharacterController {
    KinematicCharacterController {
        up: Vector::Z,
        offset: CharacterLength::Absolute(0.02),
        slide: true,
        autostep: None,
        snap_to_ground: None,
        ..KinematicCharacterController::default()
    }
}

impl Physics {
    /// Walks walker `id` (`half_height` from its feet to its centre) from
    /// `s` by `want` (metres, horizontal) over `dt` seconds on `ground`:
    /// where it ends up and how it moves on. Non-finite input leaves it
    /// where it is.
    pub(crate) fn walk(
        &self,
        id: u32,
        s: Stride,
        want: (f32, f32),
        half_height: f32,
        dt: f32,
        ground: Ground<'_>,
    ) -> Stride {
        let f = s.feet;
        let m = s.motion;
        let ok = [f.x, f.y, f.z, m.x, m.y, m.z, want.0, want.1, dt]
            .iter()
            .all(|v| v.is_finite());
        if !ok || dt <= 0.0 {
            return s;
        }
        // A car running into it throws it a little faster than itself,
        // so it ends up ahead of the bumper (the car is left out of the
        // walker's obstacles meanwhile: it starts inside its box).
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
        let wanted = Vector::new(want.0 + slide.x * dt, want.1 + slide.y * dt, 0.0);
        let (x, y) = self.stride(id, f, wanted, half_height, car, dt);
        // Its height: the ground under its new place, if it can step onto
        // it; else it stays (too steep) or falls.
        let (g, normal) = ground(x, y, f.z);
        let (x, y, g) = if g > f.z + 0.01 && normal.z < CLIMB {
            (f.x, f.y, ground(f.x, f.y, f.z).0)
        } else {
            (x, y, g)
        };
        let grounded = m.z >= 0.0 && f.z - g <= STEP;
        let (z, fall) = if grounded {
            (g, 0.0)
        } else {
            let fall = m.z - G * dt;
            let z = f.z + fall * dt;
            if z <= g {
                (g, 0.0)
            } else {
                (z, fall)
            }
        };
        if z <= g {
            let speed = slide.length();
            slide *= (speed - FRICTION * G * dt).max(0.0) / speed.max(1e-6);
        }
        // What stopped it takes its slide too.
        let moved = Vector::new(x - f.x, y - f.y, 0.0);
        let blocked = moved.dot(slide) < 0.5 * slide.length_squared() * dt * dt;
        if blocked && car.is_none() {
            slide = Vector::ZERO;
        }
        Stride {
            feet: Vector3D { x, y, z },
            motion: Vector3D {
                x: slide.x,
                y: slide.y,
                z: fall,
            },
        }
    }

    /// Where walker `id` at `feet` gets to along `wanted` (horizontal) past
    /// the obstacles: everything but the level's surfaces, its own body
    /// and the car shoving it, other walkers included.
    fn stride(
        &self,
        id: u32,
        feet: Vector3D,
        wanted: Vector,
        half_height: f32,
        car: Option<RigidBodyHandle>,
        dt: f32,
    ) -> (f32, f32) {
        if wanted.length_squared() < 1e-12 {
            return (feet.x, feet.y);
        }
        // A capsule from STEP above its feet to its head: what is lower it
        // steps onto.
        let top = 2.0 * half_height.max(STEP + RADIUS);
        let half = ((top - STEP) / 2.0 - RADIUS).max(0.01);
        let shape = SharedShape::capsule_z(half, RADIUS);
        let centre = feet.z + STEP + (top - STEP) / 2.0;
        let at = Pose::from_translation(Vector::new(feet.x, feet.y, centre));
        let w = &self.world;
        let own = self
            .movers
            .iter()
            .find(|(p, _, _, _)| *p == Part::Walker(id))
            .map(|&(_, b, _, _)| b);
        let keep = |_: ColliderHandle, c: &Collider| {
            let parent = c.parent();
            let part = Part::of(c.user_data);
            let other_walker = matches!(part, Part::Walker(w) if w != id);
            part != Part::Surface
                && (!c.is_sensor() || other_walker)
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
        if t.is_finite() {
            (feet.x + t.x, feet.y + t.y)
        } else {
            (feet.x, feet.y)
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
    const UP: Vector3D = Vector3D {
        x: 0.0,
        y: 0.0,
        z: 1.0,
    };

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

    fn flat(_: f32, _: f32, _: f32) -> (f32, Vector3D) {
        (0.0, UP)
    }

    /// A step of `height` from x = 3 on: its top counts as ground where a
    /// walker at `z` reaches it.
    fn stepped(height: f32) -> impl Fn(f32, f32, f32) -> (f32, Vector3D) {
        move |x, _, z| {
            if x > 3.0 && z + STEP >= height {
                (height, UP)
            } else {
                (0.0, UP)
            }
        }
    }

    /// Walker 7 walking along +x at 1.4 m/s for `seconds` from `(x, z)`.
    fn walk_x(p: &Physics, x: f32, z: f32, seconds: f32, ground: Ground<'_>) -> (Stride, f32) {
        let mut s = Stride {
            feet: v3(x, 0.0, z),
            motion: Vector3D::default(),
        };
        let mut lowest_fall = 0.0f32;
        for _ in 0..(seconds / DT) as usize {
            s = p.walk(7, s, (1.4 * DT, 0.0), HALF, DT, ground);
            lowest_fall = lowest_fall.min(s.motion.z);
        }
        (s, lowest_fall)
    }

    #[test]
    fn a_walker_stops_at_a_wall_and_steps_up_a_curb_not_a_ledge() {
        let wall = level(&[([5.0, 0.0, 1.5], [0.2, 5.0, 1.5])]);
        let (s, _) = walk_x(&wall, 0.0, 0.0, 6.0, &flat);
        assert!(
            (4.4..=4.8).contains(&s.feet.x) && s.feet.z.abs() < 0.05,
            "{s:?}"
        );
        // A 15 cm curb from x = 3 on: it walks on at its height.
        let curb = level(&[([13.0, 0.0, 0.075], [10.0, 5.0, 0.075])]);
        let (s, _) = walk_x(&curb, 0.0, 0.0, 6.0, &stepped(0.15));
        assert!(s.feet.x > 7.0 && (s.feet.z - 0.15).abs() < 0.01, "{s:?}");
        // A 60 cm ledge: it stays below.
        let ledge = level(&[([13.0, 0.0, 0.3], [10.0, 5.0, 0.3])]);
        let (s, _) = walk_x(&ledge, 0.0, 0.0, 6.0, &stepped(0.6));
        assert!(s.feet.x < 3.0 && s.feet.z.abs() < 0.01, "{s:?}");
    }

    #[test]
    fn a_walker_walks_off_a_ledge_and_falls_and_not_up_a_steep_slope() {
        // A 2 m platform ending at x = 3.
        let p = level(&[([0.0, 0.0, 1.0], [3.0, 5.0, 1.0])]);
        let platform = |x: f32, _: f32, _: f32| (if x <= 3.0 { 2.0 } else { 0.0 }, UP);
        let (s, lowest_fall) = walk_x(&p, 0.0, 2.0, 4.0, &platform);
        assert!(s.feet.x > 3.0 && s.feet.z.abs() < 0.01, "{s:?}");
        assert!(lowest_fall < -3.0, "it fell: {lowest_fall}");
        // Ground rising at 60° from x = 3: it stops at its foot.
        let steep = |x: f32, _: f32, _: f32| {
            let n = v3(-0.866, 0.0, 0.5);
            if x > 3.0 {
                ((x - 3.0) * 1.732, n)
            } else {
                (0.0, UP)
            }
        };
        let (s, _) = walk_x(&level(&[]), 0.0, 0.0, 5.0, &steep);
        assert!(s.feet.x <= 3.1 && s.feet.z < 0.2, "{s:?}");
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
        let (s, _) = walk_x(&p, 0.0, 0.0, 4.0, &flat);
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
        // Half throttle: about its speed.
        let coast = Drive {
            throttle: 0.5,
            ..Drive::default()
        };
        for _ in 0..20 {
            p.set_movers(&[Mover {
                part: Part::Walker(7),
                centre: v3(s.feet.x, s.feet.y, s.feet.z + HALF),
                half: v3(0.3, 0.3, HALF),
                yaw: 0.0,
                velocity: s.motion,
            }]);
            p.step(DT, |_| Some(coast));
            felt |= p
                .touches()
                .iter()
                .any(|t| t.vehicle == 1 && t.other == Part::Walker(7));
            s = p.walk(7, s, (0.0, 0.0), HALF, DT, &flat);
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
        assert_eq!(p.walk(7, s, (f32::NAN, 0.0), HALF, DT, &flat), s);
        assert_eq!(p.walk(7, s, (1.0, 0.0), HALF, f32::INFINITY, &flat), s);
    }
}
