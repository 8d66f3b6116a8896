//! The 0.8.4 functions of `carla_server.h` (same symbols, same layouts),
//! plus four additions: bind address, message bound, log callback and a
//! panic self-test. Each delegates to [`crate::Server`].

use super::args::{array, into_handle, read, take_handle, text, write};
use super::codes::Fail;
use super::handle::{server, ServerHandle};
use super::structs::*;
use crate::log::Level;
use crate::types::{Agent, Control, MeasurementsHeader, SensorDefinition, Transform};
use crate::Config;
use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

/// Creates a server instance (idle until `carla_server_connect`). Returns
/// NULL only if the library could not create it.
#[no_mangle]
pub extern "C" fn carla_make_server() -> CarlaServerPtr {
    export!(or std::ptr::null_mut(), {
        Ok(into_handle(Box::new(ServerHandle::new())) as CarlaServerPtr)
    })
}

/// Destroys an instance: stops every thread and closes every port without
/// waiting for idle clients. NULL is accepted.
///
/// # Safety
/// `server` is NULL or from `carla_make_server`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn carla_free_server(server: CarlaServerPtr) {
    if !server.is_null() {
        export!({
            drop(take_handle(server as *mut ServerHandle)?);
            Ok(())
        });
    }
}

/// Binds the world port P and the agent ports P+1, P+2 and starts serving.
/// Returns 0 at once, like 0.8.4; a bind failure (port in use, invalid port)
/// is logged and returned by the next `carla_read_request_new_episode`.
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_server_connect(
    server: CarlaServerPtr,
    world_port: u32,
    server_timeout_milliseconds: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        h.server
            .connect_deferred(world_port, server_timeout_milliseconds);
        Ok(())
    })
}

/// Same as `carla_server_connect` (declared by 0.8.4, now defined).
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_server_connect_non_blocking(
    server: CarlaServerPtr,
    world_port: u32,
    server_timeout_milliseconds: u32,
) -> i32 {
    // SAFETY: the same contract.
    unsafe { carla_server_connect(server, world_port, server_timeout_milliseconds) }
}

/// Binds the ports and waits up to the server time-out for a world client.
/// Returns 0, 22 (invalid port), 98 (address in use), 106 (already
/// connected) or 125 (no client within the time-out; still listening).
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_server_connect_blocking(
    server: CarlaServerPtr,
    world_port: u32,
    server_timeout_milliseconds: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        Ok(h.server
            .connect_blocking(world_port, server_timeout_milliseconds)?)
    })
}

/// Stops the agent server and the world server and frees the ports, without
/// waiting for idle clients. The instance may be connected again.
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_disconnect_server(server: CarlaServerPtr) {
    export!({
        self::server(server)?.server.disconnect();
        Ok(())
    });
}

/// Waits up to `timeout_milliseconds` for a new-episode request. On 0,
/// `values` points at the settings text and the running agent server has
/// been stopped. 11: nothing yet. Other: the world session's error, once.
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_read_request_new_episode(
    server: CarlaServerPtr,
    values: *mut carla_request_new_episode,
    timeout_milliseconds: u32,
) -> i32 {
    export!({
        let (h, out) = (self::server(server)?, write(values)?);
        let text = h.server.read_request_new_episode(timeout_milliseconds)?;
        let mut ini = h.ini.lock();
        *ini = text;
        let len = ini.len() as u32;
        ini.push(0);
        out.ini_file = ini.as_ptr() as *const c_char;
        out.ini_file_length = len;
        Ok(())
    })
}

/// Sends the scene description of this round; waits up to
/// `timeout_milliseconds` for the send (110: not yet, it is still sent).
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or valid, with the
/// arrays and strings it points to, for the call.
#[no_mangle]
pub unsafe extern "C" fn carla_write_scene_description(
    server: CarlaServerPtr,
    values: *const carla_scene_description,
    timeout_milliseconds: u32,
) -> i32 {
    export!({
        let (h, v) = (self::server(server)?, read(values)?);
        let map = text(v.map_name)?;
        let spots = array::<Transform>(v.player_start_spots, v.number_of_player_start_spots)?;
        let mut sensors = Vec::new();
        for d in array(v.sensors, v.number_of_sensors)? {
            sensors.push(SensorDefinition {
                id: d.id,
                r#type: d.r#type,
                name: text(d.name)?.to_owned(),
            });
        }
        Ok(h.server
            .write_scene_description(map, spots, &sensors, timeout_milliseconds)?)
    })
}

/// Waits up to `timeout_milliseconds` for the client's episode start.
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_read_episode_start(
    server: CarlaServerPtr,
    values: *mut carla_episode_start,
    timeout_milliseconds: u32,
) -> i32 {
    export!({
        let (h, out) = (self::server(server)?, write(values)?);
        out.player_start_spot_index = h.server.read_episode_start(timeout_milliseconds)?;
        Ok(())
    })
}

/// Starts the agent server (if `ready`) and sends `EpisodeReady`.
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn carla_write_episode_ready(
    server: CarlaServerPtr,
    values: *const carla_episode_ready,
    timeout: u32,
) -> i32 {
    export!({
        let (h, v) = (self::server(server)?, read(values)?);
        Ok(h.server.write_episode_ready(v.ready.get(), timeout)?)
    })
}

/// Waits up to `timeout_milliseconds` for a control not yet read.
/// 0: `values` filled; 11: none; 125: no agent server; other: the control
/// connection's error, once.
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_read_control(
    server: CarlaServerPtr,
    values: *mut Control,
    timeout_milliseconds: u32,
) -> i32 {
    export!({
        let (h, out) = (self::server(server)?, write(values)?);
        *out = h.server.read_control(timeout_milliseconds)?;
        Ok(())
    })
}

/// Copies one sensor's data for the next frame (newest wins). Any thread;
/// one thread at a time per sensor id (another gets `CARLA_SERVER_BUSY`).
///
/// # Safety
/// `server` is NULL or a live handle; `data` is NULL or valid, with its
/// header and data buffers, for the call.
#[no_mangle]
pub unsafe extern "C" fn carla_write_sensor_data(
    server: CarlaServerPtr,
    data: *const carla_sensor_data,
) -> i32 {
    export!({
        let (h, d) = (self::server(server)?, read(data)?);
        let header = super::args::bytes(d.header, d.header_size)?;
        let bytes = super::args::bytes(d.data, d.data_size)?;
        Ok(h.server.write_sensor_data(d.id, header, bytes)?)
    })
}

/// Copies this frame's measurements for the stream (newest wins). Returns a
/// stream failure once (the measurement is then not stored).
///
/// # Safety
/// `server` is NULL or a live handle; `values` is NULL or valid, with its
/// agents array, for the call.
#[no_mangle]
pub unsafe extern "C" fn carla_write_measurements(
    server: CarlaServerPtr,
    values: *const carla_measurements,
) -> i32 {
    export!({
        let (h, v) = (self::server(server)?, read(values)?);
        let agents = array::<Agent>(v.non_player_agents, v.number_of_non_player_agents)?;
        let header = MeasurementsHeader {
            frame_number: v.frame_number,
            platform_timestamp: v.platform_timestamp,
            game_timestamp: v.game_timestamp,
            player_measurements: v.player_measurements,
        };
        Ok(h.server.write_measurements(&header, agents)?)
    })
}

/// New: the address the ports bind to at the next connect ("0.0.0.0" by
/// default, "127.0.0.1" for local clients only). 0 or INVALID_ARGUMENT.
///
/// # Safety
/// `server` is NULL or a live handle; `address` NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn carla_server_set_bind_address(
    server: CarlaServerPtr,
    address: *const c_char,
) -> i32 {
    export!({
        let (h, address) = (self::server(server)?, text(address)?);
        let ip = address.parse().map_err(|_| {
            crate::log_error!("bind address {:?} is not an IP address", address);
            crate::Error::InvalidArgument(format!("bind address {address:?} is not an IP address"))
        })?;
        h.server.set_config(Config {
            bind_ip: ip,
            ..h.server.config()
        });
        Ok(())
    })
}

/// New: the largest message accepted from a client at the next connect
/// (default 16 MiB). A larger length prefix closes that connection.
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_server_set_max_message_size(
    server: CarlaServerPtr,
    max_bytes: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        h.server.set_config(Config {
            max_message: max_bytes,
            ..h.server.config()
        });
        Ok(())
    })
}

/// New: routes the library's log lines to `callback` (NULL restores
/// stderr) and keeps lines up to `max_level` (1 error .. 4 debug).
#[no_mangle]
pub extern "C" fn carla_server_set_log_callback(
    callback: carla_log_callback,
    user_data: *mut c_void,
    max_level: i32,
) -> i32 {
    export!({
        let level = match max_level {
            1 => Level::Error,
            2 => Level::Warning,
            3 => Level::Info,
            4 => Level::Debug,
            _ => {
                return Err(Fail::Lib(crate::Error::InvalidArgument(format!(
                    "log level {max_level} is not 1 (error) to 4 (debug)"
                ))))
            }
        };
        crate::log::set_max_level(level);
        crate::log::set_sink(callback.map(|cb| log_sink(cb, user_data)));
        Ok(())
    })
}

/// A log sink that calls the host's callback with NUL-terminated lines.
fn log_sink(
    cb: unsafe extern "C" fn(level: i32, message: *const c_char, user_data: *mut c_void),
    user_data: *mut c_void,
) -> crate::log::Sink {
    let user = user_data as usize;
    Arc::new(move |level: Level, line: &str| {
        let line = CString::new(line.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the host registered `cb` for exactly this call shape (and
        // `user_data` for it); `line` lives until the call returns.
        unsafe { cb(level as i32, line.as_ptr(), user as *mut c_void) }
    })
}

/// New: panics inside the library on purpose and returns the code every
/// export returns in that case (`CARLA_SERVER_INTERNAL_PANIC`), so a host
/// can check that its error handling sees it and that nothing crashes.
#[no_mangle]
pub extern "C" fn carla_server_self_test_panic() -> i32 {
    export!({ self_test_panic() })
}

fn self_test_panic() -> Result<(), Fail> {
    panic!("self-test panic")
}
