//! The G-buffer: one camera's view, rendered once per tick by the
//! rasterizer ([`super::raster`]), holding per pixel the planar depth, the
//! internal semantic tag ([`crate::world::scene::tags::tag`]), the actor id and the shaded
//! colour. Every camera output is written from it into a caller's buffer,
//! without allocating: the 0.8 post-processings and the 0.9.16 rgb, depth,
//! semantic and instance segmentation images (encodings in
//! [`super::render`]).

use super::render::{depth_word, PostProcessing};
use crate::world::scene::tags::{TAGS_08, TAGS_0916};

/// An image derived from a G-buffer (BGRA bytes, alpha 255).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// The shaded colour (0.8 None/SceneFinal, 0.9.16 rgb).
    Rgb,
    /// CARLA's 24-bit depth (0.8 and 0.9.16 alike).
    Depth,
    /// 0.8 semantic segmentation: the 0.8 tag in R.
    Semantic08,
    /// 0.9.16 semantic segmentation: the 0.9.16 tag in R.
    Semantic0916,
    /// 0.9.16 instance segmentation: R the 0.9.16 tag, G and B the low and
    /// second byte of the actor id.
    Instance0916,
    /// 0.9.16 normals: the world normal ([`super::shade::normal_bgra`]).
    Normals,
    /// 0.9.16 cosmos visualization: CARLA's Cosmos colours of cars,
    /// pedestrians, poles, signs, lights, lane lines and lanes (the road);
    /// black elsewhere.
    Cosmos,
    /// 0.9.16 optical flow: written by [`GBuffer::write_flow`] (two f32 a
    /// pixel), not by [`GBuffer::write`].
    Flow,
    /// G-buffer SceneStencil: the 0.9.16 tag in B, G and R (CARLA writes
    /// the tag into the stencil).
    Stencil,
    /// G-buffer CustomDepth: the depth code of actors (vehicles, walkers,
    /// lights: what carries an id), the far code elsewhere.
    CustomDepth,
    /// G-buffer CustomStencil: the tag of actors, 0 elsewhere.
    CustomStencil,
}

impl Output {
    /// The output of a 0.8 post-processing.
    pub(crate) fn from_08(post: PostProcessing) -> Output {
        match post {
            PostProcessing::None | PostProcessing::SceneFinal => Output::Rgb,
            PostProcessing::Depth => Output::Depth,
            PostProcessing::SemanticSegmentation => Output::Semantic08,
        }
    }
}

/// The planes of a G-buffer a render fills in: those its outputs read
/// ([`Channels::of`]). An RGB camera alone needs only the colour, a
/// semantic one only the tags (and no shading at all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Channels {
    pub(crate) colour: bool,
    pub(crate) depth: bool,
    pub(crate) tag: bool,
    pub(crate) actor: bool,
    pub(crate) normal: bool,
}

impl Channels {
    /// Every plane.
    pub(crate) const ALL: Channels = Channels {
        colour: true,
        depth: true,
        tag: true,
        actor: true,
        normal: true,
    };
    /// No plane (the start of a union).
    pub(crate) const NONE: Channels = Channels {
        colour: false,
        depth: false,
        tag: false,
        actor: false,
        normal: false,
    };

    /// The planes `output` is written from.
    pub(crate) fn of(output: Output) -> Channels {
        let n = Channels::NONE;
        match output {
            Output::Rgb => Channels { colour: true, ..n },
            Output::Depth => Channels { depth: true, ..n },
            Output::Semantic08 | Output::Semantic0916 | Output::Cosmos => {
                Channels { tag: true, ..n }
            }
            Output::Normals => Channels { normal: true, ..n },
            Output::Flow | Output::CustomDepth => Channels {
                depth: true,
                actor: true,
                ..n
            },
            Output::Stencil | Output::CustomStencil | Output::Instance0916 => Channels {
                tag: true,
                actor: true,
                ..n
            },
        }
    }

    /// The planes of either.
    pub(crate) fn and(self, o: Channels) -> Channels {
        Channels {
            colour: self.colour | o.colour,
            depth: self.depth | o.depth,
            tag: self.tag | o.tag,
            actor: self.actor | o.actor,
            normal: self.normal | o.normal,
        }
    }

    /// Whether every plane of `o` is one of these.
    pub(crate) fn covers(self, o: Channels) -> bool {
        self.and(o) == self
    }
}

impl Default for Channels {
    fn default() -> Channels {
        Channels::ALL
    }
}

/// One camera's rendered view (see the module doc). Reuse it from tick to
/// tick: it allocates only when the image size grows.
#[derive(Default)]
pub(crate) struct GBuffer {
    /// The planes the next renders fill in (all unless
    /// [`GBuffer::fill_only`] said otherwise); the others hold leftovers.
    pub(in crate::world) channels: Channels,
    pub(in crate::world) width: usize,
    /// Rows held: `row0..row0 + height` of the image (all of it unless
    /// rendered in stripes).
    pub(in crate::world) row0: usize,
    pub(in crate::world) height: usize,
    /// Rows of the whole image (more than `height` when in stripes).
    pub(in crate::world) image_height: usize,
    /// Planar depth, metres; infinity where the sky is seen.
    pub(in crate::world) depth: Vec<f32>,
    pub(in crate::world) tag: Vec<u8>,
    pub(in crate::world) actor: Vec<u32>,
    pub(in crate::world) colour: Vec<[u8; 4]>,
    /// World normal, encoded as the normals camera sends it.
    pub(in crate::world) normal: Vec<[u8; 4]>,
}

impl GBuffer {
    pub(crate) fn new() -> GBuffer {
        GBuffer::default()
    }

    /// Holds `rows` rows from `row0` of an image `width` wide (contents
    /// unspecified until rendered).
    pub(in crate::world) fn resize(&mut self, width: usize, row0: usize, rows: usize) {
        let n = width * rows;
        (self.width, self.row0, self.height) = (width, row0, rows);
        self.depth.resize(n, 0.0);
        self.tag.resize(n, 0);
        self.actor.resize(n, 0);
        self.colour.resize(n, [0; 4]);
        self.normal.resize(n, [0; 4]);
    }

    /// Renders into this G-buffer fill in only `channels` (writing an
    /// output of another plane panics): a camera's outputs are known
    /// before it renders.
    pub(crate) fn fill_only(&mut self, channels: Channels) {
        self.channels = channels;
    }

    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn width(&self) -> usize {
        self.width
    }
    /// Rows held.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn height(&self) -> usize {
        self.height
    }
    /// The image row of the first row held (0 for a whole image).
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn first_row(&self) -> usize {
        self.row0
    }
    /// The part of a whole image's BGRA bytes (`width · 4` per row) this
    /// G-buffer holds: where [`GBuffer::write`] should write a stripe.
    /// Panics if `image` is too short.
    pub(crate) fn rows_of<'a>(&self, image: &'a mut [u8]) -> &'a mut [u8] {
        self.rows_of_sized(image, 4)
    }
    /// [`GBuffer::rows_of`] for an image of `pixel_bytes` a pixel.
    pub(crate) fn rows_of_sized<'a>(
        &self,
        image: &'a mut [u8],
        pixel_bytes: usize,
    ) -> &'a mut [u8] {
        let row = self.width * pixel_bytes;
        &mut image[self.row0 * row..(self.row0 + self.height) * row]
    }
    /// Planar depth (metres along the camera's forward axis) per pixel,
    /// row by row from the top-left; `f32::INFINITY` for the sky.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn depth(&self) -> &[f32] {
        &self.depth
    }
    /// Internal semantic tag ([`crate::world::scene::tags::tag`]) per pixel.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn tags(&self) -> &[u8] {
        &self.tag
    }
    /// Actor id per pixel, 0 for the map and the sky.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn actors(&self) -> &[u32] {
        &self.actor
    }
    /// Shaded colour per pixel, BGRA.
    #[allow(dead_code)] // for 0.9 sensors of the host's own
    pub(crate) fn colours(&self) -> &[[u8; 4]] {
        &self.colour
    }

    /// Writes `output` of the rows held into `out` (`width · height · 4`
    /// BGRA bytes; see [`GBuffer::rows_of`]). Panics if `out` has another
    /// length.
    pub(crate) fn write(&self, output: Output, out: &mut [u8]) {
        assert_eq!(out.len(), self.colour.len() * 4, "camera buffer size");
        self.assert_filled(output);
        let px = out.chunks_exact_mut(4);
        match output {
            Output::Rgb => out.copy_from_slice(self.colour.as_flattened()),
            Output::Depth => {
                for (p, &d) in px.zip(&self.depth) {
                    p.copy_from_slice(&depth_word(d).to_le_bytes());
                }
            }
            Output::Semantic08 | Output::Semantic0916 => {
                let table = if output == Output::Semantic08 {
                    &TAGS_08
                } else {
                    &TAGS_0916
                };
                for (p, &t) in px.zip(&self.tag) {
                    let r = u32::from(table[t as usize]);
                    p.copy_from_slice(&(r << 16 | 0xFF00_0000).to_le_bytes());
                }
            }
            Output::Normals => out.copy_from_slice(self.normal.as_flattened()),
            Output::Cosmos => {
                for (p, &t) in px.zip(&self.tag) {
                    p.copy_from_slice(&cosmos_colour(t));
                }
            }
            Output::Flow => panic!("optical flow is written by write_flow"),
            Output::Stencil | Output::CustomStencil => {
                let all = output == Output::Stencil;
                for ((p, &t), &id) in px.zip(&self.tag).zip(&self.actor) {
                    let v = if all || id != 0 {
                        TAGS_0916[t as usize]
                    } else {
                        0
                    };
                    p.copy_from_slice(&[v, v, v, 255]);
                }
            }
            Output::CustomDepth => {
                for ((p, &d), &id) in px.zip(&self.depth).zip(&self.actor) {
                    let d = if id != 0 { d } else { f32::INFINITY };
                    p.copy_from_slice(&depth_word(d).to_le_bytes());
                }
            }
            Output::Instance0916 => {
                for ((p, &t), &id) in px.zip(&self.tag).zip(&self.actor) {
                    let r = u32::from(TAGS_0916[t as usize]);
                    let word = (id >> 8 & 0xFF) | (id & 0xFF) << 8 | r << 16 | 0xFF00_0000;
                    p.copy_from_slice(&word.to_le_bytes());
                }
            }
        }
    }

    /// Panics unless the planes `output` reads were rendered.
    pub(in crate::world) fn assert_filled(&self, output: Output) {
        assert!(
            self.channels.covers(Channels::of(output)),
            "{output:?} from a G-buffer rendered with {:?} only",
            self.channels
        );
    }

    /// Writes the image of 0.8 post-processing `post` into `out`.
    pub(crate) fn write_08(&self, post: PostProcessing, out: &mut [u8]) {
        self.write(Output::from_08(post), out);
    }
}

/// CARLA's Cosmos visualization colour (BGRA) of internal tag `t`.
fn cosmos_colour(t: u8) -> [u8; 4] {
    use crate::world::scene::tags::tag;
    let [r, g, b] = match t {
        tag::VEHICLES => [255, 0, 0],
        tag::PEDESTRIANS => [0, 255, 0],
        tag::POLES => [66, 40, 144],
        tag::TRAFFIC_SIGNS => [131, 175, 155],
        tag::TRAFFIC_LIGHTS => [252, 157, 155],
        tag::ROAD_LINES => [98, 183, 249],
        tag::ROADS => [56, 103, 221],
        _ => [0, 0, 0],
    };
    [b, g, r, 255]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::scene::tags::tag;

    #[test]
    fn outputs_encode_each_pixel() {
        let mut g = GBuffer::new();
        g.resize(2, 0, 1);
        g.depth.copy_from_slice(&[20.0, f32::INFINITY]);
        g.tag.copy_from_slice(&[tag::VEHICLES, tag::SKY]);
        g.actor.copy_from_slice(&[0x0102_0304, 0]);
        g.colour.copy_from_slice(&[[1, 2, 3, 255], [4, 5, 6, 255]]);
        let mut out = [0; 8];
        g.write(Output::Rgb, &mut out);
        assert_eq!(out, [1, 2, 3, 255, 4, 5, 6, 255]);
        g.write(Output::Depth, &mut out);
        let n = (20.0f64 / 1000.0 * 16_777_215.0).round() as u32;
        let near = [(n >> 16) as u8, (n >> 8) as u8, n as u8, 255];
        assert_eq!(out, [near, [255; 4]].concat()[..]);
        g.write_08(PostProcessing::SemanticSegmentation, &mut out);
        assert_eq!(out, [0, 0, 10, 255, 0, 0, 0, 255]);
        g.write(Output::Semantic0916, &mut out);
        assert_eq!(out, [0, 0, 14, 255, 0, 0, 11, 255]);
        g.write(Output::Instance0916, &mut out);
        assert_eq!(out, [3, 4, 14, 255, 0, 0, 11, 255]);
    }
}
