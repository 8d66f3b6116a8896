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

/// Where the camera of one tick ago saw the still world's points of this
/// image: per row, a point at planar depth `t` under pixel column `x`
/// sits, in that camera's frame, at `c + t · (e + x · f)` (affine in `x`
/// and `t`: a few multiply-adds a pixel).
pub(crate) struct Reprojection {
    /// The camera's move in the old camera's frame.
    c: Vector3D,
    /// The old frame's axes of this camera's forward, right and up.
    forward: Vector3D,
    right: Vector3D,
    up: Vector3D,
    tan: f32,
    tan_v: f32,
    step: f32,
}

impl Reprojection {
    /// For an image `w × h` of the camera `m` describes; `None` when the
    /// camera did not move (nothing to reproject).
    pub(crate) fn of(m: &Motion, w: usize, h: usize) -> Option<Reprojection> {
        if m.now == m.before || w == 0 || h == 0 {
            return None;
        }
        let tan = (m.fov_deg.clamp(0.001, 179.0).to_radians() / 2.0).tan();
        let b = &m.before.axes;
        Some(Reprojection {
            c: b.to_local(sub(m.now.origin, m.before.origin)),
            forward: b.to_local(m.now.axes.forward),
            right: b.to_local(m.now.axes.right),
            up: b.to_local(m.now.axes.up),
            tan,
            tan_v: tan * h as f32 / w as f32,
            step: 2.0 * tan / w as f32,
        })
    }

    /// Screen motion in pixels since the last tick of the still point at
    /// planar depth `t` (finite) under pixel `(u, v)`, or (0, 0) for one
    /// that was behind the old camera.
    #[cfg(test)]
    pub(crate) fn pixels(&self, u: usize, v: usize, t: f32) -> (f32, f32) {
        self.row(v).pixels(u, t)
    }

    /// Row `v`'s part of the work, done once for its pixels.
    #[inline]
    pub(crate) fn row(&self, v: usize) -> Row<'_> {
        let y = v as f32 + 0.5;
        let ys = y * self.step - self.tan_v;
        // The ray under column x: `d0 + x · dx`.
        let d0 = sub(scale(self.right, -self.tan), scale(self.up, ys));
        Row {
            r: self,
            y,
            d0: add(self.forward, d0),
            dx: scale(self.right, self.step),
        }
    }
}

/// One row of a [`Reprojection`].
pub(crate) struct Row<'a> {
    r: &'a Reprojection,
    y: f32,
    d0: Vector3D,
    dx: Vector3D,
}

impl Row<'_> {
    /// [`Reprojection::pixels`] of column `u` of this row.
    #[cfg(test)]
    pub(crate) fn pixels(&self, u: usize, t: f32) -> (f32, f32) {
        let (mut x, mut y) = ([0.0], [0.0]);
        self.motion(u, &[t], (&mut x, &mut y), t);
        (x[0], y[0])
    }

    /// The motion in pixels of the columns from `u0` of this row whose
    /// planar depths are `depth` (at most [`MOTION_RUN`]; a depth that is
    /// not finite reads as `sky`), into `out` (x and y; as long as
    /// `depth`). One loop without branches: it vectorizes.
    #[inline]
    pub(crate) fn motion(&self, u0: usize, depth: &[f32], out: (&mut [f32], &mut [f32]), sky: f32) {
        let r = self.r;
        let inv_step = 1.0 / r.step;
        let (ox, oy) = out;
        let n = depth.len().min(ox.len()).min(oy.len());
        // The columns' centres as floats, by adding: a usize-to-float
        // conversion per pixel would keep the loop from vectorizing.
        let x0 = u0 as f32 + 0.5;
        // Plain locals: stores through `out` cannot change them, so the
        // loop need not load them again each pixel.
        let (c, d0, dx, y) = (r.c, self.d0, self.dx, self.y);
        let (tan, tan_v) = (r.tan, r.tan_v);
        let lanes = ox[..n]
            .iter_mut()
            .zip(&mut oy[..n])
            .zip(&depth[..n])
            .zip(&COLUMNS[..n]);
        for (((mx, my), &t), &k) in lanes {
            let x = x0 + k;
            let t = if t.abs() < f32::INFINITY { t } else { sky };
            let seen_x = c.x + t * (d0.x + dx.x * x);
            let seen_y = c.y + t * (d0.y + dx.y * x);
            let seen_z = c.z + t * (d0.z + dx.z * x);
            let inv = 1.0 / seen_x;
            let bx = (seen_y * inv + tan) * inv_step;
            let by = (-seen_z * inv + tan_v) * inv_step;
            // A point that was behind the old camera: no motion.
            let ahead = seen_x > 1e-6;
            *mx = if ahead { x - bx } else { 0.0 };
            *my = if ahead { y - by } else { 0.0 };
        }
    }
}

/// The most columns [`Row::motion`] takes at once.
pub(crate) const MOTION_RUN: usize = 64;

/// 0, 1, 2, ... as floats: column offsets within a run.
static COLUMNS: [f32; MOTION_RUN] = {
    let mut c = [0.0; MOTION_RUN];
    let mut i = 0;
    while i < MOTION_RUN {
        c[i] = i as f32;
        i += 1;
    }
    c
};

#[cfg(test)]
#[path = "motion_tests.rs"]
mod tests;
