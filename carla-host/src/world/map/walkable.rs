//! Where walkers walk, for the navigation mesh the 0.9 client loads (the
//! library builds the file from these polygons): every sidewalk lane as a
//! strip of quads at the sidewalk's height, and at junctions the
//! crosswalks and sidewalk corners of [`super::mouths`], at the same
//! height so they join the sidewalks beside them (Detour joins polygons
//! that share an edge: the strips are cut where a crosswalk begins). A map
//! without sidewalks walks its walkers on its shoulders.

use super::lanes::{Lane, LaneKind, Lanes};
use super::mouths::{Mouths, CROSSWALK};
use super::CURB_HEIGHT;
use carla_server::nav::{NavArea, NavPolygon, MAX_POLYGONS, MAX_VERTICES};
use carla_server::types::Vector3D;

fn v(p: [f32; 3]) -> Vector3D {
    Vector3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

/// The two borders of `lane` at distance `d`: (left, right), raised by
/// `lift`.
pub(crate) fn borders(lane: &Lane, d: f32, lift: f32) -> ([f32; 3], [f32; 3]) {
    let pose = lane.pose(d);
    let (rx, ry) = (-pose.yaw.sin(), pose.yaw.cos());
    let p = pose.position;
    let h = pose.half_width;
    let rise = pose.bank.tan() * h;
    (
        [p[0] - rx * h, p[1] - ry * h, p[2] + rise + lift],
        [p[0] + rx * h, p[1] + ry * h, p[2] - rise + lift],
    )
}

/// The distances a strip of `lane` is cut at: its points, but within the
/// crosswalk depth of each end only the depth itself (a crosswalk's side
/// is then the edge of one quad, which Detour needs to join them).
fn cuts(lane: &Lane) -> Vec<f32> {
    let len = lane.length();
    let mut d: Vec<f32> = lane.dist.clone();
    if len > 2.0 * CROSSWALK + 0.5 {
        d.retain(|&x| {
            x <= 0.0 || x >= len || (CROSSWALK + 0.05..len - CROSSWALK - 0.05).contains(&x)
        });
        d.push(CROSSWALK);
        d.push(len - CROSSWALK);
    }
    d.sort_by(f32::total_cmp);
    d.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    d
}

/// The borders of `lane` at `d` as its strip has them: at its end, the
/// start of the one sidewalk it runs on into (the same points, so Detour
/// joins the two strips whatever the file's rounding between roads).
fn strip_borders(lanes: &Lanes, lane: &Lane, d: f32, lift: f32) -> ([f32; 3], [f32; 3]) {
    if d >= lane.length() {
        if let [next] = lane.successors[..] {
            let next = lanes.lane(next);
            if next.kind == lane.kind {
                let (l, r) = borders(next, 0.0, lift);
                let (l0, r0) = borders(lane, d, lift);
                // Only where they nearly meet already (a link across a
                // gap keeps its own ends).
                let near = |a: [f32; 3], b: [f32; 3]| (a[0] - b[0]).hypot(a[1] - b[1]) < 0.1;
                if near(l, l0) && near(r, r0) {
                    return (l, r);
                }
            }
        }
    }
    borders(lane, d, lift)
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
        let d = cuts(lane);
        for w in d.windows(2) {
            let (l0, r0) = borders(lane, w[0], lift);
            let (l1, r1) = strip_borders(lanes, lane, w[1], lift);
            out.push(NavPolygon {
                area: NavArea::Sidewalk,
                points: vec![v(l0), v(r0), v(r1), v(l1)],
            });
        }
    }
    if any_sidewalk {
        let m = mouths;
        for c in &m.crosswalks {
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
