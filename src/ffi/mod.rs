//! The C API: the 0.8.4 `carla_server.h` functions plus a few additions.
//!
//! Every export validates its pointers (NULL -> `CARLA_SERVER_NULL_ARGUMENT`),
//! runs inside `catch_unwind` (a panic becomes `CARLA_SERVER_INTERNAL_PANIC`
//! and never crosses into the host) and delegates to [`crate::Server`].
//! Input memory is borrowed for the call only.

mod sensors;
mod settings;
mod structs;

pub use sensors::*;
pub use settings::*;
pub use structs::*;

use crate::codes::{self, Code};
use crate::log::Level;
use crate::types::{Agent, Control, MeasurementsHeader, SensorDefinition, Transform};
use crate::{Server, ServerConfig};
use parking_lot::Mutex;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Success.
#[no_mangle]
pub static CARLA_SERVER_SUCCESS: i32 = codes::SUCCESS;
/// Nothing available within the time-out.
#[no_mangle]
pub static CARLA_SERVER_TRY_AGAIN: i32 = codes::TRY_AGAIN;
/// A world write did not complete within the time-out (it is still sent).
#[no_mangle]
pub static CARLA_SERVER_TIMED_OUT: i32 = codes::TIMED_OUT;
/// No agent server, an expired network deadline, or a disconnect.
#[no_mangle]
pub static CARLA_SERVER_OPERATION_ABORTED: i32 = codes::OPERATION_ABORTED;

/// New: a required pointer was NULL.
pub const CARLA_SERVER_NULL_ARGUMENT: i32 = -1;
/// New: an argument was invalid or a call was out of protocol order.
pub const CARLA_SERVER_INVALID_ARGUMENT: i32 = -2;
/// New: an internal panic was caught; the call had no effect.
pub const CARLA_SERVER_INTERNAL_PANIC: i32 = -3;
/// New: the sensor id is not in the last scene description.
pub const CARLA_SERVER_UNKNOWN_SENSOR: i32 = -4;
/// New: another thread is using the same producer (or consumer) side now.
pub const CARLA_SERVER_BUSY: i32 = -5;

/// What a `CarlaServerPtr` points to.
struct Handle {
    server: Server,
    /// The last settings text, NUL-terminated, handed out by pointer.
    ini: Mutex<Vec<u8>>,
}

fn guard(name: &str, f: impl FnOnce() -> Result<(), Code>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => codes::SUCCESS,
        Ok(Err(code)) => code,
        Err(_) => {
            crate::log_error!("{}: internal panic caught; the call had no effect", name);
            codes::INTERNAL_PANIC
        }
    }
}

/// # Safety
/// `p` is NULL or a live pointer from `carla_make_server`.
unsafe fn handle<'a>(p: CarlaServerPtr) -> Result<&'a Handle, Code> {
    // SAFETY: caller contract above; NULL is rejected by `as_ref`.
    unsafe { (p as *const Handle).as_ref() }.ok_or(codes::NULL_ARGUMENT)
}

/// # Safety
/// `p` is NULL or points to `n` valid elements for the call.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> Result<&'a [T], Code> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(codes::NULL_ARGUMENT);
    }
    // SAFETY: non-NULL, and the caller guarantees `n` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n as usize) })
}

/// # Safety
/// `p` is NULL or a NUL-terminated string valid for the call.
unsafe fn string<'a>(p: *const c_char) -> Result<&'a str, Code> {
    if p.is_null() {
        return Err(codes::NULL_ARGUMENT);
    }
    // SAFETY: non-NULL and NUL-terminated per the caller contract.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| {
        crate::log_error!("string argument is not valid UTF-8");
        codes::INVALID_ARGUMENT
    })
}

/// # Safety
/// `p` is NULL or valid for writing one `T`.
unsafe fn output<'a, T>(p: *mut T) -> Result<&'a mut T, Code> {
    // SAFETY: caller contract; NULL is rejected by `as_mut`.
    unsafe { p.as_mut() }.ok_or(codes::NULL_ARGUMENT)
}

/// Copies `text` (NUL-terminated, truncated to fit) into a caller buffer.
///
/// # Safety
/// `buffer` is NULL or writable for `size` bytes.
unsafe fn write_text(text: &str, buffer: *mut c_char, size: u32) {
    if buffer.is_null() || size == 0 {
        return;
    }
    let n = text.len().min(size as usize - 1);
    // SAFETY: `buffer` has `size` writable bytes and `n + 1 <= size`.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buffer as *mut u8, n);
        *buffer.add(n) = 0;
    }
}

/// Creates a server instance (idle until `carla_server_connect`). Returns
/// NULL only if the library could not create it.
#[no_mangle]
pub extern "C" fn carla_make_server() -> CarlaServerPtr {
    catch_unwind(|| {
        let handle = Box::new(Handle {
            server: Server::new(),
            ini: Mutex::new(vec![0]),
        });
        Box::into_raw(handle) as CarlaServerPtr
    })
    .unwrap_or(std::ptr::null_mut())
}

/// Destroys an instance: stops every thread and closes every port without
/// waiting for idle clients. NULL is accepted.
///
/// # Safety
/// `server` is NULL or from `carla_make_server`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn carla_free_server(server: CarlaServerPtr) {
    if server.is_null() {
        return;
    }
    guard("carla_free_server", || {
        // SAFETY: from Box::into_raw in carla_make_server (caller contract).
        drop(unsafe { Box::from_raw(server as *mut Handle) });
        Ok(())
    });
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
    guard("carla_server_connect", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
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
    // SAFETY: same contract.
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
    guard("carla_server_connect_blocking", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        h.server
            .connect_blocking(world_port, server_timeout_milliseconds)
    })
}

/// Stops the agent server and the world server and frees the ports, without
/// waiting for idle clients. The instance may be connected again.
///
/// # Safety
/// `server` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn carla_disconnect_server(server: CarlaServerPtr) {
    guard("carla_disconnect_server", || {
        // SAFETY: caller contract.
        unsafe { handle(server) }?.server.disconnect();
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
    guard("carla_read_request_new_episode", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        if values.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let text = h.server.read_request_new_episode(timeout_milliseconds)?;
        let mut ini = h.ini.lock();
        *ini = text;
        let len = ini.len() as u32;
        ini.push(0);
        // SAFETY: non-NULL and writable per the caller contract.
        unsafe {
            (*values).ini_file = ini.as_ptr() as *const c_char;
            (*values).ini_file_length = len;
        }
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
    guard("carla_write_scene_description", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        // SAFETY: caller contract; NULL rejected.
        let v = unsafe { values.as_ref() }.ok_or(codes::NULL_ARGUMENT)?;
        // SAFETY: pointers of `v` are valid for the call (caller contract).
        let (map, spots, defs) = unsafe {
            (
                string(v.map_name)?,
                slice::<Transform>(v.player_start_spots, v.number_of_player_start_spots)?,
                slice(v.sensors, v.number_of_sensors)?,
            )
        };
        let sensors = defs
            .iter()
            .map(|d| {
                // SAFETY: each name is valid for the call (caller contract).
                let name = unsafe { string(d.name) }?.to_owned();
                Ok(SensorDefinition {
                    id: d.id,
                    r#type: d.r#type,
                    name,
                })
            })
            .collect::<Result<Vec<_>, Code>>()?;
        h.server
            .write_scene_description(map, spots, &sensors, timeout_milliseconds)
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
    guard("carla_read_episode_start", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        // SAFETY: caller contract; NULL rejected.
        let out = unsafe { values.as_mut() }.ok_or(codes::NULL_ARGUMENT)?;
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
    guard("carla_write_episode_ready", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        // SAFETY: caller contract; NULL rejected.
        let v = unsafe { values.as_ref() }.ok_or(codes::NULL_ARGUMENT)?;
        h.server.write_episode_ready(v.ready.get(), timeout)
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
    guard("carla_read_control", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        if values.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let control = h.server.read_control(timeout_milliseconds)?;
        // SAFETY: non-NULL and writable per the caller contract.
        unsafe { values.write(control) };
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
    guard("carla_write_sensor_data", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        // SAFETY: caller contract; NULL rejected.
        let d = unsafe { data.as_ref() }.ok_or(codes::NULL_ARGUMENT)?;
        // SAFETY: buffers valid for their sizes (caller contract).
        let (header, bytes) = unsafe {
            (
                slice(d.header as *const u8, d.header_size)?,
                slice(d.data as *const u8, d.data_size)?,
            )
        };
        h.server.write_sensor_data(d.id, header, bytes)
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
    guard("carla_write_measurements", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        // SAFETY: caller contract; NULL rejected.
        let v = unsafe { values.as_ref() }.ok_or(codes::NULL_ARGUMENT)?;
        // SAFETY: the agents array is valid for the call (caller contract).
        let agents = unsafe { slice::<Agent>(v.non_player_agents, v.number_of_non_player_agents) }?;
        let header = MeasurementsHeader {
            frame_number: v.frame_number,
            platform_timestamp: v.platform_timestamp,
            game_timestamp: v.game_timestamp,
            player_measurements: v.player_measurements,
        };
        h.server.write_measurements(&header, agents)
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
    guard("carla_server_set_bind_address", || {
        // SAFETY: caller contract.
        let (h, text) = unsafe { (handle(server)?, string(address)?) };
        let ip = text.parse().map_err(|_| {
            crate::log_error!("bind address {:?} is not an IP address", text);
            codes::INVALID_ARGUMENT
        })?;
        h.server.set_config(ServerConfig {
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
    guard("carla_server_set_max_message_size", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        h.server.set_config(ServerConfig {
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
    guard("carla_server_set_log_callback", || {
        let level = match max_level {
            1 => Level::Error,
            2 => Level::Warning,
            3 => Level::Info,
            4 => Level::Debug,
            _ => return Err(codes::INVALID_ARGUMENT),
        };
        crate::log::set_max_level(level);
        let user = user_data as usize;
        crate::log::set_sink(callback.map(|cb| {
            Arc::new(move |level: Level, line: &str| {
                let line = CString::new(line.replace('\0', " ")).unwrap_or_default();
                // SAFETY: the host registered `cb` for exactly this call shape;
                // `line` lives until the call returns.
                unsafe { cb(level as i32, line.as_ptr(), user as *mut c_void) }
            }) as crate::log::Sink
        }));
        Ok(())
    })
}

/// New: panics inside the library on purpose and returns the code every
/// export returns in that case (`CARLA_SERVER_INTERNAL_PANIC`), so a host
/// can check that its error handling sees it and that nothing crashes.
#[no_mangle]
pub extern "C" fn carla_server_self_test_panic() -> i32 {
    guard("carla_server_self_test_panic", || panic!("self-test panic"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_constants_equal_the_library_codes() {
        assert_eq!(CARLA_SERVER_NULL_ARGUMENT, codes::NULL_ARGUMENT);
        assert_eq!(CARLA_SERVER_INVALID_ARGUMENT, codes::INVALID_ARGUMENT);
        assert_eq!(CARLA_SERVER_INTERNAL_PANIC, codes::INTERNAL_PANIC);
        assert_eq!(CARLA_SERVER_UNKNOWN_SENSOR, codes::UNKNOWN_SENSOR);
        assert_eq!(CARLA_SERVER_BUSY, codes::BUSY);
    }
}
