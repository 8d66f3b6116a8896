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

use super::traffic;
use crate::world::map::town::{self, dir_vec, light_state, neighbour, right_vec, Light};
use crate::world::math::{v3, Rect};
use carla_server::types::{CBool, Control, Transform, Vector3D};

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
/// The autopilot's cruising speed (30 km/h).
pub(crate) const AUTOPILOT_SPEED: f32 = 30.0 / 3.6;

/// What a car ran into (with the other actor's id; static geometry: its
/// internal tag and the actor it is part of, 0 for level geometry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Collision {
    Vehicle(u32),
    Pedestrian(u32),
    Other(u8, u32),
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
    /// Heading, radians.
    pub yaw: f32,
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
    /// The front wheels' angle at full steer, degrees.
    pub max_steer_deg: f32,
}

impl Car {
    pub(crate) fn at(spot: &Transform) -> Car {
        Car {
            x: spot.location.x,
            y: spot.location.y,
            yaw: spot.rotation.yaw.to_radians(),
            speed: 0.0,
            accel: Vector3D::default(),
            collision_vehicles: 0.0,
            collision_pedestrians: 0.0,
            collision_other: 0.0,
            hit: None,
            extent: EXTENT,
            max_steer_deg: MAX_STEER_DEG,
        }
    }

    /// A 0.9 client's car at `spot`: its blueprint's size, and CARLA's
    /// steering ([`CARLA_MAX_STEER_DEG`], what a Traffic Manager's and an
    /// agent's controllers are tuned for).
    pub(crate) fn sized(spot: &Transform, extent: Vector3D) -> Car {
        Car {
            extent,
            max_steer_deg: CARLA_MAX_STEER_DEG,
            ..Car::at(spot)
        }
    }

    pub(crate) fn footprint(&self) -> Rect {
        Rect::new(self.x, self.y, self.yaw, self.extent.x, self.extent.y)
    }

    /// The car's transform: on the ground, level, `orientation` the unit
    /// forward vector.
    pub(crate) fn transform(&self) -> Transform {
        town::ground_transform(self.x, self.y, self.yaw.to_degrees())
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
    /// footprint's sample points on a lane running against the car's
    /// heading, and off the road. Junctions count as neither.
    pub(crate) fn lane_fractions(&self) -> (f32, f32) {
        let (hx, hy) = (self.yaw.cos(), self.yaw.sin());
        let (mut other, mut off, mut n) = (0, 0, 0);
        for (x, y) in self.samples() {
            n += 1;
            let s = town::surface(x, y);
            if !s.ground.is_road() {
                off += 1;
            } else if let Some(d) = s.lane {
                let (lx, ly) = dir_vec(d);
                if lx * hx + ly * hy < -0.1 {
                    other += 1;
                }
            }
        }
        (other as f32 / n as f32, off as f32 / n as f32)
    }

    /// The control that turns the front wheels to `wheel` radians and
    /// holds `speed` m/s (an Ackermann control).
    pub(crate) fn follow(&self, wheel: f32, speed: f32) -> Control {
        let err = speed - self.speed;
        Control {
            steer: (wheel / self.max_steer_deg.to_radians()).clamp(-1.0, 1.0),
            throttle: (err * 0.5).clamp(0.0, 1.0),
            brake: if err < -0.3 {
                (-err * 0.3).clamp(0.0, 1.0)
            } else {
                0.0
            },
            hand_brake: CBool::FALSE,
            reverse: CBool::FALSE,
        }
    }

    /// What the autopilot would do at time `t`: follow the right lane of the
    /// nearest road in the direction closest to the heading (turning where
    /// the road ends, slowing down for it), cruise at 30 km/h, stop at red and yellow lights and
    /// behind whatever is `gap` metres ahead.
    pub(crate) fn autopilot(&self, t: f32, gap: Option<f32>) -> Control {
        let quarter = (self.yaw / std::f32::consts::FRAC_PI_2).round();
        let d = (quarter as i32).rem_euclid(4) as u8;
        let (hx, hy) = dir_vec(d);
        let (rx, ry) = right_vec(d);
        // The road along d nearest to the car, and the next junction on it.
        let across = self.x * rx.abs() + self.y * ry.abs();
        let k = (across / town::SPACING)
            .round()
            .clamp(0.0, (town::ROADS - 1) as f32);
        let along = self.x * hx + self.y * hy; // signed position along d
        let sign = hx + hy; // ±1: whether d runs up or down the grid
        let last = (town::ROADS - 1) as f32;
        let j = ((along / town::SPACING).ceil() * sign).clamp(0.0, last);
        let node = if hx != 0.0 {
            (j as i32, k as i32)
        } else {
            (k as i32, j as i32)
        };
        let to_node = j * town::SPACING * sign - along;
        let lookahead = 4.0 + 0.3 * self.speed.max(0.0);
        // A dead end: the route turns right (or left) through the node.
        let turn = neighbour(node, d).is_none().then(|| {
            let e = if neighbour(node, (d + 1) % 4).is_some() {
                (d + 1) % 4
            } else {
                (d + 3) % 4
            };
            (e, traffic::turn(node, d, e))
        });
        // The point `lookahead` metres ahead along the route.
        let to_mouth = to_node - traffic::MOUTH;
        let target = match turn {
            Some((e, leg)) if lookahead > to_mouth => {
                let into = lookahead - to_mouth;
                let len = leg.length();
                if into < len {
                    leg.point(into / len)
                } else {
                    town::lane_point(node, e, traffic::MOUTH + into - len)
                }
            }
            _ => town::lane_point(node, d, lookahead - to_node),
        };
        let (tx, ty) = (target.0 - self.x, target.1 - self.y);
        // Pure pursuit: the wheel angle whose arc passes through the target.
        let (c, s) = (self.yaw.cos(), self.yaw.sin());
        let alpha = (ty * c - tx * s).atan2(tx * c + ty * s);
        let dist = (tx * tx + ty * ty).sqrt().max(1.0);
        let wheel = (2.0 * WHEELBASE_M * alpha.sin() / dist).atan();
        let steer = (wheel / self.max_steer_deg.to_radians()).clamp(-1.0, 1.0);
        let mut want = AUTOPILOT_SPEED;
        if turn.is_some() {
            want = want.min(3.0 + 0.4 * to_mouth.max(0.0));
        }
        // Distance from the front bumper to the stop line.
        let stop_at = to_node - (town::ROAD_HALF + 1.0) - self.extent.x;
        if stop_at > 0.0 && light_state(node, d, t) != Light::Green {
            want = want.min((2.0 * 3.0 * (stop_at - 1.0).max(0.0)).sqrt());
        }
        if let Some(g) = gap {
            want = want.min((2.0 * 3.0 * (g - 3.0).max(0.0)).sqrt());
        }
        let err = want - self.speed;
        Control {
            steer,
            throttle: (err * 0.5).clamp(0.0, 0.8),
            brake: if err < -0.5 || want < 0.1 {
                (-err * 0.3).clamp(0.3, 1.0)
            } else {
                0.0
            },
            hand_brake: CBool::FALSE,
            reverse: CBool::FALSE,
        }
    }
}

#[cfg(test)]
#[path = "vehicle_tests.rs"]
mod tests;
