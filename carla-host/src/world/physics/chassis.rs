//! A client's vehicle as a rigid body on ray-cast wheels (rapier's
//! `DynamicRayCastVehicleController`), driven by CARLA's controls through
//! its [`powertrain`](super::powertrain).
//!
//! The body's origin is the actor's origin: on the ground under the car's
//! centre when it rests on its wheels. Its box (the blueprint's bounding
//! box) starts [`CLEARANCE`] above that, so the road and curbs meet only
//! the wheels. Each wheel is a spring and damper down to the road (sagging
//! [`SAG`] under the car's weight) and a tire whose grip is the wheel's
//! `tire_friction` times its load. The drive reaches the road through the
//! tires' longitudinal slip ([`tire`]): the engine and wheels turn at the
//! speed where the tires take what the engine gives, so a soft tire spins
//! and a wheel off the ground revs free. Brake forces are capped at the
//! grip, and rapier's controller caps the combined forward and side
//! impulse. With `use_sweep_wheel_collision` a wheel finds the road where
//! its cylinder, swept down the suspension, first touches it
//! ([`Chassis::sweep_wheels`]). Brakes give `brake · max_brake_torque /
//! radius` per wheel (the hand brake adds `max_handbrake_torque`); a
//! wheel's `damping_rate` is its rolling resistance (`damping_rate · ω /
//! radius`); air drag is `½ ρ · drag_coefficient · width · height · v²`.
//! Steering turns each wheel by `steer · max_steer_angle` times the
//! steering curve's factor at the car's speed (km/h).

use super::powertrain::{clean, curve_at, Engine, Gearbox};
use super::tire;
use super::G;
use carla_server::rpc::{VehiclePhysicsControl, VehicleTelemetry, WheelTelemetry};
use carla_server::types::Vector3D;
use rapier3d::control::{DynamicRayCastVehicleController, WheelTuning};
use rapier3d::parry::query::ShapeCastOptions;
use rapier3d::prelude::*;

/// Height of the body's box above the ground at rest, metres.
pub(crate) const CLEARANCE: f32 = 0.25;
/// How far the suspension sinks under the car's weight at rest, metres.
pub(crate) const SAG: f32 = 0.08;
/// Suspension travel above the wheel at rest, metres.
const REST: f32 = 0.3;
const AIR_DENSITY: f32 = 1.225;
/// A tire's width for its sweep, metres (CARLA's control has none).
const TREAD: f32 = 0.2;

/// A driver's input for one step (CARLA's `VehicleControl`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Drive {
    pub throttle: f32,
    pub steer: f32,
    pub brake: f32,
    pub hand_brake: bool,
    pub reverse: bool,
    /// `manual_gear_shift`: the gear (-1 reverse, 0 neutral, 1 first,
    /// ...); `None`: the automatic.
    pub gear: Option<i32>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct WheelSpec {
    radius: f32,
    max_steer: f32,
    brake: f32,
    hand_brake: f32,
    friction: f32,
    damping: f32,
    /// Cornering stiffness per newton of load, 1/rad.
    lateral: f32,
    /// The load past which the cornering stiffness grows no more, in
    /// shares of the wheel's part of the car's weight.
    max_load: f32,
    /// Where the suspension meets the body (its top), body frame.
    mount: Vector,
    /// Longitudinal stiffness, N per unit slip.
    long_stiff: f32,
}

/// A vehicle body and what drives it.
pub(crate) struct Chassis {
    pub id: u32,
    pub body: RigidBodyHandle,
    pub collider: ColliderHandle,
    pub(super) wheels: DynamicRayCastVehicleController,
    specs: Vec<WheelSpec>,
    engine: Engine,
    pub gearbox: Gearbox,
    pub mass: f32,
    drag: f32,
    steering: Vec<[f32; 2]>,
    /// `use_sweep_wheel_collision`: the wheels are cylinders swept down
    /// the suspension, not rays.
    sweep: bool,
    pub extent: Vector3D,
    pub ahead: f32,
    /// The last input and the drive torque in all (N·m).
    pub last: Drive,
    pub drive_torque: f32,
    /// Each wheel's longitudinal slip and spin (rad/s) in the last step.
    slips: Vec<(f32, f32)>,
    /// The last step's length, seconds.
    last_dt: f32,
    /// Not stepped yet: the engine has not taken the body in (its mass
    /// properties are computed by its first step), so its wheels wait.
    pub fresh: bool,
}

/// The box of a vehicle `extent` (half size) whose centre is `ahead` of
/// its origin: half size and centre in the body's frame.
pub(crate) fn body_box(extent: Vector3D, ahead: f32) -> (Vector, Vector) {
    let hz = (extent.z - CLEARANCE / 2.0).max(0.1);
    (
        Vector::new(extent.x.max(0.1), extent.y.max(0.1), hz),
        Vector::new(ahead, 0.0, CLEARANCE + hz),
    )
}

impl Chassis {
    /// A vehicle `id` of half size `extent` under `control` (wheel
    /// positions local, metres, as `VehiclePhysicsControl::default_for`
    /// places them), its body added to `bodies`.
    pub(crate) fn new(
        id: u32,
        pose: Pose,
        extent: Vector3D,
        ahead: f32,
        control: &VehiclePhysicsControl,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
    ) -> Chassis {
        let body = bodies.insert(
            RigidBodyBuilder::dynamic()
                .pose(pose)
                .can_sleep(false)
                .ccd_enabled(true),
        );
        let (half, centre) = body_box(extent, ahead);
        let collider = colliders.insert_with_parent(
            ColliderBuilder::cuboid(half.x, half.y, half.z)
                .translation(centre)
                .density(0.0)
                .friction(0.5)
                .active_hooks(ActiveHooks::MODIFY_SOLVER_CONTACTS)
                .user_data(super::Part::Vehicle(id).data()),
            body,
            bodies,
        );
        let mut c = Chassis {
            id,
            body,
            collider,
            wheels: DynamicRayCastVehicleController::new(body),
            specs: Vec::new(),
            engine: Engine::of(control),
            gearbox: Gearbox::default(),
            mass: 1.0,
            drag: 0.0,
            steering: Vec::new(),
            sweep: false,
            extent,
            ahead,
            last: Drive::default(),
            drive_torque: 0.0,
            slips: Vec::new(),
            last_dt: 0.0,
            fresh: true,
        };
        c.apply(control, bodies);
        c
    }

    /// Takes a new physics control: mass, centre of mass, drag, engine,
    /// steering and wheels (their positions stay the vehicle's own).
    pub(crate) fn apply(&mut self, control: &VehiclePhysicsControl, bodies: &mut RigidBodySet) {
        let e = self.extent;
        self.mass = clean(control.mass, 1500.0, 1.0, 1e6);
        self.drag = 0.5
            * AIR_DENSITY
            * clean(control.drag_coefficient, 0.3, 0.0, 10.0)
            * (2.0 * e.y)
            * (2.0 * e.z);
        self.engine = Engine::of(control);
        self.sweep = control.use_sweep_wheel_collision;
        self.steering = control
            .steering_curve
            .iter()
            .filter(|p| p[0].is_finite() && p[1].is_finite())
            .map(|p| [p[0], p[1].clamp(0.0, 1.0)])
            .collect();
        self.steering.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let com = control.center_of_mass;
        let com = Vector::new(
            clean(com.x, 0.0, -e.x, e.x) + self.ahead,
            clean(com.y, 0.0, -e.y, e.y),
            clean(com.z, 0.0, -e.z, e.z) + e.z,
        );
        // A box of the car's size and mass.
        let (sx, sy, sz) = (4.0 * e.x * e.x, 4.0 * e.y * e.y, 4.0 * e.z * e.z);
        let k = self.mass / 12.0;
        let inertia = Vector::new(k * (sy + sz), k * (sx + sz), k * (sx + sy));
        if let Some(b) = bodies.get_mut(self.body) {
            b.set_additional_mass_properties(MassProperties::new(com, self.mass, inertia), true);
        }
        let old = std::mem::replace(
            &mut self.wheels,
            DynamicRayCastVehicleController::new(self.body),
        );
        self.wheels.index_up_axis = 2;
        self.wheels.index_forward_axis = 0;
        self.specs.clear();
        let n = control.wheels.len().max(1) as f32;
        let k = G / (n * SAG);
        let critical = 2.0 * (n * k).sqrt() / n;
        for w in &control.wheels {
            let radius = clean(w.radius / 100.0, 0.3, 0.05, 2.0);
            let tuning = WheelTuning {
                suspension_stiffness: k,
                suspension_compression: 0.9 * critical,
                suspension_damping: 0.9 * critical,
                max_suspension_travel: REST,
                side_friction_stiffness: 1.0,
                friction_slip: clean(w.tire_friction, 2.0, 0.0, 10.0),
                max_suspension_force: self.mass * G * 20.0,
            };
            let p = w.position;
            let x = clean(p.x, 0.0, -2.0 * e.x, 2.0 * e.x) + self.ahead;
            let y = clean(p.y, 0.0, -2.0 * e.y, 2.0 * e.y);
            let mount = Vector::new(x, y, radius + REST - SAG);
            self.wheels.add_wheel(
                mount,
                Vector::new(0.0, 0.0, -1.0),
                Vector::new(0.0, -1.0, 0.0),
                REST,
                radius,
                &tuning,
            );
            self.specs.push(WheelSpec {
                radius,
                max_steer: clean(w.max_steer_angle, 0.0, -89.0, 89.0).to_radians(),
                brake: clean(w.max_brake_torque, 1500.0, 0.0, 1e6) / radius,
                hand_brake: clean(w.max_handbrake_torque, 0.0, 0.0, 1e6) / radius,
                friction: clean(w.tire_friction, 2.0, 0.0, 10.0),
                damping: clean(w.damping_rate, 0.25, 0.0, 100.0),
                lateral: clean(w.lat_stiff_value, 17.0, 0.1, 1e3),
                max_load: clean(w.lat_stiff_max_load, 2.0, 0.01, 100.0),
                mount,
                long_stiff: clean(w.long_stiff_value, 1000.0, 0.1, 1e6) * G,
            });
        }
        // Keep the wheels' spin and suspension where they were.
        for (new, old) in self.wheels.wheels_mut().iter_mut().zip(old.wheels()) {
            new.rotation = old.rotation;
        }
    }

    /// With `use_sweep_wheel_collision`, sets each wheel's mount for the
    /// step to come so that rapier's ray finds the road where the wheel's
    /// cylinder, swept down its suspension, first touches it: a tire meets
    /// a curb's edge or a bump under its tread before its centre is over
    /// it, as PhysX's sweeps do. The mount goes down by what the sweep is
    /// shorter than the ray; where the ray finds nothing under the wheel's
    /// centre (past a ledge) the wheel stays a ray.
    pub(crate) fn sweep_wheels(&mut self, body: &RigidBody, ground: &QueryPipeline) {
        if !self.sweep {
            return;
        }
        let pose = *body.position();
        let down = pose.rotation * Vector::new(0.0, 0.0, -1.0);
        for (w, s) in self.wheels.wheels_mut().iter_mut().zip(&self.specs) {
            w.chassis_connection_point_cs = s.mount;
            let top = pose * s.mount;
            let ray = Ray::new(top, down);
            let Some((_, hit)) = ground.cast_ray(&ray, REST + s.radius, true) else {
                continue;
            };
            let by_ray = hit - s.radius;
            let turn = Rotation::from_rotation_z(w.steering);
            let at = Pose::from_parts(top, pose.rotation * turn);
            let tire = Cylinder::new(TREAD / 2.0, s.radius);
            let options = ShapeCastOptions {
                max_time_of_impact: REST,
                stop_at_penetration: true,
                ..ShapeCastOptions::default()
            };
            if let Some((_, swept)) = ground.cast_shape(&at, down, &tire, options) {
                let lift = by_ray - swept.time_of_impact;
                if lift > 1e-4 && lift.is_finite() {
                    w.chassis_connection_point_cs = s.mount - Vector::new(0.0, 0.0, lift);
                }
            }
        }
    }

    /// A braked car at (nearly) rest stays there: rapier's wheels each
    /// take back only their share of the velocity a step (1/n of it for n
    /// wheels on the ground), so a car held by its rear wheels' hand brake
    /// alone would creep down a grade at about 2·g·sin(grade)·dt. Here the
    /// velocity along the heading the step to come would have is taken
    /// back whole, up to what the braked wheels' grip allows.
    pub(crate) fn hold(&self, dt: f32, body: &mut RigidBody) {
        let d = self.last;
        if !(d.brake > 0.0 || d.hand_brake) {
            return;
        }
        let fwd = body.position().rotation * Vector::X;
        let pull = -9.81 * body.gravity_scale() * fwd.z * dt;
        let along = fwd.dot(body.linvel()) + pull;
        if along.abs() > 0.3 {
            return;
        }
        let grip: f32 = self
            .wheels
            .wheels()
            .iter()
            .zip(&self.specs)
            .filter(|(w, s)| {
                w.raycast_info().is_in_contact
                    && (d.brake * s.brake + if d.hand_brake { s.hand_brake } else { 0.0 }) > 0.0
            })
            .map(|(w, s)| {
                let brake = d.brake * s.brake + if d.hand_brake { s.hand_brake } else { 0.0 };
                brake.min(s.friction * w.wheel_suspension_force.max(0.0))
            })
            .sum();
        let j = (-self.mass * along).clamp(-grip * dt, grip * dt);
        if j.is_finite() {
            body.apply_impulse(fwd * j, false);
        }
    }

    /// Signed speed along the body's heading, m/s.
    pub(crate) fn forward_speed(&self, bodies: &RigidBodySet) -> f32 {
        let b = &bodies[self.body];
        let fwd = b.position().rotation * Vector::X;
        fwd.dot(b.linvel())
    }

    /// Sets the wheels' forces for a step of `dt` under `d`.
    pub(crate) fn drive(&mut self, d: Drive, dt: f32, bodies: &mut RigidBodySet) {
        let d = Drive {
            throttle: clean(d.throttle, 0.0, 0.0, 1.0),
            steer: clean(d.steer, 0.0, -1.0, 1.0),
            brake: clean(d.brake, 0.0, 0.0, 1.0),
            ..d
        };
        self.last = d;
        self.last_dt = dt;
        let speed = self.forward_speed(bodies);
        let r_mean =
            self.specs.iter().map(|s| s.radius).sum::<f32>() / self.specs.len().max(1) as f32;
        self.gearbox.select(&self.engine, d.gear);
        let reverse = d.gear.map_or(d.reverse, |g| g < 0);
        let braking = d.brake > 0.0 || d.hand_brake;
        // The engine's inertia turns with the wheels: of what it gives,
        // this share reaches the road, the rest spins it up.
        let share = self.mass / (self.mass + self.gearbox.inertia_mass(&self.engine, r_mean));
        let (wheels, specs) = (&self.wheels, &self.specs);
        // What the engine gives the driven wheels turning at ω for the
        // tires to take their force at their slip over the road.
        let road = |omega: f32| -> f32 {
            let pairs = wheels.wheels().iter().zip(specs);
            let taken: f32 = pairs
                .map(|(w, s)| {
                    let grip = s.friction * w.wheel_suspension_force.max(0.0);
                    let slip = tire::slip(omega, s.radius, speed);
                    tire::force(s.long_stiff, grip, slip) * s.radius
                })
                .sum();
            taken / share
        };
        let road: Option<&dyn Fn(f32) -> f32> = if braking { None } else { Some(&road) };
        let (torque, spin) =
            self.gearbox
                .step(&self.engine, d.throttle, reverse, speed / r_mean, road, dt);
        self.drive_torque = torque;
        let factor = if self.steering.is_empty() {
            1.0
        } else {
            curve_at(&self.steering, speed.abs() * 3.6)
        };
        let n = self.specs.len().max(1) as f32;
        self.slips.clear();
        for (w, s) in self.wheels.wheels_mut().iter_mut().zip(&self.specs) {
            let angle = d.steer * s.max_steer * factor;
            // The tire's cornering force, `lat_stiff_value · load · slip
            // angle`, over this step takes back this share of the wheel's
            // sideways slip (rapier's wheel would take it all: a rigid
            // tire, which makes a car yaw at once and a controller at long
            // steps weave); at walking pace all of it.
            let weight = self.mass * G / n;
            let load = if w.wheel_suspension_force > 0.0 {
                w.wheel_suspension_force.min(s.max_load * weight)
            } else {
                weight
            };
            w.side_friction_stiffness =
                (s.lateral * load * dt / (self.mass / n * speed.abs().max(0.1))).clamp(0.05, 1.0);
            // Positive in rapier turns the wheel towards +y, as CARLA's.
            w.steering = angle;
            let grip = s.friction * w.wheel_suspension_force.max(0.0);
            let brake = d.brake * s.brake
                + if d.hand_brake { s.hand_brake } else { 0.0 }
                + s.damping * (speed / s.radius).abs() / s.radius;
            if braking || torque.abs() < 1e-3 {
                w.engine_force = 0.0;
                w.brake = brake.min(grip) * dt;
                // The tread slows against the road by the slip that force
                // takes.
                let slip = -tire::slip_for(s.long_stiff, grip, brake.min(grip)) * speed.signum();
                let slip = if speed.abs() > 0.01 { slip } else { 0.0 };
                let room = speed.abs().max(tire::MIN_SLIP_SPEED);
                self.slips.push((slip, (speed + slip * room) / s.radius));
            } else if let Some(spin) = spin {
                let slip = tire::slip(spin, s.radius, speed);
                w.engine_force = tire::force(s.long_stiff, grip, slip);
                w.brake = 0.0;
                self.slips.push((slip, spin));
            } else {
                // The engine at rest, its clutch slipping (the car rolls
                // back in gear): its torque shared out, up to the grip.
                let push = (torque * share / (s.radius * n)).clamp(-grip, grip);
                w.engine_force = push;
                w.brake = 0.0;
                let slip = tire::slip_for(s.long_stiff, grip, push);
                let room = speed.abs().max(tire::MIN_SLIP_SPEED);
                self.slips.push((slip, (speed + slip * room) / s.radius));
            }
        }
        let b = &mut bodies[self.body];
        let v = b.linvel();
        let drag = -v * (self.drag * v.length() * dt);
        if drag.is_finite() {
            b.apply_impulse(drag, true);
        }
    }

    /// CARLA's telemetry of the car after its last step: forward speed,
    /// the controls it drove under, engine rpm, gear, drag (N) and per
    /// wheel its grip, slip angle (degrees), longitudinal slip, spin
    /// (rad/s), load (N, and over its share of the weight), torque (N·m)
    /// and the tire's forward and side forces (N).
    pub(crate) fn telemetry(&self, bodies: &RigidBodySet) -> VehicleTelemetry {
        let b = &bodies[self.body];
        let rot = b.position().rotation;
        let v = b.linvel();
        let speed = self.forward_speed(bodies);
        let d = self.last;
        let dt = self.last_dt;
        let per_second = |impulse: f32| if dt > 0.0 { impulse / dt } else { 0.0 };
        let n = self.specs.len().max(1) as f32;
        let share = self.mass * G / n;
        let mut t = VehicleTelemetry {
            speed,
            steer: d.steer,
            throttle: d.throttle,
            brake: d.brake,
            engine_rpm: self.gearbox.omega * 60.0 / std::f32::consts::TAU,
            gear: self.gearbox.carla_gear(),
            drag: self.drag * v.length_squared(),
            ..Default::default()
        };
        let pairs = self.wheels.wheels().iter().zip(&self.specs);
        let slips = self
            .slips
            .iter()
            .copied()
            .chain(std::iter::repeat((0.0, f32::NAN)));
        for (out, ((w, s), (long_slip, spin))) in t.wheels.iter_mut().zip(pairs.zip(slips)) {
            let (sin, cos) = w.steering.sin_cos();
            let fwd = rot * Vector::new(cos, sin, 0.0);
            let side = rot * Vector::new(-sin, cos, 0.0);
            let at = b.velocity_at_point(w.raycast_info().hard_point_ws);
            let (along, across) = (fwd.dot(at), side.dot(at));
            let load = w.wheel_suspension_force.max(0.0);
            let long_force = per_second(w.forward_impulse);
            let lat_force = per_second(w.side_impulse);
            let normalized = load / share;
            let torque = if w.brake > 0.0 {
                -per_second(w.brake) * s.radius * along.signum()
            } else {
                w.engine_force * s.radius
            };
            let over_load = |f: f32| {
                if load > 0.0 {
                    f.abs() * normalized / load
                } else {
                    0.0
                }
            };
            *out = WheelTelemetry {
                tire_friction: s.friction,
                lat_slip: if along.abs() + across.abs() > 0.1 {
                    across.atan2(along.abs()).to_degrees()
                } else {
                    0.0
                },
                long_slip,
                omega: if spin.is_nan() {
                    along / s.radius
                } else {
                    spin
                },
                tire_load: load,
                normalized_tire_load: normalized,
                torque,
                long_force,
                lat_force,
                normalized_long_force: over_load(long_force),
                normalized_lat_force: over_load(lat_force),
            };
        }
        t.wheel_count = self.specs.len().min(t.wheels.len()) as u32;
        t
    }
}
