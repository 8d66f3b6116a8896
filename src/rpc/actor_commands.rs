//! What a client asks of one actor (or of all traffic lights) beyond
//! spawning, moving and driving it: physics toggles, impulses and forces,
//! walker controls and skeletons, vehicle lights and doors, traffic-light
//! states and times. Each comes either as its own RPC or as an
//! `apply_batch` command; both are parsed here into one [`ActorCommand`]
//! the host carries out (`EngineCall::Actor`).

use super::bones;
use super::error::bad_arg;
use super::physics::VehiclePhysicsControl;
use super::wire::{as_array, as_bool, as_f32, as_str, as_transform, as_u32, as_vector, ArgResult};
use crate::sensor::models::v2x::cam::fit_text;
use crate::types::{ActorTransform, Vector3D};
use rmpv::Value;

/// One command for one actor.
#[derive(Clone, Debug, PartialEq)]
pub enum ActorCommand {
    /// `set_simulate_physics`: off freezes the body where it is.
    SimulatePhysics(bool),
    EnableGravity(bool),
    /// `set_collisions`: off lets the actor pass through others.
    Collisions(bool),
    /// The engine's own autopilot (CARLA's server-side one; the Traffic
    /// Manager runs in the client and drives with ordinary controls).
    Autopilot(bool),
    /// `enable_constant_velocity(v)` (`Some`, local frame) or
    /// `disable_constant_velocity()` (`None`).
    ConstantVelocity(Option<Vector3D>),
    /// deg/s, world frame.
    TargetAngularVelocity(Vector3D),
    /// N·s, world frame; applied at `at` (world) when given, else at the
    /// centre of mass.
    Impulse {
        impulse: Vector3D,
        at: Option<Vector3D>,
    },
    /// N, world frame, for this tick; at `at` when given.
    Force {
        force: Vector3D,
        at: Option<Vector3D>,
    },
    /// N·m·s, world frame.
    AngularImpulse(Vector3D),
    /// N·m, world frame.
    Torque(Vector3D),
    /// `carla.WalkerControl`: walk along `direction` (world, unit) at
    /// `speed` m/s; jump once.
    WalkerControl {
        direction: Vector3D,
        speed: f32,
        jump: bool,
    },
    /// Batch `ApplyWalkerState`: put the walker at `transform` walking at
    /// `speed` m/s.
    WalkerState {
        transform: ActorTransform,
        speed: f32,
    },
    /// `carla.VehicleLightState` flags.
    LightState(u32),
    /// `carla.VehicleAckermannControl`: steer (rad), steer speed (rad/s),
    /// speed (m/s), acceleration (m/s²), jerk (m/s³).
    AckermannControl([f32; 5]),
    /// `apply_ackermann_controller_settings`: the server's Ackermann
    /// controller's gains, speed kp, ki, kd and acceleration kp, ki, kd
    /// (finite; the library keeps them for
    /// `get_ackermann_controller_settings`).
    AckermannSettings([f32; 6]),
    /// `apply_physics_control` (and batch `ApplyVehiclePhysicsControl`):
    /// the whole control, checked; the wheel positions are the library's
    /// (local, metres), a client cannot move wheels.
    PhysicsControl(Box<VehiclePhysicsControl>),
    /// `carla.VehicleDoor` (0 front left .. 3 rear right, 6 all).
    Door {
        door: u8,
        open: bool,
    },
    /// `set_actor_dead`: a walker falls (ragdoll) and stops.
    Dead,
    /// 0 red, 1 yellow, 2 green, 3 off.
    TrafficLightState(u8),
    /// Which phase (0 green, 1 yellow, 2 red) lasts how many seconds.
    TrafficLightTime {
        phase: u8,
        seconds: f32,
    },
    FreezeTrafficLight(bool),
    /// Restart the cycle of this light's group.
    ResetTrafficLightGroup,
    /// `sensor.send(message)` on a `sensor.other.v2x_custom`: the text, cut
    /// to the 99 bytes a custom V2X message holds.
    V2xSend(String),
    /// `walker.set_bones(control)`: these bones' transforms relative to
    /// their parent bones, by name (at most
    /// [`CARLA_MAX_BONES`](super::CARLA_MAX_BONES), names of 1 to 31
    /// bytes, finite numbers).
    SetBones(Vec<(String, ActorTransform)>),
    /// `walker.blend_pose(blend)`: how much of the pose set with
    /// [`ActorCommand::SetBones`] shows over the walker's animation, 0
    /// (none, `hide_pose`) to 1 (all, `show_pose`).
    BlendPose(f32),
    /// `walker.get_pose_from_animation()`: the animation's current pose
    /// becomes the walker's set pose.
    PoseFromAnimation,
}

/// A command for the whole world's traffic lights.
#[derive(Clone, Debug, PartialEq)]
pub enum WorldCommand {
    FreezeAllTrafficLights(bool),
    ResetAllTrafficLights,
    /// A replay started (true) or ended (false): hold the world's own
    /// traffic (its AI vehicles and walkers) still, as the replayer moves
    /// the recorded actors.
    HoldTraffic(bool),
}

/// The actor command an RPC carries: `(actor id, command)`, `None` if
/// `method` (with that many arguments) is not one of them.
pub(crate) fn from_rpc(method: &str, a: &[Value]) -> Option<ArgResult<(u32, ActorCommand)>> {
    parse_rpc(method, a).transpose()
}

fn parse_rpc(method: &str, a: &[Value]) -> ArgResult<Option<(u32, ActorCommand)>> {
    use ActorCommand as C;
    let arg = |i: usize| {
        a.get(i)
            .ok_or_else(|| bad_arg!("{method}: missing argument {i}"))
    };
    let flag = |i| as_bool(arg(i)?, "enabled");
    let vector = |i| as_vector(arg(i)?, "vector");
    // The point of the `*_at_location` forms, the third argument.
    let at = || a.get(2).map(|_| vector(2)).transpose();
    let command = match (method, a.len()) {
        ("set_actor_simulate_physics", 2) => C::SimulatePhysics(flag(1)?),
        ("set_actor_enable_gravity", 2) => C::EnableGravity(flag(1)?),
        ("set_actor_collisions", 2) => C::Collisions(flag(1)?),
        ("set_actor_autopilot", 2) => C::Autopilot(flag(1)?),
        ("enable_actor_constant_velocity", 2) => C::ConstantVelocity(Some(vector(1)?)),
        ("disable_actor_constant_velocity", 1) => C::ConstantVelocity(None),
        ("set_actor_target_angular_velocity", 2) => C::TargetAngularVelocity(vector(1)?),
        ("add_actor_impulse", 2) | ("add_actor_impulse_at_location", 3) => C::Impulse {
            impulse: vector(1)?,
            at: at()?,
        },
        ("add_actor_force", 2) | ("add_actor_force_at_location", 3) => C::Force {
            force: vector(1)?,
            at: at()?,
        },
        ("add_actor_angular_impulse", 2) => C::AngularImpulse(vector(1)?),
        ("add_actor_torque", 2) => C::Torque(vector(1)?),
        ("apply_control_to_walker", 2) => walker_control(arg(1)?)?,
        // `rpc::VehicleLightState` is a one-field struct: `[flags]`.
        ("set_vehicle_light_state", 2) => C::LightState(light_flags(arg(1)?)?),
        ("apply_ackermann_control_to_vehicle", 2) => ackermann(arg(1)?)?,
        ("apply_ackermann_controller_settings", 2) => ackermann_settings(arg(1)?)?,
        ("apply_physics_control", 2) => VehiclePhysicsControl::decode(arg(1)?)?.command(),
        ("open_vehicle_door", 2) => C::Door {
            door: door(arg(1)?)?,
            open: true,
        },
        ("close_vehicle_door", 2) => C::Door {
            door: door(arg(1)?)?,
            open: false,
        },
        ("set_actor_dead", 1) => C::Dead,
        ("set_traffic_light_state", 2) => C::TrafficLightState(light(arg(1)?)?),
        ("set_traffic_light_green_time", 2) => phase_time(0, arg(1)?)?,
        ("set_traffic_light_yellow_time", 2) => phase_time(1, arg(1)?)?,
        ("set_traffic_light_red_time", 2) => phase_time(2, arg(1)?)?,
        ("freeze_traffic_light", 2) => C::FreezeTrafficLight(flag(1)?),
        ("reset_traffic_light_group", 1) => C::ResetTrafficLightGroup,
        ("send", 2) => C::V2xSend(fit_text(as_str(arg(1)?, "message")?).to_owned()),
        ("set_bones_transform", 2) => C::SetBones(bones::decode_control(arg(1)?)?),
        ("blend_pose", 2) => C::BlendPose(bones::decode_blend(arg(1)?)?),
        ("get_pose_from_animation", 1) => C::PoseFromAnimation,
        _ => return Ok(None),
    };
    Ok(Some((as_u32(arg(0)?, "actor id")?, command)))
}

/// The actor command of `apply_batch` variant `index` with `fields`
/// (`fields[0]` is the actor), `None` for the variants handled elsewhere.
pub(crate) fn from_batch(index: u64, f: &[Value]) -> ArgResult<Option<ActorCommand>> {
    use ActorCommand as C;
    let field = |i: usize| {
        f.get(i)
            .ok_or_else(|| bad_arg!("command {index}: missing field {i}"))
    };
    let flag = |i| as_bool(field(i)?, "enabled");
    let vector = |i| as_vector(field(i)?, "vector");
    Ok(Some(match index {
        3 => ackermann(field(1)?)?,
        4 => walker_control(field(1)?)?,
        5 => VehiclePhysicsControl::decode(field(1)?)?.command(),
        7 => C::WalkerState {
            transform: as_transform(field(1)?, "transform")?,
            speed: as_f32(field(2)?, "speed")?,
        },
        9 => C::TargetAngularVelocity(vector(1)?),
        10 => C::Impulse {
            impulse: vector(1)?,
            at: None,
        },
        11 => C::Force {
            force: vector(1)?,
            at: None,
        },
        12 => C::AngularImpulse(vector(1)?),
        13 => C::Torque(vector(1)?),
        14 => C::SimulatePhysics(flag(1)?),
        15 => C::EnableGravity(flag(1)?),
        18 => C::LightState(as_u32(field(1)?, "light state")?),
        21 => C::TrafficLightState(light(field(1)?)?),
        _ => return Ok(None),
    }))
}

/// The world command an RPC carries, `None` if `method` is not one.
pub(crate) fn world_from_rpc(method: &str, a: &[Value]) -> Option<ArgResult<WorldCommand>> {
    match (method, a) {
        ("freeze_all_traffic_lights", [frozen]) => {
            Some(as_bool(frozen, "frozen").map(WorldCommand::FreezeAllTrafficLights))
        }
        ("reset_all_traffic_lights", []) => Some(Ok(WorldCommand::ResetAllTrafficLights)),
        _ => None,
    }
}

impl VehiclePhysicsControl {
    /// The command the host gets when a client applies this control.
    pub(crate) fn command(&self) -> ActorCommand {
        ActorCommand::PhysicsControl(Box::new(self.clone()))
    }
}

impl ActorCommand {
    /// Short name for log lines and errors.
    pub fn name(&self) -> &'static str {
        use ActorCommand as C;
        match self {
            C::SimulatePhysics(_) => "simulate physics",
            C::EnableGravity(_) => "enable gravity",
            C::Collisions(_) => "collisions",
            C::Autopilot(_) => "autopilot",
            C::ConstantVelocity(_) => "constant velocity",
            C::TargetAngularVelocity(_) => "target angular velocity",
            C::Impulse { .. } => "impulse",
            C::Force { .. } => "force",
            C::AngularImpulse(_) => "angular impulse",
            C::Torque(_) => "torque",
            C::WalkerControl { .. } => "walker control",
            C::WalkerState { .. } => "walker state",
            C::LightState(_) => "vehicle light state",
            C::AckermannControl(_) => "ackermann control",
            C::AckermannSettings(_) => "ackermann controller settings",
            C::PhysicsControl(_) => "physics control",
            C::Door { .. } => "vehicle door",
            C::Dead => "actor dead",
            C::TrafficLightState(_) => "traffic light state",
            C::TrafficLightTime { .. } => "traffic light time",
            C::FreezeTrafficLight(_) => "freeze traffic light",
            C::ResetTrafficLightGroup => "reset traffic light group",
            C::V2xSend(_) => "send (V2X)",
            C::SetBones(_) => "set bones",
            C::BlendPose(_) => "blend pose",
            C::PoseFromAnimation => "pose from animation",
        }
    }

    /// The blueprint prefix of the actors it applies to (`None`: any).
    pub(crate) fn applies_to(&self) -> Option<&'static str> {
        use ActorCommand as C;
        match self {
            C::WalkerControl { .. }
            | C::WalkerState { .. }
            | C::Dead
            | C::SetBones(_)
            | C::BlendPose(_)
            | C::PoseFromAnimation => Some("walker."),
            C::LightState(_)
            | C::AckermannControl(_)
            | C::AckermannSettings(_)
            | C::PhysicsControl(_)
            | C::Door { .. }
            | C::Autopilot(_) => Some("vehicle."),
            C::TrafficLightState(_)
            | C::TrafficLightTime { .. }
            | C::FreezeTrafficLight(_)
            | C::ResetTrafficLightGroup => Some("traffic.traffic_light"),
            C::V2xSend(_) => Some("sensor.other.v2x_custom"),
            _ => None,
        }
    }
}

/// `[flags]` (a bare number is taken too).
fn light_flags(v: &Value) -> ArgResult<u32> {
    match v {
        Value::Array(f) if f.len() == 1 => as_u32(&f[0], "light state"),
        other => as_u32(other, "light state"),
    }
}

/// `[direction, speed, jump]`.
fn walker_control(v: &Value) -> ArgResult<ActorCommand> {
    let f = as_array(v, "walker control")?;
    Ok(ActorCommand::WalkerControl {
        direction: f
            .first()
            .map_or(Ok(Vector3D::default()), |d| as_vector(d, "direction"))?,
        speed: f.get(1).map_or(Ok(0.0), |s| as_f32(s, "speed"))?,
        jump: f.get(2).map_or(Ok(false), |j| as_bool(j, "jump"))?,
    })
}

/// `[steer, steer_speed, speed, acceleration, jerk]`.
fn ackermann(v: &Value) -> ArgResult<ActorCommand> {
    let f = as_array(v, "ackermann control")?;
    let mut values = [0.0f32; 5];
    for (slot, x) in values.iter_mut().zip(f) {
        *slot = as_f32(x, "ackermann control")?;
    }
    Ok(ActorCommand::AckermannControl(values))
}

/// `carla::rpc::AckermannControllerSettings`: six finite gains.
fn ackermann_settings(v: &Value) -> ArgResult<ActorCommand> {
    let what = "ackermann controller settings";
    let f = as_array(v, what)?;
    if f.len() != 6 {
        return Err(bad_arg!("{what}: 6 gains expected, {} given", f.len()));
    }
    let mut gains = [0.0f32; 6];
    for (slot, x) in gains.iter_mut().zip(f) {
        *slot = as_f32(x, what)?;
        if !slot.is_finite() {
            return Err(bad_arg!("{what}: a gain is not finite"));
        }
    }
    Ok(ActorCommand::AckermannSettings(gains))
}

fn door(v: &Value) -> ArgResult<u8> {
    match as_u32(v, "door")? {
        d @ (0..=3 | 6) => Ok(d as u8),
        d => Err(bad_arg!(
            "door {d} is not a carla.VehicleDoor (0-3, 6 = All)"
        )),
    }
}

fn light(v: &Value) -> ArgResult<u8> {
    match as_u32(v, "traffic light state")? {
        s @ 0..=3 => Ok(s as u8),
        s => Err(bad_arg!(
            "traffic light state {s} is not one of Red (0), Yellow (1), Green (2), Off (3)"
        )),
    }
}

fn phase_time(phase: u8, v: &Value) -> ArgResult<ActorCommand> {
    let seconds = as_f32(v, "seconds")?;
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(bad_arg!(
            "a traffic light phase lasts 0 s or more, not {seconds}"
        ));
    }
    Ok(ActorCommand::TrafficLightTime { phase, seconds })
}
