//! What traffic needs to know about a map's lanes, worked out once per
//! map: where each lane stops for a traffic light, which junction lanes
//! cross each other (two vehicles must not be on both at once), and where
//! vehicles may be placed.

use crate::world::map::lanes::{LaneIx, Lanes};
use crate::world::map::signals::{SignKind, Signs};
use crate::world::map::Map;

/// Two junction lanes conflict when their centre lines come this close,
/// metres (a car's width and a margin).
const CONFLICT: f32 = 2.5;

/// A light governs a vehicle (`is_at_traffic_light`, the state it
/// reports) while it is on one of the light's lanes this far before the
/// stop line, as CARLA's trigger volumes do: a Traffic Manager brakes its
/// car as soon as it is in the zone and the light is not green. The zone
/// ends far enough from the line that a car at 30-40 km/h braking there
/// halts before it, and is deep enough that no car passes it within one
/// tick; a car nearer the line when the light turns is committed.
pub(crate) const ZONE_NEAR: f32 = 6.5;
pub(crate) const ZONE_FAR: f32 = 11.5;

/// Where a light's zones lie, for clients (its trigger volume): the middle
/// of its lanes' zones, half the width they span and half their depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Trigger {
    pub centre: [f32; 3],
    pub half_across: f32,
    pub half_along: f32,
}

/// A lane's stop line for a light: the light (index among the lights) and
/// the distance along the lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LightStop {
    pub light: usize,
    pub dist: f32,
}

#[derive(Debug, Default)]
pub(crate) struct Ways {
    /// By lane: its light's stop line, if one governs it.
    pub stops: Vec<Option<LightStop>>,
    /// By lane: the junction lanes crossing or merging with it (for
    /// junction lanes only).
    pub conflicts: Vec<Vec<LaneIx>>,
    /// Places traffic may start: (lane, distance), in map order.
    pub slots: Vec<(LaneIx, f32)>,
    /// By light: its trigger volume.
    pub triggers: Vec<Trigger>,
}

impl Ways {
    pub(crate) fn new(map: &Map) -> Ways {
        let lanes = &map.lanes;
        Ways {
            stops: light_stops(lanes, &map.signs),
            conflicts: conflicts(lanes),
            slots: slots(lanes),
            triggers: triggers(lanes, &map.signs),
        }
    }

    /// The light whose zone holds distance `d` of `lane`, if any.
    pub(crate) fn light_at(&self, lane: LaneIx, d: f32) -> Option<usize> {
        let stop = self.stops.get(lane as usize).copied().flatten()?;
        let before = stop.dist - d;
        (ZONE_NEAR..=ZONE_FAR)
            .contains(&before)
            .then_some(stop.light)
    }
}

fn triggers(lanes: &Lanes, signs: &Signs) -> Vec<Trigger> {
    signs
        .lights()
        .map(|(_, s)| {
            let mid = (ZONE_NEAR + ZONE_FAR) / 2.0;
            let poses: Vec<_> = s
                .stops
                .iter()
                .map(|st| lanes.lane(st.lane).pose((st.dist - mid).max(0.0)))
                .collect();
            let n = poses.len().max(1) as f32;
            let mut c = [0.0f32; 3];
            for p in &poses {
                for (ck, pk) in c.iter_mut().zip(p.position) {
                    *ck += pk / n;
                }
            }
            let yaw = s.traffic_yaw;
            let (rx, ry) = (-yaw.sin(), yaw.cos());
            let half_across = poses
                .iter()
                .map(|p| {
                    ((p.position[0] - c[0]) * rx + (p.position[1] - c[1]) * ry).abs() + p.half_width
                })
                .fold(1.0f32, f32::max);
            Trigger {
                centre: c,
                half_across,
                half_along: (ZONE_FAR - ZONE_NEAR) / 2.0,
            }
        })
        .collect()
}

fn light_stops(lanes: &Lanes, signs: &Signs) -> Vec<Option<LightStop>> {
    let mut out = vec![None; lanes.lanes.len()];
    for (light, (_, s)) in signs.lights().enumerate() {
        debug_assert!(matches!(s.kind, SignKind::Light { .. }));
        for st in &s.stops {
            out[st.lane as usize] = Some(LightStop {
                light,
                dist: st.dist,
            });
        }
    }
    out
}

/// Distance between two segments in the ground plane (at least: sampled
/// at their ends and midpoints against the other segment).
fn seg_dist(a0: [f32; 3], a1: [f32; 3], b0: [f32; 3], b1: [f32; 3]) -> f32 {
    let point_seg = |p: [f32; 3], s0: [f32; 3], s1: [f32; 3]| {
        let (dx, dy) = (s1[0] - s0[0], s1[1] - s0[1]);
        let len2 = (dx * dx + dy * dy).max(1e-12);
        let t = (((p[0] - s0[0]) * dx + (p[1] - s0[1]) * dy) / len2).clamp(0.0, 1.0);
        (p[0] - s0[0] - dx * t).hypot(p[1] - s0[1] - dy * t)
    };
    // Crossing segments are at distance 0.
    let cross = |o: [f32; 3], p: [f32; 3], q: [f32; 3]| {
        (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])
    };
    let (d1, d2) = (cross(a0, a1, b0), cross(a0, a1, b1));
    let (d3, d4) = (cross(b0, b1, a0), cross(b0, b1, a1));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 && (a0[2] - b0[2]).abs() < 3.0 {
        return 0.0;
    }
    point_seg(a0, b0, b1)
        .min(point_seg(a1, b0, b1))
        .min(point_seg(b0, a0, a1))
        .min(point_seg(b1, a0, a1))
}

fn conflicts(lanes: &Lanes) -> Vec<Vec<LaneIx>> {
    let mut out = vec![Vec::new(); lanes.lanes.len()];
    for j in &lanes.junctions {
        let driving: Vec<LaneIx> = j
            .lanes
            .iter()
            .copied()
            .filter(|&l| lanes.lane(l).kind.is_driving())
            .collect();
        for (k, &a) in driving.iter().enumerate() {
            for &b in &driving[k + 1..] {
                let (la, lb) = (lanes.lane(a), lanes.lane(b));
                // Lanes leaving one lane side by side only part: the one
                // behind follows the one ahead.
                let same_start = la.predecessors.iter().any(|p| lb.predecessors.contains(p));
                let near_start = |p: [f32; 3], q: [f32; 3]| (p[0] - q[0]).hypot(p[1] - q[1]) < 0.5;
                if same_start || near_start(la.points[0], lb.points[0]) {
                    continue;
                }
                let meet = la.points.windows(2).any(|sa| {
                    lb.points
                        .windows(2)
                        .any(|sb| seg_dist(sa[0], sa[1], sb[0], sb[1]) < CONFLICT)
                });
                if meet {
                    out[a as usize].push(b);
                    out[b as usize].push(a);
                }
            }
        }
    }
    out
}

/// Spawn slots: on every driving lane outside junctions, every 10 m from
/// 5 m after its start to 5 m before its end.
fn slots(lanes: &Lanes) -> Vec<(LaneIx, f32)> {
    let mut out = Vec::new();
    for (i, l) in lanes.driving().filter(|(i, _)| !lanes.in_junction(*i)) {
        let mut d = 5.0;
        while d <= l.length() - 5.0 {
            out.push((i, d));
            d += 10.0;
        }
    }
    out
}
