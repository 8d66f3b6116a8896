//! The C API of each 0.9 client's share of the server (`ClientBudget`).

use super::args::{read, write};
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::rpc::ClientBudget;

/// What one 0.9 client (one RPC connection) may hold at once; calls past a
/// limit fail with a message naming it. Defaults: 64 sensors, 2,500
/// actors, 1,024 requests waiting for the engine, 128 MiB of sensor data
/// per tick, 32 connections from one IP address.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct carla_client_budget {
    pub max_sensors: u32,
    pub max_actors: u32,
    pub max_requests: u32,
    pub max_frame_bytes: u64,
    pub max_connections_per_address: u32,
}

impl From<ClientBudget> for carla_client_budget {
    fn from(b: ClientBudget) -> Self {
        let n = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        carla_client_budget {
            max_sensors: n(b.max_sensors),
            max_actors: n(b.max_actors),
            max_requests: n(b.max_requests),
            max_frame_bytes: b.max_frame_bytes,
            max_connections_per_address: n(b.max_connections_per_address),
        }
    }
}

/// Sets each 0.9 client's share (after `carla_rpc_listen`); it applies to
/// calls made from now on. Not listening is `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live; `budget` readable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_client_budget(
    server: CarlaServerPtr,
    budget: *const carla_client_budget,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let b = *read(budget)?;
        h.server.rpc()?.set_client_budget(ClientBudget {
            max_sensors: b.max_sensors as usize,
            max_actors: b.max_actors as usize,
            max_requests: b.max_requests as usize,
            max_frame_bytes: b.max_frame_bytes,
            max_connections_per_address: b.max_connections_per_address as usize,
        });
        Ok(())
    })
}

/// Writes each 0.9 client's share now to `budget`.
///
/// # Safety
/// `server` NULL or live; `budget` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_client_budget(
    server: CarlaServerPtr,
    budget: *mut carla_client_budget,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let out = write(budget)?;
        *out = h.server.rpc()?.client_budget().into();
        Ok(())
    })
}
