//! The C API of where a 0.9 sensor's data goes and how: its stream's
//! delivery mode (asynchronous, synchronous, queued), its 0.8 mirror, its
//! subscribers.

use super::args::write;
use super::codes::logged;
use super::handle::server;
use super::structs::CarlaServerPtr;

/// 0: asynchronous delivery (newest wins per subscriber, drops counted);
/// otherwise synchronous: a send waits up to `wait_ms` per slow subscriber
/// and never drops (then returns 110). Either ends queued delivery
/// (`carla_sensor_set_queued`).
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_set_synchronous(
    server: CarlaServerPtr,
    sensor_id: u32,
    wait_ms: u32,
) -> i32 {
    export!({
        let sensor = self::server(server)?.server.sensor(sensor_id)?;
        let bound = (wait_ms != 0).then(|| std::time::Duration::from_millis(wait_ms.into()));
        sensor.set_synchronous(bound);
        Ok(())
    })
}

/// Queued delivery, for an engine whose render thread must never wait on a
/// subscriber: each subscriber gets every message in order through its own
/// queue of up to `depth` messages (1 to 64). A send never waits; when a
/// subscriber already has `depth` unsent messages, the new message is
/// dropped for that subscriber only (counted, one log line per stall) and
/// the others still get it. 0 returns to asynchronous delivery; a later
/// `carla_sensor_set_synchronous` switches to that mode. A depth over 64 is
/// `CARLA_SERVER_INVALID_ARGUMENT`. A stalled subscriber holds up to `depth`
/// messages' memory; one that keeps up costs no more than in the other
/// modes (no allocation per message).
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_set_queued(
    server: CarlaServerPtr,
    sensor_id: u32,
    depth: u32,
) -> i32 {
    export!({
        let sensor = self::server(server)?.server.sensor(sensor_id)?;
        sensor.set_queued(depth).map_err(logged)
    })
}

/// Cameras and lidars: also send every image (`carla_sensor_send_image`,
/// `carla_sensor_commit_image`) or every lidar sweep (`carla_lidar_send_hits`)
/// to the 0.8 stream port as 0.8 sensor `legacy_sensor_id` (one of the scene
/// description's ids; 0 stops). A lidar's sweep goes out as a 0.8.4 lidar
/// record built from the same plan and hits: the capture context's frame,
/// the sweep angle the plan reached (degrees), the channel count, points per
/// channel, then each hit's `point_sensor` grouped by channel; misses are
/// left out. Other sensors: `CARLA_SERVER_INVALID_ARGUMENT`. While no 0.8
/// episode runs, the mirror writes nothing and the 0.9 sends succeed.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_mirror_to_legacy(
    server: CarlaServerPtr,
    sensor_id: u32,
    legacy_sensor_id: u32,
) -> i32 {
    export!({
        let sensor = self::server(server)?.server.sensor(sensor_id)?;
        sensor.mirror_to_legacy(legacy_sensor_id).map_err(logged)
    })
}

/// Writes how many clients are subscribed to the sensor's stream now (data
/// sent while nobody listens is discarded).
///
/// # Safety
/// `server` NULL or live; `count` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_subscriber_count(
    server: CarlaServerPtr,
    sensor_id: u32,
    count: *mut u32,
) -> i32 {
    export!({
        let sensor = self::server(server)?.server.sensor(sensor_id)?;
        *write(count)? = sensor.stats().subscribers as u32;
        Ok(())
    })
}
