//! The C API of an RGB camera's G-buffer streams: whether a client
//! listens to a texture (`sensor.listen_to_gbuffer` with
//! `enable_gbuffers(True)`), and sending one.

use super::args::{bytes, read, write};
use super::codes::logged;
use super::handle::server;
use super::structs::CarlaServerPtr;
use crate::sensor::GBufferTexture;
use crate::types::CaptureContext;
use std::ffi::c_void;

/// `carla.GBufferTextureID` 0..=12 (SceneColor, SceneDepth, SceneStencil,
/// GBufferA..F, Velocity, SSAO, CustomDepth, CustomStencil).
fn texture(id: u32) -> Result<GBufferTexture, crate::Error> {
    GBufferTexture::from_id(id).ok_or_else(|| {
        crate::Error::InvalidArgument(format!("G-buffer texture {id}: the textures are 0 to 12"))
    })
}

/// RGB cameras: writes to `wanted` whether a client listens to G-buffer
/// `texture_id` (it enabled G-buffers and subscribed), so the engine should
/// produce that texture this frame. Other sensors, or a texture id over
/// 12: `CARLA_SERVER_INVALID_ARGUMENT`.
///
/// # Safety
/// `server` NULL or live; `wanted` writable.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_gbuffer_wanted(
    server: CarlaServerPtr,
    sensor_id: u32,
    texture_id: u32,
    wanted: *mut bool,
) -> i32 {
    export!({
        let (h, wanted) = (self::server(server)?, write(wanted)?);
        let sensor = h.server.sensor(sensor_id)?;
        *wanted = sensor
            .gbuffer_wanted(texture(texture_id)?)
            .map_err(logged)?;
        Ok(())
    })
}

/// RGB cameras: sends `size` bytes of BGRA pixels (the camera's width ×
/// height × 4) as G-buffer `texture_id` to the clients listening to it
/// (registry id 18, a `carla.Image` to them); with none listening, sends
/// nothing and succeeds. Any thread.
///
/// # Safety
/// `server` NULL or live; `context` valid; `pixels` readable for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_sensor_send_gbuffer(
    server: CarlaServerPtr,
    sensor_id: u32,
    texture_id: u32,
    context: *const CaptureContext,
    pixels: *const c_void,
    size: u32,
) -> i32 {
    export!({
        let (h, ctx, pixels) = (self::server(server)?, read(context)?, bytes(pixels, size)?);
        let sensor = h.server.sensor(sensor_id)?;
        sensor
            .send_gbuffer(texture(texture_id)?, ctx, pixels)
            .map_err(logged)
    })
}
