//! The road surface as triangles, from the map's lanes: per lane section
//! and side of the road, neighbouring lanes of one kind of surface become
//! one strip (asphalt for driving lanes, shoulders, parking and the like;
//! sidewalks raised by [`CURB_HEIGHT`] with a curb face on each edge;
//! medians as grass), with only the stations that keep its borders within
//! [`TOLERANCE`] of the map's (and at most the map's vertex distance
//! apart); the lane marks as thin quads just above the road; walls along
//! the roads' outer edges when a client asked for them.

use super::{Material, Tri};
use crate::world::map::import::{MarkColour, MarkPiece};
use crate::world::map::lanes::{Lane, LaneKind, Lanes};
use crate::world::map::mouths::Mouths;
use crate::world::map::{Options, CURB_HEIGHT};
use crate::world::math::v3;
use crate::world::scene::tags::tag;
use carla_server::types::Vector3D;
use std::collections::BTreeMap;

/// How far a strip's borders may stray from the map's, metres.
pub(crate) const TOLERANCE: f32 = 0.02;
/// How far lane marks float above the road (so the road never shows
/// through them).
pub(crate) const MARK_LIFT: f32 = 0.02;
/// How far a junction's floor lies under its lanes.
pub(crate) const FLOOR_BELOW: f32 = 0.01;

/// The materials' indices.
pub(crate) mod mat {
    pub(crate) const ROAD: u16 = 0;
    pub(crate) const SIDEWALK: u16 = 1;
    pub(crate) const CURB: u16 = 2;
    pub(crate) const MEDIAN: u16 = 3;
    pub(crate) const MARK_WHITE: u16 = 4;
    pub(crate) const MARK_YELLOW: u16 = 5;
    pub(crate) const WALL: u16 = 6;
}

/// The surface materials, in [`mat`] order.
pub(crate) fn materials() -> Vec<Material> {
    let m = |tag, albedo, solid| Material { tag, albedo, solid };
    vec![
        m(tag::ROADS, [72, 72, 76], false),
        m(tag::SIDEWALKS, [165, 160, 150], false),
        m(tag::SIDEWALKS, [140, 138, 132], false),
        m(tag::TERRAIN, [80, 128, 56], false),
        m(tag::ROAD_LINES, [235, 235, 225], false),
        m(tag::ROAD_LINES, [230, 185, 40], false),
        m(tag::WALLS, [150, 140, 130], true),
    ]
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    Road,
    Sidewalk,
    Median,
}

fn class(k: LaneKind) -> Class {
    match k {
        LaneKind::Sidewalk => Class::Sidewalk,
        LaneKind::Median => Class::Median,
        _ => Class::Road,
    }
}

/// One lane's borders at each station, in the road's `s` order: towards
/// the road's centre line and away from it.
struct Borders {
    inner: Vec<Vector3D>,
    outer: Vec<Vector3D>,
}

fn borders(lane: &Lane, widen: f32) -> Borders {
    let n = lane.points.len();
    let idx = |k: usize| if lane.reversed { n - 1 - k } else { k };
    let mut inner = Vec::with_capacity(n);
    let mut outer = Vec::with_capacity(n);
    for k in 0..n {
        let i = idx(k);
        let p = lane.points[i];
        // The lane's own direction at point i.
        let (a, b) = (
            lane.points[i.saturating_sub(1)],
            lane.points[(i + 1).min(n - 1)],
        );
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = dx.hypot(dy).max(1e-9);
        let (rx, ry) = (-dy / len, dx / len);
        let h = lane.half_width[i] + widen;
        let rise = lane.bank[i].tan() * h;
        let left = v3(p[0] - rx * h, p[1] - ry * h, p[2] + rise);
        let right = v3(p[0] + rx * h, p[1] + ry * h, p[2] - rise);
        if crate::world::map::import::inward_is_left(lane) {
            inner.push(left);
            outer.push(right);
        } else {
            inner.push(right);
            outer.push(left);
        }
    }
    Borders { inner, outer }
}

/// Whether point `p` lies within `tol` of the segment `a → b` at fraction
/// `f` (plan and height).
fn near(p: Vector3D, a: Vector3D, b: Vector3D, f: f32, tol: f32) -> bool {
    let q = v3(
        a.x + (b.x - a.x) * f,
        a.y + (b.y - a.y) * f,
        a.z + (b.z - a.z) * f,
    );
    (p.x - q.x).hypot(p.y - q.y) <= tol && (p.z - q.z).abs() <= tol
}

/// The stations of a strip worth keeping: greedy, each span as long as
/// the borders between stay within `tol` and it is at most `max_span`.
fn keep(a: &[Vector3D], b: &[Vector3D], tol: f32, max_span: f32) -> Vec<usize> {
    let n = a.len();
    let mut out = vec![0];
    let mut from = 0;
    while from + 1 < n {
        let mut to = from + 1;
        while to + 1 < n && to + 1 - from <= 256 {
            let next = to + 1;
            let span = (a[next].x - a[from].x).hypot(a[next].y - a[from].y);
            if span > max_span {
                break;
            }
            let total = span.max(1e-6);
            let ok = (from + 1..next).all(|k| {
                let f = (a[k].x - a[from].x).hypot(a[k].y - a[from].y) / total;
                near(a[k], a[from], a[next], f, tol) && near(b[k], b[from], b[next], f, tol)
            });
            if !ok {
                break;
            }
            to = next;
        }
        out.push(to);
        from = to;
    }
    out
}

/// Triangles of the strip between polylines `a` and `b` at stations `ks`.
fn strip(a: &[Vector3D], b: &[Vector3D], ks: &[usize], material: u16, out: &mut Vec<Tri>) {
    for w in ks.windows(2) {
        let (i, j) = (w[0], w[1]);
        out.extend(Tri::new(a[i], b[i], b[j], material));
        out.extend(Tri::new(a[i], b[j], a[j], material));
    }
}

fn lifted(p: &[Vector3D], dz: f32) -> Vec<Vector3D> {
    p.iter().map(|q| v3(q.x, q.y, q.z + dz)).collect()
}

/// The road surface of `lanes` (with `options`' vertex distance, junction
/// widening and walls).
pub(crate) fn road_surface(lanes: &Lanes, options: &Options, out: &mut Vec<Tri>) {
    // Lanes by (road, section, side), ordered outwards.
    let mut sides: BTreeMap<(u32, u32, bool), Vec<&Lane>> = BTreeMap::new();
    for l in &lanes.lanes {
        sides
            .entry((l.road, l.section, l.od_lane > 0))
            .or_default()
            .push(l);
    }
    let max_span = options.vertex_distance.clamp(0.25, 200.0);
    for ((_, _, _), mut side) in sides {
        side.sort_by_key(|l| l.od_lane.abs());
        let junction = side[0].junction.is_some();
        let widen = if junction {
            options.additional_width.clamp(0.0, 5.0)
        } else {
            0.0
        };
        let n = side[0].points.len();
        let same_stations = side.iter().all(|l| l.points.len() == n);
        let all: Vec<Borders> = side
            .iter()
            .enumerate()
            .map(|(i, l)| borders(l, if i + 1 == side.len() { widen } else { 0.0 }))
            .collect();
        // Runs of one class.
        let mut start = 0;
        while start < side.len() {
            let c = class(side[start].kind);
            let mut end = start + 1;
            while same_stations && end < side.len() && class(side[end].kind) == c {
                end += 1;
            }
            let inner = &all[start].inner;
            let outer = &all[end - 1].outer;
            let ks = keep(inner, outer, TOLERANCE, max_span);
            match c {
                Class::Road => strip(inner, outer, &ks, mat::ROAD, out),
                Class::Median => strip(inner, outer, &ks, mat::MEDIAN, out),
                Class::Sidewalk => {
                    let (ti, to) = (lifted(inner, CURB_HEIGHT), lifted(outer, CURB_HEIGHT));
                    strip(&ti, &to, &ks, mat::SIDEWALK, out);
                    strip(inner, &ti, &ks, mat::CURB, out);
                    strip(outer, &to, &ks, mat::CURB, out);
                }
            }
            if options.wall_height > 0.0 && !junction && end == side.len() {
                let top = lifted(outer, options.wall_height.min(50.0));
                strip(outer, &top, &ks, mat::WALL, out);
            }
            start = end;
        }
    }
}

/// The sidewalk corners at junctions: paved at the sidewalks' height
/// (their points are), with a curb face along the edge facing the road
/// (from the last point back to the first).
pub(crate) fn corners(mouths: &Mouths, out: &mut Vec<Tri>) {
    let p = |q: [f32; 3]| v3(q[0], q[1], q[2]);
    // Junction floors, just under the lanes crossing them.
    for f in &mouths.floors {
        let q = |k: usize| v3(f[k][0], f[k][1], f[k][2] - FLOOR_BELOW);
        for k in 1..f.len() - 1 {
            out.extend(Tri::new(q(0), q(k), q(k + 1), mat::ROAD));
        }
    }
    for c in &mouths.corners {
        for k in 1..c.len() - 1 {
            out.extend(Tri::new(p(c[0]), p(c[k]), p(c[k + 1]), mat::SIDEWALK));
        }
        let (a, b) = (p(c[c.len() - 1]), p(c[0]));
        let (a0, b0) = (
            v3(a.x, a.y, a.z - CURB_HEIGHT),
            v3(b.x, b.y, b.z - CURB_HEIGHT),
        );
        out.extend(Tri::new(a0, b0, b, mat::CURB));
        out.extend(Tri::new(a0, b, a, mat::CURB));
    }
}

/// The lane marks: each piece two triangles [`MARK_LIFT`] above the road,
/// runs of straight pieces of one line merged.
pub(crate) fn marks(pieces: &[MarkPiece], out: &mut Vec<Tri>) {
    let up = |p: [f32; 3]| v3(p[0], p[1], p[2] + MARK_LIFT);
    let material = |c: MarkColour| match c {
        MarkColour::Yellow => mat::MARK_YELLOW,
        _ => mat::MARK_WHITE,
    };
    let mut run: Option<(MarkPiece, usize)> = None;
    let flush = |run: &Option<(MarkPiece, usize)>, out: &mut Vec<Tri>| {
        if let Some((m, _)) = run {
            let c = m.corners.map(up);
            let mat = material(m.colour);
            out.extend(Tri::new(c[0], c[1], c[2], mat));
            out.extend(Tri::new(c[0], c[2], c[3], mat));
        }
    };
    for p in pieces {
        let merged = match &mut run {
            Some((m, count)) if m.colour == p.colour && *count < 64 && continues(m, p) => {
                m.corners[1] = p.corners[1];
                m.corners[2] = p.corners[2];
                *count += 1;
                true
            }
            _ => false,
        };
        if !merged {
            flush(&run, out);
            run = Some((*p, 1));
        }
    }
    flush(&run, out);
}

/// Whether piece `p` starts where `m` ends and the two make one straight
/// quad within the tolerance. A piece's corners run round it: 0 and 3 at
/// its start, 1 and 2 at its end.
fn continues(m: &MarkPiece, p: &MarkPiece) -> bool {
    let d = |a: [f32; 3], b: [f32; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    if d(m.corners[1], p.corners[0]) > 1e-3 || d(m.corners[2], p.corners[3]) > 1e-3 {
        return false;
    }
    // The joint must lie on the merged quad's long edges.
    let on = |a: [f32; 3], joint: [f32; 3], b: [f32; 3]| {
        let (va, vb) = (v3(a[0], a[1], a[2]), v3(b[0], b[1], b[2]));
        let total = d(a, b).max(1e-6);
        let f = d(a, joint) / total;
        near(v3(joint[0], joint[1], joint[2]), va, vb, f, TOLERANCE / 2.0)
    };
    on(m.corners[0], m.corners[1], p.corners[1]) && on(m.corners[3], m.corners[2], p.corners[2])
}
