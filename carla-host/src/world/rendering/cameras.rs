//! The world's cameras: a view from any pose rendered into a G-buffer,
//! whole or in stripes, and the 0.8 way (one image of one post-processing).

use super::gbuffer::{Channels, GBuffer, Output};
use super::raster;
use super::render::{CameraPose, CameraSpec};
use crate::world::World;

impl World {
    /// Renders 0.8 camera `camera` (mounted on the player) into `out`
    /// (`width · height · 4` BGRA bytes), through `scratch`, in stripes.
    /// To write several outputs of one view, use [`World::render_stripes`]
    /// or [`World::render_gbuffer`] instead. Panics if `out` has another
    /// length.
    #[allow(dead_code)] // one camera at a time: the tests, simple hosts
    pub(crate) fn render(&self, camera: &CameraSpec, out: &mut [u8], scratch: &mut GBuffer) {
        let (w, h) = (camera.width as usize, camera.height as usize);
        assert_eq!(out.len(), w * h * 4, "camera buffer size");
        let pose = CameraPose::on_player(camera, &self.player_transform());
        let (width, height, fov) = (camera.width, camera.height, camera.fov_deg);
        scratch.fill_only(Channels::of(Output::from_08(camera.post)));
        self.render_stripes(&pose, width, height, fov, scratch, |g| {
            g.write_08(camera.post, g.rows_of(out));
        });
    }

    /// Renders the view of a camera at `pose` (anywhere: on the player,
    /// on another actor, free), `width × height` pixels with horizontal
    /// field of view `fov_deg`, into `out`, whole (13 bytes a pixel: for
    /// large images [`World::render_stripes`] bounds the memory). A camera
    /// inside an actor's box does not see that actor.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn render_gbuffer(
        &self,
        pose: &CameraPose,
        width: u32,
        height: u32,
        fov_deg: f32,
        out: &mut GBuffer,
    ) {
        let lens = raster::Lens {
            width,
            height,
            fov_deg,
        };
        raster::rasterize(self.scene(), pose, &lens, out);
    }

    /// [`World::render_gbuffer`] in stripes of whole rows (at most
    /// [`raster::STRIPE_PIXELS`] pixels), top to bottom: `scratch` holds
    /// one stripe at a time and `emit` writes it out, e.g. with
    /// `g.write(output, g.rows_of(image))` for every image of the view.
    pub(crate) fn render_stripes(
        &self,
        pose: &CameraPose,
        width: u32,
        height: u32,
        fov_deg: f32,
        scratch: &mut GBuffer,
        emit: impl FnMut(&GBuffer),
    ) {
        let lens = raster::Lens {
            width,
            height,
            fov_deg,
        };
        let max = raster::STRIPE_PIXELS;
        raster::rasterize_stripes(self.scene(), pose, &lens, max, scratch, emit);
    }
}
