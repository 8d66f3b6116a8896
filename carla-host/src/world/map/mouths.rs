//! What lies where a road with sidewalks enters a junction: a crosswalk
//! across it (its last [`CROSSWALK`] metres, from one sidewalk's inner edge
//! to the other's), and a sidewalk corner between two roads that meet
//! there (from the end of one road's sidewalk round to the next road's,
//! out to where their outer edges meet). Walkers cross on the first and
//! turn the corner on the second (both are in their navigation mesh); the
//! scene paves the corners as sidewalk, at the sidewalks' height.

use super::import::inward_is_left;
use super::lanes::{Lane, LaneIx, LaneKind, Lanes};
use std::collections::{BTreeMap, HashMap};
use std::f32::consts::PI;

/// Depth of a crosswalk along its road, metres.
pub(crate) const CROSSWALK: f32 = 3.0;
/// The pieces a crosswalk (and the sidewalk beside it) is cut into along
/// the road: their sides are chords of a curved sidewalk's edge, short
/// enough to stay within a centimetre of it on a 10 m curve.
pub(crate) const CROSSWALK_PIECES: usize = 4;
/// How far out a corner may reach from its sidewalks' ends, metres.
const CORNER_REACH: f32 = 25.0;

/// A sidewalk's end at a junction.
#[derive(Clone, Copy, Debug)]
struct End {
    road: u32,
    /// Its inner (road side) and outer corner, at the sidewalks' height.
    inner: [f32; 3],
    outer: [f32; 3],
    /// The way into the junction, a unit vector in the ground plane.
    into: (f32, f32),
}

/// Crosswalks and corners, as polygons at the sidewalks' height.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Mouths {
    /// Four corners each: the two sidewalks' inner edges, at the junction
    /// and `CROSSWALK` back.
    pub crosswalks: Vec<[[f32; 3]; 4]>,
    /// The same crosswalks in [`CROSSWALK_PIECES`] quads each, from the
    /// junction back, on the points the sidewalks beside them are cut at
    /// (the walkers' mesh joins polygons that share an edge).
    pub crosswalk_pieces: Vec<[[f32; 3]; 4]>,
    /// Convex polygons of 4 or 5 corners, running round from one
    /// sidewalk's end to the other's.
    pub corners: Vec<Vec<[f32; 3]>>,
    /// Per junction with sidewalks round it, its floor at the road's
    /// height: the convex hull of its sidewalks' inner ends (what the
    /// lanes crossing it leave bare between them and the corners).
    pub floors: Vec<Vec<[f32; 3]>>,
}

/// A lane's inner (towards the road's centre) and outer border at `d`.
fn edges(l: &Lane, d: f32, lift: f32) -> ([f32; 3], [f32; 3]) {
    let (left, right) = l.borders(d, lift);
    if inward_is_left(l) {
        (left, right)
    } else {
        (right, left)
    }
}

/// The crosswalks and corners of `lanes`, sidewalks standing `lift` high.
pub(crate) fn mouths(lanes: &Lanes, lift: f32) -> Mouths {
    let mut out = Mouths::default();
    // Sidewalks by (road, section).
    let mut by_section: BTreeMap<(u32, u32), Vec<LaneIx>> = BTreeMap::new();
    for (i, l) in lanes.lanes.iter().enumerate() {
        if l.kind == LaneKind::Sidewalk
            && l.junction.is_none()
            && l.length() > 2.0 * CROSSWALK + 0.5
        {
            by_section
                .entry((l.road, l.section))
                .or_default()
                .push(i as LaneIx);
        }
    }
    // Sidewalk ends by junction.
    let mut ends: HashMap<u32, Vec<End>> = HashMap::new();
    for (&(road, section), walks) in &by_section {
        let side = |positive: bool| {
            walks
                .iter()
                .copied()
                .filter(|&i| (lanes.lane(i).od_lane > 0) == positive)
                .min_by_key(|&i| lanes.lane(i).od_lane.abs())
        };
        for at_start in [true, false] {
            let Some(junction) = meets(lanes, road, section, at_start) else {
                continue;
            };
            let here: Vec<(LaneIx, f32, f32)> = [side(true), side(false)]
                .into_iter()
                .flatten()
                .map(|i| {
                    let l = lanes.lane(i);
                    // In `s` order: a reversed lane's start is the road's end.
                    let at_lane_start = at_start != l.reversed;
                    if at_lane_start {
                        (i, 0.0, CROSSWALK)
                    } else {
                        (i, l.length(), l.length() - CROSSWALK)
                    }
                })
                .collect();
            if let [(a, a0, a1), (b, b0, b1)] = here[..] {
                let (la, lb) = (lanes.lane(a), lanes.lane(b));
                out.crosswalks.push([
                    edges(la, a0, lift).0,
                    edges(lb, b0, lift).0,
                    edges(lb, b1, lift).0,
                    edges(la, a1, lift).0,
                ]);
                // The cuts of `walkable::cuts`: the same expression, so the
                // same points.
                let at = |l: &Lane, from: f32, to: f32, k: usize| {
                    let d = if k == 0 {
                        from
                    } else if k == CROSSWALK_PIECES {
                        to
                    } else {
                        piece_cut(from, to, k)
                    };
                    edges(l, d, lift).0
                };
                for k in 0..CROSSWALK_PIECES {
                    out.crosswalk_pieces.push([
                        at(la, a0, a1, k),
                        at(lb, b0, b1, k),
                        at(lb, b0, b1, k + 1),
                        at(la, a0, a1, k + 1),
                    ]);
                }
            }
            for (i, d, _) in here {
                let l = lanes.lane(i);
                let (inner, outer) = edges(l, d, lift);
                let yaw = l.pose(d).yaw + if d == 0.0 { PI } else { 0.0 };
                ends.entry(junction).or_default().push(End {
                    road,
                    inner,
                    outer,
                    into: (yaw.cos(), yaw.sin()),
                });
            }
        }
    }
    let mut junctions: Vec<u32> = ends.keys().copied().collect();
    junctions.sort_unstable();
    for j in junctions {
        let centre = lanes.junctions[j as usize].centre;
        let mut e = ends.remove(&j).unwrap_or_default();
        let angle = |x: &End| {
            let mx = (x.inner[0] + x.outer[0]) / 2.0 - centre[0];
            let my = (x.inner[1] + x.outer[1]) / 2.0 - centre[1];
            my.atan2(mx)
        };
        e.sort_by(|a, b| angle(a).total_cmp(&angle(b)));
        let inner: Vec<[f32; 3]> = e
            .iter()
            .map(|x| [x.inner[0], x.inner[1], x.inner[2] - lift])
            .collect();
        let floor = hull(&inner);
        if floor.len() >= 3 && convex(&floor) {
            out.floors.push(floor);
        }
        for k in 0..e.len() {
            let (a, b) = (e[k], e[(k + 1) % e.len()]);
            if a.road == b.road || e.len() < 2 {
                continue;
            }
            let corner = corner(&a, &b)
                .filter(|p| off_the_lanes(lanes, p, lift) && !on_a_sidewalk(lanes, p, lift));
            if let Some(poly) = corner {
                out.corners.push(poly);
            }
        }
    }
    out
}

/// Where the `k`-th of [`CROSSWALK_PIECES`] cuts between a crosswalk's
/// ends `from` and `to` (distances along a sidewalk) lies.
pub(crate) fn piece_cut(from: f32, to: f32, k: usize) -> f32 {
    from + (to - from) * (k as f32 / CROSSWALK_PIECES as f32)
}

/// The junction the given end of a road section's driving lanes meets.
fn meets(lanes: &Lanes, road: u32, section: u32, at_start: bool) -> Option<u32> {
    lanes.lanes.iter().find_map(|l| {
        if l.road != road || l.section != section || l.kind != LaneKind::Driving {
            return None;
        }
        let toward_end = !l.reversed;
        let links = if at_start == toward_end {
            &l.predecessors
        } else {
            &l.successors
        };
        links.iter().find_map(|&n| lanes.lane(n).junction)
    })
}

/// The corner from sidewalk end `a` round to `b`: out to where their
/// outer edges, carried on into the junction, meet; `None` when they do
/// not meet near, or the polygon would not be convex.
fn corner(a: &End, b: &End) -> Option<Vec<[f32; 3]>> {
    // a.outer + s·a.into = b.outer + t·b.into.
    let (dx, dy) = (b.outer[0] - a.outer[0], b.outer[1] - a.outer[1]);
    let det = a.into.0 * -b.into.1 + b.into.0 * a.into.1;
    let meet = (det.abs() > 1e-3).then(|| {
        let s = (dx * -b.into.1 + b.into.0 * dy) / det;
        let t = (a.into.0 * dy - a.into.1 * dx) / det;
        (s, t)
    });
    let poly = match meet {
        Some((s, t)) if (0.0..CORNER_REACH).contains(&s) && (0.0..CORNER_REACH).contains(&t) => {
            let z = (a.outer[2] + b.outer[2]) / 2.0;
            let p = [a.outer[0] + a.into.0 * s, a.outer[1] + a.into.1 * s, z];
            vec![a.inner, a.outer, p, b.outer, b.inner]
        }
        _ => vec![a.inner, a.outer, b.outer, b.inner],
    };
    // Outer edges that meet where they end: one point, not three.
    let mut poly: Vec<[f32; 3]> = poly;
    poly.dedup_by(|q, p| (q[0] - p[0]).hypot(q[1] - p[1]) < 0.01);
    (poly.len() >= 3 && convex(&poly)).then_some(poly)
}

/// The convex hull of points in the ground plane (anticlockwise seen
/// from above in CARLA's frame, whose y points right), heights kept.
fn hull(points: &[[f32; 3]]) -> Vec<[f32; 3]> {
    let mut p = points.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup_by(|a, b| (a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3);
    if p.len() < 3 {
        return p;
    }
    let cross = |o: [f32; 3], a: [f32; 3], b: [f32; 3]| {
        (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    };
    let mut h: Vec<[f32; 3]> = Vec::new();
    for pass in [false, true] {
        let start = h.len();
        let it: Box<dyn Iterator<Item = &[f32; 3]>> = if pass {
            Box::new(p.iter().rev())
        } else {
            Box::new(p.iter())
        };
        for &q in it {
            while h.len() >= start + 2 && cross(h[h.len() - 2], h[h.len() - 1], q) <= 0.0 {
                h.pop();
            }
            h.push(q);
        }
        h.pop();
    }
    h
}

/// Whether a corner keeps off the driving lanes (a skewed junction's
/// outer edges may meet across one, two sidewalks may face each other
/// across a road): its centre and points along its edges (a quarter, half
/// and three quarters along, pulled a little inwards) have no driving
/// lane under them, whatever else lies there.
fn off_the_lanes(lanes: &Lanes, p: &[[f32; 3]], lift: f32) -> bool {
    let n = p.len() as f32;
    let centre = [0, 1, 2].map(|k| p.iter().map(|q| q[k]).sum::<f32>() / n);
    let along = (0..p.len()).flat_map(|i| {
        let (a, b) = (p[i], p[(i + 1) % p.len()]);
        [0.25, 0.5, 0.75].map(|f| [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * f))
    });
    std::iter::once(centre).chain(along).all(|q| {
        // Just inside the edge: a point on a lane's border is on it.
        let (x, y) = (
            q[0] + (centre[0] - q[0]) * 0.05,
            q[1] + (centre[1] - q[1]) * 0.05,
        );
        !lanes.driving_under(x, y, q[2] - lift, 1.0)
    })
}

/// Whether a sidewalk lane of the map lies under the polygon's centre: a
/// junction whose corners are sidewalk lanes of its own (CARLA's towns',
/// the built-in town's) needs no corner of ours there.
fn on_a_sidewalk(lanes: &Lanes, p: &[[f32; 3]], lift: f32) -> bool {
    let n = p.len() as f32;
    let [x, y, z] = [0, 1, 2].map(|k| p.iter().map(|q| q[k]).sum::<f32>() / n);
    lanes
        .at(x, y, z - lift, 1.0)
        .is_some_and(|on| lanes.lane(on.lane).kind == LaneKind::Sidewalk)
}

/// Whether a polygon turns the same way at every corner, by more than a
/// sliver, and is not tiny.
fn convex(p: &[[f32; 3]]) -> bool {
    let n = p.len();
    let mut sign = 0.0f32;
    let mut area = 0.0f32;
    for i in 0..n {
        let (a, b, c) = (p[i], p[(i + 1) % n], p[(i + 2) % n]);
        let cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        if cross.abs() < 1e-4 {
            return false;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
        area += a[0] * b[1] - b[0] * a[1];
    }
    area.abs() / 2.0 > 0.5
}
