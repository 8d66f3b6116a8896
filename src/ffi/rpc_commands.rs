//! The C form of the actor and traffic-light commands clients send
//! (`EngineCall::Actor` / `EngineCall::World`): one `CARLA_RPC_*` kind per
//! command, its values in `carla_rpc_request`'s `enabled`, `value`,
//! `scalar`, `velocity` (any vector), `location`, `transform` and
//! `numbers` fields (a walker's bones: `bones`, `bone_count`). None
//! expects an answer.

use super::rpc_request::carla_rpc_request;
use crate::rpc::{ActorCommand, WorldCommand};
use std::ffi::c_char;

/// `enabled`: simulate physics (false freezes the body).
pub const CARLA_RPC_SIMULATE_PHYSICS: u32 = 20;
/// `enabled`: gravity acts on the actor.
pub const CARLA_RPC_ENABLE_GRAVITY: u32 = 21;
/// `enabled`: the actor collides with others.
pub const CARLA_RPC_COLLISIONS: u32 = 22;
/// `enabled`: the engine's own autopilot drives the vehicle.
pub const CARLA_RPC_AUTOPILOT: u32 = 23;
/// `enabled`: keep `velocity` (m/s, actor frame); false: stop keeping it.
pub const CARLA_RPC_CONSTANT_VELOCITY: u32 = 24;
/// `velocity` is the target angular velocity, deg/s.
pub const CARLA_RPC_TARGET_ANGULAR_VELOCITY: u32 = 25;
/// `velocity` is an impulse (N·s, world); at `location` if `enabled`.
pub const CARLA_RPC_IMPULSE: u32 = 26;
/// `velocity` is a force (N, world, this tick); at `location` if `enabled`.
pub const CARLA_RPC_FORCE: u32 = 27;
/// `velocity` is an angular impulse, N·m·s.
pub const CARLA_RPC_ANGULAR_IMPULSE: u32 = 28;
/// `velocity` is a torque, N·m.
pub const CARLA_RPC_TORQUE: u32 = 29;
/// Walker: walk along `velocity` (a unit direction) at `scalar` m/s;
/// `enabled`: jump.
pub const CARLA_RPC_WALKER_CONTROL: u32 = 30;
/// Walker: put it at `transform`, walking at `scalar` m/s.
pub const CARLA_RPC_WALKER_STATE: u32 = 31;
/// Vehicle: `value` is the `carla.VehicleLightState` flags.
pub const CARLA_RPC_VEHICLE_LIGHTS: u32 = 32;
/// Vehicle: `numbers` are steer (rad), steer speed (rad/s), speed (m/s),
/// acceleration (m/s²), jerk (m/s³): by name with
/// `carla_rpc_request_ackermann_control`.
pub const CARLA_RPC_ACKERMANN_CONTROL: u32 = 33;
/// Vehicle: its Ackermann controller's gains
/// (`apply_ackermann_controller_settings`): `numbers` speed kp, ki, kd,
/// acceleration kp, ki; `scalar` acceleration kd (by name with
/// `carla_rpc_request_ackermann_settings`). The library keeps them for
/// `get_ackermann_controller_settings`.
pub const CARLA_RPC_ACKERMANN_SETTINGS: u32 = 48;
/// Vehicle: door `value` (0-3, 6 = all) opens (`enabled`) or closes.
pub const CARLA_RPC_VEHICLE_DOOR: u32 = 34;
/// Walker: it dies (falls and stops).
pub const CARLA_RPC_ACTOR_DEAD: u32 = 35;
/// Traffic light: `value` is its new state (0 red, 1 yellow, 2 green, 3 off).
pub const CARLA_RPC_TRAFFIC_LIGHT_STATE: u32 = 36;
/// Traffic light: phase `value` (0 green, 1 yellow, 2 red) lasts `scalar` s.
pub const CARLA_RPC_TRAFFIC_LIGHT_TIME: u32 = 37;
/// Traffic light: `enabled` freezes it in its state.
pub const CARLA_RPC_FREEZE_TRAFFIC_LIGHT: u32 = 38;
/// Traffic light: restart its group's cycle.
pub const CARLA_RPC_RESET_TRAFFIC_LIGHT_GROUP: u32 = 39;
/// Every traffic light: `enabled` freezes them all.
pub const CARLA_RPC_FREEZE_ALL_TRAFFIC_LIGHTS: u32 = 40;
/// Every traffic light: restart every group's cycle.
pub const CARLA_RPC_RESET_ALL_TRAFFIC_LIGHTS: u32 = 41;
/// A replay started (`enabled`) or ended: hold the world's own traffic
/// (its AI vehicles and walkers) still while the replayer moves the
/// recorded actors.
pub const CARLA_RPC_HOLD_TRAFFIC: u32 = 45;

/// `sensor.other.v2x_custom`: a client's `sensor.send(message)`: the
/// text is in `opendrive` (`opendrive_length` bytes of UTF-8, not
/// NUL-terminated, at most 99: what the client's message field holds),
/// readable until the next `carla_rpc_poll`.
/// The sensor sends it once, at the next tick, to the other custom V2X
/// sensors in reach.
pub const CARLA_RPC_V2X_SEND: u32 = 46;

/// `load_world` / `reload_world`: build a new episode of map `map_name`
/// (if it is another map than the current one, describe it with
/// `carla_rpc_set_map` first), call `carla_rpc_new_episode`, add the
/// host's actors again, then answer; `enabled`: the settings go back to
/// CARLA's defaults. Expects an answer.
pub const CARLA_RPC_LOAD_EPISODE: u32 = 42;

/// `generate_opendrive_world`: build a world from the OpenDRIVE text
/// `opendrive` (`opendrive_length` bytes) with `opendrive_parameters`, keep
/// it as the map `"OpenDriveMap"`, then answer (an error text says why it
/// cannot be built). The client then asks for a `CARLA_RPC_LOAD_EPISODE`
/// of `"OpenDriveMap"`; give it `carla_rpc_set_map` with
/// `"Carla/Maps/OpenDriveMap"` and the same text. Expects an answer.
pub const CARLA_RPC_LOAD_OPENDRIVE: u32 = 44;

/// Vehicle `actor_id`: a client asked for its telemetry
/// (`get_telemetry_data`): report it with `carla_rpc_set_vehicle_telemetry`,
/// then answer (answered without a report, the client gets the speed,
/// controls and gear of the last episode state). Expects an answer.
pub const CARLA_RPC_VEHICLE_TELEMETRY: u32 = 47;

/// Walker `actor_id`: a client asked for its skeleton (`get_bones`):
/// report it with `carla_rpc_set_walker_bones`, then answer (answered
/// without a report, the client is told the walker has no skeleton on this
/// host; an error text reaches it as its `RuntimeError`). Expects an
/// answer.
pub const CARLA_RPC_WALKER_BONES: u32 = 49;

/// Walker: a client's `set_bones(control)`: `bone_count` bones at `bones`
/// (at most `CARLA_MAX_BONES`), each a `carla_bone_transform` whose `name`
/// (NUL-terminated UTF-8) and `relative` (the bone's transform relative to
/// its parent bone) are set, `world` and `component` zero; readable until
/// the next `carla_rpc_poll` (or with `carla_rpc_request_bone`). Bones the
/// walker does not have are to be ignored.
pub const CARLA_RPC_SET_WALKER_BONES: u32 = 50;

/// Walker: `blend_pose(blend)`: how much of the pose set with
/// `CARLA_RPC_SET_WALKER_BONES` shows over its animation, `scalar` from 0
/// (none: `hide_pose`) to 1 (all: `show_pose`).
pub const CARLA_RPC_BLEND_WALKER_POSE: u32 = 51;

/// Walker: `get_pose_from_animation()`: the animation's current pose
/// becomes its set pose.
pub const CARLA_RPC_WALKER_POSE_FROM_ANIMATION: u32 = 52;

/// Vehicle: a client applied a physics control (Rust hosts get all of it,
/// `EngineCall::Actor` with `ActorCommand::PhysicsControl`): `scalar` is
/// the mass (kg), `location` the centre of mass (m, vehicle frame), `value`
/// the number of wheels, `numbers` the largest wheel steer angle (degrees),
/// the drag coefficient, the maximum rpm, the final gear ratio and the
/// first wheel's tire friction (by name with
/// `carla_rpc_request_physics_control`). `vehicle.get_physics_control()` reads back
/// what was applied without asking the host.
pub const CARLA_RPC_PHYSICS_CONTROL: u32 = 43;

pub(super) fn fill_load_episode(out: &mut carla_rpc_request, reset_settings: bool) {
    out.kind = CARLA_RPC_LOAD_EPISODE;
    out.enabled = reset_settings;
}

pub(super) fn fill_actor(out: &mut carla_rpc_request, actor_id: u32, command: &ActorCommand) {
    use ActorCommand as C;
    out.actor_id = actor_id;
    out.kind = match *command {
        C::SimulatePhysics(on) => flag(out, CARLA_RPC_SIMULATE_PHYSICS, on),
        C::EnableGravity(on) => flag(out, CARLA_RPC_ENABLE_GRAVITY, on),
        C::Collisions(on) => flag(out, CARLA_RPC_COLLISIONS, on),
        C::Autopilot(on) => flag(out, CARLA_RPC_AUTOPILOT, on),
        C::FreezeTrafficLight(on) => flag(out, CARLA_RPC_FREEZE_TRAFFIC_LIGHT, on),
        C::ConstantVelocity(v) => {
            out.enabled = v.is_some();
            out.velocity = v.unwrap_or_default();
            CARLA_RPC_CONSTANT_VELOCITY
        }
        C::TargetAngularVelocity(v) => vector(out, CARLA_RPC_TARGET_ANGULAR_VELOCITY, v),
        C::Impulse { impulse, at } => at_location(out, CARLA_RPC_IMPULSE, impulse, at),
        C::Force { force, at } => at_location(out, CARLA_RPC_FORCE, force, at),
        C::AngularImpulse(v) => vector(out, CARLA_RPC_ANGULAR_IMPULSE, v),
        C::Torque(v) => vector(out, CARLA_RPC_TORQUE, v),
        C::WalkerControl {
            direction,
            speed,
            jump,
        } => {
            (out.velocity, out.scalar, out.enabled) = (direction, speed, jump);
            CARLA_RPC_WALKER_CONTROL
        }
        C::WalkerState { transform, speed } => {
            (out.transform, out.scalar) = (transform, speed);
            CARLA_RPC_WALKER_STATE
        }
        C::LightState(flags) => {
            out.value = flags;
            CARLA_RPC_VEHICLE_LIGHTS
        }
        C::AckermannControl(values) => {
            out.numbers = values;
            CARLA_RPC_ACKERMANN_CONTROL
        }
        C::AckermannSettings([a, b, c, d, e, f]) => {
            (out.numbers, out.scalar) = ([a, b, c, d, e], f);
            CARLA_RPC_ACKERMANN_SETTINGS
        }
        C::PhysicsControl(ref c) => {
            out.scalar = c.mass;
            out.location = c.center_of_mass;
            out.value = c.wheels.len() as u32;
            out.numbers = [
                c.max_steer_angle(),
                c.drag_coefficient,
                c.max_rpm,
                c.final_ratio,
                c.wheels.first().map_or(0.0, |w| w.tire_friction),
            ];
            CARLA_RPC_PHYSICS_CONTROL
        }
        C::Door { door, open } => {
            (out.value, out.enabled) = (door.into(), open);
            CARLA_RPC_VEHICLE_DOOR
        }
        C::Dead => CARLA_RPC_ACTOR_DEAD,
        C::TrafficLightState(state) => {
            out.value = state.into();
            CARLA_RPC_TRAFFIC_LIGHT_STATE
        }
        C::TrafficLightTime { phase, seconds } => {
            (out.value, out.scalar) = (phase.into(), seconds);
            CARLA_RPC_TRAFFIC_LIGHT_TIME
        }
        C::ResetTrafficLightGroup => CARLA_RPC_RESET_TRAFFIC_LIGHT_GROUP,
        C::V2xSend(ref text) => {
            out.opendrive = text.as_ptr().cast::<c_char>();
            out.opendrive_length = text.len();
            CARLA_RPC_V2X_SEND
        }
        // The bones themselves: `super::rpc::fill` (they need storage).
        C::SetBones(_) => CARLA_RPC_SET_WALKER_BONES,
        C::BlendPose(blend) => {
            out.scalar = blend;
            CARLA_RPC_BLEND_WALKER_POSE
        }
        C::PoseFromAnimation => CARLA_RPC_WALKER_POSE_FROM_ANIMATION,
    };
}

pub(super) fn fill_world(out: &mut carla_rpc_request, command: &WorldCommand) {
    out.kind = match *command {
        WorldCommand::FreezeAllTrafficLights(on) => {
            flag(out, CARLA_RPC_FREEZE_ALL_TRAFFIC_LIGHTS, on)
        }
        WorldCommand::ResetAllTrafficLights => CARLA_RPC_RESET_ALL_TRAFFIC_LIGHTS,
        WorldCommand::HoldTraffic(on) => flag(out, CARLA_RPC_HOLD_TRAFFIC, on),
    };
}

fn flag(out: &mut carla_rpc_request, kind: u32, on: bool) -> u32 {
    out.enabled = on;
    kind
}

fn vector(out: &mut carla_rpc_request, kind: u32, v: crate::types::Vector3D) -> u32 {
    out.velocity = v;
    kind
}

fn at_location(
    out: &mut carla_rpc_request,
    kind: u32,
    v: crate::types::Vector3D,
    at: Option<crate::types::Vector3D>,
) -> u32 {
    (out.velocity, out.enabled, out.location) = (v, at.is_some(), at.unwrap_or_default());
    kind
}
