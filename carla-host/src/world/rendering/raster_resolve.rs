//! The rasterizer's last step (see [`super`]): what each pixel sees, to
//! depth, tag, actor id and colour.

use super::{Band, FIRST_FACE, GROUND, SKY};
use crate::world::math::{add, length, scale, v3};
use crate::world::rendering::shade;
use crate::world::scene::tags::tag;
use carla_server::types::Vector3D;
use std::ops::Range;

impl Band<'_> {
    /// Turns rows `v0..` of `1/t` and primitives into depth, tag, actor
    /// id and colour (the planes `Band::need` names; the others keep what
    /// they held), in place, `CHUNK` pixels at a time: the arithmetic
    /// of every pixel in branch-free loops (vectorized by the compiler),
    /// then each run of pixels that see the same thing shaded at once.
    pub(super) fn resolve(
        &self,
        v0: usize,
        depth: &mut [f32],
        tags: &mut [u8],
        ids: &mut [u32],
        (colour, normals): (&mut [[u8; 4]], &mut [[u8; 4]]),
        s: &mut Scratch,
    ) {
        let view = self.view;
        let w = view.width;
        let o = view.o;
        let dr = scale(view.axes.right, view.step);
        let rows = depth.len() / w;
        let need = self.need;
        for r in 0..rows {
            let row = view.ray(0.5, (v0 + r) as f32 + 0.5);
            for u0 in (0..w).step_by(CHUNK) {
                let n = CHUNK.min(w - u0);
                let at = r * w + u0;
                let inv = &mut depth[at..at + n];
                // Where each ray hits, how far, how foggy: the ray through
                // pixel `u` is `row + dr·u`, component by component (the
                // same arithmetic as `add(row, scale(dr, u))`, vectorized).
                let (xs, ys, zs) = (&mut s.x[..n], &mut s.y[..n], &mut s.z[..n]);
                let (dists, fogs) = (&mut s.dist[..n], &mut s.fog[..n]);
                if need.colour {
                    for j in 0..n {
                        let u = (u0 + j) as i32 as f32;
                        let (dx, dy, dz) = (row.x + dr.x * u, row.y + dr.y * u, row.z + dr.z * u);
                        let len = (dx * dx + dy * dy + dz * dz).sqrt();
                        let dist = 1.0 / inv[j];
                        xs[j] = o.x + dx * dist;
                        ys[j] = o.y + dy * dist;
                        zs[j] = o.z + dz * dist;
                        dists[j] = dist;
                        fogs[j] = view.light.fog(dist * len, zs[j]);
                    }
                } else if need.depth {
                    for (d, &i) in dists.iter_mut().zip(inv.iter()) {
                        *d = 1.0 / i;
                    }
                }
                let (tags, ids) = (&mut tags[at..at + n], &mut ids[at..at + n]);
                let normals = &mut normals[at..at + n];
                // Pixels seeing the same thing come in runs: each run is
                // shaded in loops of its own (one look, one kind of detail).
                let mut j = 0;
                while j < n {
                    let prim = ids[j];
                    let e = j + ids[j..].iter().take_while(|&&p| p == prim).count();
                    let run = j..e;
                    self.shade_run(
                        prim,
                        s,
                        (run.clone(), row, dr, u0),
                        (&mut tags[run.clone()], &mut ids[run.clone()]),
                        &mut normals[run],
                    );
                    j = e;
                }
                if need.depth {
                    inv.copy_from_slice(&s.dist[..n]);
                }
                if !need.colour {
                    continue;
                }
                let [hr, hg, hb] = view.light.horizon;
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

    /// Shades the pixels `run` of a chunk (its first pixel `u0` of the row
    /// whose first ray is `row`, `dr` apart), which all see `prim`: tag,
    /// actor id, normal, and the lit colour before the fog (the sky's
    /// colour, fog and infinite depth for the sky).
    fn shade_run(
        &self,
        prim: u32,
        s: &mut Scratch,
        (run, row, dr, u0): (Range<usize>, Vector3D, Vector3D, usize),
        (tags, ids): (&mut [u8], &mut [u32]),
        normals: &mut [[u8; 4]],
    ) {
        let need = self.need;
        if prim == SKY {
            if need.tag {
                tags.fill(tag::SKY);
            }
            if need.actor {
                ids.fill(0);
            }
            if need.normal {
                normals.fill(SKY_NORMAL);
            }
            if need.depth {
                s.dist[run.clone()].fill(f32::INFINITY);
            }
            if !need.colour {
                return;
            }
            let [r, g, b] = self.view.light.zenith;
            s.r[run.clone()].fill(r);
            s.g[run.clone()].fill(g);
            s.b[run.clone()].fill(b);
            // The sky's shade (as the fog): the ray through pixel `u0 + j`
            // is `row + dr·(u0 + j)`.
            let light = &self.view.light;
            for j in run {
                let d = add(row, scale(dr, (u0 + j) as i32 as f32));
                let len = length(d);
                s.fog[j] = 1.0 - (d.z / len).clamp(0.0, 1.0).sqrt();
                // The sun's disc: its colour, unfogged.
                if let Some([r, g, b]) = light.disc_along(scale(d, 1.0 / len)) {
                    (s.r[j], s.g[j], s.b[j], s.fog[j]) = (r, g, b, 0.0);
                }
            }
            return;
        }
        let look = if prim == GROUND {
            &self.ground
        } else {
            self.frame.look(prim - FIRST_FACE)
        };
        if need.tag {
            tags.fill(look.tag);
        }
        if need.actor {
            ids.fill(look.id);
        }
        if need.normal {
            normals.fill(look.normal);
        }
        if !need.colour {
            return;
        }
        let (x, y, z) = (&s.x[run.clone()], &s.y[run.clone()], &s.z[run.clone()]);
        let k = &mut s.k[run.clone()];
        look.detail.fill(x, y, z, k);
        let sun = &mut s.sun[run.clone()];
        let (r, g, b) = (&mut s.r[run.clone()], &mut s.g[run.clone()], &mut s.b[run]);
        let (lit, glass, window_z) = (look.lit, look.glass, look.window_z);
        // Where the sun may cast a shadow on this face, the sun's map
        // says how much of it each pixel gets.
        let shadows = self.sun.is_on() && look.sun_bias.is_finite();
        if shadows {
            let texel = &mut s.texel[..sun.len()];
            self.sun.sunlit_run((x, y, z), look.sun_bias, texel, sun);
        }
        // Most looks have no windows: a loop of their own (vectorized).
        if window_z == f32::INFINITY {
            if shadows {
                let dark = look.shadowed;
                for j in 0..k.len() {
                    r[j] = (shade::in_sun(dark[0], lit[0], sun[j]) * k[j]).min(255.0);
                    g[j] = (shade::in_sun(dark[1], lit[1], sun[j]) * k[j]).min(255.0);
                    b[j] = (shade::in_sun(dark[2], lit[2], sun[j]) * k[j]).min(255.0);
                }
            } else {
                for j in 0..k.len() {
                    r[j] = (lit[0] * k[j]).min(255.0);
                    g[j] = (lit[1] * k[j]).min(255.0);
                    b[j] = (lit[2] * k[j]).min(255.0);
                }
            }
        } else {
            let dark = if shadows { look.shadowed } else { lit };
            for j in 0..k.len() {
                let (c, v) = if z[j] > window_z {
                    (glass, 1.0)
                } else {
                    (lit, if shadows { sun[j] } else { 1.0 })
                };
                let d = if z[j] > window_z { glass } else { dark };
                r[j] = (shade::in_sun(d[0], c[0], v) * k[j]).min(255.0);
                g[j] = (shade::in_sun(d[1], c[1], v) * k[j]).min(255.0);
                b[j] = (shade::in_sun(d[2], c[2], v) * k[j]).min(255.0);
            }
        }
        // At night the street lamps near each point light it.
        let night = self.view.light.night;
        if night > 0.0 {
            for j in 0..k.len() {
                let p = v3(x[j], y[j], z[j]);
                let lamps = self.scene.lamps_near(p.x, p.y);
                let glow = shade::lamp_light(p, look.n, lamps) * night * k[j];
                r[j] = (r[j] + look.base[0] * shade::LAMP_RGB[0] * glow).min(255.0);
                g[j] = (g[j] + look.base[1] * shade::LAMP_RGB[1] * glow).min(255.0);
                b[j] = (b[j] + look.base[2] * shade::LAMP_RGB[2] * glow).min(255.0);
            }
        }
        if look.puddles > 0.0 {
            let [hr, hg, hb] = self.view.light.horizon;
            for j in 0..k.len() {
                if shade::puddle(x[j], y[j], look.puddles) {
                    r[j] = shade::mirror(r[j], hr);
                    g[j] = shade::mirror(g[j], hg);
                    b[j] = shade::mirror(b[j], hb);
                }
            }
        }
    }
}

/// The sky's normal (none: the zero vector, encoded).
const SKY_NORMAL: [u8; 4] = [128, 128, 128, 255];

/// Pixels resolved at a time.
const CHUNK: usize = 256;

/// Per-pixel values of one chunk (a thread's, for all its bands).
pub(super) struct Scratch {
    x: [f32; CHUNK],
    y: [f32; CHUNK],
    z: [f32; CHUNK],
    dist: [f32; CHUNK],
    fog: [f32; CHUNK],
    /// The detail's brightness factor.
    k: [f32; CHUNK],
    /// How much of the sun each pixel gets (1 lit, 0 in shadow), and the
    /// sun map's texel it looked up.
    sun: [f32; CHUNK],
    texel: [u32; CHUNK],
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
            k: [0.0; CHUNK],
            sun: [0.0; CHUNK],
            texel: [0; CHUNK],
            r: [0.0; CHUNK],
            g: [0.0; CHUNK],
            b: [0.0; CHUNK],
        }
    }
}
