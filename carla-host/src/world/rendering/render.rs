//! Camera conventions and the 0.8 camera settings: the camera frame, the
//! pixel rays, the output encodings, [`CameraSpec`] (a 0.8 camera on the
//! player) and [`CameraPose`] (a camera anywhere). The images themselves
//! come from the rasterizer ([`super::raster`]) through a G-buffer
//! ([`super::gbuffer`]); the ray caster ([`super::raycast`]) is their
//! reference.
//!
//! Camera frame (Unreal/CARLA): x forward, y right, z up. For a `w × h`
//! image with horizontal field of view `fov`, pixel `(u, v)` (u to the
//! right, v downwards, both from 0 at the top-left corner; rays through
//! pixel centres) looks along
//!
//! ```text
//! d = forward + (2(u + ½)/w − 1)·tan(fov/2)·right − (2(v + ½)/h − 1)·tan(fov/2)·(h/w)·up
//! ```
//!
//! (square pixels). `d · forward = 1`, so the ray parameter of a hit is its
//! planar depth (distance along the camera's forward axis), which is what
//! CARLA's depth camera stores.
//!
//! Output: BGRA bytes, rows top to bottom. SceneFinal/None (and 0.9.16
//! rgb): albedo × (sky ambient + sun Lambert), faded into a sky gradient
//! with distance. Depth (0.8 and 0.9.16): `n = round(depth / 1000 m ·
//! (256³ − 1))` with R the low byte, G the middle one and B the high one
//! (CARLA's `(R + G·256 + B·256²) / (256³ − 1)`), sky and beyond 1000 m
//! saturated. Semantic segmentation: the tag in R, B = G = 0 (0.8's tags,
//! or 0.9.16's, see `tags::tag_0916`). 0.9.16 instance segmentation: R the
//! 0.9.16 tag, G the low byte of the actor id, B its second byte (0 for
//! the map). Alpha is 255 in every mode.

use crate::world::math::{add, Axes};
#[cfg(test)]
use crate::world::math::{scale, sub};
use carla_server::types::{Rotation3D, Transform, Vector3D};

/// Far plane of the depth camera, metres.
pub(crate) const FAR_M: f32 = 1000.0;

/// CARLA 0.8's camera post-processing (the image type of the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PostProcessing {
    None = 0,
    SceneFinal = 1,
    Depth = 2,
    SemanticSegmentation = 3,
}

impl PostProcessing {
    pub(crate) fn from_u32(v: u32) -> Option<PostProcessing> {
        Some(match v {
            0 => PostProcessing::None,
            1 => PostProcessing::SceneFinal,
            2 => PostProcessing::Depth,
            3 => PostProcessing::SemanticSegmentation,
            _ => return None,
        })
    }
}

/// A camera on the player: image size, horizontal FOV (degrees), post
/// processing, and its pose relative to the player's car (metres: x
/// forward, y right, z up from the car's origin on the ground; degrees).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CameraSpec {
    pub width: u32,
    pub height: u32,
    pub fov_deg: f32,
    pub post: PostProcessing,
    pub position: Vector3D,
    pub rotation: Rotation3D,
}

/// The camera's world origin and axes for a level player at `player`.
pub(crate) fn camera_pose(cam: &CameraSpec, player: &Transform) -> (Vector3D, Axes) {
    let body = Axes::from_rotation(&player.rotation);
    let axes = Axes::from_rotation(&cam.rotation).within(&body);
    (add(player.location, body.to_world(cam.position)), axes)
}

/// Where a camera is in the world: its origin and axes (x forward, y
/// right, z up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CameraPose {
    pub origin: Vector3D,
    pub axes: Axes,
}

impl CameraPose {
    /// A camera at world `location` turned by `rotation` (an Unreal
    /// rotator, degrees): e.g. a 0.9 sensor's world transform, whatever
    /// actor carries it.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn new(location: Vector3D, rotation: &Rotation3D) -> CameraPose {
        CameraPose {
            origin: location,
            axes: Axes::from_rotation(rotation),
        }
    }
    /// The pose of 0.8 camera `cam` on a level player at `player`.
    pub(crate) fn on_player(cam: &CameraSpec, player: &Transform) -> CameraPose {
        let (origin, axes) = camera_pose(cam, player);
        CameraPose { origin, axes }
    }
}

/// CARLA's 24-bit depth code of `metres` (sky: infinity, saturated).
#[inline(always)]
#[allow(clippy::manual_clamp)] // NaN must give 0, which `clamp` does not
fn depth_code(metres: f32) -> u32 {
    // max/min: NaN is 0. Adding 1.5 · 2⁵² rounds to the nearest integer,
    // left in the low bits: no float-to-int conversion, so it vectorizes.
    let x = (metres / FAR_M).max(0.0).min(1.0) as f64 * 16_777_215.0;
    (x + 6_755_399_441_055_744.0).to_bits() as u32
}

/// [`depth_bgra`] as a little-endian word.
#[inline(always)]
pub(crate) fn depth_word(metres: f32) -> u32 {
    let n = depth_code(metres);
    n >> 16 | (n & 0xFF00) | (n & 0xFF) << 16 | 0xFF00_0000
}

/// CARLA's 24-bit depth of `metres`, as BGRA bytes.
pub(crate) fn depth_bgra(metres: f32) -> [u8; 4] {
    depth_word(metres).to_le_bytes()
}

/// Inverse of [`depth_bgra`] (what a client computes), metres.
#[cfg(test)]
pub(crate) fn decode_depth(bgra: &[u8]) -> f32 {
    let (b, g, r) = (bgra[0] as f64, bgra[1] as f64, bgra[2] as f64);
    ((r + g * 256.0 + b * 65536.0) / 16_777_215.0 * FAR_M as f64) as f32
}

/// The ray through pixel `(u, v)`, for the tests.
#[cfg(test)]
pub(crate) fn pixel_ray(
    cam: &CameraSpec,
    player: &Transform,
    u: f32,
    v: f32,
) -> (Vector3D, Vector3D) {
    let (o, a) = camera_pose(cam, player);
    let tan = (cam.fov_deg.to_radians() / 2.0).tan();
    let (w, h) = (cam.width as f32, cam.height as f32);
    let x = (2.0 * (u + 0.5) / w - 1.0) * tan;
    let y = (2.0 * (v + 0.5) / h - 1.0) * tan * h / w;
    (o, sub(add(a.forward, scale(a.right, x)), scale(a.up, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_encoding_round_trips() {
        for m in [0.0, 0.5, 20.0, 123.456, 999.0] {
            assert!((decode_depth(&depth_bgra(m)) - m).abs() < 1e-3, "{m}");
        }
        assert_eq!(depth_bgra(2000.0), [255, 255, 255, 255]);
        assert_eq!(depth_bgra(f32::INFINITY), [255, 255, 255, 255], "sky");
        assert_eq!(depth_bgra(f32::NAN), [0, 0, 0, 255]);
        assert_eq!(depth_bgra(-1.0), [0, 0, 0, 255]);
        // 1000 m · 65536/16777215 ≈ 3.9 m: exactly the B byte's unit.
        assert_eq!(depth_bgra(FAR_M * 65536.0 / 16_777_215.0), [1, 0, 0, 255]);
    }
}
