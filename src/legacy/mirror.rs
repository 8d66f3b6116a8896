//! The 0.8 mirror: a 0.9 camera or lidar that also feeds a 0.8.4 sensor id,
//! so one registration serves both protocols. A camera's image goes to the
//! 0.8 stream port as the same pooled block the 0.9 stream sends (shared,
//! not copied: see [`crate::sync::shared_bytes`]), behind a 0.8.4 camera header;
//! a lidar's sweep goes as a 0.8.4 lidar record ([`super::lidar_record`])
//! built from the same plan and hits.
//!
//! This module knows the 0.8.4 layouts and the mirror's state; it knows
//! nothing of the 0.9 transport. A sensor entry holds one
//! [`LegacyMirror`] and asks it, per send, what to hand the 0.8 side.

use super::lidar_record;
use crate::sensor::Lidar;
use crate::types::{CaptureContext, LidarHit};
use parking_lot::{Mutex, MutexGuard};

/// Size of the 0.8.4 camera header: `u64 frame | u32 width | u32 height |
/// u32 image type | f32 fov`.
pub(crate) const CAMERA_HEADER_SIZE: usize = 24;

/// A camera's geometry as the 0.8.4 header states it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CameraGeometry {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) fov: f32,
    /// The 0.8.4 image type (scene final, depth, semantic segmentation).
    pub(crate) image_type: u32,
}

/// The 0.8.4 sensor id a sensor mirrors to, and (lidars) the record's
/// buffers, reused from tick to tick.
#[derive(Default)]
pub(crate) struct LegacyMirror(Mutex<State>);

#[derive(Default)]
struct State {
    id: Option<u32>,
    header: Vec<u8>,
    data: Vec<u8>,
}

/// A lidar record built for this tick, held until it is written.
pub(crate) struct LidarRecord<'a> {
    /// The 0.8.4 sensor id.
    pub(crate) id: u32,
    state: MutexGuard<'a, State>,
}

impl LidarRecord<'_> {
    /// The record's header (frame, angle, channels, points per channel).
    pub(crate) fn header(&self) -> &[u8] {
        &self.state.header
    }

    /// The record's points (`x, y, z` f32 each).
    pub(crate) fn data(&self) -> &[u8] {
        &self.state.data
    }
}

impl LegacyMirror {
    /// Mirrors to 0.8.4 sensor `id` from now on; 0 stops (and lets go of
    /// the record buffers).
    pub(crate) fn set(&self, id: u32) {
        let mut state = self.0.lock();
        if id == 0 {
            *state = State::default();
        } else {
            state.id = Some(id);
        }
    }

    /// If mirrored: the 0.8.4 sensor id and camera header for an image of
    /// `ctx` taken by a camera of `camera`'s geometry.
    pub(crate) fn camera_header(
        &self,
        ctx: &CaptureContext,
        camera: CameraGeometry,
    ) -> Option<(u32, [u8; CAMERA_HEADER_SIZE])> {
        let id = self.0.lock().id?;
        let mut header = [0u8; CAMERA_HEADER_SIZE];
        header[..8].copy_from_slice(&ctx.frame.to_le_bytes());
        header[8..12].copy_from_slice(&camera.width.to_le_bytes());
        header[12..16].copy_from_slice(&camera.height.to_le_bytes());
        header[16..20].copy_from_slice(&camera.image_type.to_le_bytes());
        header[20..24].copy_from_slice(&camera.fov.to_le_bytes());
        Some((id, header))
    }

    /// If mirrored: the 0.8.4 lidar record of `hits`, traced for `lidar`'s
    /// last plan, at frame `ctx.frame` and the sweep angle the plan reached.
    pub(crate) fn lidar_record(
        &self,
        ctx: &CaptureContext,
        lidar: &Lidar,
        hits: &[LidarHit],
    ) -> Option<LidarRecord<'_>> {
        let mut state = self.0.lock();
        let id = state.id?;
        let State { header, data, .. } = &mut *state;
        let rays = lidar.last_plan().rays();
        let (angle, channels) = (lidar.horizontal_angle_deg(), lidar.settings().channels);
        lidar_record::build(ctx.frame, angle, channels, rays, hits, header, data);
        Some(LidarRecord { id, state })
    }
}
