//! Small geometry helpers: vector arithmetic on the library's `Vector3D`,
//! Unreal rotator axes, 2D oriented rectangles, and a seeded generator.

use carla_server::types::{Rotation3D, Vector3D};

pub(crate) fn v3(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}
pub(crate) fn add(a: Vector3D, b: Vector3D) -> Vector3D {
    v3(a.x + b.x, a.y + b.y, a.z + b.z)
}
pub(crate) fn sub(a: Vector3D, b: Vector3D) -> Vector3D {
    v3(a.x - b.x, a.y - b.y, a.z - b.z)
}
pub(crate) fn scale(a: Vector3D, k: f32) -> Vector3D {
    v3(a.x * k, a.y * k, a.z * k)
}
pub(crate) fn dot(a: Vector3D, b: Vector3D) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}
pub(crate) fn cross(a: Vector3D, b: Vector3D) -> Vector3D {
    v3(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}
pub(crate) fn length(a: Vector3D) -> f32 {
    dot(a, a).sqrt()
}
/// 1.5 · 2²³: adding it to an f32 of magnitude below 2²² rounds to an
/// integer (the spacing of floats there is 1) kept in the low mantissa bits.
const ROUNDER: f32 = 12_582_912.0;

/// `floor(x)` for |x| < 2²²: no libm call (baseline x86-64 has no rounding
/// instruction) and no branch.
#[inline(always)]
pub(crate) fn floor(x: f32) -> f32 {
    let r = (x + ROUNDER) - ROUNDER;
    r - if r > x { 1.0 } else { 0.0 }
}

/// `floor(x) as i32` for |x| < 2²², without a float-to-int conversion.
#[inline(always)]
pub(crate) fn floor_i32(x: f32) -> i32 {
    let sum = x + ROUNDER;
    let r = sum.to_bits() as i32 - ROUNDER.to_bits() as i32;
    r - i32::from(sum - ROUNDER > x)
}

#[cfg(test)]
pub(crate) fn normalize(a: Vector3D) -> Vector3D {
    let l = length(a);
    if l > 1e-12 {
        scale(a, 1.0 / l)
    } else {
        Vector3D::default()
    }
}

/// Orthonormal axes of an Unreal rotator (x forward, y right, z up; yaw
/// turns x towards y, positive pitch lifts the nose), the same convention
/// as the library's `rotate_to_world`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Axes {
    pub forward: Vector3D,
    pub right: Vector3D,
    pub up: Vector3D,
}

impl Axes {
    pub(crate) fn from_rotation(r: &Rotation3D) -> Axes {
        let (sp, cp) = r.pitch.to_radians().sin_cos();
        let (sy, cy) = r.yaw.to_radians().sin_cos();
        let (sr, cr) = r.roll.to_radians().sin_cos();
        Axes {
            forward: v3(cp * cy, cp * sy, sp),
            right: v3(sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp),
            up: v3(-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp),
        }
    }
    /// A local vector (x forward, y right, z up) in world coordinates.
    pub(crate) fn to_world(self, v: Vector3D) -> Vector3D {
        add(
            add(scale(self.forward, v.x), scale(self.right, v.y)),
            scale(self.up, v.z),
        )
    }
    /// A world vector in local coordinates.
    pub(crate) fn to_local(self, v: Vector3D) -> Vector3D {
        v3(dot(v, self.forward), dot(v, self.right), dot(v, self.up))
    }
    /// These (local) axes placed inside `parent`: the composed rotation.
    pub(crate) fn within(&self, parent: &Axes) -> Axes {
        Axes {
            forward: parent.to_world(self.forward),
            right: parent.to_world(self.right),
            up: parent.to_world(self.up),
        }
    }
}

/// A rectangle in the ground plane: centre, unit x axis (cos, sin of the
/// yaw) and half sizes along its own x and y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub cx: f32,
    pub cy: f32,
    pub cos: f32,
    pub sin: f32,
    pub hx: f32,
    pub hy: f32,
}

impl Rect {
    pub(crate) fn new(cx: f32, cy: f32, yaw_rad: f32, hx: f32, hy: f32) -> Rect {
        let (sin, cos) = yaw_rad.sin_cos();
        Rect {
            cx,
            cy,
            cos,
            sin,
            hx,
            hy,
        }
    }
    pub(crate) fn axis_aligned(min: (f32, f32), max: (f32, f32)) -> Rect {
        Rect {
            cx: (min.0 + max.0) / 2.0,
            cy: (min.1 + max.1) / 2.0,
            cos: 1.0,
            sin: 0.0,
            hx: (max.0 - min.0) / 2.0,
            hy: (max.1 - min.1) / 2.0,
        }
    }
    /// A point at local (a, b) in world coordinates.
    pub(crate) fn point(&self, a: f32, b: f32) -> (f32, f32) {
        (
            self.cx + a * self.cos - b * self.sin,
            self.cy + a * self.sin + b * self.cos,
        )
    }
    /// Half extent of the projection on a unit axis.
    fn radius(&self, ax: f32, ay: f32) -> f32 {
        self.hx * (self.cos * ax + self.sin * ay).abs()
            + self.hy * (-self.sin * ax + self.cos * ay).abs()
    }
    /// World-axis-aligned bounds `(min, max)`.
    pub(crate) fn bounds(&self) -> ((f32, f32), (f32, f32)) {
        let rx = self.radius(1.0, 0.0);
        let ry = self.radius(0.0, 1.0);
        ((self.cx - rx, self.cy - ry), (self.cx + rx, self.cy + ry))
    }
    /// Where the segment from `a` to `b` enters the rectangle, as a
    /// fraction of the segment (0 if `a` is inside), None if it misses.
    pub(crate) fn segment_entry(&self, a: (f32, f32), b: (f32, f32)) -> Option<f32> {
        // Into the rectangle's frame, then a slab test per axis.
        let local = |p: (f32, f32)| {
            let (dx, dy) = (p.0 - self.cx, p.1 - self.cy);
            (
                dx * self.cos + dy * self.sin,
                -dx * self.sin + dy * self.cos,
            )
        };
        slab_entry(local(a), local(b), self.hx, self.hy)
    }

    /// Separating-axis test of two rectangles.
    pub(crate) fn overlaps(&self, o: &Rect) -> bool {
        let (dx, dy) = (o.cx - self.cx, o.cy - self.cy);
        // Farther apart than their circumscribed circles: no overlap.
        let reach = self.hx + self.hy + o.hx + o.hy;
        if dx * dx + dy * dy > reach * reach {
            return false;
        }
        [
            (self.cos, self.sin),
            (-self.sin, self.cos),
            (o.cos, o.sin),
            (-o.sin, o.cos),
        ]
        .iter()
        .all(|&(ax, ay)| (dx * ax + dy * ay).abs() <= self.radius(ax, ay) + o.radius(ax, ay))
    }
}

/// Where the segment from `a` to `b` enters the box `[-hx, hx] × [-hy, hy]`
/// (its own frame), as a fraction of the segment (0 if `a` is inside);
/// None if it misses (a slab test per axis).
pub(crate) fn slab_entry(a: (f32, f32), b: (f32, f32), hx: f32, hy: f32) -> Option<f32> {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, d, h) in [(a.0, b.0 - a.0, hx), (a.1, b.1 - a.1, hy)] {
        if d.abs() < 1e-12 {
            if p.abs() > h {
                return None;
            }
            continue;
        }
        let (u, v) = ((-h - p) / d, (h - p) / d);
        t0 = t0.max(u.min(v));
        t1 = t1.min(u.max(v));
    }
    (t0 <= t1).then_some(t0)
}

/// The seeded generator used for the town, its traffic and its sensors'
/// noise: SplitMix64 (Steele, Lea and Flood 2014), a 64-bit state advanced
/// by a constant and mixed, so a seed gives the same draws on every
/// machine.
#[derive(Clone)]
pub(crate) struct Rng {
    state: u64,
}

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1): the top 24 bits scaled by 2⁻²⁴ (exact in f32).
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }
    /// Uniform in [lo, hi).
    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    /// Uniform integer in [0, n), n > 0.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Fisher–Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carla_server::sensor::rotate_to_world;

    #[test]
    fn the_generator_is_splitmix64() {
        // Published SplitMix64 outputs for seed 0: the town's draws are the
        // ones recorded runs were made with.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next_u64(), 0x06C4_5D18_8009_454F);
        let u: Vec<f32> = (0..10_000).map(|_| r.unit()).collect();
        assert!(u.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = u.iter().map(|&x| f64::from(x)).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.01, "{mean}");
    }

    #[test]
    fn axes_match_the_librarys_rotation() {
        let r = Rotation3D {
            pitch: -12.0,
            yaw: 33.0,
            roll: 7.0,
        };
        let a = Axes::from_rotation(&r);
        let v = v3(0.3, -1.2, 2.0);
        let (mine, lib) = (a.to_world(v), rotate_to_world(&r, v));
        assert!(length(sub(mine, lib)) < 1e-5, "{mine:?} vs {lib:?}");
        assert!(length(sub(a.to_local(mine), v)) < 1e-5);
    }

    #[test]
    fn floor_without_libm_is_floor() {
        let mut rng = Rng::new(3);
        let special = [
            0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 3.0, 1e-7, -1e-7, 4e6, -4e6,
        ];
        let random = (0..100_000).map(|_| rng.range(-5000.0, 5000.0));
        for x in special.into_iter().chain(random) {
            assert_eq!(floor(x), x.floor(), "{x}");
            assert_eq!(floor_i32(x), x.floor() as i32, "{x}");
        }
    }

    #[test]
    fn a_segment_enters_a_rectangle_where_it_crosses_its_edge() {
        let r = Rect::new(10.0, 0.0, std::f32::consts::FRAC_PI_2, 2.0, 1.0);
        // Turned 90°: 2 m half length along y, 1 m along x.
        let t = r.segment_entry((0.0, 0.0), (20.0, 0.0)).unwrap();
        assert!((t - 0.45).abs() < 1e-5, "{t}");
        assert_eq!(r.segment_entry((0.0, 3.0), (20.0, 3.0)), None);
        assert_eq!(r.segment_entry((0.0, 0.0), (8.0, 0.0)), None, "stops short");
        assert_eq!(
            r.segment_entry((10.0, 0.0), (20.0, 0.0)),
            Some(0.0),
            "starts inside"
        );
    }

    #[test]
    fn rectangles_overlap_by_separating_axes() {
        let a = Rect::new(0.0, 0.0, 0.0, 2.0, 1.0);
        assert!(a.overlaps(&Rect::new(3.5, 0.0, 0.0, 2.0, 1.0)));
        assert!(!a.overlaps(&Rect::new(4.5, 0.0, 0.0, 2.0, 1.0)));
        // Rotated 45°: the corner reaches 2.0 + 1.41 on x.
        let b = Rect::new(3.3, 0.0, std::f32::consts::FRAC_PI_4, 1.0, 1.0);
        assert!(a.overlaps(&b));
        assert!(!a.overlaps(&Rect::new(3.5, 0.0, std::f32::consts::FRAC_PI_4, 1.0, 1.0)));
        let (min, max) = b.bounds();
        assert!((max.0 - min.0 - 2.0 * 2f32.sqrt()).abs() < 1e-5);
    }
}
