//! The C API of the CARLA 0.9.16 world protocol: bind the RPC port, poll
//! the requests only the engine can carry out and answer them, send each
//! tick's episode state, describe blueprints and the map.
//!
//! A polled request's pointers (blueprint id, attribute strings, map name,
//! OpenDRIVE text) stay valid until it is answered with `carla_rpc_answer`
//! (or until `carla_free_server`). Requests that expect no answer
//! (transforms, controls, weather, actor commands) need not be answered;
//! what their pointers point to (a V2X text, a walker's bones) stays
//! valid until the next poll.

use super::args::{array, read, text, write, write_if_given};
use super::codes::Fail;
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::rpc::{
    ActorBox, ActorCommand, ActorState, Blueprint, BlueprintAttribute, BoneTransform, EngineCall,
    EngineRequest, EpisodeFrame, EpisodeSettings, OpendriveGenerationParameters, VehicleControl09,
};
use crate::types::{ActorTransform, Vector3D};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

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
    /// (`CARLA_RPC_ACKERMANN_CONTROL`, `CARLA_RPC_PHYSICS_CONTROL`).
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

/// Strings of a spawn request (or a map load's name) and a `set_bones`'
/// bones in C's layout, kept until it is answered (or, for a request that
/// expects no answer, until the next poll).
#[derive(Default)]
struct Strings {
    _owned: Vec<CString>,
    keys: Vec<*const c_char>,
    values: Vec<*const c_char>,
    _bones: Vec<BoneTransform>,
}

// SAFETY: the raw pointers point into `_owned`, which moves with them and
// is only read (by the host, through the request it polled).
unsafe impl Send for Strings {}

/// Requests handed to the C host and not answered yet, by request id.
/// Ids only grow, so the first entry is the oldest.
#[derive(Default)]
pub(crate) struct Pending {
    next: AtomicU64,
    waiting: Mutex<BTreeMap<u64, (EngineRequest, Option<Strings>)>>,
    /// The last request polled that expects no answer, kept until the
    /// next poll: its text (`CARLA_RPC_V2X_SEND`) and bones
    /// (`CARLA_RPC_SET_WALKER_BONES`) stay readable till then.
    last: Mutex<Option<(EngineRequest, Option<Strings>)>>,
}

/// Requests waiting for a C host's answer, at most; the oldest is failed
/// when a new one would exceed it.
const MAX_PENDING: usize = 1024;

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

fn fill(out: &mut carla_rpc_request, call: &EngineCall) -> Option<Strings> {
    let mut strings = None;
    match call {
        EngineCall::SpawnActor {
            actor_id,
            blueprint,
            attributes,
            transform,
            parent_id,
            attachment,
            sensor_id,
        } => {
            out.kind = CARLA_RPC_SPAWN_ACTOR;
            (out.actor_id, out.parent_id, out.sensor_id) = (*actor_id, *parent_id, *sensor_id);
            (out.attachment, out.transform) = (*attachment, *transform);
            let mut owned = vec![c_string(blueprint)];
            for (k, v) in attributes {
                owned.push(c_string(k));
                owned.push(c_string(v));
            }
            // `skip`, not `[2..]`: a spawn without attributes (a client's
            // `role_name` is not passed on) has only the blueprint id.
            let keys = owned
                .iter()
                .skip(1)
                .step_by(2)
                .map(|c| c.as_ptr())
                .collect();
            let values = owned
                .iter()
                .skip(2)
                .step_by(2)
                .map(|c| c.as_ptr())
                .collect();
            let s = Strings {
                keys,
                values,
                _owned: owned,
                _bones: Vec::new(),
            };
            out.blueprint_id = s._owned[0].as_ptr();
            (out.attribute_keys, out.attribute_values) = (s.keys.as_ptr(), s.values.as_ptr());
            out.attribute_count = attributes.len() as u32;
            strings = Some(s);
        }
        EngineCall::DestroyActor {
            actor_id,
            sensor_id,
        } => {
            out.kind = CARLA_RPC_DESTROY_ACTOR;
            (out.actor_id, out.sensor_id) = (*actor_id, *sensor_id);
        }
        EngineCall::SetEpisodeSettings(s) => {
            out.kind = CARLA_RPC_EPISODE_SETTINGS;
            out.settings = *s;
        }
        EngineCall::Tick => out.kind = CARLA_RPC_TICK,
        EngineCall::SetActorTransform {
            actor_id,
            transform,
        } => {
            out.kind = CARLA_RPC_ACTOR_TRANSFORM;
            (out.actor_id, out.transform) = (*actor_id, *transform);
        }
        EngineCall::SetActorTargetVelocity { actor_id, velocity } => {
            out.kind = CARLA_RPC_ACTOR_VELOCITY;
            (out.actor_id, out.velocity) = (*actor_id, *velocity);
        }
        EngineCall::ApplyVehicleControl { actor_id, control } => {
            out.kind = CARLA_RPC_VEHICLE_CONTROL;
            (out.actor_id, out.control) = (*actor_id, *control);
        }
        EngineCall::SetWeather(w) => {
            out.kind = CARLA_RPC_WEATHER;
            out.weather = *w;
        }
        EngineCall::Actor { actor_id, command } => {
            super::rpc_commands::fill_actor(out, *actor_id, command);
            if let ActorCommand::SetBones(list) = command {
                strings = Some(bones(out, list));
            }
        }
        EngineCall::World(command) => super::rpc_commands::fill_world(out, command),
        EngineCall::LoadEpisode {
            map,
            reset_settings,
        } => {
            super::rpc_commands::fill_load_episode(out, *reset_settings);
            let s = Strings {
                _owned: vec![c_string(map)],
                ..Default::default()
            };
            out.map_name = s._owned[0].as_ptr();
            strings = Some(s);
        }
        EngineCall::LoadOpenDrive { opendrive, params } => {
            // The text stays where the request holds it (an `Arc<str>`,
            // not copied) until the request is answered.
            out.kind = super::rpc_commands::CARLA_RPC_LOAD_OPENDRIVE;
            out.opendrive = opendrive.as_ptr().cast::<c_char>();
            out.opendrive_length = opendrive.len();
            out.opendrive_parameters = *params;
        }
        EngineCall::VehicleTelemetry { actor_id } => {
            out.kind = super::rpc_commands::CARLA_RPC_VEHICLE_TELEMETRY;
            out.actor_id = *actor_id;
        }
        EngineCall::WalkerBones { actor_id } => {
            out.kind = super::rpc_commands::CARLA_RPC_WALKER_BONES;
            out.actor_id = *actor_id;
        }
    }
    strings
}

/// A `set_bones`' bones in C's layout, pointed to by `out` (names and
/// transforms were checked when the client's call was decoded: at most
/// `CARLA_MAX_BONES`, names that fit).
fn bones(out: &mut carla_rpc_request, list: &[(String, ActorTransform)]) -> Strings {
    let zero = ActorTransform::default();
    let bones: Vec<BoneTransform> = list
        .iter()
        .filter_map(|(name, t)| BoneTransform::new(name, zero, zero, *t).ok())
        .collect();
    // The Vec's buffer does not move when the Vec does.
    out.bones = bones.as_ptr();
    out.bone_count = bones.len() as u32;
    Strings {
        _bones: bones,
        ..Default::default()
    }
}

/// Binds the CARLA 0.9.16 RPC port (`port` 0 picks one) and writes the
/// bound port to `bound_port` (may be NULL). Binds the streaming port on
/// `port + 1` first if `carla_server_listen_streaming` was not called.
///
/// # Safety
/// `server` NULL or live; `bound_port` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_listen(
    server: CarlaServerPtr,
    port: u32,
    bound_port: *mut u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let port = u16::try_from(port).map_err(|_| crate::Error::InvalidPort)?;
        let addr = h.server.listen_rpc(port)?;
        write_if_given(bound_port, u32::from(addr.port()));
        Ok(())
    })
}

/// Takes the next request for the engine, waiting up to `timeout_ms` (0:
/// only what is queued now). `CARLA_SERVER_SUCCESS` fills `request`;
/// `CARLA_SERVER_TRY_AGAIN`: none came. Allocates nothing for ticks. The
/// request's pointers stay valid until it is answered (requests that
/// expect an answer) or until the next poll (the others).
///
/// # Safety
/// `server` NULL or live; `request` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_poll(
    server: CarlaServerPtr,
    timeout_ms: u32,
    request: *mut carla_rpc_request,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let out = write(request)?;
        let timeout = Duration::from_millis(timeout_ms.into());
        let Some(req) = h.server.rpc()?.poll(timeout) else {
            return Err(Fail::Lib(crate::Error::TryAgain));
        };
        // SAFETY: all-zero is a valid carla_rpc_request (NULL pointers,
        // zero numbers, false flags).
        *out = std::mem::zeroed();
        let strings = fill(out, req.call());
        out.expects_answer = req.expects_answer();
        if !req.expects_answer() {
            // No answer; what its pointers point into lives till the next
            // poll (this one dropped the one before).
            *h.rpc.last.lock() = Some((req, strings));
            return Ok(());
        }
        let id = h.rpc.next.fetch_add(1, Ordering::Relaxed) + 1;
        out.request_id = id;
        let mut waiting = h.rpc.waiting.lock();
        if waiting.len() >= MAX_PENDING {
            if let Some((old, (r, _))) = waiting.pop_first() {
                crate::log_warn!("rpc: request {} was never answered; it is failed now", old);
                r.fail("the simulator never answered this request");
            }
        }
        waiting.insert(id, (req, strings));
        Ok(())
    })
}

/// Answers request `request_id`: `error` NULL for success (`value` is the
/// frame for `CARLA_RPC_TICK`, ignored otherwise), else the message the
/// client gets as a `RuntimeError`. An unknown id is `INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live; `error` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_answer(
    server: CarlaServerPtr,
    request_id: u64,
    value: u64,
    error: *const c_char,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let message = if error.is_null() {
            None
        } else {
            Some(text(error)?)
        };
        let found = h.rpc.waiting.lock().remove(&request_id);
        let Some((req, _strings)) = found else {
            return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                "no request {request_id} is waiting for an answer"
            ))));
        };
        match message {
            None => req.succeed(value),
            Some(m) => req.fail(m),
        }
        Ok(())
    })
}

/// Sends this tick's episode state (after the tick's sensor data): `count`
/// actor states, then every other actor the library knows (the spectator,
/// sensors spawned by clients, placed relative to their parents).
///
/// # Safety
/// `server` NULL or live; `frame` readable; `states` NULL (count 0) or
/// `count` readable states.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_send_episode_state(
    server: CarlaServerPtr,
    frame: *const EpisodeFrame,
    states: *const ActorState,
    count: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let frame = read(frame)?;
        let states = array(states, count)?;
        h.server.rpc()?.send_episode_state(frame, states)?;
        Ok(())
    })
}

/// Adds a blueprint (vehicle, walker, prop) to the blueprint library:
/// `count` attributes with types `CARLA_RPC_ATTRIBUTE_*` and default
/// values (which must parse as their type), and the bounding box of the
/// actors made from it (may be NULL).
///
/// # Safety
/// `server` NULL or live; `id` NUL-terminated; the three arrays NULL
/// (count 0) or `count` entries; `bounding_box` NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_add_blueprint(
    server: CarlaServerPtr,
    id: *const c_char,
    attribute_ids: *const *const c_char,
    attribute_types: *const u8,
    attribute_values: *const *const c_char,
    count: u32,
    bounding_box: *const ActorBox,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let id = text(id)?;
        let (ids, types) = (array(attribute_ids, count)?, array(attribute_types, count)?);
        let values = array(attribute_values, count)?;
        let mut attributes = Vec::with_capacity(ids.len());
        for ((&k, &t), &v) in ids.iter().zip(types).zip(values) {
            if !(1..=5).contains(&t) {
                return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                    "attribute type {t} is not one of CARLA_RPC_ATTRIBUTE_BOOL (1) .. _RGB (5)"
                ))));
            }
            attributes.push(BlueprintAttribute {
                id: text(k)?.to_owned(),
                kind: t,
                value: text(v)?.to_owned(),
                recommended: Vec::new(),
                modifiable: true,
                restricted: false,
            });
        }
        let bounding_box = if bounding_box.is_null() {
            ActorBox::default()
        } else {
            *read(bounding_box)?
        };
        h.server.rpc()?.add_blueprint(Blueprint {
            id: id.to_owned(),
            attributes,
            bounding_box,
            library_sensor: false,
            physics: None,
        });
        Ok(())
    })
}

/// Sets the map clients get: its name, `count` recommended spawn points
/// and its OpenDRIVE text (may be NULL: none).
///
/// # Safety
/// `server` NULL or live; `name` NUL-terminated; `spawn_points` NULL (count
/// 0) or `count` readable; `opendrive` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_map(
    server: CarlaServerPtr,
    name: *const c_char,
    spawn_points: *const ActorTransform,
    count: u32,
    opendrive: *const c_char,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let (name, points) = (text(name)?, array(spawn_points, count)?);
        let xodr = if opendrive.is_null() {
            ""
        } else {
            text(opendrive)?
        };
        h.server.rpc()?.set_map(name, points, xodr);
        Ok(())
    })
}

/// Sets the maps clients may load (`client.load_world(name)`): `count`
/// bare names such as `"Town01"` (a directory or `.umap` is taken off).
/// Clients' `get_available_maps()` lists them as
/// `/Game/Carla/Maps/Town01`; loading one (or the current map, or
/// `OpenDriveMap` once built) is a `CARLA_RPC_LOAD_EPISODE` request whose
/// `map_name` is the name as given here. Replaces the previous list;
/// until the first call clients may load the current map only.
/// `INVALID_ARGUMENT` (the list unchanged): not listening, a name that is
/// empty, over 256 bytes, has control characters or is not UTF-8, a name
/// listed twice (ASCII case ignored), or more than 4096 names;
/// `NULL_ARGUMENT`: `names` NULL with `count` > 0, or a NULL name.
///
/// # Safety
/// `server` NULL or live; `names` NULL (count 0) or `count` readable
/// pointers, each NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_available_maps(
    server: CarlaServerPtr,
    names: *const *const c_char,
    count: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let rpc = h.server.rpc()?;
        if count > crate::rpc::MAX_MAPS {
            return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                "{count} map names: at most {} may be listed",
                crate::rpc::MAX_MAPS
            ))));
        }
        let pointers = array(names, count)?;
        let mut list = Vec::with_capacity(pointers.len());
        for &p in pointers {
            list.push(text(p)?);
        }
        rpc.set_available_maps(&list)?;
        Ok(())
    })
}

/// Writes the episode settings last applied to `settings`.
///
/// # Safety
/// `server` NULL or live; `settings` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_settings(
    server: CarlaServerPtr,
    settings: *mut EpisodeSettings,
) -> i32 {
    export!({
        let h = self::server(server)?;
        *write(settings)? = h.server.rpc()?.settings();
        Ok(())
    })
}

/// `carla_rpc_add_blueprint` attribute types (the 0.9.16 numbering).
pub const CARLA_RPC_ATTRIBUTE_BOOL: u8 = 1;
pub const CARLA_RPC_ATTRIBUTE_INT: u8 = 2;
pub const CARLA_RPC_ATTRIBUTE_FLOAT: u8 = 3;
pub const CARLA_RPC_ATTRIBUTE_STRING: u8 = 4;
pub const CARLA_RPC_ATTRIBUTE_RGB: u8 = 5;
