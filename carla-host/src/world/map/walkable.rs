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

/// The distances a strip of `lane` is cut at: its points, and the
/// crosswalk depth from each end.
fn cuts(lane: &Lane) -> Vec<f32> {
    let len = lane.length();
    let mut d: Vec<f32> = lane.dist.clone();
    if len > 2.0 * CROSSWALK + 0.5 {
        d.push(CROSSWALK);
        d.push(len - CROSSWALK);
    }
    d.sort_by(f32::total_cmp);
    d.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    d
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
            let (l1, r1) = borders(lane, w[1], lift);
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
