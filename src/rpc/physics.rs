//! Vehicle physics control (`vehicle.get_physics_control()`,
//! `apply_physics_control`, batch `ApplyVehiclePhysicsControl`) and wheel
//! steer angles. The library keeps each vehicle's control: a vehicle starts
//! with LibCarla's defaults, its wheels placed from its bounding box; what
//! a client applies is checked, kept (so it reads back what it set) and
//! handed to the host as `ActorCommand::PhysicsControl`.
//!
//! Wire layout (`carla::rpc::VehiclePhysicsControl`, 17 fields): torque
//! curve `[[rpm, Nm]]`, max rpm, moi, three damping rates, gear autobox,
//! gear switch time, clutch strength, final ratio, forward gears `[[ratio,
//! down, up]]`, mass, drag coefficient, centre of mass `[x, y, z]`, steering
//! curve `[[km/h, factor]]`, wheels (10 fields each: tire friction, damping
//! rate, max steer angle, radius, max brake torque, max handbrake torque,
//! lateral stiffness max load and value, longitudinal stiffness, position
//! `[x, y, z]`), sweep wheel collision.

use super::error::bad_arg;
use super::wire::{self, as_array, as_bool, as_f32, as_vector, ArgResult};
use crate::types::{ActorTransform, Vector3D};
use rmpv::Value;

/// Longest curve, gear or wheel list accepted from a client.
pub(crate) const MAX_ENTRIES: usize = 64;

/// One wheel (`carla.WheelPhysicsControl`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WheelPhysics {
    pub tire_friction: f32,
    pub damping_rate: f32,
    /// Degrees.
    pub max_steer_angle: f32,
    /// Centimetres (CARLA's unit for it).
    pub radius: f32,
    pub max_brake_torque: f32,
    pub max_handbrake_torque: f32,
    pub lat_stiff_max_load: f32,
    pub lat_stiff_value: f32,
    pub long_stiff_value: f32,
    /// World position, centimetres (as CARLA 0.9.16's server reports it).
    pub position: Vector3D,
}

/// One forward gear (`carla.GearPhysicsControl`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GearPhysics {
    pub ratio: f32,
    pub down_ratio: f32,
    pub up_ratio: f32,
}

/// `carla.VehiclePhysicsControl`.
#[derive(Clone, Debug, PartialEq)]
pub struct VehiclePhysicsControl {
    pub torque_curve: Vec<[f32; 2]>,
    pub max_rpm: f32,
    pub moi: f32,
    pub damping_rate_full_throttle: f32,
    pub damping_rate_zero_throttle_clutch_engaged: f32,
    pub damping_rate_zero_throttle_clutch_disengaged: f32,
    pub use_gear_autobox: bool,
    pub gear_switch_time: f32,
    pub clutch_strength: f32,
    pub final_ratio: f32,
    pub forward_gears: Vec<GearPhysics>,
    /// kg.
    pub mass: f32,
    pub drag_coefficient: f32,
    /// Metres, in the vehicle's frame.
    pub center_of_mass: Vector3D,
    pub steering_curve: Vec<[f32; 2]>,
    pub wheels: Vec<WheelPhysics>,
    pub use_sweep_wheel_collision: bool,
}

impl VehiclePhysicsControl {
    /// LibCarla's defaults (the steering curve: as CARLA's vehicles report
    /// it) for a vehicle with half extent `extent` (m) and
    /// `wheels` wheels (2 or 4; front ones steer 70°, rear ones brake with
    /// the handbrake); wheel positions are local, in metres, until
    /// [`VehiclePhysicsControl::placed`] puts them in the world.
    pub fn default_for(extent: Vector3D, wheels: u32) -> VehiclePhysicsControl {
        let radius = 30.0;
        let axle = extent.x * 0.6;
        let z = -extent.z + radius / 100.0;
        let wheel = |x: f32, y: f32, front: bool| WheelPhysics {
            tire_friction: 2.0,
            damping_rate: 0.25,
            max_steer_angle: if front { 70.0 } else { 0.0 },
            radius,
            max_brake_torque: 1500.0,
            max_handbrake_torque: if front { 0.0 } else { 3000.0 },
            lat_stiff_max_load: 2.0,
            lat_stiff_value: 17.0,
            long_stiff_value: 1000.0,
            position: Vector3D { x, y, z },
        };
        let wheels = if wheels == 2 {
            vec![wheel(axle, 0.0, true), wheel(-axle, 0.0, false)]
        } else {
            let w = extent.y * 0.85;
            vec![
                wheel(axle, -w, true),
                wheel(axle, w, true),
                wheel(-axle, -w, false),
                wheel(-axle, w, false),
            ]
        };
        let gear = |ratio| GearPhysics {
            ratio,
            down_ratio: 0.5,
            up_ratio: 0.65,
        };
        VehiclePhysicsControl {
            torque_curve: vec![[0.0, 500.0], [5000.0, 500.0]],
            max_rpm: 5000.0,
            moi: 1.0,
            damping_rate_full_throttle: 0.15,
            damping_rate_zero_throttle_clutch_engaged: 2.0,
            damping_rate_zero_throttle_clutch_disengaged: 0.35,
            use_gear_autobox: true,
            gear_switch_time: 0.5,
            clutch_strength: 10.0,
            final_ratio: 4.0,
            forward_gears: [2.85, 2.02, 1.35, 1.0, 0.81].map(gear).to_vec(),
            mass: if wheels.len() == 2 { 250.0 } else { 1500.0 },
            drag_coefficient: 0.3,
            center_of_mass: Vector3D::default(),
            // As CARLA's vehicles report theirs (Unreal's curve, km/h);
            // LibCarla's struct default, (0, 1) (10, 0.5), is only what a
            // control made in a client starts with.
            steering_curve: vec![[0.0, 1.0], [20.0, 0.9], [60.0, 0.8], [120.0, 0.7]],
            wheels,
            use_sweep_wheel_collision: false,
        }
    }

    /// A copy with the wheel positions (local, metres) turned into world
    /// positions in centimetres for a vehicle at `at`.
    pub fn placed(&self, at: &ActorTransform) -> VehiclePhysicsControl {
        let mut c = self.clone();
        let (sp, cp) = at.rotation.pitch.to_radians().sin_cos();
        let (sy, cy) = at.rotation.yaw.to_radians().sin_cos();
        for w in &mut c.wheels {
            let p = w.position;
            // Yaw and pitch (the roll of a wheel's centre is negligible).
            let x = p.x * cp - p.z * sp;
            let z = p.x * sp + p.z * cp;
            w.position = Vector3D {
                x: (at.location.x + x * cy - p.y * sy) * 100.0,
                y: (at.location.y + x * sy + p.y * cy) * 100.0,
                z: (at.location.z + z) * 100.0,
            };
        }
        c
    }

    /// The steering curve's factor at `kmh` (linear between its points,
    /// flat beyond its ends; 1 for no curve or a non-finite value).
    pub fn steering_factor(&self, kmh: f32) -> f32 {
        let mut points: Vec<[f32; 2]> = self
            .steering_curve
            .iter()
            .filter(|p| p[0].is_finite() && p[1].is_finite())
            .copied()
            .collect();
        points.sort_by(|a, b| a[0].total_cmp(&b[0]));
        let (Some(first), Some(last)) = (points.first(), points.last()) else {
            return 1.0;
        };
        if !kmh.is_finite() {
            return 1.0;
        }
        if kmh <= first[0] {
            return first[1];
        }
        if kmh >= last[0] {
            return last[1];
        }
        let w = points
            .windows(2)
            .find(|w| kmh <= w[1][0])
            .unwrap_or(&points[..2]);
        let (a, b) = (w[0], w[1]);
        let span = b[0] - a[0];
        if span > 0.0 {
            a[1] + (b[1] - a[1]) * (kmh - a[0]) / span
        } else {
            b[1]
        }
    }

    /// The largest steer angle of its wheels, degrees.
    pub fn max_steer_angle(&self) -> f32 {
        self.wheels
            .iter()
            .map(|w| w.max_steer_angle)
            .fold(0.0, f32::max)
    }

    /// Appends the 17-field msgpack array.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let pairs = |out: &mut Vec<u8>, list: &[[f32; 2]]| {
            wire::array(out, list.len());
            for p in list {
                wire::array(out, 2);
                wire::f32s(out, p);
            }
        };
        wire::array(out, 17);
        pairs(out, &self.torque_curve);
        wire::f32s(
            out,
            &[
                self.max_rpm,
                self.moi,
                self.damping_rate_full_throttle,
                self.damping_rate_zero_throttle_clutch_engaged,
                self.damping_rate_zero_throttle_clutch_disengaged,
            ],
        );
        wire::boolean(out, self.use_gear_autobox);
        wire::f32s(
            out,
            &[
                self.gear_switch_time,
                self.clutch_strength,
                self.final_ratio,
            ],
        );
        wire::array(out, self.forward_gears.len());
        for g in &self.forward_gears {
            wire::array(out, 3);
            wire::f32s(out, &[g.ratio, g.down_ratio, g.up_ratio]);
        }
        wire::f32v(out, self.mass);
        wire::f32v(out, self.drag_coefficient);
        wire::vector(out, self.center_of_mass);
        pairs(out, &self.steering_curve);
        wire::array(out, self.wheels.len());
        for w in &self.wheels {
            wire::array(out, 10);
            wire::f32s(
                out,
                &[
                    w.tire_friction,
                    w.damping_rate,
                    w.max_steer_angle,
                    w.radius,
                    w.max_brake_torque,
                    w.max_handbrake_torque,
                    w.lat_stiff_max_load,
                    w.lat_stiff_value,
                    w.long_stiff_value,
                ],
            );
            wire::vector(out, w.position);
        }
        wire::boolean(out, self.use_sweep_wheel_collision);
    }

    /// Reads a client's control; every number must be finite, the mass
    /// positive, the lists at most [`MAX_ENTRIES`] long, and a vehicle has
    /// at least one wheel.
    pub(crate) fn decode(v: &Value) -> ArgResult<VehiclePhysicsControl> {
        const WHAT: &str = "physics control";
        let f = as_array(v, WHAT)?;
        if f.len() != 17 {
            return Err(bad_arg!("{WHAT}: expected 17 fields, got {}", f.len()));
        }
        let num = |i: usize, name: &str| -> ArgResult<f32> {
            let x = as_f32(&f[i], name)?;
            x.is_finite()
                .then_some(x)
                .ok_or_else(|| bad_arg!("{WHAT}: {name} must be finite"))
        };
        let list = |i: usize, name: &str| -> ArgResult<&[Value]> {
            let l = as_array(&f[i], name)?;
            if l.len() > MAX_ENTRIES {
                return Err(bad_arg!(
                    "{WHAT}: {name} has {} entries (at most {MAX_ENTRIES})",
                    l.len()
                ));
            }
            Ok(l)
        };
        let numbers = |v: &Value, n: usize, name: &str| -> ArgResult<Vec<f32>> {
            let a = as_array(v, name)?;
            let x = a
                .iter()
                .map(|x| as_f32(x, name))
                .collect::<ArgResult<Vec<f32>>>()?;
            if x.len() != n || !x.iter().all(|x| x.is_finite()) {
                return Err(bad_arg!("{WHAT}: {name} entries are {n} finite numbers"));
            }
            Ok(x)
        };
        let curve = |i: usize, name: &str| -> ArgResult<Vec<[f32; 2]>> {
            list(i, name)?
                .iter()
                .map(|p| numbers(p, 2, name).map(|x| [x[0], x[1]]))
                .collect()
        };
        let vector = |v: &Value, name: &str| -> ArgResult<Vector3D> {
            let p = as_vector(v, name)?;
            [p.x, p.y, p.z]
                .iter()
                .all(|x| x.is_finite())
                .then_some(p)
                .ok_or_else(|| bad_arg!("{WHAT}: {name} must be finite"))
        };
        let forward_gears = list(10, "forward_gears")?
            .iter()
            .map(|g| {
                let x = numbers(g, 3, "forward_gears")?;
                Ok(GearPhysics {
                    ratio: x[0],
                    down_ratio: x[1],
                    up_ratio: x[2],
                })
            })
            .collect::<ArgResult<Vec<_>>>()?;
        let wheels = list(15, "wheels")?
            .iter()
            .map(|w| {
                let a = as_array(w, "wheel")?;
                if a.len() != 10 {
                    return Err(bad_arg!("{WHAT}: a wheel has 10 fields, got {}", a.len()));
                }
                let x = numbers(&Value::Array(a[..9].to_vec()), 9, "wheel")?;
                Ok(WheelPhysics {
                    tire_friction: x[0],
                    damping_rate: x[1],
                    max_steer_angle: x[2],
                    radius: x[3],
                    max_brake_torque: x[4],
                    max_handbrake_torque: x[5],
                    lat_stiff_max_load: x[6],
                    lat_stiff_value: x[7],
                    long_stiff_value: x[8],
                    position: vector(&a[9], "wheel position")?,
                })
            })
            .collect::<ArgResult<Vec<_>>>()?;
        if wheels.is_empty() {
            return Err(bad_arg!("{WHAT}: a vehicle needs at least one wheel"));
        }
        let c = VehiclePhysicsControl {
            torque_curve: curve(0, "torque_curve")?,
            max_rpm: num(1, "max_rpm")?,
            moi: num(2, "moi")?,
            damping_rate_full_throttle: num(3, "damping_rate_full_throttle")?,
            damping_rate_zero_throttle_clutch_engaged: num(
                4,
                "damping_rate_zero_throttle_clutch_engaged",
            )?,
            damping_rate_zero_throttle_clutch_disengaged: num(
                5,
                "damping_rate_zero_throttle_clutch_disengaged",
            )?,
            use_gear_autobox: as_bool(&f[6], "use_gear_autobox")?,
            gear_switch_time: num(7, "gear_switch_time")?,
            clutch_strength: num(8, "clutch_strength")?,
            final_ratio: num(9, "final_ratio")?,
            forward_gears,
            mass: num(11, "mass")?,
            drag_coefficient: num(12, "drag_coefficient")?,
            center_of_mass: vector(&f[13], "center_of_mass")?,
            steering_curve: curve(14, "steering_curve")?,
            wheels,
            use_sweep_wheel_collision: as_bool(&f[16], "use_sweep_wheel_collision")?,
        };
        if c.mass <= 0.0 {
            return Err(bad_arg!("{WHAT}: mass must be positive, got {}", c.mass));
        }
        Ok(c)
    }
}

#[cfg(test)]
#[path = "physics_tests.rs"]
mod tests;
