//! Where walkers walk, for the navigation mesh the 0.9 client loads (the
//! library builds the file from these polygons): every sidewalk lane as a
//! strip of quads at the sidewalk's height, and a crosswalk across the
//! road where a road with sidewalks on both sides enters a junction, [`CROSSWALK`]
//! metres deep, at the same height so it joins the sidewalks beside it
//! (Detour joins polygons that share an edge). A map without sidewalks
//! walks its walkers on its shoulders.

use super::import::inward_is_left;
use super::lanes::{Lane, LaneIx, LaneKind, Lanes};
use super::CURB_HEIGHT;
use carla_server::nav::{NavArea, NavPolygon, MAX_POLYGONS, MAX_VERTICES};
use carla_server::types::Vector3D;
use std::collections::HashMap;

/// Depth of a crosswalk along its road, metres.
pub(crate) const CROSSWALK: f32 = 3.0;

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
pub(crate) fn walkable(lanes: &Lanes) -> Vec<NavPolygon> {
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
        crosswalks(lanes, lift, &mut out);
    }
    fit(out)
}

/// A crosswalk at each road end that meets a junction with a sidewalk on
/// each side: from the inner edge of one sidewalk to the other's, over the
/// last [`CROSSWALK`] metres.
fn crosswalks(lanes: &Lanes, lift: f32, out: &mut Vec<NavPolygon>) {
    // Sidewalks by (road, section), with their |id| and side.
    let mut by_section: HashMap<(u32, u32), Vec<LaneIx>> = HashMap::new();
    for (i, l) in lanes.lanes.iter().enumerate() {
        if l.kind == LaneKind::Sidewalk && l.junction.is_none() {
            by_section
                .entry((l.road, l.section))
                .or_default()
                .push(i as LaneIx);
        }
    }
    let mut keys: Vec<_> = by_section.keys().copied().collect();
    keys.sort();
    for key in keys {
        let walks = &by_section[&key];
        // The innermost sidewalk on each side.
        let side = |positive: bool| {
            walks
                .iter()
                .copied()
                .filter(|&i| (lanes.lane(i).od_lane > 0) == positive)
                .min_by_key(|&i| lanes.lane(i).od_lane.abs())
        };
        let (Some(a), Some(b)) = (side(true), side(false)) else {
            continue;
        };
        let (la, lb) = (lanes.lane(a), lanes.lane(b));
        if la.length() < 2.0 * CROSSWALK + 0.5 {
            continue;
        }
        // Each end of the road that a driving lane of this section leaves
        // into, or arrives from, a junction.
        let meets = |at_start: bool| {
            lanes.lanes.iter().any(|l| {
                l.road == key.0 && l.section == key.1 && l.kind == LaneKind::Driving && {
                    // In s order: a reversed lane's start is the road's end.
                    let toward_end = !l.reversed;
                    let links = if at_start == toward_end {
                        &l.predecessors
                    } else {
                        &l.successors
                    };
                    links.iter().any(|&n| lanes.in_junction(n))
                }
            })
        };
        for at_start in [true, false] {
            if !meets(at_start) {
                continue;
            }
            // Distances from the lane's own start for the road's start/end.
            let ends = |l: &Lane| {
                let road_start = if l.reversed { l.length() } else { 0.0 };
                let inward = if l.reversed { -CROSSWALK } else { CROSSWALK };
                if at_start {
                    (road_start, road_start + inward)
                } else {
                    let road_end = l.length() - road_start;
                    (road_end, road_end - inward)
                }
            };
            // The inner edge: towards the road's centre line.
            let inner = |l: &Lane, d: f32| {
                let (left, right) = borders(l, d, lift);
                if inward_is_left(l) {
                    left
                } else {
                    right
                }
            };
            let (a0, a1) = ends(la);
            let (b0, b1) = ends(lb);
            let poly = [inner(la, a0), inner(lb, b0), inner(lb, b1), inner(la, a1)];
            out.push(NavPolygon {
                area: NavArea::Crosswalk,
                points: poly.iter().map(|&p| v(p)).collect(),
            });
        }
    }
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
