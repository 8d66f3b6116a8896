//! `get_telemetry_data`: a vehicle's telemetry
//! (`carla.VehicleTelemetryData`), asked of the host at the call and
//! answered with what it reports, or what the last episode state tells.

use super::engine::EngineCall;
use super::error::refused;
use super::wire::{self, as_u32, ArgResult};
use super::world::ActorKind;
use super::world::Seen;
use super::RpcShared;
use crate::episode::{VehicleTelemetry, WheelTelemetry, CARLA_TELEMETRY_WHEELS};
use rmpv::Value;

/// Whether every number `t` carries is finite.
pub(crate) fn finite(t: &VehicleTelemetry) -> bool {
    [t.speed, t.steer, t.throttle, t.brake, t.engine_rpm, t.drag]
        .iter()
        .all(|v| v.is_finite())
        && wheels(t)
            .iter()
            .all(|w| numbers(w).iter().all(|v| v.is_finite()))
}

/// The wheels `t` has.
fn wheels(t: &VehicleTelemetry) -> &[WheelTelemetry] {
    &t.wheels[..(t.wheel_count.min(CARLA_TELEMETRY_WHEELS) as usize)]
}

/// A wheel's numbers in CARLA's order.
fn numbers(w: &WheelTelemetry) -> [f32; 11] {
    [
        w.tire_friction,
        w.lat_slip,
        w.long_slip,
        w.omega,
        w.tire_load,
        w.normalized_tire_load,
        w.torque,
        w.long_force,
        w.lat_force,
        w.normalized_long_force,
        w.normalized_lat_force,
    ]
}

/// The call: asks the host for vehicle `id`'s telemetry and writes the
/// answer into `out`.
pub(crate) fn get(s: &RpcShared, id: &Value, out: &mut Vec<u8>) -> ArgResult<()> {
    let actor_id = as_u32(id, "actor id")?;
    {
        let actors = s.world.actors.read();
        let a = actors
            .get(&actor_id)
            .ok_or_else(|| super::world::unknown_actor(actor_id))?;
        if a.kind != ActorKind::Vehicle {
            return Err(refused!(
                "actor {actor_id} is a {}, not a vehicle",
                a.blueprint
            ));
        }
    }
    s.ask(EngineCall::VehicleTelemetry { actor_id })?;
    let t = {
        let actors = s.world.actors.read();
        let a = actors
            .get(&actor_id)
            .ok_or_else(|| super::world::unknown_actor(actor_id))?;
        a.last
            .telemetry()
            .unwrap_or_else(|| from_state(&a.last.get().unwrap_or_default()))
    };
    wire::ok_head(out);
    encode(&t, out);
    Ok(())
}

/// What the last episode state tells: the speed along the heading, the
/// controls and the gear; no engine, drag or wheels.
fn from_state(seen: &Seen) -> VehicleTelemetry {
    let c = &seen.control;
    VehicleTelemetry {
        speed: seen.forward_speed(),
        steer: c.steer,
        throttle: c.throttle,
        brake: c.brake,
        gear: c.gear,
        ..Default::default()
    }
}

/// `carla::rpc::VehicleTelemetryData` as msgpack: speed, steer, throttle,
/// brake, engine rpm, gear, drag, and the wheels, 11 numbers each.
pub(crate) fn encode(t: &VehicleTelemetry, out: &mut Vec<u8>) {
    wire::array(out, 8);
    wire::f32s(out, &[t.speed, t.steer, t.throttle, t.brake, t.engine_rpm]);
    wire::int(out, i64::from(t.gear));
    wire::f32v(out, t.drag);
    let wheels = wheels(t);
    wire::array(out, wheels.len());
    for w in wheels {
        wire::array(out, 11);
        wire::f32s(out, &numbers(w));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episode::VehicleControl09;
    use crate::types::{ActorTransform, Rotation3D, Vector3D};

    #[test]
    fn encodes_carlas_field_order() {
        let mut t = VehicleTelemetry {
            speed: 1.0,
            steer: 0.5,
            gear: -1,
            drag: 3.0,
            wheel_count: 2,
            ..Default::default()
        };
        t.wheels[1] = WheelTelemetry {
            tire_friction: 2.0,
            lat_force: 9.0,
            ..Default::default()
        };
        let mut out = Vec::new();
        encode(&t, &mut out);
        let v = rmpv::decode::read_value(&mut &out[..]).unwrap();
        let a = v.as_array().unwrap();
        assert_eq!(a.len(), 8);
        assert_eq!(a[0].as_f64(), Some(1.0));
        assert_eq!(a[5].as_i64(), Some(-1));
        let wheels = a[7].as_array().unwrap();
        assert_eq!(wheels.len(), 2);
        let w = wheels[1].as_array().unwrap();
        assert_eq!(
            (w.len(), w[0].as_f64(), w[8].as_f64()),
            (11, Some(2.0), Some(9.0))
        );
    }

    #[test]
    fn the_last_state_gives_speed_along_the_heading_and_controls() {
        let seen = Seen {
            transform: ActorTransform {
                location: Vector3D::default(),
                rotation: Rotation3D {
                    pitch: 0.0,
                    yaw: 90.0,
                    roll: 0.0,
                },
            },
            velocity: Vector3D {
                x: 0.0,
                y: -4.0,
                z: 0.0,
            },
            control: VehicleControl09 {
                throttle: 0.3,
                gear: 2,
                ..Default::default()
            },
        };
        let t = from_state(&seen);
        assert!((t.speed + 4.0).abs() < 1e-5, "{}", t.speed);
        assert_eq!((t.throttle, t.gear, t.wheel_count), (0.3, 2, 0));
    }

    #[test]
    fn non_finite_numbers_are_found_in_used_wheels_only() {
        let mut t = VehicleTelemetry {
            wheel_count: 1,
            ..Default::default()
        };
        t.wheels[3].omega = f32::NAN;
        assert!(finite(&t));
        t.wheels[0].torque = f32::INFINITY;
        assert!(!finite(&t));
    }
}
