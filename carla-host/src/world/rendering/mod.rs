//! The cameras: conventions and encodings ([`render`]), the rasterizer
//! ([`raster`]) filling a G-buffer ([`gbuffer`]) every output is written
//! from, the look both share ([`shade`]), the ray-cast reference camera
//! ([`raycast`]), optical flow ([`motion`]), what the lens and the
//! post-processing do to a drawn picture ([`optics`], [`tone`]), and the
//! world's camera calls ([`cameras`]).

pub(crate) mod cameras;
pub(crate) mod gbuffer;
pub(crate) mod light;
pub(crate) mod motion;
pub(crate) mod optics;
pub(crate) mod raster;
pub(crate) mod raycast;
pub(crate) mod render;
pub(crate) mod shade;
pub(crate) mod shadow;
pub(crate) mod tone;
