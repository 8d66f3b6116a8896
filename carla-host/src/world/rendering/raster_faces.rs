//! The rasterizer's set-up (see [`super`]): triangles and boxes to faces
//! on the screen, each with its inverse-depth plane and its look.

use super::frame::MAX_PLACE;
use super::{BAND, NEAR};
use crate::world::math::{add, dot, floor, floor_i32, scale, sub, v3, Axes};
use crate::world::rendering::light::Lighting;
use crate::world::rendering::shade::{self, Detail};
use crate::world::rendering::shadow::SunMap;
use crate::world::scene::tags::tag;
use crate::world::scene::{Block, Scene};
use carla_server::types::Vector3D;

/// Whether paired triangles are drawn as one quad (`true`, the default) or
/// as their two triangles, for the benchmark to compare.
static QUADS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

fn quads() -> bool {
    QUADS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Makes the camera draw paired triangles as one quad or as two.
pub(crate) fn draw_quads(on: bool) {
    QUADS.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// A box to draw: what it is and its colour.
#[derive(Clone, Copy, Debug)]
pub(super) struct Solid {
    pub(super) tag: u8,
    pub(super) albedo: [u8; 3],
    pub(super) id: u32,
    /// Side faces above this height are windows.
    pub(super) window_z: f32,
}

/// How a face (or a ground class) looks, worked out once per image.
#[derive(Clone, Copy, Debug)]
pub(super) struct Look {
    pub(super) tag: u8,
    pub(super) id: u32,
    pub(super) detail: Detail,
    /// Albedo × light (× wetness), RGB; in the sun's shadow `shadowed`.
    pub(super) lit: [f32; 3],
    pub(super) shadowed: [f32; 3],
    /// The shadow map's depth tolerance ([`SunMap::bias`]); infinite when
    /// the face is turned from the sun (no shadow to find).
    pub(super) sun_bias: f32,
    /// The share of it puddles cover (0: none, or not a road).
    pub(super) puddles: f32,
    /// Albedo × wetness, RGB (what a street lamp's light lights), and
    /// the unit normal.
    pub(super) base: [f32; 3],
    pub(super) n: Vector3D,
    /// Above `window_z`, `glass` instead of `lit`.
    pub(super) window_z: f32,
    pub(super) glass: [f32; 3],
    /// The world normal as the normals camera encodes it (BGRA).
    pub(super) normal: [u8; 4],
}

impl Look {
    pub(super) fn new(s: &Solid, n: Vector3D, l: &Lighting) -> Look {
        let side = n.z == 0.0;
        Look {
            tag: s.tag,
            id: s.id,
            detail: Detail::of(s.tag, n),
            lit: shade::lit(s.albedo, n, s.tag, l),
            shadowed: shade::shadowed(s.albedo, n, s.tag, l),
            base: shade::base(s.albedo, s.tag, l),
            n,
            sun_bias: match l.sun_cos(n) {
                c if c > 0.0 => SunMap::bias(c),
                _ => f32::INFINITY,
            },
            puddles: if shade::puddles_on(s.tag, n) {
                l.puddles
            } else {
                0.0
            },
            window_z: if side { s.window_z } else { f32::INFINITY },
            glass: shade::lit(shade::WINDOW, n, tag::VEHICLES, l),
            normal: shade::normal_bgra(n),
        }
    }
}

/// A face projected on the screen (pixel units: x right, y down, pixel
/// `(u, v)`'s centre at `(u + ½, v + ½)`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Face {
    /// Inverse planar depth at `(x, y)`: `w0 + wx·x + wy·y`.
    pub(super) w0: f32,
    pub(super) wx: f32,
    pub(super) wy: f32,
    /// Rows whose centres the polygon may cover, inclusive.
    pub(super) v0: usize,
    pub(super) v1: usize,
    pub(super) n: usize,
    pub(super) pts: [(f32, f32); 8],
    /// `dx/dy` of the edge from point `i − 1` to point `i` (0 when
    /// level), worked out once so rows need no division.
    pub(super) slopes: [f32; 8],
}

/// The faces of one image and their looks (in the same order).
#[derive(Default)]
pub(crate) struct Faces {
    pub(super) faces: Vec<Face>,
    pub(super) looks: Vec<Look>,
}

impl Faces {
    pub(super) fn clear(&mut self) {
        self.faces.clear();
        self.looks.clear();
    }
    /// Adds a face (none past [`MAX_PLACE`]: the rest are not drawn).
    fn push(&mut self, f: Face, look: Look) {
        if self.faces.len() < MAX_PLACE {
            self.faces.push(f);
            self.looks.push(look);
        }
    }
}

impl Face {
    /// Pixel columns `u0..u1` whose centres lie in the polygon, for each
    /// row `v` of `ra..=rb` (at most [`BAND`] rows) into `out[v − ra]`
    /// (`u0 == u1` for none). Edge by edge, each over its own rows only:
    /// no branch per row.
    #[inline(always)]
    pub(super) fn spans(&self, ra: usize, rb: usize, width: usize, out: &mut [(u32, u32); BAND]) {
        let mut lo = [f32::INFINITY; BAND];
        let mut hi = [f32::NEG_INFINITY; BAND];
        let (top, bottom) = (ra as f32, rb as f32);
        let mut a = self.pts[self.n - 1];
        for (&b, &slope) in self.pts[..self.n].iter().zip(&self.slopes) {
            let (ylo, yhi) = if a.1 <= b.1 { (a.1, b.1) } else { (b.1, a.1) };
            // Rows whose centres `v + ½` lie in [ylo, yhi], clamped to
            // the band first (the subtraction and `floor` are exact
            // there). A level edge's rows are its neighbours' ends.
            let first = -floor_i32(-within(ylo - 0.5, top, bottom + 1.0));
            let last = floor_i32(within(yhi - 0.5, top - 1.0, bottom));
            if a.1 != b.1 && first <= last {
                // From the end nearer these rows: a vertex clipped at the
                // near plane may lie millions of pixels away.
                let mid = (first + last) as f32 * 0.5 + 0.5;
                let p = if (mid - a.1).abs() <= (mid - b.1).abs() {
                    a
                } else {
                    b
                };
                let y0 = top + 0.5 - p.1;
                for i in (first as usize - ra)..=(last as usize - ra) {
                    let x = p.0 + (y0 + i as i32 as f32) * slope;
                    let i = i % BAND;
                    lo[i] = if x < lo[i] { x } else { lo[i] };
                    hi[i] = if x > hi[i] { x } else { hi[i] };
                }
            }
            a = b;
        }
        let w = width as f32;
        for ((o, &lo), &hi) in out.iter_mut().zip(&lo).zip(&hi).take(rb + 1 - ra) {
            // Centres u + ½ in [lo, hi], clamped to the row first (where
            // `floor_i32` is exact and needs no conversion); empty when
            // lo > hi.
            let u0 = -floor_i32(-within(lo - 0.5, 0.0, w));
            let u1 = floor_i32(within(hi + 0.5, 0.0, w));
            *o = (u0 as u32, u1.max(u0) as u32);
        }
    }
}

/// `x` clamped to [lo, hi] with plain comparisons (one instruction each;
/// `f32::clamp` also orders NaN, which cannot reach here: +-inf at most).
#[inline(always)]
fn within(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x > lo { x } else { lo };
    if x < hi {
        x
    } else {
        hi
    }
}

/// The camera and image, in the form the set-up and the bands use.
pub(super) struct View {
    /// The weather's light on this image.
    pub(super) light: Lighting,
    /// The far plane, metres: nothing beyond it is drawn.
    pub(super) far: f32,
    pub(super) o: Vector3D,
    pub(super) axes: Axes,
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) tan: f32,
    pub(super) tan_v: f32,
    pub(super) step: f32,
}

impl View {
    /// The world direction through pixel coordinates `(x, y)`.
    pub(super) fn ray(&self, x: f32, y: f32) -> Vector3D {
        let a = &self.axes;
        let (xs, ys) = (x * self.step - self.tan, y * self.step - self.tan_v);
        sub(add(a.forward, scale(a.right, xs)), scale(a.up, ys))
    }
    /// The `1/t` plane of the world plane through `p` with normal `n`.
    pub(super) fn plane(&self, n: Vector3D, p: Vector3D) -> Option<(f32, f32, f32)> {
        let k = dot(n, sub(p, self.o));
        if k.abs() < 1e-12 {
            return None;
        }
        let c = self.axes.to_local(n);
        Some((
            (c.x - c.y * self.tan + c.z * self.tan_v) / k,
            c.y * self.step / k,
            -c.z * self.step / k,
        ))
    }

    /// Adds the faces seen of the triangles and static boxes of `blocks`
    /// (a block outside the frustum skipped whole).
    pub(super) fn add_blocks(&self, scene: &Scene, blocks: &[Block], faces: &mut Faces) {
        for block in blocks {
            let (lo, hi) = (block.min, block.max);
            let corners: [Vector3D; 8] = std::array::from_fn(|i| {
                let p = v3(
                    if i & 1 == 0 { lo.x } else { hi.x },
                    if i & 2 == 0 { lo.y } else { hi.y },
                    if i & 4 == 0 { lo.z } else { hi.z },
                );
                self.axes.to_local(sub(p, self.o))
            });
            if self.culled(&corners) {
                continue;
            }
            for p in &block.polys {
                let m = scene.material(p.material);
                let solid = Solid {
                    tag: m.tag,
                    albedo: m.albedo,
                    id: 0,
                    window_z: f32::INFINITY,
                };
                if p.n == 3 || quads() {
                    self.add_poly(p.points(), p.normal, &solid, faces);
                } else {
                    // The pair as its two triangles (the benchmark's
                    // baseline).
                    let [a, b, c, d] = p.corners;
                    self.add_poly(&[a, b, c], p.normal, &solid, faces);
                    self.add_poly(&[a, c, d], p.normal, &solid, faces);
                }
            }
            for &i in &block.boxes {
                let i = i as usize;
                let b = &scene.static_bounds()[i];
                let (tag, albedo) = scene.static_look(i);
                let solid = Solid {
                    tag,
                    albedo,
                    id: scene.static_actor(i),
                    window_z: f32::INFINITY,
                };
                let p = v3(b[0], b[1], b[2]);
                let e = [
                    v3(b[3] - b[0], 0.0, 0.0),
                    v3(0.0, b[4] - b[1], 0.0),
                    v3(0.0, 0.0, b[5] - b[2]),
                ];
                self.add_box(p, e, &solid, faces);
            }
        }
    }

    /// Adds the faces seen of the scene's actors but `ignore`.
    pub(super) fn add_actors(&self, scene: &Scene, ignore: u32, faces: &mut Faces) {
        for a in scene.actors().iter().filter(|a| a.id != ignore) {
            let r = &a.rect;
            let (ex, ey) = (v3(r.cos, r.sin, 0.0), v3(-r.sin, r.cos, 0.0));
            let corner = add(scale(ex, -r.hx), scale(ey, -r.hy));
            let p = add(v3(r.cx, r.cy, a.z0), corner);
            let e = [
                scale(ex, 2.0 * r.hx),
                scale(ey, 2.0 * r.hy),
                v3(0.0, 0.0, a.z1 - a.z0),
            ];
            let parts = scene.parts_of(a);
            if !parts.is_empty() {
                // The pieces lie in the box: none is seen if it is not.
                if self.box_culled(p, e) {
                    continue;
                }
                for p in parts {
                    let solid = Solid {
                        tag: p.tag,
                        albedo: p.albedo,
                        id: a.id,
                        window_z: f32::INFINITY,
                    };
                    let (corner, e) = p.edges();
                    self.add_box(corner, e, &solid, faces);
                }
                continue;
            }
            let solid = Solid {
                tag: a.tag,
                albedo: a.albedo,
                id: a.id,
                window_z: a.window_z,
            };
            self.add_box(p, e, &solid, faces);
        }
    }

    /// Whether camera-space points all lie outside one plane of the view
    /// frustum (or beyond the far plane).
    #[inline]
    fn culled(&self, qs: &[Vector3D]) -> bool {
        let (tan, tan_v) = (self.tan, self.tan_v);
        // A bit per plane the point lies outside of; the points share one.
        let outside = |q: &Vector3D| {
            u8::from(q.x < NEAR)
                | u8::from(q.x > self.far) << 1
                | u8::from(q.y > tan * q.x) << 2
                | u8::from(q.y < -tan * q.x) << 3
                | u8::from(q.z > tan_v * q.x) << 4
                | u8::from(q.z < -tan_v * q.x) << 5
        };
        qs.iter().fold(0x3F, |all, q| all & outside(q)) != 0
    }

    /// World point `p` in camera space.
    #[inline(always)]
    fn local(&self, p: Vector3D) -> Vector3D {
        self.axes.to_local(sub(p, self.o))
    }

    /// Whether camera-space polygon `q`, wholly in front of the near
    /// plane, surely covers no pixel centre: its screen box holds no row
    /// or no column of centres (most triangles of a town far away). One
    /// division a corner, where [`View::project`] takes a dozen; the box
    /// is widened by `MARGIN` pixels, far more than the two computations'
    /// rounding apart, so a polygon `project` would draw is never left
    /// out here.
    #[inline]
    pub(super) fn between_centres(&self, q: &[Vector3D]) -> bool {
        const MARGIN: f32 = 0.01;
        /// Beyond this (pixels) `floor` is not exact: no verdict.
        const FAR_OFF: f32 = 1e6;
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for p in q {
            if p.x < NEAR {
                return false;
            }
            let r = 1.0 / p.x;
            let at = [
                (p.y * r + self.tan) / self.step,
                (-p.z * r + self.tan_v) / self.step,
            ];
            for k in 0..2 {
                lo[k] = lo[k].min(at[k]);
                hi[k] = hi[k].max(at[k]);
            }
        }
        (0..2).any(|k| {
            let (a, b) = (lo[k] - MARGIN - 0.5, hi[k] + MARGIN - 0.5);
            // No integer u with a <= u <= b (centres u + ½ in the box).
            a.abs() < FAR_OFF && b.abs() < FAR_OFF && -floor(-a) > floor(b)
        })
    }

    /// Adds flat convex polygon `c` (3 or 4 world corners, unit normal
    /// `n`) if seen.
    pub(super) fn add_poly(&self, c: &[Vector3D], n: Vector3D, solid: &Solid, faces: &mut Faces) {
        // Written out: `c.map(..)` was left a call per corner.
        let mut q = [Vector3D::default(); 4];
        for (q, &p) in q.iter_mut().zip(c) {
            *q = self.local(p);
        }
        let q = &q[..c.len()];
        if self.culled(q) || self.between_centres(q) {
            return;
        }
        let Some(w) = self.plane(n, c[0]) else {
            return;
        };
        // Lit from the side the camera sees.
        let seen = if dot(n, sub(self.o, c[0])) < 0.0 {
            scale(n, -1.0)
        } else {
            n
        };
        if let Some(f) = self.project(q, w) {
            faces.push(f, Look::new(solid, seen, &self.light));
        }
    }

    /// The camera-space corners of box `p + s·e[0] + t·e[1] + r·e[2]`
    /// (corner `i` takes `e[k]` when bit `k` of `i` is set).
    fn box_corners(&self, p: Vector3D, e: [Vector3D; 3]) -> [Vector3D; 8] {
        let q0 = self.axes.to_local(sub(p, self.o));
        let qe = e.map(|v| self.axes.to_local(v));
        std::array::from_fn(|i: usize| {
            let mut q = q0;
            for (k, v) in qe.iter().enumerate() {
                if i >> k & 1 == 1 {
                    q = add(q, *v);
                }
            }
            q
        })
    }

    /// Whether box `p + s·e[0] + t·e[1] + r·e[2]` lies wholly outside the
    /// view.
    fn box_culled(&self, p: Vector3D, e: [Vector3D; 3]) -> bool {
        self.culled(&self.box_corners(p, e))
    }

    /// Adds the faces seen of box `p + s·e[0] + t·e[1] + r·e[2]` (s, t,
    /// r in [0, 1], `e` orthogonal).
    pub(super) fn add_box(&self, p: Vector3D, e: [Vector3D; 3], solid: &Solid, faces: &mut Faces) {
        let qs = self.box_corners(p, e);
        if self.culled(&qs) {
            return;
        }
        let rel = sub(self.o, p);
        for (k, ek) in e.iter().enumerate() {
            let len2 = dot(*ek, *ek);
            if len2 <= 0.0 {
                return;
            }
            let c = dot(rel, *ek) / len2;
            let side = if c < 0.0 {
                0
            } else if c > 1.0 {
                1
            } else {
                continue;
            };
            let (a, b) = ((k + 1) % 3, (k + 2) % 3);
            let base = side << k;
            let quad = [base, base | 1 << a, base | 1 << a | 1 << b, base | 1 << b].map(|i| qs[i]);
            let sign = if side == 1 { 1.0 } else { -1.0 };
            let normal = scale(*ek, sign / len2.sqrt());
            let on_face = if side == 1 { add(p, *ek) } else { p };
            let Some((w0, wx, wy)) = self.plane(normal, on_face) else {
                continue;
            };
            if let Some(f) = self.project(&quad, (w0, wx, wy)) {
                faces.push(f, Look::new(solid, normal, &self.light));
            }
        }
    }

    /// Clips a camera-space convex polygon (3 or 4 corners) at the near
    /// plane and projects it.
    pub(super) fn project(&self, quad: &[Vector3D], w: (f32, f32, f32)) -> Option<Face> {
        let mut f = Face {
            w0: w.0,
            wx: w.1,
            wy: w.2,
            v0: 0,
            v1: 0,
            n: 0,
            pts: [(0.0, 0.0); 8],
            slopes: [0.0; 8],
        };
        let mut push = |q: Vector3D| {
            let x = (q.y / q.x + self.tan) / self.step;
            let y = (-q.z / q.x + self.tan_v) / self.step;
            f.pts[f.n] = (x, y);
            f.n += 1;
        };
        let mut a = quad[quad.len() - 1];
        for &b in quad {
            let (ina, inb) = (a.x >= NEAR, b.x >= NEAR);
            if ina != inb {
                let s = (NEAR - a.x) / (b.x - a.x);
                let mut q = add(a, scale(sub(b, a), s));
                q.x = NEAR;
                push(q);
            }
            if inb {
                push(b);
            }
            a = b;
        }
        if f.n < 3 {
            return None;
        }
        let mut a = f.pts[f.n - 1];
        for i in 0..f.n {
            let b = f.pts[i];
            f.slopes[i] = if a.1 == b.1 {
                0.0
            } else {
                (b.0 - a.0) / (b.1 - a.1)
            };
            a = b;
        }
        let pts = &f.pts[..f.n];
        let (ylo, yhi) = pts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                (l.min(p.1), h.max(p.1))
            });
        let (xlo, xhi) = pts
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), p| {
                (l.min(p.0), h.max(p.0))
            });
        let (w, h) = (self.width as f32, self.height as f32);
        if xhi < 0.5 || xlo > w - 0.5 || yhi < 0.5 || ylo > h - 0.5 {
            return None;
        }
        // Clamped to the image first (where `floor_i32` is exact and needs
        // no libm call); yhi ≥ ½ and ylo ≤ h − ½ here.
        f.v0 = -floor_i32(-within(ylo - 0.5, 0.0, h)) as usize;
        f.v1 = floor_i32(within(yhi - 0.5, 0.0, h - 1.0)) as usize;
        // A face between two columns of pixel centres covers none (far
        // away, most faces of a town are that small).
        let u0 = -floor_i32(-within(xlo - 0.5, 0.0, w));
        let u1 = floor_i32(within(xhi - 0.5, -1.0, w - 1.0));
        (f.v0 <= f.v1 && u0 <= u1).then_some(f)
    }
}
