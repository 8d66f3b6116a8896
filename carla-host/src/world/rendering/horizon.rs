//! An angular map of the scene around one viewpoint, built once per camera
//! image: for each azimuth bin, the nearest horizontal distance of any box
//! seen in that bin and the highest elevation (rise over run) any of them
//! reaches. A ray from the viewpoint whose elevation passes over every box
//! of its bin can only meet the ground or the sky; any other ray can start
//! its grid traversal at the bin's nearest distance. Both are conservative,
//! so the image is the same as with plain ray casts (a test checks it),
//! only faster: sky and far rays skip most of the traversal.

use crate::world::math::Rect;
use crate::world::scene::Scene;
use carla_server::types::Vector3D;

/// Azimuth bins over the full turn.
const BINS: usize = 4096;
const PER_UNIT: f32 = BINS as f32 / 4.0;

/// A pseudo-angle of `(x, y)` in [0, 4): 0 along +x, 1 along +y, 2 along
/// −x, 3 along −y, monotonic in the true angle in between (one division,
/// no trigonometry).
pub(crate) fn pseudo_angle(x: f32, y: f32) -> f32 {
    let s = x.abs() + y.abs();
    if s == 0.0 {
        return 0.0;
    }
    let p = y / s;
    if x >= 0.0 {
        if p >= 0.0 {
            p
        } else {
            4.0 + p
        }
    } else {
        2.0 - p
    }
}

pub(crate) struct Horizon {
    origin: Vector3D,
    near: Vec<f32>,
    rise: Vec<f32>,
}

impl Horizon {
    /// The map of `scene` seen from `origin`, leaving actor `ignore` out.
    pub(crate) fn new(scene: &Scene, origin: Vector3D, ignore: u32) -> Horizon {
        let mut h = Horizon {
            origin,
            near: vec![f32::INFINITY; BINS],
            rise: vec![f32::NEG_INFINITY; BINS],
        };
        scene.for_each_footprint(ignore, |r, top| h.add(r, top));
        h
    }

    fn add(&mut self, r: &Rect, top: f32) {
        let o = self.origin;
        let (dx, dy) = (o.x - r.cx, o.y - r.cy);
        let (lx, ly) = (dx * r.cos + dy * r.sin, -dx * r.sin + dy * r.cos);
        let (ex, ey) = ((lx.abs() - r.hx).max(0.0), (ly.abs() - r.hy).max(0.0));
        let near = (ex * ex + ey * ey).sqrt();
        let corners = [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)]
            .map(|(a, b)| r.point(a * r.hx, b * r.hy))
            .map(|(x, y)| (x - o.x, y - o.y));
        let far = corners.iter().map(|c| c.0.hypot(c.1)).fold(0.0, f32::max);
        let up = top - o.z;
        let rise = if up <= 0.0 {
            up / far.max(1e-6)
        } else if near > 0.0 {
            up / near
        } else {
            f32::INFINITY
        };
        // Slightly generous, against rounding.
        let (near, rise) = ((near - 0.01).max(0.0), rise + 1e-3);
        let (first, last) = if near == 0.0 {
            (0, BINS as i64 - 1)
        } else {
            let centre = pseudo_angle(r.cx - o.x, r.cy - o.y);
            let (mut lo, mut hi) = (0.0f32, 0.0f32);
            for (x, y) in corners {
                let mut rel = pseudo_angle(x, y) - centre;
                if rel > 2.0 {
                    rel -= 4.0;
                } else if rel <= -2.0 {
                    rel += 4.0;
                }
                (lo, hi) = (lo.min(rel), hi.max(rel));
            }
            let bin = |a: f32| ((centre + a) * PER_UNIT).floor() as i64;
            (
                bin(lo) - 1,
                (bin(hi) + 1).min(bin(lo) - 1 + BINS as i64 - 1),
            )
        };
        for b in first..=last {
            let b = b.rem_euclid(BINS as i64) as usize;
            self.near[b] = self.near[b].min(near);
            self.rise[b] = self.rise[b].max(rise);
        }
    }

    /// Where a ray from the viewpoint along `d` may first meet a box, in
    /// units of `|d|`: infinity when it passes over everything.
    pub(crate) fn start(&self, d: Vector3D) -> f32 {
        let h2 = d.x * d.x + d.y * d.y;
        if h2 < 1e-12 {
            return 0.0;
        }
        let b = ((pseudo_angle(d.x, d.y) * PER_UNIT) as usize).min(BINS - 1);
        let run = h2.sqrt();
        if d.z > self.rise[b] * run {
            f32::INFINITY
        } else {
            self.near[b] / run
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_angle_is_monotonic_round_the_turn() {
        let mut last = -1.0;
        for k in 0..3600 {
            let a = (k as f32 * 0.1).to_radians();
            let p = pseudo_angle(a.cos(), a.sin());
            assert!((0.0..4.0).contains(&p));
            assert!(p > last || k == 0, "{k}: {p} after {last}");
            last = p;
        }
        assert_eq!(pseudo_angle(0.0, 1.0), 1.0);
        assert_eq!(pseudo_angle(-1.0, 0.0), 2.0);
        assert_eq!(pseudo_angle(0.0, -1.0), 3.0);
    }
}
