//! The C API of the 0.9.16 world the host owns: its own actors (a player
//! car, level traffic) made known to 0.9 clients under ids it chooses, new
//! episodes, traffic-light groups, a vehicle's telemetry, a walker's bones,
//! and how many 0.9 clients are connected. Each is one call of `Server`
//! (`rpc_add_actor`, `rpc_remove_actor`, `rpc_new_episode`,
//! `rpc_client_count`).

use super::args::{array, read, text, write, write_if_given};
use super::codes::Fail;
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::rpc::{BoneTransform, VehicleTelemetry, CARLA_MAX_BONES};
use crate::types::ActorTransform;
use std::ffi::c_char;

/// Makes one of the host's own actors (a player car, level traffic, a
/// traffic light) known to 0.9 clients: `get_actors` lists it with
/// blueprint `blueprint_id` (added before with `carla_rpc_add_blueprint`)
/// and its attributes, each of the blueprint's defaults unless
/// `attribute_keys`/`attribute_values` (`attribute_count` pairs) give it
/// (keys the blueprint does not have are ignored). `id` is the host's
/// choice (not 0, not in use); send its state each tick with
/// `carla_rpc_send_episode_state` (until then the library reports it at
/// `transform`). A client's `destroy()` of it is a
/// `CARLA_RPC_DESTROY_ACTOR` request like any other.
/// `CARLA_SERVER_INVALID_ARGUMENT`: the RPC port is not listening, an
/// unknown blueprint, or `id` 0 or in use.
///
/// # Safety
/// `server` NULL or live; `blueprint_id` NUL-terminated; the two arrays
/// NULL (count 0) or `attribute_count` NUL-terminated strings each;
/// `transform` readable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_add_actor(
    server: CarlaServerPtr,
    id: u32,
    blueprint_id: *const c_char,
    attribute_keys: *const *const c_char,
    attribute_values: *const *const c_char,
    attribute_count: u32,
    transform: *const ActorTransform,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let blueprint = text(blueprint_id)?;
        let keys = array(attribute_keys, attribute_count)?;
        let values = array(attribute_values, attribute_count)?;
        let transform = *read(transform)?;
        let mut pairs = Vec::with_capacity(keys.len());
        for (&k, &v) in keys.iter().zip(values) {
            pairs.push((text(k)?, text(v)?));
        }
        h.server
            .rpc()?
            .add_actor(id, blueprint, &pairs, transform)?;
        Ok(())
    })
}

/// Says which traffic lights form a group (those of one junction): a
/// client's `traffic_light.get_group_traffic_lights()` of any of them
/// answers the `count` ids of `ids`, in that order. Each must be a
/// `traffic.traffic_light` actor added with `carla_rpc_add_actor`; a light
/// moves out of its old group; `carla_rpc_new_episode` forgets the groups.
/// `CARLA_SERVER_INVALID_ARGUMENT`: not listening, or an id that is not
/// such a light.
///
/// # Safety
/// `server` NULL or live; `ids` NULL (count 0) or `count` readable ids.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_traffic_light_group(
    server: CarlaServerPtr,
    ids: *const u32,
    count: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let ids = array(ids, count)?;
        h.server.rpc()?.set_traffic_light_group(ids)?;
        Ok(())
    })
}

/// Forgets actor `id` (a host actor gone, or any actor the host removed
/// itself): clients no longer list it; if it is a sensor spawned by a
/// client, its stream ends. `CARLA_SERVER_INVALID_ARGUMENT`: no such actor
/// (or the spectator), or the RPC port is not listening.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_remove_actor(server: CarlaServerPtr, id: u32) -> i32 {
    export!({
        self::server(server)?.server.rpc()?.remove_actor(id)?;
        Ok(())
    })
}

/// Reports vehicle `id`'s telemetry, what a client's `get_telemetry_data()`
/// answers: do it on a `CARLA_RPC_VEHICLE_TELEMETRY` request, before
/// answering it. `CARLA_SERVER_INVALID_ARGUMENT`: the RPC port is not
/// listening, `id` is not a vehicle the library knows, `wheel_count` is
/// over `CARLA_TELEMETRY_WHEELS`, or a number is not finite.
///
/// # Safety
/// `server` NULL or live; `telemetry` readable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_vehicle_telemetry(
    server: CarlaServerPtr,
    id: u32,
    telemetry: *const VehicleTelemetry,
) -> i32 {
    export!({
        let t = read(telemetry)?;
        self::server(server)?
            .server
            .rpc()?
            .set_vehicle_telemetry(id, t)?;
        Ok(())
    })
}

/// Reports walker `id`'s skeleton, what a client's `get_bones()` answers:
/// `count` bones (parents first) at `bones`, each with its name
/// (NUL-terminated UTF-8, 1 to 31 bytes) and its transform in the world, in
/// the walker's frame (`component`) and relative to its parent bone. Do it
/// on a `CARLA_RPC_WALKER_BONES` request, before answering it.
/// `CARLA_SERVER_INVALID_ARGUMENT` (nothing kept): the RPC port is not
/// listening, `id` is not a walker the library knows, `count` is over
/// `CARLA_MAX_BONES`, a name is empty, not NUL-terminated within its 32
/// bytes or not UTF-8, or a number is not finite. `NULL_ARGUMENT`: `bones`
/// NULL with `count` > 0.
///
/// # Safety
/// `server` NULL or live; `bones` NULL (count 0) or `count` readable bones
/// (a count over `CARLA_MAX_BONES` is refused before any is read).
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_walker_bones(
    server: CarlaServerPtr,
    id: u32,
    bones: *const BoneTransform,
    count: u32,
) -> i32 {
    export!({
        let rpc = self::server(server)?.server.rpc()?;
        if count > CARLA_MAX_BONES {
            return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                "{count} bones for walker {id} (at most {CARLA_MAX_BONES})"
            ))));
        }
        rpc.set_walker_bones(id, array(bones, count)?)?;
        Ok(())
    })
}

/// Starts a new episode for 0.9 clients (a new level, a reset): every
/// actor but the spectator is forgotten (the streams of client sensors
/// end) and the episode id changes, so clients see a new world. Writes the
/// new episode id to `episode_id` (may be NULL).
/// `CARLA_SERVER_INVALID_ARGUMENT`: the RPC port is not listening.
///
/// # Safety
/// `server` NULL or live; `episode_id` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_new_episode(
    server: CarlaServerPtr,
    episode_id: *mut u64,
) -> i32 {
    export!({
        let id = self::server(server)?.server.rpc()?.new_episode();
        write_if_given(episode_id, id);
        Ok(())
    })
}

/// Writes how many 0.9 clients are connected to the RPC port now (0 when
/// it is not listening).
///
/// # Safety
/// `server` NULL or live; `count` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_client_count(server: CarlaServerPtr, count: *mut u32) -> i32 {
    export!({
        let h = self::server(server)?;
        let out = write(count)?;
        *out = u32::try_from(h.server.rpc().map_or(0, |r| r.client_count())).unwrap_or(u32::MAX);
        Ok(())
    })
}

/// How the streams of sensors clients spawn, and the world stream, deliver
/// in synchronous mode: 0 (the default) waits for a slow subscriber up to
/// the server time-out; `depth` (1..=64) queues that many messages per
/// subscriber and never waits (for engines whose render thread sends);
/// over 64 is `CARLA_SERVER_INVALID_ARGUMENT`. Asynchronous mode is
/// unchanged (newest wins).
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_stream_queue(server: CarlaServerPtr, depth: u32) -> i32 {
    export!({
        Ok(self::server(server)?
            .server
            .rpc()?
            .set_stream_queue(depth)?)
    })
}
