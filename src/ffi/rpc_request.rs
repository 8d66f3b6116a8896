//! The request a C host polls (`carla_rpc_request`) and its kinds 1-8 (the
//! later kinds are in `rpc_commands.rs`). Only data: what fills it is
//! `rpc_pending.rs`, what hands it out is `rpc.rs`.

use crate::rpc::{BoneTransform, EpisodeSettings, OpendriveGenerationParameters, VehicleControl09};
use crate::types::{ActorTransform, Vector3D};
use std::ffi::c_char;

/// `carla_rpc_request.kind`: spawn `blueprint_id` as `actor_id`.
pub const CARLA_RPC_SPAWN_ACTOR: u32 = 1;
/// `carla_rpc_request.kind`: destroy `actor_id`.
pub const CARLA_RPC_DESTROY_ACTOR: u32 = 2;
/// `carla_rpc_request.kind`: apply `settings`.
pub const CARLA_RPC_EPISODE_SETTINGS: u32 = 3;
/// `carla_rpc_request.kind`: run one tick; answer with its frame.
pub const CARLA_RPC_TICK: u32 = 4;
/// `carla_rpc_request.kind`: move `actor_id` to `transform`.
pub const CARLA_RPC_ACTOR_TRANSFORM: u32 = 5;
/// `carla_rpc_request.kind`: set `actor_id`'s target `velocity`.
pub const CARLA_RPC_ACTOR_VELOCITY: u32 = 6;
/// `carla_rpc_request.kind`: apply `control` to vehicle `actor_id`.
pub const CARLA_RPC_VEHICLE_CONTROL: u32 = 7;
/// `carla_rpc_request.kind`: apply `weather`.
pub const CARLA_RPC_WEATHER: u32 = 8;

/// A request from a 0.9 client that only the engine can carry out.
#[repr(C)]
pub struct carla_rpc_request {
    /// Give it to `carla_rpc_answer`.
    pub request_id: u64,
    /// `CARLA_RPC_SPAWN_ACTOR`, ...
    pub kind: u32,
    /// Whether a client waits for the answer.
    pub expects_answer: bool,
    /// Spawn: 0 rigid, 1 spring arm, 2 spring arm ghost.
    pub attachment: u8,
    /// The actor concerned (spawn: the id the library gave it).
    pub actor_id: u32,
    /// Spawn: the parent (0: none); `transform` is then relative to it.
    pub parent_id: u32,
    /// Spawn/destroy: the library sensor of this actor (0: not a sensor);
    /// capture into it with the `carla_sensor_*` calls.
    pub sensor_id: u32,
    /// Spawn: the blueprint id, NUL-terminated.
    pub blueprint_id: *const c_char,
    /// Spawn: attribute ids and values as sent by the client.
    pub attribute_keys: *const *const c_char,
    pub attribute_values: *const *const c_char,
    pub attribute_count: u32,
    pub transform: ActorTransform,
    pub velocity: Vector3D,
    pub control: VehicleControl09,
    pub settings: EpisodeSettings,
    /// `carla.WeatherParameters`, in the client's order.
    pub weather: [f32; 14],
    /// Actor commands (`CARLA_RPC_SIMULATE_PHYSICS`, ...): on or off.
    pub enabled: bool,
    /// Actor commands: light flags, a door, a traffic-light state or phase.
    pub value: u32,
    /// Actor commands: a speed or a duration.
    pub scalar: f32,
    /// Actor commands: where an impulse or a force applies (world).
    pub location: Vector3D,
    /// Actor commands: numbers whose meaning depends on the kind
    /// (`CARLA_RPC_ACKERMANN_CONTROL`, `CARLA_RPC_ACKERMANN_SETTINGS`,
    /// `CARLA_RPC_PHYSICS_CONTROL`); read them by name with
    /// `carla_rpc_request_ackermann_control`,
    /// `carla_rpc_request_ackermann_settings` and
    /// `carla_rpc_request_physics_control`.
    pub numbers: [f32; 5],
    /// `CARLA_RPC_LOAD_EPISODE`: the map to load, NUL-terminated: one of
    /// the names given to `carla_rpc_set_available_maps` as given there,
    /// the current map's bare name (`reload_world`), or `"OpenDriveMap"`
    /// (the world the last `CARLA_RPC_LOAD_OPENDRIVE` built).
    pub map_name: *const c_char,
    /// `CARLA_RPC_LOAD_OPENDRIVE`: the OpenDRIVE text the client sent,
    /// `opendrive_length` bytes of UTF-8 (not NUL-terminated).
    pub opendrive: *const c_char,
    pub opendrive_length: usize,
    /// `CARLA_RPC_LOAD_OPENDRIVE`: how to build the world from it.
    pub opendrive_parameters: OpendriveGenerationParameters,
    /// `CARLA_RPC_SET_WALKER_BONES`: `bone_count` bones (name and
    /// `relative` set), readable until the next `carla_rpc_poll`; NULL and
    /// 0 for other kinds.
    pub bones: *const BoneTransform,
    pub bone_count: u32,
}
