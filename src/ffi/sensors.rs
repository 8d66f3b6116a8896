//! The C API of the 0.9 sensor pipeline. Sensors are referred to by id
//! (their stream id), so a call after `carla_sensor_destroy` gets
//! `CARLA_SERVER_UNKNOWN_SENSOR` instead of touching freed memory.

use super::{guard, handle, output, slice, string, write_text, CarlaServerPtr};
use crate::codes::{self, Code};
use crate::streaming::blueprint;
use crate::streaming::models::lidar::{LidarHit, PlannedRay};
use crate::streaming::sensor::{CaptureContext, PendingImage, SensorError};
use crate::types::Vector3D;
use std::ffi::{c_char, c_void};

/// An image buffer acquired for zero-copy sending (opaque).
pub type CarlaImagePtr = *mut c_void;

struct AcquiredImage {
    sensor: u32,
    /// `None` once committed or released (the handle is then spare).
    image: Option<PendingImage>,
}

/// Handles of committed or released images, reused by the next acquire so
/// the zero-copy path allocates nothing per frame once warm. They are kept
/// boxed because a box's address is the handle the host holds.
#[allow(clippy::vec_box)]
static SPARE_HANDLES: parking_lot::Mutex<Vec<Box<AcquiredImage>>> =
    parking_lot::const_mutex(Vec::new());
/// More images than this in flight at once is unusual; their handles are
/// freed instead of kept.
const MAX_SPARE_HANDLES: usize = 64;

fn image_handle(sensor: u32, image: PendingImage) -> Box<AcquiredImage> {
    match SPARE_HANDLES.lock().pop() {
        Some(mut spare) => {
            spare.sensor = sensor;
            spare.image = Some(image);
            spare
        }
        None => Box::new(AcquiredImage {
            sensor,
            image: Some(image),
        }),
    }
}

fn recycle_handle(mut handle: Box<AcquiredImage>) {
    drop(handle.image.take()); // its buffer goes back to its pool first
    let mut spare = SPARE_HANDLES.lock();
    if spare.len() < MAX_SPARE_HANDLES {
        spare.push(handle);
    }
}

fn sensor_error(e: SensorError) -> Code {
    crate::log_error!("{}", e);
    e.code()
}

/// # Safety
/// `p` is NULL or a valid context for the call.
unsafe fn capture<'a>(p: *const CaptureContext) -> Result<&'a CaptureContext, Code> {
    // SAFETY: caller contract; NULL rejected.
    unsafe { p.as_ref() }.ok_or(codes::NULL_ARGUMENT)
}

/// Binds the 0.9 streaming port (`port` 0 picks a free one) and writes the
/// bound port to `bound_port` (may be NULL). Subscribers send a 4-byte
/// stream id, then receive `[u32 size][48-byte header][payload]` messages.
///
/// # Safety
/// `server` is NULL or a live handle; `bound_port` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_server_listen_streaming(
    server: CarlaServerPtr,
    port: u32,
    bound_port: *mut u32,
) -> i32 {
    guard("carla_server_listen_streaming", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        let port = u16::try_from(port).map_err(|_| codes::INVALID_PORT)?;
        let cfg = h.server.config();
        let addr =
            h.server
                .sensors
                .listen(cfg.bind_ip, port, std::time::Duration::from_secs(10))?;
        if !bound_port.is_null() {
            // SAFETY: non-NULL and writable per the contract.
            unsafe { *bound_port = u32::from(addr.port()) };
        }
        Ok(())
    })
}

/// Lists the sensor definitions, one attribute per line:
/// `<blueprint id> <attribute> <type> <default>`. Writes at most
/// `buffer_size` bytes (NUL-terminated) and the full size (with the NUL) to
/// `needed` (may be NULL); call with a NULL buffer to learn the size.
///
/// # Safety
/// `buffer` NULL or writable for `buffer_size` bytes; `needed` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_definitions(
    buffer: *mut c_char,
    buffer_size: u32,
    needed: *mut u32,
) -> i32 {
    guard("carla_sensor_definitions", || {
        let text = blueprint::describe_all();
        // SAFETY: caller contract.
        unsafe {
            write_text(&text, buffer, buffer_size);
            if !needed.is_null() {
                *needed = text.len() as u32 + 1;
            }
        }
        Ok(())
    })
}

/// Creates a sensor from a blueprint id (`sensor.camera.rgb`,
/// `sensor.lidar.ray_cast_semantic`, `sensor.other.safe_distance`, ...) and
/// `count` key/value attributes. On success writes its id to `sensor_id`.
/// On failure returns `CARLA_SERVER_INVALID_ARGUMENT` and writes the reason
/// (unknown blueprint, unknown attribute, bad value) to `error` (may be NULL).
///
/// # Safety
/// `server` NULL or live; `blueprint_id` NUL-terminated; `keys`/`values`
/// NULL or `count` NUL-terminated strings; `sensor_id` writable; `error`
/// NULL or writable for `error_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_create(
    server: CarlaServerPtr,
    blueprint_id: *const c_char,
    keys: *const *const c_char,
    values: *const *const c_char,
    count: u32,
    sensor_id: *mut u32,
    error: *mut c_char,
    error_size: u32,
) -> i32 {
    guard("carla_sensor_create", || {
        // SAFETY: caller contract (pointers valid for the call).
        let (h, id, keys, values) = unsafe {
            (
                handle(server)?,
                string(blueprint_id)?,
                slice(keys, count)?,
                slice(values, count)?,
            )
        };
        if sensor_id.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let mut pairs = Vec::with_capacity(keys.len());
        for (&k, &v) in keys.iter().zip(values) {
            // SAFETY: each string is NUL-terminated per the contract.
            pairs.push(unsafe { (string(k)?, string(v)?) });
        }
        match h.server.sensors.create(id, &pairs) {
            Ok(new_id) => {
                // SAFETY: non-NULL and writable.
                unsafe { *sensor_id = new_id };
                Ok(())
            }
            Err(e) => {
                // SAFETY: caller contract for `error`.
                unsafe { write_text(&e.to_string(), error, error_size) };
                Err(sensor_error(e))
            }
        }
    })
}

/// Destroys a sensor: its stream closes cleanly (subscribers get the
/// message being written, then end of file). Later calls with the id get
/// `CARLA_SERVER_UNKNOWN_SENSOR`.
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_destroy(server: CarlaServerPtr, sensor_id: u32) -> i32 {
    guard("carla_sensor_destroy", || {
        // SAFETY: caller contract.
        unsafe { handle(server) }?.server.sensors.destroy(sensor_id)
    })
}

/// Writes the sensor's registry type id (the `sensor_type` of its headers).
///
/// # Safety
/// `server` NULL or live; `type_id` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_type_id(
    server: CarlaServerPtr,
    sensor_id: u32,
    type_id: *mut u32,
) -> i32 {
    guard("carla_sensor_type_id", || {
        // SAFETY: caller contract.
        let entry = unsafe { handle(server) }?.server.sensors.get(sensor_id)?;
        // SAFETY: caller contract; NULL rejected.
        *unsafe { output(type_id) }? = entry.instance.sensor_type().id();
        Ok(())
    })
}

/// 0: asynchronous delivery (newest wins per subscriber, drops counted);
/// otherwise synchronous: a send waits up to `wait_ms` per slow subscriber
/// and never drops (then returns 110).
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_set_synchronous(
    server: CarlaServerPtr,
    sensor_id: u32,
    wait_ms: u32,
) -> i32 {
    guard("carla_sensor_set_synchronous", || {
        // SAFETY: caller contract.
        let entry = unsafe { handle(server) }?.server.sensors.get(sensor_id)?;
        let bound = (wait_ms != 0).then(|| std::time::Duration::from_millis(wait_ms.into()));
        entry.instance.set_synchronous(bound);
        Ok(())
    })
}

/// Cameras: also send every image to the 0.8 stream port as 0.8 sensor
/// `legacy_sensor_id` (one of the scene description's ids; 0 stops).
///
/// # Safety
/// `server` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_mirror_to_legacy(
    server: CarlaServerPtr,
    sensor_id: u32,
    legacy_sensor_id: u32,
) -> i32 {
    guard("carla_sensor_mirror_to_legacy", || {
        // SAFETY: caller contract.
        let entry = unsafe { handle(server) }?.server.sensors.get(sensor_id)?;
        entry
            .mirror_to_legacy(legacy_sensor_id)
            .map_err(sensor_error)
    })
}

/// Cameras, copy path: sends `size` bytes of BGRA pixels (must be
/// width × height × 4 of the camera). Any thread.
///
/// # Safety
/// `server` NULL or live; `context` valid; `pixels` readable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_send_image(
    server: CarlaServerPtr,
    sensor_id: u32,
    context: *const CaptureContext,
    pixels: *const c_void,
    size: u32,
) -> i32 {
    guard("carla_sensor_send_image", || {
        // SAFETY: caller contract.
        let (h, ctx, pixels) = unsafe {
            (
                handle(server)?,
                capture(context)?,
                slice(pixels as *const u8, size)?,
            )
        };
        let entry = h.server.sensors.get(sensor_id)?;
        entry
            .send_image(&h.server, ctx, pixels)
            .map_err(sensor_error)
    })
}

/// Cameras, zero-copy path: takes a pooled buffer for one image and writes
/// where the engine must put the BGRA pixels (`pixels`, `size` bytes). Send
/// it with `carla_sensor_commit_image` or drop it with `carla_image_release`.
///
/// # Safety
/// `server` NULL or live; `image`, `pixels`, `size` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_acquire_image(
    server: CarlaServerPtr,
    sensor_id: u32,
    image: *mut CarlaImagePtr,
    pixels: *mut *mut c_void,
    size: *mut u32,
) -> i32 {
    guard("carla_sensor_acquire_image", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        if image.is_null() || pixels.is_null() || size.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let entry = h.server.sensors.get(sensor_id)?;
        let mut pending = entry.instance.acquire_image().map_err(sensor_error)?;
        let region = pending.pixels_mut();
        let (ptr, len) = (region.as_mut_ptr(), region.len());
        // The pixels live in the buffer's heap block, which moving the
        // image into its handle does not move.
        let boxed = image_handle(sensor_id, pending);
        // SAFETY: all three are non-NULL and writable per the contract; the
        // pixel region lives in the handle's buffer until commit or release.
        unsafe {
            *pixels = ptr as *mut c_void;
            *size = len as u32;
            *image = Box::into_raw(boxed) as CarlaImagePtr;
        }
        Ok(())
    })
}

/// Sends an acquired image (to the 0.8 mirror too) and frees the handle,
/// whatever the outcome.
///
/// # Safety
/// `server` NULL or live; `image` NULL or from `carla_sensor_acquire_image`
/// and not used afterwards; `context` valid.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_commit_image(
    server: CarlaServerPtr,
    image: CarlaImagePtr,
    context: *const CaptureContext,
) -> i32 {
    guard("carla_sensor_commit_image", || {
        if image.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        // SAFETY: from Box::into_raw in acquire (caller contract); taken once.
        let mut acquired = unsafe { Box::from_raw(image as *mut AcquiredImage) };
        let (sensor, pending) = (acquired.sensor, acquired.image.take());
        recycle_handle(acquired);
        let pending = pending.ok_or(codes::INVALID_ARGUMENT)?;
        // SAFETY: caller contract.
        let (h, ctx) = unsafe { (handle(server)?, capture(context)?) };
        let entry = h.server.sensors.get(sensor)?;
        entry
            .commit_image(&h.server, ctx, pending)
            .map_err(sensor_error)
    })
}

/// Drops an acquired image without sending it (its buffer returns to the pool).
///
/// # Safety
/// `image` NULL or from `carla_sensor_acquire_image`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn carla_image_release(image: CarlaImagePtr) {
    if !image.is_null() {
        guard("carla_image_release", || {
            // SAFETY: from Box::into_raw in acquire (caller contract).
            recycle_handle(unsafe { Box::from_raw(image as *mut AcquiredImage) });
            Ok(())
        });
    }
}

/// Lidars: plans this tick's rays for a tick of `dt` seconds and writes a
/// pointer to them and their count. The rays stay valid until the next plan
/// of this sensor or its destruction; trace each from the sensor's world
/// location along its direction (rotated by the sensor's world rotation)
/// for the lidar's range.
///
/// # Safety
/// `server` NULL or live; `rays` and `count` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_lidar_plan(
    server: CarlaServerPtr,
    sensor_id: u32,
    dt: f32,
    rays: *mut *const PlannedRay,
    count: *mut u32,
) -> i32 {
    guard("carla_lidar_plan", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        if rays.is_null() || count.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let entry = h.server.sensors.get(sensor_id)?;
        let (ptr, n) = entry
            .instance
            .plan_lidar(dt, |planned| (planned.as_ptr(), planned.len() as u32))
            .map_err(sensor_error)?;
        // SAFETY: non-NULL and writable; the rays live in the sensor's lidar
        // model until its next plan (documented above).
        unsafe {
            *rays = ptr;
            *count = n;
        }
        Ok(())
    })
}

/// Lidars: hands this tick's trace results (one per planned ray that was
/// traced) to the lidar model, which computes the detections and sends them.
///
/// # Safety
/// `server` NULL or live; `context` valid; `hits` readable for `count` items.
#[no_mangle]
pub unsafe extern "C" fn carla_lidar_send_hits(
    server: CarlaServerPtr,
    sensor_id: u32,
    context: *const CaptureContext,
    hits: *const LidarHit,
    count: u32,
) -> i32 {
    guard("carla_lidar_send_hits", || {
        // SAFETY: caller contract.
        let (h, ctx, hits) = unsafe { (handle(server)?, capture(context)?, slice(hits, count)?) };
        let entry = h.server.sensors.get(sensor_id)?;
        entry
            .instance
            .send_lidar_hits(ctx, hits)
            .map_err(sensor_error)
    })
}

/// Safe distance: the overlap box for an owner whose bounding box has half
/// extent `owner_extent` (metres): its centre offset in the owner's frame
/// and its half extent.
///
/// # Safety
/// `server` NULL or live; `centre` and `extent` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_safe_distance_box(
    server: CarlaServerPtr,
    sensor_id: u32,
    owner_extent: Vector3D,
    centre: *mut Vector3D,
    extent: *mut Vector3D,
) -> i32 {
    guard("carla_safe_distance_box", || {
        // SAFETY: caller contract.
        let h = unsafe { handle(server) }?;
        if centre.is_null() || extent.is_null() {
            return Err(codes::NULL_ARGUMENT);
        }
        let entry = h.server.sensors.get(sensor_id)?;
        let (c, e) = entry
            .instance
            .safe_distance_box(owner_extent)
            .map_err(sensor_error)?;
        // SAFETY: non-NULL and writable.
        unsafe {
            *centre = c;
            *extent = e;
        }
        Ok(())
    })
}

/// Safe distance: sends the ids of the actors overlapping the box (the
/// owner and duplicates are removed). `ids` may be NULL when `count` is 0.
///
/// # Safety
/// `server` NULL or live; `context` valid; `ids` readable for `count` items.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_send_actor_ids(
    server: CarlaServerPtr,
    sensor_id: u32,
    context: *const CaptureContext,
    owner_id: u32,
    ids: *const u32,
    count: u32,
) -> i32 {
    guard("carla_sensor_send_actor_ids", || {
        // SAFETY: caller contract.
        let (h, ctx, ids) = unsafe { (handle(server)?, capture(context)?, slice(ids, count)?) };
        let entry = h.server.sensors.get(sensor_id)?;
        entry
            .instance
            .send_actor_ids(ctx, owner_id, ids)
            .map_err(sensor_error)
    })
}

/// Any sensor: sends an already-serialized payload (after the 48-byte
/// header, which the library writes from `context`).
///
/// # Safety
/// `server` NULL or live; `context` valid; `bytes` readable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_send_raw(
    server: CarlaServerPtr,
    sensor_id: u32,
    context: *const CaptureContext,
    bytes: *const c_void,
    size: u32,
) -> i32 {
    guard("carla_sensor_send_raw", || {
        // SAFETY: caller contract.
        let (h, ctx, bytes) = unsafe {
            (
                handle(server)?,
                capture(context)?,
                slice(bytes as *const u8, size)?,
            )
        };
        let entry = h.server.sensors.get(sensor_id)?;
        entry.instance.send_raw(ctx, bytes).map_err(sensor_error)
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
    guard("carla_sensor_subscriber_count", || {
        // SAFETY: caller contract.
        let entry = unsafe { handle(server) }?.server.sensors.get(sensor_id)?;
        // SAFETY: caller contract; NULL rejected.
        *unsafe { output(count) }? = entry.instance.stream().stats().subscribers as u32;
        Ok(())
    })
}
