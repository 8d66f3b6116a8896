//! OpenDRIVE to the map's own data, with the `xodr` crate (the only module
//! that knows it): the lane graph, road marks and signals, in CARLA's frame.
//!
//! CARLA reads OpenDRIVE's `(x, y)` as `(x, −y)` and a heading `h` as the
//! yaw `−h` (its client's map does the same), so every point and angle is
//! mirrored here once. A mirror keeps left and right: the lane left of a
//! direction in OpenDRIVE is left of the mirrored direction in CARLA's
//! frame, whose y axis points right.

use super::lanes::{Junction, Lane, LaneIx, LaneKind, Lanes, Road};
use super::locate::Locator;
use std::collections::HashMap;
use xodr::{Direction, LaneId, LaneType, Layer, RoadNetwork};

/// A road mark's painted piece: four corners on the road surface (CARLA's
/// frame) and its colour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MarkPiece {
    pub corners: [[f32; 3]; 4],
    pub colour: MarkColour,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum MarkColour {
    White,
    Yellow,
    Other,
}

/// A signal of the map (a traffic light, a sign), as the file places it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SignalInfo {
    /// Its `<signal id>`, what CARLA's clients call its OpenDRIVE id.
    pub od_id: String,
    /// Its road's `<road id>` and where on it.
    pub road: String,
    pub s: f64,
    pub t: f64,
    /// `type`, `subtype`, `value` and `unit` as written.
    pub kind: String,
    pub subtype: String,
    pub value: Option<f64>,
    pub unit: String,
    pub dynamic: bool,
    /// The middle of the board's bottom edge, and the way the board faces
    /// (CARLA's yaw, radians).
    pub position: [f32; 3],
    pub yaw: f32,
    /// The lanes it applies to.
    pub lanes: Vec<LaneIx>,
    /// Indices of the controllers listing it.
    pub controllers: Vec<usize>,
}

/// A controller: signals that switch together.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ControllerInfo {
    pub od_id: String,
    /// Junctions (their `<junction id>`) naming it.
    pub junctions: Vec<String>,
}

/// Everything the import yields.
pub(crate) struct Imported {
    pub lanes: Lanes,
    pub marks: Vec<MarkPiece>,
    pub signals: Vec<SignalInfo>,
    pub controllers: Vec<ControllerInfo>,
    /// The `<geoReference>` text.
    pub geo_reference: Option<String>,
    pub warnings: Vec<String>,
}

fn kind(t: LaneType) -> LaneKind {
    use LaneType as T;
    match t {
        T::Driving
        | T::Bus
        | T::Taxi
        | T::Hov
        | T::Entry
        | T::Exit
        | T::OnRamp
        | T::OffRamp
        | T::ConnectingRamp
        | T::SlipLane
        | T::Shared => LaneKind::Driving,
        T::Bidirectional => LaneKind::Bidirectional,
        T::Sidewalk => LaneKind::Sidewalk,
        T::Shoulder => LaneKind::Shoulder,
        T::Parking => LaneKind::Parking,
        T::Biking => LaneKind::Biking,
        T::Median => LaneKind::Median,
        T::None | T::Stop | T::Restricted | T::Border | T::Curb | T::RoadWorks => LaneKind::Border,
        _ => LaneKind::Other,
    }
}

/// Whether the side of `lane` towards its road's centre line is on its
/// left as it runs (a right-hand lane running along `s`, or a left-hand
/// one running against it).
pub(crate) fn inward_is_left(lane: &Lane) -> bool {
    (lane.od_lane > 0) == lane.reversed
}

fn mirror(p: xodr::Point) -> [f32; 3] {
    // `+ 0.0` turns −0 into 0.
    [p.x, -p.y + 0.0, p.z]
}

/// Mends a lane's last sample, taken at its section's end. The xodr crate
/// evaluates a lane section's end with the `<laneOffset>` record that
/// starts there, the next section's, so where the offset changes at a
/// section boundary the lane's last point jumps sideways by the change
/// (CARLA's Town05, road 927: 3.5 m; Town03's junction road 733, a lane
/// of one 1 m step: 0.64 m); the client's map ends the lane on its own
/// offset. The end is taken again from just inside the section, carried
/// on to the end along the lane. Whether it moved.
fn mend_section_end(net: &RoadNetwork, lane: &xodr::Lane, points: &mut [[f32; 3]]) -> bool {
    let pts = lane.center.points();
    let (Some(on), [.., before, _]) = (net.road_lane(lane.id), pts) else {
        return false;
    };
    let (Some(road), Some(from)) = (net.road(on.road), net.road_position_on(on.road, *before))
    else {
        return false;
    };
    let at = |s: f64| {
        net.lane_point(xodr::LanePosition {
            lane: lane.id,
            s,
            offset: 0.0,
        })
    };
    // The section's end: the last `s` the lane has a point at, past its
    // last point but one (the last may have jumped onto another part of a
    // curving road, so its own `s` is no guide).
    // (The last point but one's `s` comes back from its position a hair
    // before the section's start, in rounding.)
    let Some(mut start) = [0.0, 1e-5, 1e-4, 1e-3]
        .map(|d| from.s + d)
        .into_iter()
        .find(|&s| at(s).is_some())
    else {
        return false;
    };
    let mut end = road.length();
    while end - start > 1e-7 {
        let mid = (start + end) / 2.0;
        if at(mid).is_some() {
            start = mid;
        } else {
            end = mid;
        }
    }
    let end = start;
    // Two points inside the section near its end (Town05's road 413 has
    // sections of 2.4 cm), the end carried on from them.
    let run = (0.05f64).min((end - from.s) / 2.0);
    if run <= 0.0 {
        return false;
    }
    let inside = run * 0.05;
    let (Some(a), Some(b)) = (at(end - inside), at(end - inside - run)) else {
        return false;
    };
    let k = (inside / run) as f32;
    let carried = mirror(xodr::Point {
        x: a.x + (a.x - b.x) * k,
        y: a.y + (a.y - b.y) * k,
        z: a.z + (a.z - b.z) * k,
    });
    let Some(tail) = points.last_mut() else {
        return false;
    };
    let moved = (carried[0] - tail[0]).hypot(carried[1] - tail[1]) > 1e-3;
    if moved {
        *tail = carried;
    }
    moved
}

/// Below this, metres, a segment's middle counts as on its chord.
const SAG_FLOOR: f32 = 5e-4;

/// [`Lane::sag`] of a lane whose points (CARLA's frame, in `s` order) are
/// `points`: the xodr crate samples a lane where it turns, so a straight
/// road over a crest or through a dip is sampled metres apart (CARLA's
/// Town03, road 49: its middle 2.6 cm off the chord), while the client's
/// map takes the height at every `s` from the elevation profile.
fn sags(net: &RoadNetwork, lane: &xodr::Lane, points: &[[f32; 3]]) -> Vec<f32> {
    let Some(on) = net.road_lane(lane.id) else {
        return Vec::new();
    };
    if points.iter().all(|p| (p[2] - points[0][2]).abs() < 1e-4) {
        return Vec::new();
    }
    let sag: Vec<f32> = points
        .windows(2)
        .map(|w| {
            let mid = xodr::Point {
                x: (w[0][0] + w[1][0]) / 2.0,
                y: -(w[0][1] + w[1][1]) / 2.0,
                z: (w[0][2] + w[1][2]) / 2.0,
            };
            let on_lane = net.road_position_on(on.road, mid).and_then(|at| {
                net.lane_point(xodr::LanePosition {
                    lane: lane.id,
                    s: at.s,
                    offset: 0.0,
                })
            });
            on_lane.map_or(0.0, |p| p.z - mid.z)
        })
        .collect();
    if sag.iter().all(|s| s.abs() < SAG_FLOOR) {
        return Vec::new();
    }
    sag
}

/// `text` without the elements CARLA reads but does not build with: a
/// road's `<lateralProfile>` (superelevation, crossfall, shape) and lanes'
/// `<height>`s. CARLA's client places waypoints, and its worlds built
/// from OpenDRIVE lay their roads, on the elevation alone, level across
/// (a sidewalk's curb is the world's own, [`super::CURB_HEIGHT`]); so the
/// world does too, and its lanes agree with the client's map.
fn as_carla_builds(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("<lateralProfile") && !text.contains("<height") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["<lateralProfile", "<height"]
            .iter()
            .filter_map(|tag| rest.find(tag).map(|at| (at, *tag)))
            .min();
        let Some((at, tag)) = next else {
            out.push_str(rest);
            break;
        };
        // Only the element itself (not `<heightX`): the tag ends there.
        let after = &rest[at + tag.len()..];
        if !after.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/') {
            out.push_str(&rest[..at + tag.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let close = format!("</{}>", &tag[1..]);
        let Some(gt) = after.find('>') else {
            break;
        };
        rest = if after[..gt].ends_with('/') {
            &after[gt + 1..]
        } else {
            match after.find(&close) {
                Some(end) => &after[end + close.len()..],
                None => &after[gt + 1..],
            }
        };
    }
    std::borrow::Cow::Owned(out)
}

/// Reads `text` (already checked by [`super::limits`]).
pub(crate) fn import(text: &str) -> Result<Imported, String> {
    let text = as_carla_builds(text);
    let (net, prov) = xodr::load_str_with_provenance(&text).map_err(|e| e.to_string())?;
    let mut warnings: Vec<String> = prov.warnings.iter().map(|w| w.to_string()).collect();
    let roads: Vec<Road> = Vec::new();
    let mut out = Lanes {
        roads,
        ..Default::default()
    };
    // Roads and junctions by their OpenDRIVE ids, in file order.
    let mut road_index: HashMap<&str, u32> = HashMap::new();
    let mut junction_index: HashMap<String, u32> = HashMap::new();
    for r in net.roads() {
        let junction = r.junction().map(|j| {
            let next = junction_index.len() as u32;
            *junction_index.entry(j.to_owned()).or_insert_with(|| {
                out.junctions.push(Junction {
                    od_id: j.to_owned(),
                    lanes: Vec::new(),
                    centre: [0.0; 3],
                });
                next
            })
        });
        road_index.insert(r.od_id(), out.roads.len() as u32);
        out.roads.push(Road {
            od_id: r.od_id().to_owned(),
            junction,
            length: r.length(),
        });
    }
    // Permanent lanes only (the temporary layer lies on top of them).
    let mut lane_index: HashMap<LaneId, LaneIx> = HashMap::new();
    let by_lane: HashMap<LaneId, &xodr::LaneProvenance> =
        prov.lanes.iter().map(|p| (p.lane, p)).collect();
    for lane in net.lanes().iter().filter(|l| l.layer == Layer::Permanent) {
        let Some(p) = by_lane.get(&lane.id) else {
            continue;
        };
        let Some(&road) = road_index.get(p.road_id.as_str()) else {
            continue;
        };
        let pts = lane.center.points();
        if pts.len() < 2 {
            continue;
        }
        let reversed = lane.direction == Direction::Backward;
        let mut points: Vec<[f32; 3]> = pts.iter().map(|&p| mirror(p)).collect();
        mend_section_end(&net, lane, &mut points);
        let mut sag = sags(&net, lane, &points);
        let mut half: Vec<f32> = (0..pts.len())
            .map(|i| {
                lane.widths
                    .get(i)
                    .or(lane.widths.last())
                    .copied()
                    .unwrap_or(lane.width)
                    / 2.0
            })
            .collect();
        let mut bank: Vec<f32> = (0..pts.len())
            .map(|i| {
                lane.bank
                    .get(i)
                    .or(lane.bank.last())
                    .copied()
                    .unwrap_or(0.0)
            })
            .collect();
        if reversed {
            points.reverse();
            half.reverse();
            bank.reverse();
            bank.iter_mut().for_each(|b| *b = -*b);
            sag.reverse();
        }
        let mut dist = Vec::with_capacity(points.len());
        let mut d = 0.0f32;
        for (i, p) in points.iter().enumerate() {
            if i > 0 {
                let q = points[i - 1];
                d += ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
            }
            dist.push(d);
        }
        let ix = out.lanes.len() as LaneIx;
        lane_index.insert(lane.id, ix);
        let junction = out.roads[road as usize].junction;
        if let Some(j) = junction {
            out.junctions[j as usize].lanes.push(ix);
        }
        out.lanes.push(Lane {
            road,
            section: p.section as u32,
            od_lane: p.od_id,
            kind: kind(lane.kind),
            junction,
            points,
            dist,
            half_width: half,
            bank,
            sag,
            successors: Vec::new(),
            predecessors: Vec::new(),
            left: None,
            right: None,
            reversed,
        });
    }
    // Links, and the neighbours beside each lane.
    let mut by_od: HashMap<(u32, u32, i32), LaneIx> = HashMap::new();
    for (i, l) in out.lanes.iter().enumerate() {
        by_od.insert((l.road, l.section, l.od_lane), i as LaneIx);
    }
    for lane in net.lanes().iter().filter(|l| l.layer == Layer::Permanent) {
        let Some(&ix) = lane_index.get(&lane.id) else {
            continue;
        };
        let map = |ids: &[LaneId]| -> Vec<LaneIx> {
            ids.iter()
                .filter_map(|id| lane_index.get(id).copied())
                .collect()
        };
        let (succ, pred) = (map(&lane.successors), map(&lane.predecessors));
        let l = &mut out.lanes[ix as usize];
        l.successors = succ;
        l.predecessors = pred;
        // The lanes beside it towards the road's centre (|id| − 1) and
        // away from it, on its left or right as it runs, as long as they
        // run the same way.
        let (road, section, id) = (l.road, l.section, l.od_lane);
        let step = id.signum();
        let beside = |k: i32| by_od.get(&(road, section, k)).copied();
        let inward = (id.abs() > 1).then(|| beside(id - step)).flatten();
        let outward = beside(id + step);
        let (left, right) = if inward_is_left(l) {
            (inward, outward)
        } else {
            (outward, inward)
        };
        let same = |o: Option<LaneIx>| {
            o.filter(|&o| {
                let other = &out.lanes[o as usize];
                other.reversed == out.lanes[ix as usize].reversed
                    && other.kind == out.lanes[ix as usize].kind
            })
        };
        let (left, right) = (same(left), same(right));
        let l = &mut out.lanes[ix as usize];
        l.left = left;
        l.right = right;
    }
    for j in &mut out.junctions {
        let (mut sum, mut n) = ([0.0f64; 3], 0usize);
        for &li in &j.lanes {
            for p in &out.lanes[li as usize].points {
                for k in 0..3 {
                    sum[k] += f64::from(p[k]);
                }
                n += 1;
            }
        }
        if n > 0 {
            j.centre = sum.map(|s| (s / n as f64) as f32);
        }
    }
    out.locator = Locator::build(&out.lanes);
    let marks = marks(&net);
    let (signals, controllers) = signals(&net, &prov, &lane_index, &mut warnings);
    Ok(Imported {
        lanes: out,
        marks,
        signals,
        controllers,
        geo_reference: net.geo_reference().proj.clone(),
        warnings,
    })
}

fn colour(c: &str) -> MarkColour {
    match c.to_ascii_lowercase().as_str() {
        "yellow" | "orange" => MarkColour::Yellow,
        "white" | "standard" | "" => MarkColour::White,
        _ => MarkColour::Other,
    }
}

fn marks(net: &RoadNetwork) -> Vec<MarkPiece> {
    let mut out = Vec::new();
    for m in net.road_marks() {
        for line in &m.lines {
            let c = colour(if line.color.is_empty() {
                &m.color
            } else {
                &line.color
            });
            for piece in &line.pieces {
                out.push(MarkPiece {
                    corners: piece.map(mirror),
                    colour: c,
                });
            }
        }
    }
    out
}

fn signals(
    net: &RoadNetwork,
    prov: &xodr::Provenance,
    lane_index: &HashMap<LaneId, LaneIx>,
    warnings: &mut Vec<String>,
) -> (Vec<SignalInfo>, Vec<ControllerInfo>) {
    let controllers: Vec<ControllerInfo> = prov
        .controllers
        .iter()
        .map(|c| ControllerInfo {
            od_id: c.od_id.clone(),
            junctions: c.junctions.iter().map(|j| j.junction_id.clone()).collect(),
        })
        .collect();
    let controller_of: HashMap<xodr::ControllerId, usize> = prov
        .controllers
        .iter()
        .enumerate()
        .map(|(i, c)| (c.controller, i))
        .collect();
    let by_signal: HashMap<xodr::SignalId, &xodr::SignalProvenance> =
        prov.signals.iter().map(|p| (p.signal, p)).collect();
    let mut out = Vec::new();
    for s in net.signals() {
        let Some(p) = by_signal.get(&s.id) else {
            warnings.push(format!("signal {:?} has no provenance, skipped", s.name));
            continue;
        };
        out.push(SignalInfo {
            od_id: p.od_id.clone(),
            road: p.road_id.clone(),
            s: p.s,
            t: p.t,
            kind: s.kind.clone(),
            subtype: s.subtype.clone(),
            value: s.value,
            unit: s.unit.map(|u| u.as_str().to_owned()).unwrap_or_default(),
            dynamic: s.dynamic,
            position: mirror(s.position),
            yaw: -s.heading,
            lanes: s
                .lanes
                .iter()
                .filter_map(|l| lane_index.get(l).copied())
                .collect(),
            controllers: s
                .controllers
                .iter()
                .filter_map(|c| controller_of.get(c).copied())
                .collect(),
        });
    }
    (out, controllers)
}
