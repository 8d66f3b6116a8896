//! Optical flow from a G-buffer: where each pixel's surface point was one
//! tick ago, seen by the camera's pose of one tick ago, as CARLA 0.9.16's
//! `sensor.camera.optical_flow` reports it (Unreal's velocity buffer):
//! per pixel two f32, the screen motion from the previous frame to this one
//! in normalized device units (the image spans 2 both ways; x right, y
//! up), so `x · width / 2` and `−y · height / 2` are the motion in pixels.
//!
//! A point on an actor moves with it (its transform then and now); the
//! rest of the world stands still; the sky is at infinity, so it moves only
//! with the camera's rotation. A point that was behind the camera has no
//! flow (0, 0).

use super::gbuffer::{GBuffer, Output};
use super::render::CameraPose;
use crate::world::math::{add, scale, sub, Axes};
use carla_server::sensor::ActorTransform;
use carla_server::types::Vector3D;

/// What a flow image needs beyond the G-buffer.
pub(crate) struct Motion<'a> {
    /// The camera now and one tick ago.
    pub now: CameraPose,
    pub before: CameraPose,
    /// Horizontal field of view, degrees (the G-buffer's).
    pub fov_deg: f32,
    /// An actor's transform now and one tick ago (None: did not move).
    pub moved: &'a dyn Fn(u32) -> Option<(ActorTransform, ActorTransform)>,
}

/// An actor's motion as axes, ready to move points.
struct Moved {
    id: u32,
    now: (Vector3D, Axes),
    before: (Vector3D, Axes),
}

fn frame(t: &ActorTransform) -> (Vector3D, Axes) {
    (t.location, Axes::from_rotation(&t.rotation))
}

impl GBuffer {
    /// Writes the optical flow of the rows held into `out` (8 bytes a
    /// pixel: x then y, little-endian f32; see [`GBuffer::rows_of_sized`]).
    /// Panics if `out` has another length.
    pub(crate) fn write_flow(&self, m: &Motion, out: &mut [u8]) {
        let (w, h) = (self.width, self.image_height);
        assert_eq!(out.len(), self.depth.len() * 8, "flow buffer size");
        self.assert_filled(Output::Flow);
        let tan = (m.fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
        let step = 2.0 * tan / w as f32;
        let tan_v = tan * h as f32 / w as f32;
        let (a, b) = (&m.now.axes, &m.before.axes);
        let mut last: Option<Moved> = None;
        for (i, px) in out.chunks_exact_mut(8).enumerate() {
            let (u, v) = (i % w, self.row0 + i / w);
            let (x, y) = (u as f32 + 0.5, v as f32 + 0.5);
            let (xs, ys) = (x * step - tan, y * step - tan_v);
            let d = sub(add(a.forward, scale(a.right, xs)), scale(a.up, ys));
            let depth = self.depth[i];
            // Where the point is, relative to the camera of one tick ago.
            let seen = if depth.is_finite() {
                let mut p = add(m.now.origin, scale(d, depth));
                let id = self.actor[i];
                if id != 0 {
                    if last.as_ref().is_none_or(|l| l.id != id) {
                        last = (m.moved)(id).map(|(now, before)| Moved {
                            id,
                            now: frame(&now),
                            before: frame(&before),
                        });
                    }
                    if let Some(l) = last.as_ref().filter(|l| l.id == id) {
                        let local = l.now.1.to_local(sub(p, l.now.0));
                        p = add(l.before.1.to_world(local), l.before.0);
                    }
                }
                b.to_local(sub(p, m.before.origin))
            } else {
                b.to_local(d)
            };
            let flow = if seen.x > 1e-6 {
                let px_before = (seen.y / seen.x + tan) / step;
                let py_before = (-seen.z / seen.x + tan_v) / step;
                [
                    (x - px_before) * 2.0 / w as f32,
                    -(y - py_before) * 2.0 / h as f32,
                ]
            } else {
                [0.0, 0.0]
            };
            px[..4].copy_from_slice(&flow[0].to_le_bytes());
            px[4..].copy_from_slice(&flow[1].to_le_bytes());
        }
    }
}

#[cfg(test)]
#[path = "motion_tests.rs"]
mod tests;
