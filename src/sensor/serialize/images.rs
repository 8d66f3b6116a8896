//! Camera payloads: the 12-byte image sub-header, then pixels (BGRA, float
//! G-buffer, optical flow) or packed DVS events.

use super::{check_size, extend_f32s, SerializeError, DVS_EVENT_SIZE, IMAGE_HEADER_SIZE};

/// The 12-byte image sub-header. For the zero-copy path the engine writes
/// the pixels at offset [`IMAGE_HEADER_SIZE`] of the payload and patches
/// these bytes in front of them.
pub fn image_header(width: u32, height: u32, fov: f32) -> [u8; IMAGE_HEADER_SIZE] {
    let mut h = [0u8; IMAGE_HEADER_SIZE];
    h[0..4].copy_from_slice(&width.to_le_bytes());
    h[4..8].copy_from_slice(&height.to_le_bytes());
    h[8..12].copy_from_slice(&fov.to_le_bytes());
    h
}

/// Checks that `actual` bytes hold `width × height` pixels of
/// `pixel_size` bytes and that the payload fits in a message.
fn check_image(
    width: u32,
    height: u32,
    pixel_size: u64,
    actual: u64,
) -> Result<(), SerializeError> {
    let expected = u64::from(width)
        .saturating_mul(u64::from(height))
        .saturating_mul(pixel_size);
    if actual != expected {
        return Err(SerializeError::PixelDataLength {
            width,
            height,
            expected,
            actual,
        });
    }
    check_size(actual + IMAGE_HEADER_SIZE as u64)
}

/// Image payload (RGB, depth, segmentation, normals, wide-angle, uint8
/// G-buffer): image header + pixels, 4 bytes each in B, G, R, A order,
/// row-major, no row padding. `pixels_bgra.len()` must be `width*height*4`.
pub fn image(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    pixels_bgra: &[u8],
) -> Result<(), SerializeError> {
    check_image(width, height, 4, pixels_bgra.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + pixels_bgra.len());
    out.extend_from_slice(&image_header(width, height, fov));
    out.extend_from_slice(pixels_bgra);
    Ok(())
}

/// Float G-buffer payload: image header + 4 × f32 per pixel in R, G, B, A
/// order (16 bytes per pixel). `pixels_rgba.len()` must be `width*height*4`.
pub fn gbuffer_float(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    pixels_rgba: &[f32],
) -> Result<(), SerializeError> {
    check_image(width, height, 16, 4 * pixels_rgba.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + 4 * pixels_rgba.len());
    out.extend_from_slice(&image_header(width, height, fov));
    extend_f32s(out, pixels_rgba);
    Ok(())
}

/// Optical-flow payload: image header + 2 × f32 (x, y) per pixel (8 bytes
/// per pixel). `flow_xy.len()` must be `width*height*2`.
pub fn optical_flow(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    flow_xy: &[f32],
) -> Result<(), SerializeError> {
    check_image(width, height, 8, 4 * flow_xy.len() as u64)?;
    out.reserve(IMAGE_HEADER_SIZE + 4 * flow_xy.len());
    out.extend_from_slice(&image_header(width, height, fov));
    extend_f32s(out, flow_xy);
    Ok(())
}

/// One DVS event; on the wire packed into 13 bytes: u16 x, u16 y, i64 t,
/// u8 polarity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DvsEvent {
    pub x: u16,
    pub y: u16,
    /// Timestamp (nanoseconds in CARLA).
    pub t: i64,
    /// Polarity: true for a brightness increase.
    pub pol: bool,
}

/// DVS payload: image header (camera width, height, fov) + packed events.
pub fn dvs_events(
    out: &mut Vec<u8>,
    width: u32,
    height: u32,
    fov: f32,
    events: &[DvsEvent],
) -> Result<(), SerializeError> {
    let len = IMAGE_HEADER_SIZE + DVS_EVENT_SIZE * events.len();
    check_size(len as u64)?;
    out.reserve(len);
    out.extend_from_slice(&image_header(width, height, fov));
    for e in events {
        let mut b = [0u8; DVS_EVENT_SIZE];
        b[0..2].copy_from_slice(&e.x.to_le_bytes());
        b[2..4].copy_from_slice(&e.y.to_le_bytes());
        b[4..12].copy_from_slice(&e.t.to_le_bytes());
        b[12] = u8::from(e.pol);
        out.extend_from_slice(&b);
    }
    Ok(())
}
