//! The C API of the 0.9 sensor pipeline. Sensors are referred to by id
//! (their stream id), so a call after `carla_sensor_destroy` gets
//! `CARLA_SERVER_UNKNOWN_SENSOR` instead of touching freed memory.

use super::args::{
    array, bytes, into_handle, read, take_handle, text, write, write_if_given, write_text,
};
use super::codes::logged;
use super::handle::{listen, server};
use super::structs::CarlaServerPtr;
use crate::sensor::{blueprint, CaptureContext, LidarHit, PendingImage, PlannedRay};
use crate::types::Vector3D;
use std::ffi::{c_char, c_void};

/// An image buffer acquired for zero-copy sending (opaque; C sees only
/// `struct carla_image *`).
#[allow(non_camel_case_types)]
pub struct carla_image {
    sensor: u32,
    /// `None` once committed or released (the handle is then spare).
    image: Option<PendingImage>,
}

/// Handle of an image being filled for zero-copy sending.
pub type CarlaImagePtr = *mut carla_image;

/// Handles of committed or released images, reused by the next acquire so
/// the zero-copy path allocates nothing per frame once warm. They are kept
/// boxed because a box's address is the handle the host holds.
#[allow(clippy::vec_box)]
static SPARE_HANDLES: parking_lot::Mutex<Vec<Box<carla_image>>> =
    parking_lot::const_mutex(Vec::new());
/// More images than this in flight at once is unusual; their handles are
/// freed instead of kept.
const MAX_SPARE_HANDLES: usize = 64;

fn image_handle(sensor: u32, image: PendingImage) -> Box<carla_image> {
    match SPARE_HANDLES.lock().pop() {
        Some(mut spare) => {
            spare.sensor = sensor;
            spare.image = Some(image);
            spare
        }
        None => Box::new(carla_image {
            sensor,
            image: Some(image),
        }),
    }
}

fn recycle_handle(mut handle: Box<carla_image>) {
    drop(handle.image.take()); // its buffer goes back to its pool first
    let mut spare = SPARE_HANDLES.lock();
    if spare.len() < MAX_SPARE_HANDLES {
        spare.push(handle);
    }
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
    export!({ listen(server, port, bound_port, |s, port| s.listen_streaming(port)) })
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
    export!({
        let listing = blueprint::describe_all();
        write_text(&listing, buffer, buffer_size);
        write_if_given(needed, listing.len() as u32 + 1);
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
    export!({
        let (h, id) = (self::server(server)?, text(blueprint_id)?);
        let (keys, values) = (array(keys, count)?, array(values, count)?);
        let out = write(sensor_id)?;
        let mut pairs = Vec::with_capacity(keys.len());
        for (&k, &v) in keys.iter().zip(values) {
            pairs.push((text(k)?, text(v)?));
        }
        match h.server.create_sensor(id, &pairs) {
            Ok(new_id) => {
                *out = new_id;
                Ok(())
            }
            Err(e) => {
                write_text(&e.to_string(), error, error_size);
                Err(logged(e))
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
    export!({ Ok(self::server(server)?.server.destroy_sensor(sensor_id)?) })
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
    export!({
        let sensor = self::server(server)?.server.sensor(sensor_id)?;
        *write(type_id)? = sensor.sensor_type().id();
        Ok(())
    })
}

/// Cameras, copy path: sends `size` bytes of pixels: width × height × 4
/// BGRA bytes (optical flow: × 8, two little-endian floats a pixel, x then
/// y). A DVS camera takes BGRA images and sends the events since its
/// previous image (nothing when there are none). Any thread.
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
    export!({
        let (h, ctx, pixels) = (self::server(server)?, read(context)?, bytes(pixels, size)?);
        let sensor = h.server.sensor(sensor_id)?;
        sensor.send_image(ctx, pixels).map_err(logged)
    })
}

/// Cameras, zero-copy path: takes a pooled buffer for one image and writes
/// where the engine must put the pixels (`pixels`, `size` bytes; the layout
/// of `carla_sensor_send_image`). Send it with `carla_sensor_commit_image`
/// or drop it with `carla_image_release`.
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
    export!({
        let h = self::server(server)?;
        let (image, pixels, size) = (write(image)?, write(pixels)?, write(size)?);
        let sensor = h.server.sensor(sensor_id)?;
        let mut pending = sensor.acquire_image().map_err(logged)?;
        let region = pending.pixels_mut();
        // The pixels live in the buffer's heap block, which moving the
        // image into its handle does not move; they stay valid until the
        // handle is committed or released.
        (*pixels, *size) = (region.as_mut_ptr().cast::<c_void>(), region.len() as u32);
        *image = into_handle(image_handle(sensor_id, pending));
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
    export!({
        let mut acquired = take_handle(image)?;
        let (sensor_id, pending) = (acquired.sensor, acquired.image.take());
        recycle_handle(acquired);
        let pending = pending.ok_or_else(|| {
            crate::Error::InvalidArgument("this image was already committed".into())
        })?;
        let (h, ctx) = (self::server(server)?, read(context)?);
        let sensor = h.server.sensor(sensor_id)?;
        sensor.commit_image(ctx, pending).map_err(logged)
    })
}

/// Drops an acquired image without sending it (its buffer returns to the pool).
///
/// # Safety
/// `image` NULL or from `carla_sensor_acquire_image`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn carla_image_release(image: CarlaImagePtr) {
    if !image.is_null() {
        export!({
            recycle_handle(take_handle(image)?);
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
    export!({
        let (h, rays, count) = (self::server(server)?, write(rays)?, write(count)?);
        let sensor = h.server.sensor(sensor_id)?;
        // The rays live in the sensor's lidar model until its next plan.
        (*rays, *count) = sensor
            .plan_lidar(dt, |planned| (planned.as_ptr(), planned.len() as u32))
            .map_err(logged)?;
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
    export!({
        let (h, ctx, hits) = (self::server(server)?, read(context)?, array(hits, count)?);
        let sensor = h.server.sensor(sensor_id)?;
        sensor.send_lidar_hits(ctx, hits).map_err(logged)
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
    export!({
        let (h, centre, extent) = (self::server(server)?, write(centre)?, write(extent)?);
        let sensor = h.server.sensor(sensor_id)?;
        (*centre, *extent) = sensor.safe_distance_box(owner_extent).map_err(logged)?;
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
    export!({
        let (h, ctx, ids) = (self::server(server)?, read(context)?, array(ids, count)?);
        let sensor = h.server.sensor(sensor_id)?;
        sensor.send_actor_ids(ctx, owner_id, ids).map_err(logged)
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
    export!({
        let (h, ctx) = (self::server(server)?, read(context)?);
        let payload = self::bytes(bytes, size)?;
        let sensor = h.server.sensor(sensor_id)?;
        sensor.send_raw(ctx, payload).map_err(logged)
    })
}
