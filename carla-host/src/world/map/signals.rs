//! The map's signals as the world uses them: traffic lights (OpenDRIVE
//! `type="1000001"`) with the lanes they stop, grouped as CARLA groups
//! them (a junction's lights cycle together, a controller's lights switch
//! together), stop (`206`) and yield (`205`) signs, and speed-limit signs
//! (`274` with a value). Each has where it stands (a pole off the driving
//! lanes) and the stop line of each lane it governs: where the lane enters
//! the junction ahead.

use super::import::{ControllerInfo, SignalInfo};
use super::lanes::{LaneIx, Lanes};
use std::collections::BTreeMap;

/// Where a lane's traffic stops: the end of the last lane before a
/// junction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StopLine {
    pub lane: LaneIx,
    pub dist: f32,
}

/// A traffic light, a stop sign, a yield sign or a speed sign.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sign {
    pub kind: SignKind,
    /// Its `<signal id>`.
    pub od_id: String,
    /// The foot of its pole, and the heading of the traffic it governs
    /// (CARLA's yaw, radians).
    pub position: [f32; 3],
    pub traffic_yaw: f32,
    /// Where each governed lane stops for it.
    pub stops: Vec<StopLine>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SignKind {
    /// In group `group`, phase `phase` of it.
    Light {
        group: u32,
        phase: u32,
    },
    Stop,
    Yield,
    /// km/h.
    SpeedLimit(f32),
}

/// Lights that cycle together: `phases` phases, each green in turn.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LightGroup {
    pub phases: u32,
    /// A deterministic offset into the cycle, seconds.
    pub offset: f32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Signs {
    /// Lights first, then the other signs.
    pub signs: Vec<Sign>,
    pub groups: Vec<LightGroup>,
}

impl Signs {
    pub(crate) fn lights(&self) -> impl Iterator<Item = (usize, &Sign)> {
        self.signs
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s.kind, SignKind::Light { .. }))
    }
}

/// What groups lights: a junction (0, index), a controller (1, index) or
/// the light alone (2, index).
type Key = (u8, u32);

/// Most lanes followed from a signal to its stop line.
const MAX_STEPS: usize = 64;

/// The stop line ahead of a point on `lane`: the end of the last lane
/// before a junction, following single successors; `None` when the way
/// forks before any junction or never reaches one.
pub(crate) fn stop_ahead(lanes: &Lanes, lane: LaneIx) -> Option<StopLine> {
    let mut at = lane;
    if lanes.in_junction(at) {
        return None;
    }
    for _ in 0..MAX_STEPS {
        let l = lanes.lane(at);
        if l.successors.iter().any(|&s| lanes.in_junction(s)) {
            return Some(StopLine {
                lane: at,
                dist: l.length(),
            });
        }
        match l.successors.as_slice() {
            [next] => at = *next,
            _ => return None,
        }
    }
    None
}

/// The lanes a signal governs: its own (or, with none, the driving lanes
/// its board faces from beside them), each followed to its stop line.
fn stops(lanes: &Lanes, s: &SignalInfo) -> Vec<StopLine> {
    let mut governed: Vec<LaneIx> = s
        .lanes
        .iter()
        .copied()
        .filter(|&l| lanes.lane(l).kind.is_driving())
        .collect();
    if governed.is_empty() {
        if let Some(on) = lanes.nearest_driving(s.position[0], s.position[1], s.position[2], 15.0) {
            governed.push(on.lane);
        }
    }
    let mut out: Vec<StopLine> = governed
        .iter()
        .filter_map(|&l| stop_ahead(lanes, l))
        .collect();
    out.sort_by_key(|s| s.lane);
    out.dedup_by_key(|s| s.lane);
    out
}

/// The heading of traffic on the governed lanes at their stop lines.
fn traffic_yaw(lanes: &Lanes, stops: &[StopLine], fallback: f32) -> f32 {
    stops
        .first()
        .map(|s| lanes.lane(s.lane).pose(s.dist).yaw)
        .unwrap_or(fallback + std::f32::consts::PI)
}

/// Moves a pole standing on a road lane to the right of the traffic it
/// governs, past the road's edge.
fn off_the_road(lanes: &Lanes, p: [f32; 3], yaw: f32) -> [f32; 3] {
    let (rx, ry) = (-yaw.sin(), yaw.cos());
    let mut q = p;
    for _ in 0..40 {
        match lanes.at(q[0], q[1], q[2], 2.0) {
            Some(on) if lanes.lane(on.lane).kind.is_road() => {
                q[0] += rx * 0.5;
                q[1] += ry * 0.5;
            }
            _ => return q,
        }
    }
    p
}

/// The junction a stop line leads into.
fn junction_of(lanes: &Lanes, stop: &StopLine) -> Option<u32> {
    let l = lanes.lane(stop.lane);
    l.successors.iter().find_map(|&s| lanes.lane(s).junction)
}

/// The world's signs from the file's signals; `warnings` gets the lights
/// that govern no lane.
pub(crate) fn build(
    lanes: &Lanes,
    signals: &[SignalInfo],
    controllers: &[ControllerInfo],
    warnings: &mut Vec<String>,
) -> Signs {
    let mut out = Signs::default();
    // Groups by junction (or, for a light before none, by controller),
    // phases by controller (or each light its own).
    let mut groups: BTreeMap<Key, (u32, BTreeMap<Key, u32>)> = BTreeMap::new();
    let mut lights = Vec::new();
    let mut others = Vec::new();
    for (i, s) in signals.iter().enumerate() {
        let kind = match s.kind.as_str() {
            "1000001" => None,
            "206" => Some(SignKind::Stop),
            "205" => Some(SignKind::Yield),
            "274" => match s.value.filter(|v| *v > 0.0 && v.is_finite()) {
                Some(v) => Some(SignKind::SpeedLimit(if s.unit == "mph" {
                    (v * 1.609_344) as f32
                } else {
                    v as f32
                })),
                None => continue,
            },
            _ => continue,
        };
        let stops = stops(lanes, s);
        let yaw = traffic_yaw(lanes, &stops, s.yaw);
        let position = off_the_road(lanes, s.position, yaw);
        let sign = Sign {
            kind: kind.unwrap_or(SignKind::Light { group: 0, phase: 0 }),
            od_id: s.od_id.clone(),
            position,
            traffic_yaw: yaw,
            stops,
        };
        match kind {
            Some(_) => others.push(sign),
            None if sign.stops.is_empty() => warnings.push(format!(
                "traffic light {:?} on road {:?} governs no lane that reaches a junction; left out",
                s.od_id, s.road
            )),
            None => {
                let junction = sign.stops.iter().find_map(|st| junction_of(lanes, st));
                let controller = s.controllers.first().map(|&c| c as u32);
                let group_key = match (junction, controller) {
                    (Some(j), _) => (0, j),
                    (None, Some(c)) => (1, c),
                    (None, None) => (2, i as u32),
                };
                let phase_key = match controller {
                    Some(c) => (0, c),
                    None => (1, i as u32),
                };
                let n = groups.len() as u32;
                let (group, phases) = groups.entry(group_key).or_insert((n, BTreeMap::new()));
                let next = phases.len() as u32;
                let phase = *phases.entry(phase_key).or_insert(next);
                let mut sign = sign;
                sign.kind = SignKind::Light {
                    group: *group,
                    phase,
                };
                lights.push(sign);
            }
        }
    }
    let _ = controllers;
    let mut ordered: Vec<(u32, u32)> = groups.values().map(|(g, p)| (*g, p.len() as u32)).collect();
    ordered.sort();
    out.groups = ordered
        .iter()
        .map(|&(g, phases)| LightGroup {
            phases,
            // Junctions start at different points of their cycle.
            offset: ((g * 7) % 13) as f32 * 2.0,
        })
        .collect();
    out.signs = lights;
    out.signs.extend(others);
    out
}
