//! The C API of the recorder and replayer (CARLA's file format), the same
//! ones 0.9 clients reach with `start_recorder`, `replay_file`, ...: a
//! recording is of the episode states the host sends, so an engine only
//! adds its collisions (`carla_rpc_record_collision`). All after
//! `carla_rpc_listen`. Texts go into the caller's buffer, NUL-terminated
//! and cut to `size`; `needed` (may be NULL) gets the whole length + 1.

use super::args::{read, text, write_if_given, write_text};
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::Error;
use std::ffi::c_char;
use std::path::Path;

/// `carla_recorder_query::kind`: `show_recorder_file_info` (`show_all`).
pub const CARLA_RECORDER_FILE_INFO: u32 = 0;
/// `show_recorder_collisions` (`type1`, `type2`: 'h', 'v', 'w', 't', 'o'
/// or 'a').
pub const CARLA_RECORDER_COLLISIONS: u32 = 1;
/// `show_recorder_actors_blocked` (`min_time` s, `min_distance` cm).
pub const CARLA_RECORDER_ACTORS_BLOCKED: u32 = 2;

/// One of CARLA's three reports of a recording.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct carla_recorder_query {
    /// `CARLA_RECORDER_FILE_INFO`, `_COLLISIONS` or `_ACTORS_BLOCKED`.
    pub kind: u32,
    pub show_all: bool,
    pub type1: c_char,
    pub type2: c_char,
    pub min_time: f64,
    pub min_distance: f64,
}

/// How a recording ended (`carla_rpc_stop_recorder`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct carla_recording_summary {
    pub frames: u64,
    pub bytes: u64,
    /// Frames dropped because the disk fell behind.
    pub dropped: u64,
    /// The file was cut short by a write error (logged with the reason);
    /// it ends on its last whole frame.
    pub failed: bool,
}

/// Writes `s` for the caller.
///
/// # Safety
/// `buffer` NULL or writable for `size` bytes; `needed` NULL or writable.
unsafe fn answer(s: &str, buffer: *mut c_char, size: u32, needed: *mut u32) {
    // SAFETY: the caller's contract.
    unsafe {
        write_text(s, buffer, size);
        write_if_given(needed, u32::try_from(s.len() + 1).unwrap_or(u32::MAX));
    }
}

/// Sets the folder relative recording names land in (created when
/// needed; the default is `recordings` in the current directory).
///
/// # Safety
/// `server` NULL or live; `folder` NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_set_recording_folder(
    server: CarlaServerPtr,
    folder: *const c_char,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let folder = text(folder)?;
        h.server.rpc()?.set_recording_folder(Path::new(folder));
        Ok(())
    })
}

/// `client.start_recorder(name, additional_data)`: records every episode
/// state from the next one on (a recording running is stopped first). A
/// relative `name` lands in the recording folder and may not leave it
/// (`..`: `CARLA_SERVER_INVALID_ARGUMENT`, as is a file that cannot be
/// created); the path goes to `path`.
///
/// # Safety
/// `server` NULL or live; `name` NULL or a NUL-terminated string; `path`
/// NULL or writable for `path_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_start_recorder(
    server: CarlaServerPtr,
    name: *const c_char,
    additional_data: bool,
    path: *mut c_char,
    path_size: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let name = text(name)?;
        let p = h.server.rpc()?.start_recorder(name, additional_data)?;
        write_text(&p.display().to_string(), path, path_size);
        Ok(())
    })
}

/// `client.stop_recorder()`: writes what is queued, closes the file and
/// fills `summary` (may be NULL). Nothing recording is
/// `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live; `summary` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_stop_recorder(
    server: CarlaServerPtr,
    summary: *mut carla_recording_summary,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let s = h
            .server
            .rpc()?
            .stop_recorder()
            .ok_or_else(|| Error::InvalidArgument("nothing is recording".into()))?;
        write_if_given(
            summary,
            carla_recording_summary {
                frames: s.frames,
                bytes: s.bytes,
                dropped: s.dropped,
                failed: s.error.is_some(),
            },
        );
        Ok(())
    })
}

/// A collision between two actors (`0xFFFFFFFF` for the map's static
/// geometry) for the next recorded frame; nothing when not recording.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_record_collision(
    server: CarlaServerPtr,
    actor1: u32,
    actor2: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        h.server.rpc()?.record_collision(actor1, actor2);
        Ok(())
    })
}

/// One of CARLA's reports of recording `name` (the text CARLA prints,
/// which also says why a file cannot be read).
///
/// # Safety
/// `server` NULL or live; `name` NULL or a NUL-terminated string; `query`
/// NULL or readable; `text_out` NULL or writable for `size` bytes;
/// `needed` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_recorder_query(
    server: CarlaServerPtr,
    name: *const c_char,
    query: *const carla_recorder_query,
    text_out: *mut c_char,
    size: u32,
    needed: *mut u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let name = text(name)?;
        let q = *read(query)?;
        let rpc = h.server.rpc()?;
        let s = match q.kind {
            CARLA_RECORDER_FILE_INFO => rpc.recorder_file_info(name, q.show_all)?,
            CARLA_RECORDER_COLLISIONS => {
                rpc.recorder_collisions(name, q.type1 as u8, q.type2 as u8)?
            }
            CARLA_RECORDER_ACTORS_BLOCKED => {
                rpc.recorder_actors_blocked(name, q.min_time, q.min_distance)?
            }
            other => {
                return Err(
                    Error::InvalidArgument(format!("no recorder query of kind {other}")).into(),
                )
            }
        };
        answer(&s, text_out, size, needed);
        Ok(())
    })
}

/// `client.replay_file(name, start, duration, follow_id,
/// replay_sensors)`: CARLA's answer goes to `text_out` (it also says why a
/// file cannot be replayed). While the replay runs, the host gets
/// `CARLA_RPC_HOLD_TRAFFIC` and the usual spawn, transform and destroy
/// requests.
///
/// # Safety
/// As `carla_rpc_recorder_query`.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_replay_file(
    server: CarlaServerPtr,
    name: *const c_char,
    start: f64,
    duration: f64,
    follow_id: u32,
    replay_sensors: bool,
    text_out: *mut c_char,
    size: u32,
    needed: *mut u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let name = text(name)?;
        let s = h
            .server
            .rpc()?
            .replay_file(name, start, duration, follow_id, replay_sensors)?;
        answer(&s, text_out, size, needed);
        Ok(())
    })
}

/// `client.stop_replayer(keep_actors)`.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_stop_replayer(server: CarlaServerPtr, keep_actors: bool) -> i32 {
    export!({
        let h = self::server(server)?;
        h.server.rpc()?.stop_replayer(keep_actors);
        Ok(())
    })
}

/// Whether a recording (bit 0) and a replay (bit 1) run, into `state`.
///
/// # Safety
/// `server` NULL or live; `state` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_rpc_recorder_state(server: CarlaServerPtr, state: *mut u32) -> i32 {
    export!({
        let h = self::server(server)?;
        let rpc = h.server.rpc()?;
        let s = u32::from(rpc.is_recording()) | (u32::from(rpc.is_replaying()) << 1);
        *super::args::write(state)? = s;
        Ok(())
    })
}
