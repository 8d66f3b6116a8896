//! What the host tells the library of its episode, as plain data shared by
//! Rust and C hosts (`#[repr(C)]`; cbindgen names them
//! `carla_actor_state`, ...): each tick's frame and actor states, settings,
//! boxes, telemetry, bones. The layer below the modules that read them:
//! the 0.9 world protocol (`rpc`, which re-exports them), the recorder and
//! ROS 2 publishing.

use crate::types::{ActorTransform, CBool, Vector3D};
use std::ffi::c_char;

/// `ActorState::kind`: an actor with no type-dependent state (sensor,
/// spectator, prop).
pub const CARLA_ACTOR_OTHER: u32 = 0;
/// `ActorState::kind`: a vehicle (control, speed limit, traffic light).
pub const CARLA_ACTOR_VEHICLE: u32 = 1;
/// `ActorState::kind`: a walker (direction, speed, jump).
pub const CARLA_ACTOR_WALKER: u32 = 2;
/// `ActorState::kind`: a traffic light (sign id, times, pole, state).
pub const CARLA_ACTOR_TRAFFIC_LIGHT: u32 = 3;

/// A blueprint attribute's type, as the 0.9.16 client numbers its
/// `ActorAttributeType` (1-based): `carla_rpc_add_blueprint`'s `types`
/// (the Rust API names them `rpc::ATTR_*`).
pub const CARLA_RPC_ATTRIBUTE_BOOL: u8 = 1;
pub const CARLA_RPC_ATTRIBUTE_INT: u8 = 2;
pub const CARLA_RPC_ATTRIBUTE_FLOAT: u8 = 3;
pub const CARLA_RPC_ATTRIBUTE_STRING: u8 = 4;
pub const CARLA_RPC_ATTRIBUTE_RGB: u8 = 5;

/// A 0.9 vehicle control (`carla.VehicleControl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VehicleControl09 {
    pub throttle: f32,
    pub steer: f32,
    pub brake: f32,
    pub hand_brake: CBool,
    pub reverse: CBool,
    pub manual_gear_shift: CBool,
    pub gear: i32,
}

/// One actor's dynamic state for one tick, as the host reports it.
/// `transform` is the world transform; the other fields are written only
/// where `kind` says they apply.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorState {
    pub id: u32,
    /// `CARLA_ACTOR_OTHER`, `_VEHICLE`, `_WALKER` or `_TRAFFIC_LIGHT`.
    pub kind: u32,
    pub transform: ActorTransform,
    /// m/s.
    pub velocity: Vector3D,
    /// deg/s.
    pub angular_velocity: Vector3D,
    /// m/s².
    pub acceleration: Vector3D,
    /// Vehicles: the control applied this tick.
    pub vehicle_control: VehicleControl09,
    /// Vehicles: km/h.
    pub speed_limit: f32,
    /// Vehicles: the traffic light affecting it.
    pub traffic_light_id: u32,
    /// Vehicles (the affecting light's) and traffic lights (their own):
    /// 0 red, 1 yellow, 2 green, 3 off, 4 unknown.
    pub traffic_light_state: u8,
    pub has_traffic_light: CBool,
    pub walker_jump: CBool,
    pub time_is_frozen: CBool,
    pub walker_direction: Vector3D,
    pub walker_speed: f32,
    /// Traffic lights: green, yellow, red and elapsed time, seconds.
    pub traffic_light_times: [f32; 4],
    pub pole_index: u32,
    /// Traffic lights: OpenDRIVE sign id, NUL-padded.
    pub sign_id: [u8; 32],
}

/// `carla.WorldSettings` (the 0.9.16 `EpisodeSettings`, 11 fields).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpisodeSettings {
    pub synchronous_mode: CBool,
    pub no_rendering_mode: CBool,
    /// Whether `fixed_delta_seconds` is set.
    pub has_fixed_delta: CBool,
    pub substepping: CBool,
    pub deterministic_ragdolls: CBool,
    pub spectator_as_ego: CBool,
    pub fixed_delta_seconds: f64,
    pub max_substep_delta_time: f64,
    pub max_substeps: i32,
    pub max_culling_distance: f32,
    pub tile_stream_distance: f32,
    pub actor_active_distance: f32,
}

impl Default for EpisodeSettings {
    /// CARLA's defaults: asynchronous, rendering, variable time step.
    fn default() -> Self {
        EpisodeSettings {
            synchronous_mode: CBool::FALSE,
            no_rendering_mode: CBool::FALSE,
            has_fixed_delta: CBool::FALSE,
            substepping: CBool::TRUE,
            deterministic_ragdolls: CBool::TRUE,
            spectator_as_ego: CBool::TRUE,
            fixed_delta_seconds: 0.0,
            max_substep_delta_time: 0.01,
            max_substeps: 10,
            max_culling_distance: 0.0,
            tile_stream_distance: 3000.0,
            actor_active_distance: 2000.0,
        }
    }
}

impl EpisodeSettings {
    /// The fixed time step, if one is set.
    pub fn fixed_delta(&self) -> Option<f64> {
        self.has_fixed_delta
            .get()
            .then_some(self.fixed_delta_seconds)
    }
}

/// `carla.WeatherParameters`: the 14 floats in the order the client sends
/// them (cloudiness, precipitation, precipitation deposits, wind intensity,
/// sun azimuth, sun altitude, fog density, fog distance, fog falloff,
/// wetness, scattering intensity, Mie and Rayleigh scattering scale, dust
/// storm).
pub type Weather = [f32; 14];

/// CARLA's ClearNoon.
pub const DEFAULT_WEATHER: Weather = [
    5.0, 0.0, 0.0, 10.0, -1.0, 45.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0,
];

/// An oriented box in the actor's frame (`carla.BoundingBox`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorBox {
    /// Centre relative to the actor, metres.
    pub location: Vector3D,
    /// Half sizes, metres.
    pub extent: Vector3D,
}

/// Wheels a [`VehicleTelemetry`] carries at most.
pub const CARLA_TELEMETRY_WHEELS: u32 = 8;

/// One wheel of `carla.VehicleTelemetryData` (CARLA's
/// `WheelTelemetryData`, its field order).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WheelTelemetry {
    pub tire_friction: f32,
    /// Degrees.
    pub lat_slip: f32,
    pub long_slip: f32,
    /// rad/s.
    pub omega: f32,
    /// N.
    pub tire_load: f32,
    pub normalized_tire_load: f32,
    /// N·m.
    pub torque: f32,
    /// N.
    pub long_force: f32,
    /// N.
    pub lat_force: f32,
    pub normalized_long_force: f32,
    pub normalized_lat_force: f32,
}

/// A vehicle's `get_telemetry_data()` (`carla.VehicleTelemetryData`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VehicleTelemetry {
    /// Forward speed, m/s.
    pub speed: f32,
    pub steer: f32,
    pub throttle: f32,
    pub brake: f32,
    pub engine_rpm: f32,
    /// -1 reverse, 0 neutral, 1 first, ...
    pub gear: i32,
    /// Air drag, N.
    pub drag: f32,
    /// How many of `wheels` the vehicle has (at most
    /// [`CARLA_TELEMETRY_WHEELS`]).
    pub wheel_count: u32,
    pub wheels: [WheelTelemetry; CARLA_TELEMETRY_WHEELS as usize],
}

/// Bones one walker's skeleton may have, at most (a report or a client's
/// `set_bones` with more is refused).
pub const CARLA_MAX_BONES: u32 = 256;
/// Bytes of a bone's name field (`carla_bone_transform.name`), its NUL
/// included: names are 1 to 31 bytes of UTF-8.
pub const CARLA_BONE_NAME_SIZE: u32 = 32;

/// One bone of a walker's skeleton (`carla.BoneTransformDataOut`): its
/// name and its transform in the world, in the walker's frame
/// (component) and relative to its parent bone. A client's `set_bones`
/// reaches a C host as these too, with only `relative` set.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BoneTransform {
    /// UTF-8, NUL-terminated: 1 to 31 bytes, then NULs.
    pub name: [c_char; CARLA_BONE_NAME_SIZE as usize],
    pub world: ActorTransform,
    pub component: ActorTransform,
    pub relative: ActorTransform,
}

impl BoneTransform {
    /// A bone named `name` (1 to 31 bytes, no NUL; otherwise
    /// [`crate::Error::InvalidArgument`]).
    pub fn new(
        name: &str,
        world: ActorTransform,
        component: ActorTransform,
        relative: ActorTransform,
    ) -> Result<BoneTransform, crate::Error> {
        check_bone_name(name).map_err(crate::Error::InvalidArgument)?;
        let mut bone = BoneTransform {
            world,
            component,
            relative,
            ..Default::default()
        };
        for (slot, b) in bone.name.iter_mut().zip(name.bytes()) {
            *slot = b as c_char;
        }
        Ok(bone)
    }

    /// The name; `None` when `name` has no NUL or is not UTF-8 (a C host's
    /// bad report).
    pub fn name(&self) -> Option<&str> {
        // SAFETY: `c_char` is `i8` or `u8`: the same size and alignment as
        // `u8`, every bit pattern valid; the slice covers `self.name` only
        // and borrows `self`.
        let bytes: &[u8] =
            unsafe { std::slice::from_raw_parts(self.name.as_ptr().cast::<u8>(), self.name.len()) };
        let end = bytes.iter().position(|b| *b == 0)?;
        std::str::from_utf8(&bytes[..end]).ok()
    }
}

/// Whether `name` fits a [`BoneTransform`]: why not, if it does not.
pub(crate) fn check_bone_name(name: &str) -> Result<(), String> {
    let most = CARLA_BONE_NAME_SIZE as usize - 1;
    if name.is_empty() {
        Err("a bone has an empty name".into())
    } else if name.len() > most {
        Err(format!(
            "a bone name of {} bytes (at most {most})",
            name.len()
        ))
    } else if name.contains('\0') {
        Err("a bone name holds a NUL".into())
    } else {
        Ok(())
    }
}

/// One tick's header of the episode state.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EpisodeFrame {
    pub frame: u64,
    /// Simulated seconds since the episode started.
    pub elapsed_seconds: f64,
    /// This tick's time step (in synchronous mode: the fixed delta).
    pub delta_seconds: f64,
    /// Wall-clock seconds.
    pub platform_seconds: f64,
}

/// `carla.OpendriveGenerationParameters`: how a world is built from an
/// OpenDRIVE text (`client.generate_opendrive_world`). Sizes in metres.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpendriveGenerationParameters {
    /// Distance between the road mesh's vertices (> 0).
    pub vertex_distance: f64,
    /// The longest piece of road one mesh covers (> 0).
    pub max_road_length: f64,
    /// Height of the walls along the roads' edges (>= 0).
    pub wall_height: f64,
    /// Extra width on each side of the driving lanes (>= 0).
    pub additional_width: f64,
    pub smooth_junctions: CBool,
    pub enable_mesh_visibility: CBool,
    pub enable_pedestrian_navigation: CBool,
}

impl Default for OpendriveGenerationParameters {
    /// CARLA's defaults: 2.0, 50.0, 1.0, 0.6, and every switch on.
    fn default() -> Self {
        OpendriveGenerationParameters {
            vertex_distance: 2.0,
            max_road_length: 50.0,
            wall_height: 1.0,
            additional_width: 0.6,
            smooth_junctions: CBool::TRUE,
            enable_mesh_visibility: CBool::TRUE,
            enable_pedestrian_navigation: CBool::TRUE,
        }
    }
}
