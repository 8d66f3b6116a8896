//! What a camera's lens and post-processing do to its picture once it is
//! drawn: smoothed edges, lens distortion (`lens_k`, `lens_kcube`,
//! `lens_x_size`, `lens_y_size`), the lens circle (`lens_circle_multiplier`,
//! `lens_circle_falloff`), chromatic aberration
//! (`chromatic_aberration_intensity`, `_offset`) and motion blur
//! (`motion_blur_intensity`, `motion_blur_max_distortion`), as CARLA's camera
//! blueprints name them (its values in docs/demo-world.md).
//!
//! The distortion moves every camera's pixels alike (depth, semantic and
//! instance cameras take the nearest pixel, the RGB camera blends four), so
//! their images keep agreeing pixel for pixel. CARLA's defaults draw the
//! plain pinhole picture: the distortion counts from `lens_k = -1`.
//!
//! Each pass works on the whole image in place, with a buffer of the
//! camera's own kept between frames (no allocation once warmed up), its
//! rows shared out among the worker threads.

use super::motion::{Reprojection, MOTION_RUN};
use crate::world::math::floor_i32;
use crate::world::workers::{on_threads, split, threads};
use parking_lot::Mutex;

/// Luma steps (0-255) across which a pixel counts as on an edge.
const EDGE: u8 = 14;
/// Rows a worker takes at a time.
const BAND: usize = 16;
/// Steps of the lens circle's table.
const CIRCLE_STEPS: usize = 1024;
/// Scale of the distortion's terms (`lens_k + 1` of 1 moves a pixel at
/// the half width's radius by 1/8 of its radius).
const DISTORTION: f32 = 0.125;
/// Chromatic aberration of intensity 1 moves red and blue apart by 1% of
/// the radius at the corners.
const FRINGE: f32 = 0.01;
/// Luma steps (0-255) under which a pixel is left out of the motion
/// blur: its neighbours are its colour.
const BLUR_STEP: u8 = 4;
/// Pixels of a row whose motion is worked out at once.
const CHUNK: usize = MOTION_RUN;
/// How far the sky is taken to be for motion blur, metres (it moves with
/// the camera's turn, hardly with its travel).
const SKY_M: f32 = 1e5;

/// A camera's optics, worked out once from its attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Optics {
    /// Edges smoothed (`enable_postprocess_effects`; RGB only).
    pub smooth: bool,
    /// `f(r) = 1 + k·r² + kcube·r³` (zero: no distortion), and the radius
    /// scales along x and y.
    pub k: f32,
    pub kcube: f32,
    pub size: [f32; 2],
    /// Lens circle: darkening `multiplier · r^falloff` (r 1 at the
    /// corners).
    pub circle: [f32; 2],
    /// Chromatic aberration: intensity and where it starts (0-1 of the
    /// way to the corners).
    pub fringe: [f32; 2],
    /// Distance blur (`blur_amount`: the kilometres at which it is half
    /// its radius; `blur_radius`: its radius in pixels at 1920 wide, far
    /// away); a radius of 0 (CARLA's default): none.
    pub far_blur: [f32; 2],
    /// Motion blur: the share of a pixel's motion over the last tick it
    /// is smeared along (`motion_blur_intensity`), and the longest smear
    /// as a share of the width (`motion_blur_max_distortion` / 100).
    pub blur: [f32; 2],
    /// Kept between frames: a copy of the picture, its luma, the circle's
    /// table.
    scratch: Vec<u8>,
    luma: Vec<u8>,
    step: Vec<u8>,
    /// The picture size a motion blur of the whole picture also smoothed
    /// the edges of (the smoothing after it has nothing left to do).
    smoothed_for: Option<(usize, usize)>,
    keep: Vec<u16>,
    /// [`Optics::warp`]'s maps and the picture they are for.
    maps: Vec<u32>,
    map_size: (usize, usize, bool),
}

/// A number a client gave, or `default` when it is not finite; within
/// `lo..=hi`.
fn sane(x: f32, default: f32, lo: f32, hi: f32) -> f32 {
    if x.is_finite() {
        x.clamp(lo, hi)
    } else {
        default
    }
}

impl Optics {
    /// The optics of a camera whose attribute `a(name, default)` gives,
    /// for an RGB picture (`colour`) or another output; `None` when they
    /// leave the picture as drawn.
    pub(crate) fn of(colour: bool, a: impl Fn(&str, f32) -> f32) -> Option<Optics> {
        // Attribute `name` (`default` when not given or not finite),
        // within `lo..=hi`.
        let get =
            |name: &str, default: f32, lo: f32, hi: f32| sane(a(name, default), default, lo, hi);
        // A pair of attributes only the RGB picture takes; `off` for others.
        let colour_only = |pair: [f32; 2], off: [f32; 2]| if colour { pair } else { off };
        let o = Optics {
            smooth: colour && a("enable_postprocess_effects", 1.0) != 0.0,
            k: DISTORTION * (get("lens_k", -1.0, -100.0, 100.0) + 1.0),
            kcube: DISTORTION * get("lens_kcube", 0.0, -100.0, 100.0),
            size: [
                get("lens_x_size", 0.08, 0.0, 1.0) / 0.08,
                get("lens_y_size", 0.08, 0.0, 1.0) / 0.08,
            ],
            circle: colour_only(
                [
                    get("lens_circle_multiplier", 0.0, 0.0, 10.0),
                    get("lens_circle_falloff", 5.0, 0.0, 10.0),
                ],
                [0.0, 5.0],
            ),
            fringe: colour_only(
                [
                    get("chromatic_aberration_intensity", 0.0, 0.0, 100.0),
                    get("chromatic_aberration_offset", 0.0, 0.0, 0.99),
                ],
                [0.0, 0.0],
            ),
            far_blur: colour_only(
                [
                    get("blur_amount", 1.0, 0.001, 1e3),
                    get("blur_radius", 0.0, 0.0, 64.0),
                ],
                [1.0, 0.0],
            ),
            blur: colour_only(
                [
                    get("motion_blur_intensity", 0.45, 0.0, 1.0),
                    get("motion_blur_max_distortion", 0.35, 0.0, 100.0) / 100.0,
                ],
                [0.0, 0.0],
            ),
            scratch: Vec::new(),
            luma: Vec::new(),
            step: Vec::new(),
            smoothed_for: None,
            keep: Vec::new(),
            maps: Vec::new(),
            map_size: (0, 0, false),
        };
        let warps = o.k != 0.0 || o.kcube != 0.0 || o.fringe[0] > 0.0;
        let far = o.blurs_far();
        (o.smooth || warps || o.circle[0] > 0.0 || o.blurs() || far).then_some(o)
    }

    /// Whether it smears moving pictures (needs the planar depth of each
    /// pixel: [`Optics::blur_motion`]).
    pub(crate) fn blurs(&self) -> bool {
        self.blur[0] > 0.0 && self.blur[1] > 0.0
    }

    /// Motion blur on the rows of a stripe (`px`: its BGRA bytes, `w`
    /// wide, from image row `row0`; `depth`: their planar depths, the sky
    /// infinite): each pixel becomes the tent-weighted mean of three
    /// pixels along its screen motion since the last tick
    /// (`reproject`: the camera's own move; the world held still) times
    /// the intensity, centred on it, at most the longest smear long.
    /// Smears under half a pixel leave the pixel as drawn.
    pub(crate) fn blur_motion(
        &mut self,
        px: &mut [u8],
        (w, row0, image_h): (usize, usize, usize),
        depth: &[f32],
        reproject: &Reprojection,
    ) {
        let rows = px.len() / (4 * w).max(1);
        if !self.blurs() || rows == 0 || depth.len() != w * rows {
            return;
        }
        let [intensity, share] = self.blur;
        let longest = share * w as f32;
        self.scratch.clear();
        self.scratch.extend_from_slice(px);
        luma_steps(&self.scratch, w, (&mut self.luma, &mut self.step));
        // A stripe that is the whole picture gets its edges smoothed in
        // the same pass: an edge pixel the smear leaves alone is smoothed,
        // one it takes is smeared from its smoothed self.
        let whole = row0 == 0 && rows == image_h && rows >= 3 && w >= 3;
        let smooth = self.smooth && whole;
        self.smoothed_for = smooth.then_some((w, rows));
        let steps = &self.step;
        let src = self.scratch.as_chunks::<4>().0;
        let (wi, hi) = (w as i32 - 1, rows as i32 - 1);
        let longest2 = longest * longest;
        by_rows(px, w, |y, row| {
            let out = row.as_chunks_mut::<4>().0;
            let line = reproject.row(row0 + y);
            let (mut mx, mut my) = ([0.0f32; CHUNK], [0.0f32; CHUNK]);
            for (c, out) in out.chunks_mut(CHUNK).enumerate() {
                let x0 = c * CHUNK;
                let n = out.len();
                let flat = &steps[y * w + x0..][..n];
                // A run of flat pixels: nothing to smear.
                if flat.iter().fold(0, |m, &s| m.max(s)) < BLUR_STEP {
                    continue;
                }
                line.motion(x0, &depth[y * w + x0..][..n], (&mut mx, &mut my), SKY_M);
                for (k, o) in out.iter_mut().enumerate() {
                    // Smearing a flat patch changes nothing worth the taps.
                    if flat[k] < BLUR_STEP {
                        continue;
                    }
                    let (mut vx, mut vy) = (0.5 * mx[k] * intensity, 0.5 * my[k] * intensity);
                    // Taps under half a pixel away are the pixel itself.
                    if vx.abs() < 0.5 && vy.abs() < 0.5 {
                        if smooth && flat[k] >= EDGE {
                            *o = tent(src, w, y * w + x0 + k);
                        }
                        continue;
                    }
                    let len2 = vx * vx + vy * vy;
                    if len2 > 0.25 * longest2 {
                        let s = 0.5 * longest / len2.sqrt();
                        (vx, vy) = (vx * s, vy * s);
                    }
                    // On an edge (which may run along the motion) the
                    // smear takes smoothed pixels, as if the smoothing had
                    // come first: tent filters, off the picture's border.
                    let edge = smooth && flat[k] >= EDGE;
                    let (lo_x, lo_y) = if edge { (1, 1) } else { (0, 0) };
                    let pixel = |j: usize| {
                        let p = if edge { tent(src, w, j) } else { src[j] };
                        let p = u32::from_le_bytes(p);
                        (p & 0x00FF_00FF, p >> 8 & 0x00FF_00FF)
                    };
                    // The nearest pixels half a smear either way (rounded
                    // without a libm call).
                    let at = |sx: f32, sy: f32| {
                        let sx = floor_i32(sx + 0.5).clamp(lo_x, wi - lo_x) as usize;
                        let sy = floor_i32(sy + 0.5).clamp(lo_y, hi - lo_y) as usize;
                        pixel(sy * w + sx)
                    };
                    let (fx, fy) = ((x0 + k) as f32, y as f32);
                    let (a, c) = (at(fx - vx, fy - vy), at(fx + vx, fy + vy));
                    let b = pixel(y * w + x0 + k);
                    let lo = (a.0 + 2 * b.0 + c.0 + 0x0002_0002) >> 2 & 0x00FF_00FF;
                    let hi = (a.1 + 2 * b.1 + c.1 + 0x0002_0002) >> 2 & 0x00FF_00FF;
                    *o = (lo | hi << 8).to_le_bytes();
                }
            }
        });
    }

    /// Whether it blurs what is far away (needs the planar depth of each
    /// pixel: [`Optics::blur_far`]).
    pub(crate) fn blurs_far(&self) -> bool {
        self.far_blur[1] > 0.0
    }

    /// Distance blur on the rows of a stripe (`px`, `w` wide; `depth`:
    /// their planar depths, the sky infinite), as Unreal's depth blur: a
    /// pixel `d` metres away is blurred over a radius of `blur_radius ·
    /// (1 − 2^(−d / (1000 · blur_amount)))` pixels (scaled from 1920 wide
    /// to `w`): the mean of itself and four pixels that far left, right,
    /// above and below (within the stripe). Radii under half a pixel
    /// leave the pixel as drawn.
    pub(crate) fn blur_far(&mut self, px: &mut [u8], w: usize, depth: &[f32]) {
        let rows = px.len() / (4 * w).max(1);
        if !self.blurs_far() || rows == 0 || depth.len() != w * rows {
            return;
        }
        let [km, radius] = self.far_blur;
        let radius = radius * w as f32 / 1920.0;
        let per_metre = 1.0 / (1000.0 * km);
        self.scratch.clear();
        self.scratch.extend_from_slice(px);
        let src = self.scratch.as_chunks::<4>().0;
        by_rows(px, w, |y, row| {
            for (x, o) in row.as_chunks_mut::<4>().0.iter_mut().enumerate() {
                let d = depth[y * w + x];
                let r = if d < f32::INFINITY {
                    radius * (1.0 - (-d * per_metre).exp2())
                } else {
                    radius
                };
                if r < 0.5 {
                    continue;
                }
                let r = floor_i32(r + 0.5) as usize;
                let (x0, x1) = (x.saturating_sub(r), (x + r).min(w - 1));
                let (y0, y1) = (y.saturating_sub(r), (y + r).min(rows - 1));
                let (mut a, mut b) = (0, 0);
                for j in [y * w + x, y * w + x0, y * w + x1, y0 * w + x, y1 * w + x] {
                    let p = u32::from_le_bytes(src[j]);
                    (a, b) = (a + (p & 0x00FF_00FF), b + (p >> 8 & 0x00FF_00FF));
                }
                // Five pixels: the mean, rounded, lane by lane.
                let mean = |v: u32| {
                    let (lo, hi) = (v & 0xFFFF, v >> 16);
                    ((lo + 2) / 5) | (((hi + 2) / 5) << 16)
                };
                *o = (mean(a) | mean(b) << 8).to_le_bytes();
            }
        });
    }

    /// Applies them to a `w × h` picture of BGRA bytes: an RGB camera's
    /// (`colour`: blended, its edges smoothed) or another output's (the
    /// nearest pixel, as a 4-byte word).
    pub(crate) fn apply(&mut self, pixels: &mut [u8], w: usize, h: usize, colour: bool) {
        if w < 3 || h < 3 || pixels.len() != w * h * 4 {
            self.smoothed_for = None;
            return;
        }
        if colour && self.smooth && self.smoothed_for != Some((w, h)) {
            self.smooth_edges(pixels, w);
        }
        self.smoothed_for = None;
        if self.k != 0.0 || self.kcube != 0.0 || (colour && self.fringe[0] > 0.0) {
            self.warp(pixels, w, h, colour);
        }
        if colour && self.circle[0] > 0.0 {
            self.darken_circle(pixels, w, h);
        }
    }

    /// A 3×3 tent filter on the pixels next to a luma step of [`EDGE`] or
    /// more (a silhouette, a lane mark's side): the stairs of the
    /// rasterizer's edges become ramps; flat areas stay sharp.
    fn smooth_edges(&mut self, px: &mut [u8], w: usize) {
        self.scratch.clear();
        self.scratch.extend_from_slice(px);
        luma_steps(&self.scratch, w, (&mut self.luma, &mut self.step));
        let src = self.scratch.as_chunks::<4>().0;
        let step = &self.step;
        by_rows(px, w, |y, row| {
            let i0 = y * w;
            for (x, _) in step[i0..i0 + w]
                .iter()
                .enumerate()
                .filter(|(_, s)| **s >= EDGE)
            {
                row[4 * x..4 * x + 4].copy_from_slice(&tent(src, w, i0 + x));
            }
        });
    }

    /// Where output pixel `(x, y)` of a `w × h` picture looks in the
    /// pinhole picture, scaled radially by `extra` (chromatic aberration):
    /// `(sx, sy)` in pixel units (centres at `+ 0.5`).
    #[inline]
    pub(crate) fn source(&self, x: f32, y: f32, w: f32, h: f32, extra: f32) -> (f32, f32) {
        let (cx, cy) = (0.5 * w, 0.5 * h);
        let f = self.factor((x - cx) / cx, (y - cy) / cx) * extra;
        (cx + (x - cx) * f, cy + (y - cy) * f)
    }

    /// The distortion's factor at `(u, v)` (the half width is 1).
    #[inline(always)]
    fn factor(&self, u: f32, v: f32) -> f32 {
        let r2 = (u * self.size[0]).powi(2) + (v * self.size[1]).powi(2);
        let cube = if self.kcube != 0.0 {
            self.kcube * r2 * r2.sqrt()
        } else {
            0.0
        };
        1.0 + self.k * r2 + cube
    }

    /// Distortion and chromatic aberration: each pixel takes what the
    /// pinhole picture shows where [`Optics::source`] says (through maps
    /// worked out once for the picture's size).
    fn warp(&mut self, px: &mut [u8], w: usize, h: usize, colour: bool) {
        if w * h >= 1 << 24 {
            return;
        }
        self.ensure_maps(w, h, colour);
        self.scratch.clear();
        self.scratch.extend_from_slice(px);
        let src = self.scratch.as_chunks::<4>().0;
        let n = w * h;
        let maps = &self.maps;
        by_rows(px, w, |y, row| {
            let i0 = y * w;
            let out = row.as_chunks_mut::<4>().0;
            if !colour {
                // The nearest pixel, whole (none outside: kept).
                for (o, &m) in out.iter_mut().zip(&maps[i0..i0 + w]) {
                    if m != u32::MAX {
                        *o = src[m as usize];
                    }
                }
            } else if maps.len() == n {
                for (o, &m) in out.iter_mut().zip(&maps[i0..i0 + w]) {
                    *o = sample(src, w, m).to_le_bytes();
                }
            } else {
                // B, G and R each from its own map.
                for (x, o) in out.iter_mut().enumerate() {
                    for c in 0..3 {
                        o[c] = sample(src, w, maps[c * n + i0 + x]).to_le_bytes()[c];
                    }
                }
            }
        });
    }

    /// The maps of [`Optics::warp`] for a `w × h` picture: per pixel, the
    /// pinhole picture's pixel (labels: its index, `u32::MAX` outside) or
    /// its top-left pixel's index and sixteenths along x and y (colour: one
    /// map, or one per channel under chromatic aberration).
    fn ensure_maps(&mut self, w: usize, h: usize, colour: bool) {
        if self.map_size == (w, h, colour) {
            return;
        }
        self.map_size = (w, h, colour);
        let (wf, hf) = (w as f32, h as f32);
        let (cx, cy) = (0.5 * wf, 0.5 * hf);
        let corner = 1.0 / (1.0 + (cy / cx).powi(2)).sqrt();
        let [amount, start] = self.fringe;
        let spreads: &[f32] = match colour {
            true if amount > 0.0 => &[-1.0, 0.0, 1.0],
            _ => &[0.0],
        };
        self.maps.clear();
        for &side in spreads {
            for y in 0..h {
                for x in 0..w {
                    let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
                    let r = ((fx - cx) / cx).hypot((fy - cy) / cx) * corner;
                    let spread = amount * FRINGE * ((r - start) / (1.0 - start)).max(0.0);
                    let (sx, sy) = self.source(fx, fy, wf, hf, 1.0 + side * spread);
                    let entry = if colour {
                        // Clamped so the pixel right of and below the
                        // top-left one exist.
                        let x = (sx - 0.5).clamp(0.0, wf - 1.0 - 1.0 / 16.0).max(0.0);
                        let y = (sy - 0.5).clamp(0.0, hf - 1.0 - 1.0 / 16.0).max(0.0);
                        let (x0, y0) = (x as usize, y as usize);
                        let (fx, fy) = (
                            ((x - x0 as f32) * 16.0) as u32,
                            ((y - y0 as f32) * 16.0) as u32,
                        );
                        ((y0 * w + x0) as u32) << 8 | fx << 4 | fy
                    } else if sx >= 0.0 && sy >= 0.0 && sx < wf && sy < hf {
                        (sy as usize * w + sx as usize) as u32
                    } else {
                        u32::MAX
                    };
                    self.maps.push(entry);
                }
            }
        }
    }

    /// The lens circle: darker towards the corners (a table of 1024 steps
    /// of the squared radius).
    fn darken_circle(&mut self, px: &mut [u8], w: usize, h: usize) {
        let [m, falloff] = self.circle;
        self.keep.clear();
        self.keep.extend((0..CIRCLE_STEPS).map(|i| {
            let r = (i as f32 / (CIRCLE_STEPS - 1) as f32).sqrt();
            (256.0 * (1.0 - m * r.powf(falloff)).clamp(0.0, 1.0)) as u16
        }));
        let (cx, cy) = (0.5 * w as f32, 0.5 * h as f32);
        let scale = (CIRCLE_STEPS - 1) as f32 / (cx * cx + cy * cy);
        let keep = &self.keep;
        by_rows(px, w, |y, row| {
            let dy = y as f32 + 0.5 - cy;
            for (x, p) in row.chunks_exact_mut(4).enumerate() {
                let dx = x as f32 + 0.5 - cx;
                let k = u32::from(keep[((dx * dx + dy * dy) * scale) as usize]);
                for c in &mut p[..3] {
                    *c = ((u32::from(*c) * k) >> 8) as u8;
                }
            }
        });
    }
}

/// The 3x3 tent filter of `src` (BGRA words, `w` wide) at pixel `i`, not
/// on the picture's border: two channels a lane pair (B and R, G and A),
/// 16 bits each (the filter's sum is at most 16 · 255).
#[inline(always)]
fn tent(src: &[[u8; 4]], w: usize, i: usize) -> [u8; 4] {
    let lanes = |j: usize| {
        let p = u32::from_le_bytes(src[j]);
        (p & 0x00FF_00FF, p >> 8 & 0x00FF_00FF)
    };
    let (mut a, mut b) = lanes(i);
    (a, b) = (4 * a, 4 * b);
    for j in [i - 1, i + 1, i - w, i + w] {
        let (p, q) = lanes(j);
        (a, b) = (a + 2 * p, b + 2 * q);
    }
    for j in [i - w - 1, i - w + 1, i + w - 1, i + w + 1] {
        let (p, q) = lanes(j);
        (a, b) = (a + p, b + q);
    }
    let a = (a + 0x0008_0008) >> 4 & 0x00FF_00FF;
    let b = (b + 0x0008_0008) >> 4 & 0x00FF_00FF;
    (a | b << 8).to_le_bytes()
}

/// Each pixel's largest luma step to a 4-neighbour into `step` (the
/// first and last rows and columns 0), for a `w`-wide BGRA picture `px`,
/// through `luma` ((B + 2G + R) / 4: enough to find the steps); both
/// resized to the picture. Pieces of whole rows on the worker threads.
fn luma_steps(px: &[u8], w: usize, (luma, step): (&mut Vec<u8>, &mut Vec<u8>)) {
    let src = px.as_chunks::<4>().0;
    let h = src.len() / w;
    luma.resize(w * h, 0);
    step.resize(w * h, 0);
    let piece = h.div_ceil(threads()).max(1) * w;
    split(src, luma, piece, |_, px, out| {
        for (l, p) in out.iter_mut().zip(px) {
            let sum = u16::from(p[0]) + 2 * u16::from(p[1]) + u16::from(p[2]);
            *l = (sum >> 2) as u8;
        }
    });
    let luma = &*luma;
    split(luma, step, piece, |first, _, out| {
        for (k, out) in out.chunks_exact_mut(w).enumerate() {
            let at = first + k * w;
            if at == 0 || at + w == w * h {
                out.fill(0);
                continue;
            }
            let (up, row, down) = (
                &luma[at - w..at],
                &luma[at..at + w],
                &luma[at + w..at + 2 * w],
            );
            let cells = out[1..w - 1]
                .iter_mut()
                .zip(&row[..w - 2])
                .zip(&row[1..w - 1])
                .zip(&row[2..])
                .zip(&up[1..w - 1])
                .zip(&down[1..w - 1]);
            for (((((o, &left), &c), &right), &u), &d) in cells {
                *o = c
                    .abs_diff(left)
                    .max(c.abs_diff(right))
                    .max(c.abs_diff(u))
                    .max(c.abs_diff(d));
            }
            (out[0], out[w - 1]) = (0, 0);
        }
    });
}

/// Runs `work(y, row)` on every row of a `w`-wide BGRA picture, bands of
/// rows shared out among the worker threads.
fn by_rows(px: &mut [u8], w: usize, work: impl Fn(usize, &mut [u8]) + Sync) {
    let rows = px.len() / (4 * w);
    let bands = Mutex::new(px.chunks_mut(4 * w * BAND).enumerate());
    on_threads(threads().min(rows.div_ceil(BAND)).max(1), || loop {
        let Some((b, band)) = bands.lock().next() else {
            return;
        };
        for (k, row) in band.chunks_exact_mut(4 * w).enumerate() {
            work(b * BAND + k, row);
        }
    });
}

/// The BGRA word a colour map's entry `m` names: its top-left pixel and
/// the three others blended by its sixteenths, two channels a 16-bit lane
/// pair (the weights add up to 256).
#[inline(always)]
fn sample(src: &[[u8; 4]], w: usize, m: u32) -> u32 {
    let i = (m >> 8) as usize;
    let (fx, fy) = (m >> 4 & 15, m & 15);
    let word = |j: usize| u32::from_le_bytes(src[j]);
    let (mut a, mut b) = (0, 0);
    // A single row or column (w or h of 1) never reaches here: the
    // optics leave pictures under 3 pixels a side alone.
    let corners = [
        (word(i), (16 - fx) * (16 - fy)),
        (word(i + 1), fx * (16 - fy)),
        (word(i + w), (16 - fx) * fy),
        (word(i + w + 1), fx * fy),
    ];
    for (p, k) in corners {
        a += (p & 0x00FF_00FF) * k;
        b += (p >> 8 & 0x00FF_00FF) * k;
    }
    (a + 0x0080_0080) >> 8 & 0x00FF_00FF | ((b + 0x0080_0080) >> 8 & 0x00FF_00FF) << 8
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: usize = 64;
    const H: usize = 48;

    fn optics(pairs: &[(&str, f32)], colour: bool) -> Option<Optics> {
        Optics::of(colour, |k, d| {
            pairs.iter().find(|(n, _)| *n == k).map_or(d, |(_, v)| *v)
        })
    }

    /// A grey picture with a white square; each pixel's byte 3 names
    /// whether it is the square (1) or not (0), as a label would.
    fn square() -> Vec<u8> {
        let mut px = vec![0; W * H * 4];
        for y in 0..H {
            for x in 0..W {
                let inside = (40..56).contains(&x) && (4..20).contains(&y);
                let v = if inside { 250 } else { 40 };
                px[4 * (y * W + x)..][..4].copy_from_slice(&[v, v, v, u8::from(inside)]);
            }
        }
        px
    }

    #[test]
    fn carlas_defaults_smooth_the_edges_and_blur_motion_only() {
        assert_eq!(optics(&[], false), None);
        let rgb = optics(&[], true).unwrap();
        assert!(rgb.smooth);
        assert_eq!(
            (rgb.k, rgb.kcube, rgb.circle[0], rgb.fringe[0]),
            (0.0, 0.0, 0.0, 0.0)
        );
        assert!(rgb.blur[0] == 0.45 && (rgb.blur[1] - 0.0035).abs() < 1e-7);
        let off = [
            ("enable_postprocess_effects", 0.0),
            ("motion_blur_intensity", 0.0),
        ];
        assert_eq!(optics(&off, true), None);
        // Numbers that are not numbers read as the defaults.
        let odd = [
            ("lens_k", f32::NAN),
            ("lens_circle_multiplier", f32::INFINITY),
        ];
        assert_eq!(optics(&odd, false), None);
        let mut o = optics(&[("lens_circle_multiplier", f32::NAN)], true).unwrap();
        let mut px = square();
        o.apply(&mut px, W, H, true);
    }

    #[test]
    fn smoothing_ramps_a_step_and_keeps_flat_areas() {
        let mut o = optics(&[], true).unwrap();
        let mut px = square();
        o.apply(&mut px, W, H, true);
        let at = |x: usize, y: usize| px[4 * (y * W + x)];
        // Flat inside and out, a ramp across the square's left side.
        assert_eq!((at(48, 12), at(10, 30)), (250, 40));
        assert!(at(39, 12) > 40 && at(39, 12) < at(40, 12) && at(40, 12) < 250);
    }

    #[test]
    fn distortion_moves_every_cameras_pixels_alike() {
        let pairs = [("lens_k", -3.0), ("lens_kcube", 0.5)];
        let (mut rgb, mut labels) = (
            optics(&pairs, true).unwrap(),
            optics(&pairs, false).unwrap(),
        );
        rgb.smooth = false;
        let (mut colour, mut label) = (square(), square());
        rgb.apply(&mut colour, W, H, true);
        labels.apply(&mut label, W, H, false);
        assert_ne!(label, square(), "the square moved");
        // The labelled pixels are the bright ones, but on the square's
        // rim, where the colour blends four pixels.
        let mut differ = 0;
        for i in 0..W * H {
            let bright = colour[4 * i] > 145;
            let rim = colour[4 * i] > 50 && colour[4 * i] < 240;
            differ += usize::from(bright != (label[4 * i + 3] == 1) && !rim);
        }
        assert_eq!(differ, 0);
        // The centre stays where it was.
        let centre = optics(&pairs, false)
            .unwrap()
            .source(32.0, 24.0, W as f32, H as f32, 1.0);
        assert_eq!(centre, (32.0, 24.0));
        // lens_k below −1: a pixel near the corner shows a point nearer
        // the centre (the picture magnified outwards); above, further out.
        let (sx, sy) = labels.source(60.0, 44.0, W as f32, H as f32, 1.0);
        assert!(sx < 59.0 && sy < 43.5, "{sx} {sy}");
        let out = optics(&[("lens_k", 1.0)], false).unwrap();
        let (sx, sy) = out.source(60.0, 44.0, W as f32, H as f32, 1.0);
        assert!(sx > 61.0 && sy > 44.5, "{sx} {sy}");
    }

    #[test]
    fn the_lens_circle_darkens_the_corners_and_fringes_part_colours() {
        let mut o = optics(
            &[
                ("lens_circle_multiplier", 1.0),
                ("enable_postprocess_effects", 0.0),
            ],
            true,
        )
        .unwrap();
        let mut px = vec![200; W * H * 4];
        o.apply(&mut px, W, H, true);
        let at = |px: &[u8], x: usize, y: usize, c: usize| px[4 * (y * W + x) + c];
        assert_eq!(at(&px, 32, 24, 1), 200);
        assert!(at(&px, 0, 0, 1) < 20, "corner {}", at(&px, 0, 0, 1));
        let mut o = optics(&[("chromatic_aberration_intensity", 5.0)], true).unwrap();
        o.smooth = false;
        let mut px = square();
        o.apply(&mut px, W, H, true);
        // Near the square's corner (far from the centre) blue and red
        // part; at the picture's centre nothing moves.
        let fringed = (36..60).any(|x| at(&px, x, 5, 0).abs_diff(at(&px, x, 5, 2)) > 30);
        assert!(fringed);
        assert_eq!(at(&px, 32, 24, 0), at(&px, 32, 24, 2));
    }

    #[test]
    fn a_moving_camera_smears_edges_along_its_motion() {
        use crate::world::rendering::motion::Motion;
        use crate::world::rendering::render::CameraPose;
        use carla_server::types::Rotation3D;
        let pose =
            |y: f32| CameraPose::new(crate::world::math::v3(0.0, y, 0.0), &Rotation3D::default());
        let still = |_: u32| None;
        // The camera slid 0.5 m to its right in a tick: a wall 5 m ahead
        // moves 3.2 px left across a 64 px image; the blur smears 45% of
        // that, capped at 3% of the width (1.9 px).
        let m = Motion {
            now: pose(0.5),
            before: pose(0.0),
            fov_deg: 90.0,
            moved: &still,
        };
        let r = Reprojection::of(&m, W, H).unwrap();
        let depth = vec![5.0; W * H];
        let attrs = [
            ("motion_blur_max_distortion", 3.0),
            ("enable_postprocess_effects", 0.0),
        ];
        let mut o = optics(&attrs, true).unwrap();
        assert!(o.blurs());
        let mut px = square();
        o.blur_motion(&mut px, (W, 0, H), &depth, &r);
        let at = |px: &[u8], x: usize, y: usize| px[4 * (y * W + x)];
        // Across the square's sides (x 40 and 55) the levels ramp; along
        // its top (y 4), where the motion runs along the edge, they do
        // not; inside and far outside nothing changes.
        let before = square();
        assert!(
            at(&px, 40, 12) < 250 && at(&px, 39, 12) > 40,
            "{} {}",
            at(&px, 39, 12),
            at(&px, 40, 12)
        );
        assert!(at(&px, 55, 12) < 250 || at(&px, 56, 12) > 40);
        assert_eq!(at(&px, 48, 4), at(&before, 48, 4));
        assert_eq!(at(&px, 48, 3), at(&before, 48, 3));
        assert_eq!((at(&px, 47, 12), at(&px, 10, 30)), (250, 40));
        // Alpha stays whole.
        assert!(px
            .chunks_exact(4)
            .zip(before.chunks_exact(4))
            .all(|(a, b)| a[3] == b[3]));
        // With smoothing on (CARLA's default), a whole picture's edges
        // the smear leaves alone are smoothed in the same pass, and the
        // smoothing after it has nothing left to do.
        let mut both = optics(&[("motion_blur_max_distortion", 3.0)], true).unwrap();
        let mut px = square();
        both.blur_motion(&mut px, (W, 0, H), &depth, &r);
        assert!(
            at(&px, 48, 4) != at(&before, 48, 4),
            "the top edge smoothed"
        );
        let blurred = px.clone();
        both.apply(&mut px, W, H, true);
        assert_eq!(px, blurred);
        // A stripe of a larger picture is smeared only; the smoothing
        // comes after the whole picture.
        let mut px = square();
        both.blur_motion(&mut px, (W, 0, 2 * H), &depth, &r);
        assert_eq!(at(&px, 48, 4), at(&before, 48, 4));
        // No blur without motion or with intensity 0.
        let mut calm = optics(&[("motion_blur_intensity", 0.0)], true).unwrap();
        assert!(!calm.blurs());
        let mut px = square();
        calm.blur_motion(&mut px, (W, 0, H), &depth, &r);
        assert_eq!(px, square());
    }

    #[test]
    fn the_distance_blur_blurs_the_far_and_leaves_the_near() {
        assert!(!optics(&[], true).unwrap().blurs_far());
        let mut o = optics(&[("blur_radius", 96.0), ("blur_amount", 0.1)], true).unwrap();
        assert!(o.blurs_far());
        // The left half of the picture 5 m away, the right half 2 km
        // away (radius 96 px at 1920 wide is 3.2 px here; half of it at
        // 100 m).
        let depth: Vec<f32> = (0..W * H)
            .map(|i| if i % W < W / 2 { 5.0 } else { 2000.0 })
            .collect();
        let mut px = square();
        o.blur_far(&mut px, W, &depth);
        let before = square();
        let at = |px: &[u8], x: usize, y: usize| px[4 * (y * W + x)];
        // Far: the square's left side (x 40) blurred over 3 pixels.
        assert!(
            at(&px, 38, 12) > 40 && at(&px, 41, 12) < 250,
            "{} {}",
            at(&px, 38, 12),
            at(&px, 41, 12)
        );
        // Near (the left half): as drawn.
        let near_same = (0..H).all(|y| (0..W / 2).all(|x| at(&px, x, y) == at(&before, x, y)));
        assert!(near_same);
        // Not a number, or a radius of 0: none.
        assert!(!optics(&[("blur_radius", f32::NAN)], true)
            .unwrap()
            .blurs_far());
    }
}
