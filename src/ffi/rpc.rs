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

use super::args::{array, read, text, write};
use super::codes::Fail;
use super::handle::{listen, server};
use super::rpc_request::*;
use super::structs::CarlaServerPtr;
use crate::rpc::{
    ActorBox, ActorState, Blueprint, BlueprintAttribute, EpisodeFrame, EpisodeSettings,
};
use crate::types::ActorTransform;
use std::ffi::c_char;
use std::time::Duration;

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
    export!({ listen(server, port, bound_port, |s, port| s.listen_rpc(port)) })
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
        h.rpc.keep(out, req);
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
        let Some(req) = h.rpc.take(request_id) else {
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
            if !ATTRIBUTE_TYPES.contains(&t) {
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

// `carla_rpc_add_blueprint`'s attribute types are defined with the
// episode data (one definition for C and Rust).
pub use crate::episode::{
    CARLA_RPC_ATTRIBUTE_BOOL, CARLA_RPC_ATTRIBUTE_FLOAT, CARLA_RPC_ATTRIBUTE_INT,
    CARLA_RPC_ATTRIBUTE_RGB, CARLA_RPC_ATTRIBUTE_STRING,
};

/// Every attribute type a host may give.
const ATTRIBUTE_TYPES: [u8; 5] = [
    CARLA_RPC_ATTRIBUTE_BOOL,
    CARLA_RPC_ATTRIBUTE_INT,
    CARLA_RPC_ATTRIBUTE_FLOAT,
    CARLA_RPC_ATTRIBUTE_STRING,
    CARLA_RPC_ATTRIBUTE_RGB,
];
