//! The player's car: a kinematic bicycle model driven by the client's
//! `Control`, collision impulses, the lane/off-road fractions of its
//! footprint and an autopilot suggestion.
//!
//! Inputs are clamped (steer to [−1, 1], throttle and brake to [0, 1],
//! non-finite values read as 0). Throttle pushes along the gear (backwards
//! with `reverse`) with an engine force that fades to zero at the gear's top
//! speed; brake, hand brake and rolling resistance oppose the motion and
//! never reverse it. Steer turns the front wheels up to `MAX_STEER_DEG`
//! (positive: right, i.e. towards +y when heading +x).

use crate::world::map::lanes::Lanes;
use crate::world::math::{v3, Rect};
use carla_server::types::{Control, Rotation3D, Transform, Vector3D};

pub(crate) const MASS_KG: f32 = 1500.0;
pub(crate) const WHEELBASE_M: f32 = 2.9;
pub(crate) const MAX_STEER_DEG: f32 = 35.0;
/// The front wheels' angle at full steer of CARLA 0.9's cars (their
/// physics control's `max_steer_angle`), degrees.
pub(crate) const CARLA_MAX_STEER_DEG: f32 = 70.0;
pub(crate) const MAX_SPEED: f32 = 30.0;
pub(crate) const MAX_REVERSE_SPEED: f32 = 6.0;
/// Engine acceleration at full throttle from rest, m/s².
pub(crate) const ENGINE: f32 = 4.0;
/// Full brake, m/s².
pub(crate) const BRAKE: f32 = 9.0;
pub(crate) const HAND_BRAKE: f32 = 7.0;
/// Half length, width and height of the car.
pub(crate) const EXTENT: Vector3D = Vector3D {
    x: 2.3,
    y: 1.0,
    z: 0.75,
};

/// What a car ran into (with the other actor's id; static geometry: its
/// internal tag and the actor it is part of, 0 for level geometry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collision {
    Vehicle(u32),
    Pedestrian(u32),
    Other(u8, u32),
}

/// A transform at `(x, y, z)` turned by yaw, pitch and roll (radians);
/// the yaw reported in (−180°, 180°].
pub(crate) fn pose_transform(x: f32, y: f32, z: f32, yaw: f32, pitch: f32, roll: f32) -> Transform {
    let deg = yaw.to_degrees();
    let deg = 180.0 - (180.0 - deg).rem_euclid(360.0);
    let (cp, sp) = (pitch.cos(), pitch.sin());
    Transform {
        location: v3(x, y, z),
        orientation: v3(cp * yaw.cos(), cp * yaw.sin(), sp),
        rotation: Rotation3D {
            pitch: pitch.to_degrees(),
            yaw: deg,
            roll: roll.to_degrees(),
        },
    }
}

fn sane(v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_finite() {
        v.clamp(lo, hi)
    } else {
        0.0
    }
}

/// The player's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Car {
    pub x: f32,
    pub y: f32,
    /// The ground under its centre.
    pub z: f32,
    /// Heading, radians.
    pub yaw: f32,
    /// Climb and roll from the ground under its wheels, radians.
    pub pitch: f32,
    pub roll: f32,
    /// Signed speed along the heading, m/s.
    pub speed: f32,
    /// Last step's acceleration, world frame, m/s².
    pub accel: Vector3D,
    /// Accumulated impulses, kg·m/s: vehicles, pedestrians, other.
    pub collision_vehicles: f32,
    pub collision_pedestrians: f32,
    pub collision_other: f32,
    /// The last step's collision: the other actor (0: static geometry,
    /// then its internal tag), the impulse, kg·m/s.
    pub hit: Option<(u32, f32, u8)>,
    /// Half the body's size, metres ([`EXTENT`] unless spawned from a
    /// blueprint of another size).
    pub extent: Vector3D,
    /// How far ahead of the car's origin its body's centre lies, metres
    /// (a CARLA blueprint's bounding box is a few centimetres off it).
    pub ahead: f32,
    /// The front wheels' angle at full steer, degrees.
    pub max_steer_deg: f32,
    /// Where it stood when last put on the ground (x, y, yaw; infinite:
    /// never).
    pub settled_at: [f32; 3],
}

impl Car {
    pub(crate) fn at(spot: &Transform) -> Car {
        Car {
            x: spot.location.x,
            y: spot.location.y,
            z: spot.location.z,
            yaw: spot.rotation.yaw.to_radians(),
            pitch: 0.0,
            roll: 0.0,
            speed: 0.0,
            accel: Vector3D::default(),
            collision_vehicles: 0.0,
            collision_pedestrians: 0.0,
            collision_other: 0.0,
            hit: None,
            extent: EXTENT,
            ahead: 0.0,
            max_steer_deg: MAX_STEER_DEG,
            settled_at: [f32::INFINITY; 3],
        }
    }

    /// A 0.9 client's car at `spot`: its blueprint's size and box centre
    /// (`ahead` of its origin), and CARLA's steering
    /// ([`CARLA_MAX_STEER_DEG`], what a Traffic Manager's and an agent's
    /// controllers are tuned for).
    pub(crate) fn sized(spot: &Transform, extent: Vector3D, ahead: f32) -> Car {
        Car {
            extent,
            ahead,
            max_steer_deg: CARLA_MAX_STEER_DEG,
            ..Car::at(spot)
        }
    }

    /// The body's outline on the ground: the box a client reads, centred
    /// `ahead` of the origin.
    pub(crate) fn footprint(&self) -> Rect {
        let (s, c) = self.yaw.sin_cos();
        let (x, y) = (self.x + c * self.ahead, self.y + s * self.ahead);
        Rect::new(x, y, self.yaw, self.extent.x, self.extent.y)
    }

    /// The car's transform: on the ground under it, pitched and rolled
    /// with it, `orientation` the unit forward vector.
    pub(crate) fn transform(&self) -> Transform {
        pose_transform(self.x, self.y, self.z, self.yaw, self.pitch, self.roll)
    }

    /// Advances by `dt` under `c`. `collide` tells what a footprint would
    /// overlap; a move into something is undone, the car stops and the
    /// momentum lost is added to the matching impulse (a move out of an
    /// overlap it already had is allowed, so a car can back out).
    pub(crate) fn step(
        &mut self,
        c: &Control,
        dt: f32,
        collide: impl Fn(&Rect) -> Option<Collision>,
    ) {
        if dt.is_nan() || dt <= 0.0 {
            return;
        }
        let steer = sane(c.steer, -1.0, 1.0);
        let throttle = sane(c.throttle, 0.0, 1.0);
        let brake = sane(c.brake, 0.0, 1.0);
        let (gear, top) = if c.reverse.get() {
            (-1.0, MAX_REVERSE_SPEED)
        } else {
            (1.0, MAX_SPEED)
        };
        self.hit = None;
        let before = *self;
        let along_gear = (self.speed * gear).max(0.0);
        let engine = gear * throttle * ENGINE * (1.0 - along_gear / top).max(0.0);
        let mut v = self.speed + engine * dt;
        let hand = if c.hand_brake.get() { HAND_BRAKE } else { 0.0 };
        let resist = (brake * BRAKE + hand + 0.15 + 0.0004 * v * v) * dt;
        v = if v.abs() <= resist {
            0.0
        } else {
            v - v.signum() * resist
        };
        let yaw_rate = v * (steer * self.max_steer_deg.to_radians()).tan() / WHEELBASE_M;
        let mid = self.yaw + 0.5 * yaw_rate * dt;
        self.x += v * mid.cos() * dt;
        self.y += v * mid.sin() * dt;
        self.yaw = (self.yaw + yaw_rate * dt).rem_euclid(std::f32::consts::TAU);
        self.speed = v;
        if let Some(kind) = collide(&self.footprint()) {
            if collide(&before.footprint()).is_none() {
                let impulse = MASS_KG * v.abs();
                *self = Car {
                    speed: 0.0,
                    ..before
                };
                let (other, tag) = match kind {
                    Collision::Vehicle(id) => {
                        self.collision_vehicles += impulse;
                        (id, 0)
                    }
                    Collision::Pedestrian(id) => {
                        self.collision_pedestrians += impulse;
                        (id, 0)
                    }
                    Collision::Other(tag, actor) => {
                        self.collision_other += impulse;
                        (actor, tag)
                    }
                };
                self.hit = Some((other, impulse, tag));
            }
        }
        let (v0x, v0y) = (
            before.speed * before.yaw.cos(),
            before.speed * before.yaw.sin(),
        );
        let (v1x, v1y) = (self.speed * self.yaw.cos(), self.speed * self.yaw.sin());
        self.accel = v3((v1x - v0x) / dt, (v1y - v0y) / dt, 0.0);
    }

    /// Footprint sample points (4 along × 3 across).
    fn samples(&self) -> impl Iterator<Item = (f32, f32)> + '_ {
        let r = self.footprint();
        [-0.75f32, -0.25, 0.25, 0.75]
            .into_iter()
            .flat_map(move |a| {
                [-0.66f32, 0.0, 0.66]
                    .into_iter()
                    .map(move |b| r.point(a * self.extent.x, b * self.extent.y))
            })
    }

    /// `(intersection_otherlane, intersection_offroad)`: the fractions of the
    /// footprint's sample points on a driving lane running against the
    /// car's heading, and off the road (no lane, or a sidewalk or median).
    /// Junctions count as neither.
    pub(crate) fn lane_fractions(&self, lanes: &Lanes) -> (f32, f32) {
        let (hx, hy) = (self.yaw.cos(), self.yaw.sin());
        let (mut other, mut off, mut n) = (0, 0, 0);
        for (x, y) in self.samples() {
            n += 1;
            match lanes.at(x, y, self.z, 1.5) {
                None => off += 1,
                Some(on) => {
                    let lane = lanes.lane(on.lane);
                    if !lane.kind.is_road() {
                        off += 1;
                    } else if lane.kind.is_driving() && lane.junction.is_none() {
                        let yaw = lane.pose(on.dist).yaw;
                        if yaw.cos() * hx + yaw.sin() * hy < -0.1 {
                            other += 1;
                        }
                    }
                }
            }
        }
        (other as f32 / n as f32, off as f32 / n as f32)
    }
}

#[cfg(test)]
#[path = "vehicle_tests.rs"]
mod tests;
