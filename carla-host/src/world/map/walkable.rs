//! Where walkers walk, for the navigation mesh the 0.9 client loads (the
//! library builds the file from these polygons): every sidewalk lane as a
//! strip of quads at the sidewalk's height, and at junctions the
//! crosswalks and sidewalk corners of [`super::mouths`], at the same
//! height so they join the sidewalks beside them (Detour joins polygons
//! that share an edge: the strips are cut where a crosswalk begins). A map
//! without sidewalks walks its walkers on its shoulders.

use super::lanes::{Lane, LaneKind, Lanes};
use super::mouths::{piece_cut, Mouths, CROSSWALK, CROSSWALK_PIECES};
use super::CURB_HEIGHT;
use carla_server::rpc::nav::{NavArea, NavPolygon, MAX_POLYGONS, MAX_VERTICES};
use carla_server::types::Vector3D;

fn v(p: [f32; 3]) -> Vector3D {
    Vector3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

/// How far a strip's side may stray from its sidewalk's edge, metres:
/// its quads are cut finer where the edge curves more.
const CHORD_TOLERANCE: f32 = 0.01;

/// The distances a strip of `lane` is cut at: its points, where the
/// sidewalk curves more finely (each quad's sides within
/// [`CHORD_TOLERANCE`] of the edges), and within the crosswalk depth of
/// each end only at a crosswalk's pieces (whose sides are then whole quad
/// edges, which Detour needs to join them).
fn cuts(lane: &Lane, lift: f32) -> Vec<f32> {
    let len = lane.length();
    let mut d: Vec<f32> = lane.dist.clone();
    let zones = len > 2.0 * CROSSWALK + 0.5;
    if zones {
        d.retain(|&x| (CROSSWALK + 0.05..len - CROSSWALK - 0.05).contains(&x));
        d.extend([0.0, CROSSWALK, len - CROSSWALK, len]);
    }
    d.sort_by(f32::total_cmp);
    d.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    let mut out = Vec::with_capacity(d.len() * 2);
    for w in d.windows(2) {
        out.push(w[0]);
        refine(lane, w[0], w[1], lift, 6, &mut out);
    }
    out.extend(d.last());
    if zones {
        // The crosswalks' pieces, by the same expressions as theirs (from
        // the junction back: 0 → CROSSWALK and len → len − CROSSWALK).
        out.retain(|&x| x == 0.0 || x == len || (CROSSWALK..=len - CROSSWALK).contains(&x));
        for k in 1..CROSSWALK_PIECES {
            out.push(piece_cut(0.0, CROSSWALK, k));
            out.push(piece_cut(len, len - CROSSWALK, k));
        }
        out.sort_by(f32::total_cmp);
    }
    out
}

/// Adds cuts strictly between `a` and `b` until each quad's sides lie
/// within [`CHORD_TOLERANCE`] of the lane's borders (at most `depth`
/// halvings).
fn refine(lane: &Lane, a: f32, b: f32, lift: f32, depth: u32, out: &mut Vec<f32>) {
    if depth == 0 || b - a < 0.2 {
        return;
    }
    let m = (a + b) / 2.0;
    let ((la, ra), (lb, rb), (lm, rm)) = (
        lane.borders(a, lift),
        lane.borders(b, lift),
        lane.borders(m, lift),
    );
    let off = |p: [f32; 3], q: [f32; 3], mid: [f32; 3]| {
        ((p[0] + q[0]) / 2.0 - mid[0]).hypot((p[1] + q[1]) / 2.0 - mid[1])
    };
    if off(la, lb, lm).max(off(ra, rb, rm)) > CHORD_TOLERANCE {
        refine(lane, a, m, lift, depth - 1, out);
        out.push(m);
        refine(lane, m, b, lift, depth - 1, out);
    }
}

/// The borders of `lane` at `d` as its strip has them: at its end, the
/// start of the one sidewalk it runs on into (the same points, so Detour
/// joins the two strips whatever the file's rounding between roads).
fn strip_borders(lanes: &Lanes, lane: &Lane, d: f32, lift: f32) -> ([f32; 3], [f32; 3]) {
    if d >= lane.length() {
        if let [next] = lane.successors[..] {
            let next = lanes.lane(next);
            if next.kind == lane.kind {
                let (l, r) = next.borders(0.0, lift);
                let (l0, r0) = lane.borders(d, lift);
                // Only where they nearly meet already (a link across a
                // gap keeps its own ends).
                let near = |a: [f32; 3], b: [f32; 3]| (a[0] - b[0]).hypot(a[1] - b[1]) < 0.1;
                if near(l, l0) && near(r, r0) {
                    return (l, r);
                }
            }
        }
    }
    lane.borders(d, lift)
}

/// The walkable polygons of `lanes`.
pub(crate) fn walkable(lanes: &Lanes, mouths: &Mouths) -> Vec<NavPolygon> {
    let any_sidewalk = lanes.lanes.iter().any(|l| l.kind == LaneKind::Sidewalk);
    let walk = if any_sidewalk {
        LaneKind::Sidewalk
    } else {
        LaneKind::Shoulder
    };
    let lift = if any_sidewalk { CURB_HEIGHT } else { 0.0 };
    let mut out = Vec::new();
    for lane in lanes.lanes.iter().filter(|l| l.kind == walk) {
        let d = cuts(lane, lift);
        for w in d.windows(2) {
            let (l0, r0) = lane.borders(w[0], lift);
            let (l1, r1) = strip_borders(lanes, lane, w[1], lift);
            out.push(NavPolygon {
                area: NavArea::Sidewalk,
                points: vec![v(l0), v(r0), v(r1), v(l1)],
            });
        }
    }
    if any_sidewalk {
        let m = mouths;
        for c in &m.crosswalk_pieces {
            out.push(NavPolygon {
                area: NavArea::Crosswalk,
                points: c.iter().map(|&p| v(p)).collect(),
            });
        }
        for c in &m.corners {
            out.push(NavPolygon {
                area: NavArea::Sidewalk,
                points: c.iter().map(|&p| v(p)).collect(),
            });
        }
    }
    fit(out)
}

/// Keeps the mesh within Detour's limits: past them, neighbouring strip
/// quads are left out, every other one, until it fits (the walkers lose
/// some sidewalk, the world keeps running).
fn fit(mut polys: Vec<NavPolygon>) -> Vec<NavPolygon> {
    while polys.len() > MAX_POLYGONS || polys.len() * 4 > MAX_VERTICES * 2 {
        let mut k = 0;
        polys.retain(|_| {
            k += 1;
            k % 2 == 0
        });
    }
    polys
}
