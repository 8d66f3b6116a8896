//! The C API of ROS 2 publishing ([`crate::ros2`]).

use super::args::{read, text, write};
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::ros2::{Ros2Options, SensorNames};
use crate::types::ActorTransform;
use crate::Error;
use std::ffi::c_char;

/// Joins DDS domain `domain_id` (0–232, ROS 2's `ROS_DOMAIN_ID`) and
/// publishes on ROS 2 every sensor enabled for it: by a 0.9 client's
/// `sensor.enable_for_ros()` or by `carla_sensor_publish_ros2`. `/clock`
/// follows each `carla_rpc_send_episode_state`; a hero vehicle's
/// `vehicle_control_cmd` arrives as a `CARLA_RPC_VEHICLE_CONTROL` request.
/// Publishing happens on the library's thread; no call waits on DDS.
/// Already started: 106 (already connected); a domain over 232:
/// `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_ros2_start(server: CarlaServerPtr, domain_id: u32) -> i32 {
    // SAFETY: the caller's guarantee, passed on.
    unsafe { carla_ros2_start_with(server, domain_id, 0) }
}

/// `carla_ros2_start`, sending a reader on another host UDP datagrams of up
/// to `other_host_datagram` bytes (at most 65,000), which the kernel cuts
/// into IP fragments above the path's MTU: far less work per image on both
/// ends, but on a path that loses packets a reader loses more, and a Linux
/// reader whose reassembly memory fills drops everything for up to 30 s
/// (docs/ros2.md, "Across machines"). 0 keeps datagrams within the path MTU
/// (`carla_ros2_start`'s choice). Over 65,000: `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_ros2_start_with(
    server: CarlaServerPtr,
    domain_id: u32,
    other_host_datagram: u32,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let domain = u16::try_from(domain_id)
            .ok()
            .filter(|d| *d <= 232)
            .ok_or_else(|| Error::InvalidArgument(format!("DDS domain {domain_id} is over 232")))?;
        h.server.start_ros2_with(Ros2Options {
            domain_id: domain,
            other_host_datagram,
        })?;
        Ok(())
    })
}

/// Publishes the host's sensor `sensor_id` on ROS 2 as CARLA names it:
/// topics under `rt/carla/<parent_ros_name>/<ros_name>` (no parent: NULL
/// or "", then `rt/carla/<ros_name>`), frame `ros_name`, and on `/tf` its
/// `relative_transform` (NULL: none published) in the parent's frame (or
/// `map`). Until the sensor is destroyed. Unknown id:
/// `CARLA_SERVER_UNKNOWN_SENSOR`; `ros_name` NULL or empty:
/// `CARLA_SERVER_NULL_ARGUMENT` / `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live; the strings NULL or NUL-terminated;
/// `relative_transform` NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_publish_ros2(
    server: CarlaServerPtr,
    sensor_id: u32,
    parent_ros_name: *const c_char,
    ros_name: *const c_char,
    relative_transform: *const ActorTransform,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let name = text(ros_name)?;
        if name.is_empty() {
            return Err(Error::InvalidArgument("ros_name is empty".into()).into());
        }
        let parent = if parent_ros_name.is_null() {
            ""
        } else {
            text(parent_ros_name)?
        };
        let transform = if relative_transform.is_null() {
            None
        } else {
            Some(*read(relative_transform)?)
        };
        let names = SensorNames {
            base: match parent {
                "" => format!("rt/carla/{name}"),
                p => format!("rt/carla/{p}/{name}"),
            },
            frame_id: name.to_owned(),
            parent_frame: if parent.is_empty() {
                "map".into()
            } else {
                parent.to_owned()
            },
            publish_tf: transform.is_some(),
            transform: transform.unwrap_or_default(),
        };
        h.server.publish_sensor_on_ros2(sensor_id, names)?;
        Ok(())
    })
}

/// Counters of ROS 2 publishing: sensor messages written on DDS, dropped
/// (the publishing thread's queue was full, or DDS refused them), controls
/// read, and rejoins of the DDS domain (a topic refused every sample for
/// 10 s, or DDS dropped a peer reading our topics: docs/ros2.md).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct carla_ros2_stats {
    pub published: u64,
    pub dropped: u64,
    pub controls: u64,
    pub rejoins: u64,
}

/// Writes the ROS 2 counters to `stats`.
///
/// # Safety
/// `server` NULL or live; `stats` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_ros2_get_stats(
    server: CarlaServerPtr,
    stats: *mut carla_ros2_stats,
) -> i32 {
    export!({
        let h = self::server(server)?;
        let s = h.server.ros2_stats();
        *write(stats)? = carla_ros2_stats {
            published: s.published,
            dropped: s.dropped,
            controls: s.controls,
            rejoins: s.rejoins,
        };
        Ok(())
    })
}
