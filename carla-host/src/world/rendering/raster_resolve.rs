//! The rasterizer's last step (see [`super`]): what each pixel sees, to
//! depth, tag, actor id and colour.

use super::{Band, FIRST_FACE, GROUND, SKY};
use crate::world::math::{add, length, scale, v3};
use crate::world::rendering::shade::{self, Detail};
use crate::world::scene::tags::tag;

impl Band<'_> {
    /// Turns rows `v0..` of `1/t` and primitives into depth, tag, actor
    /// id and colour, in place, `CHUNK` pixels at a time: the arithmetic
    /// of every pixel in branch-free loops (vectorized by the compiler),
    /// what it sees in a loop of its own.
    pub(super) fn resolve(
        &self,
        v0: usize,
        depth: &mut [f32],
        tags: &mut [u8],
        ids: &mut [u32],
        (colour, normals): (&mut [[u8; 4]], &mut [[u8; 4]]),
    ) {
        let view = self.view;
        let w = view.width;
        let o = view.o;
        let dr = scale(view.axes.right, view.step);
        let rows = depth.len() / w;
        let mut s = Scratch::default();
        for r in 0..rows {
            let row = view.ray(0.5, (v0 + r) as f32 + 0.5);
            for u0 in (0..w).step_by(CHUNK) {
                let n = CHUNK.min(w - u0);
                let at = r * w + u0;
                let inv = &mut depth[at..at + n];
                // Where each ray hits, how far, how foggy; the sky's shade.
                for (j, &z) in inv.iter().enumerate() {
                    let u = (u0 + j) as i32 as f32;
                    let d = add(row, scale(dr, u));
                    let len = length(d);
                    let dist = 1.0 / z;
                    s.x[j] = o.x + d.x * dist;
                    s.y[j] = o.y + d.y * dist;
                    s.z[j] = o.z + d.z * dist;
                    s.dist[j] = dist;
                    s.fog[j] = shade::fog(dist * len);
                    s.sky[j] = 1.0 - (d.z / len).clamp(0.0, 1.0).sqrt();
                }
                let (tags, ids) = (&mut tags[at..at + n], &mut ids[at..at + n]);
                let normals = &mut normals[at..at + n];
                // The ground's grain under every pixel of a chunk that
                // shows ground: a branch-free loop (vectorized), cheaper
                // than pixel by pixel.
                if ids.contains(&GROUND) {
                    for j in 0..n {
                        s.grain[j] = shade::grain(s.x[j], s.y[j]);
                    }
                }
                let pixels = tags.iter_mut().zip(ids.iter_mut()).zip(normals);
                for (j, ((t, id), normal)) in pixels.enumerate() {
                    let prim = *id;
                    if prim == SKY {
                        (*t, *id, *normal) = (tag::SKY, 0, SKY_NORMAL);
                        [s.r[j], s.g[j], s.b[j]] = shade::ZENITH;
                        s.fog[j] = s.sky[j];
                        s.dist[j] = f32::INFINITY;
                        continue;
                    }
                    if prim == GROUND {
                        let look = &self.ground;
                        let k = match look.detail {
                            Detail::Grain => s.grain[j],
                            _ => 1.0,
                        };
                        [s.r[j], s.g[j], s.b[j]] = look.lit.map(|c| (c * k).min(255.0));
                        (*t, *id, *normal) = (look.tag, 0, look.normal);
                        continue;
                    }
                    let p = v3(s.x[j], s.y[j], s.z[j]);
                    let look = &self.looks[(prim - FIRST_FACE) as usize];
                    let lit = if p.z > look.window_z {
                        look.glass
                    } else {
                        look.lit
                    };
                    let k = look.detail.at(p);
                    [s.r[j], s.g[j], s.b[j]] = lit.map(|c| (c * k).min(255.0));
                    (*t, *id, *normal) = (look.tag, look.id, look.normal);
                }
                inv.copy_from_slice(&s.dist[..n]);
                let [hr, hg, hb] = shade::HORIZON;
                for (j, c) in colour[at..at + n].iter_mut().enumerate() {
                    let f = s.fog[j];
                    let r = s.r[j] + (hr - s.r[j]) * f;
                    let g = s.g[j] + (hg - s.g[j]) * f;
                    let b = s.b[j] + (hb - s.b[j]) * f;
                    *c = shade::bgra(r, g, b).to_le_bytes();
                }
            }
        }
    }
}

/// The sky's normal (none: the zero vector, encoded).
const SKY_NORMAL: [u8; 4] = [128, 128, 128, 255];

/// Pixels resolved at a time.
const CHUNK: usize = 64;

/// Per-pixel values of one chunk.
struct Scratch {
    x: [f32; CHUNK],
    y: [f32; CHUNK],
    z: [f32; CHUNK],
    dist: [f32; CHUNK],
    fog: [f32; CHUNK],
    sky: [f32; CHUNK],
    /// The ground's grain.
    grain: [f32; CHUNK],
    /// Lit colour, before the fog.
    r: [f32; CHUNK],
    g: [f32; CHUNK],
    b: [f32; CHUNK],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            x: [0.0; CHUNK],
            y: [0.0; CHUNK],
            z: [0.0; CHUNK],
            dist: [0.0; CHUNK],
            fog: [0.0; CHUNK],
            sky: [0.0; CHUNK],
            grain: [0.0; CHUNK],
            r: [0.0; CHUNK],
            g: [0.0; CHUNK],
            b: [0.0; CHUNK],
        }
    }
}
