//! Structs that exist only at the C boundary (they carry raw pointers).
//! Layouts equal the 0.8.4 header's (checked below and from C).
#![allow(non_camel_case_types)]

use crate::types::{Agent, CBool, PlayerMeasurements, Transform};
use std::ffi::{c_char, c_void};

/// Opaque server handle (`typedef void* CarlaServerPtr`, as in 0.8.4).
pub type CarlaServerPtr = *mut c_void;

/// A sensor of the scene description.
#[repr(C)]
pub struct carla_sensor_definition {
    /// Id of the sensor (any 32-bit value; clients use it to match records).
    pub id: u32,
    /// `CARLA_SERVER_CAMERA`, `CARLA_SERVER_LIDAR_RAY_CAST` or other.
    pub r#type: u32,
    /// Display name, NUL-terminated UTF-8; must not be NULL.
    pub name: *const c_char,
}

/// One sensor's data for the stream port: sent as `[N][id][header][data]`.
#[repr(C)]
pub struct carla_sensor_data {
    pub id: u32,
    pub header: *const c_void,
    pub header_size: u32,
    pub data: *const c_void,
    pub data_size: u32,
}

/// The client's settings text. Owned by the server, valid until the next
/// successful `carla_read_request_new_episode` or `carla_free_server`.
/// NUL-terminated (the terminator is not counted in the length).
#[repr(C)]
pub struct carla_request_new_episode {
    pub ini_file: *const c_char,
    pub ini_file_length: u32,
}

/// The scene sent to the client. All pointers are borrowed for the call.
#[repr(C)]
pub struct carla_scene_description {
    /// Map name, NUL-terminated UTF-8; must not be NULL.
    pub map_name: *const c_char,
    pub player_start_spots: *const Transform,
    pub number_of_player_start_spots: u32,
    pub sensors: *const carla_sensor_definition,
    pub number_of_sensors: u32,
}

/// The client's chosen start spot (passed through unvalidated).
#[repr(C)]
pub struct carla_episode_start {
    pub player_start_spot_index: u32,
}

/// Whether the episode is ready (`true` starts the agent server).
#[repr(C)]
pub struct carla_episode_ready {
    pub ready: CBool,
}

/// One frame's measurements. `non_player_agents` may be NULL when the count is 0.
#[repr(C)]
pub struct carla_measurements {
    pub frame_number: u32,
    pub platform_timestamp: u32,
    pub game_timestamp: u32,
    pub player_measurements: PlayerMeasurements,
    pub non_player_agents: *const Agent,
    pub number_of_non_player_agents: u32,
}

/// Receives the library's log lines: level (1 error, 2 warning, 3 info,
/// 4 debug), a NUL-terminated line valid for the call only, and the
/// `user_data` given at registration. Called from any library thread.
pub type carla_log_callback =
    Option<unsafe extern "C" fn(level: i32, message: *const c_char, user_data: *mut c_void)>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn pointer_structs_match_the_0_8_4_header() {
        assert_eq!(
            (
                size_of::<carla_sensor_definition>(),
                align_of::<carla_sensor_definition>()
            ),
            (16, 8)
        );
        assert_eq!(size_of::<carla_sensor_data>(), 40);
        assert_eq!(offset_of!(carla_sensor_data, header_size), 16);
        assert_eq!(offset_of!(carla_sensor_data, data_size), 32);
        assert_eq!(size_of::<carla_request_new_episode>(), 16);
        assert_eq!(size_of::<carla_scene_description>(), 40);
        assert_eq!(offset_of!(carla_scene_description, number_of_sensors), 32);
        assert_eq!(size_of::<carla_episode_ready>(), 1);
        assert_eq!(size_of::<carla_measurements>(), 168);
        assert_eq!(offset_of!(carla_measurements, player_measurements), 12);
        assert_eq!(offset_of!(carla_measurements, non_player_agents), 152);
        assert_eq!(
            offset_of!(carla_measurements, number_of_non_player_agents),
            160
        );
    }
}
