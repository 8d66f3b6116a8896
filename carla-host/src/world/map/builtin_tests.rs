//! The built-in town as the `xodr` crate reads it (the reader the world
//! loads maps with): counts, the lane graph, signals and controllers, road
//! marks. What the CARLA 0.9.16 client makes of it is in
//! builtin_client_tests.rs.

use super::*;
use std::collections::{BTreeMap, BTreeSet};
use xodr::{
    LaneId, LaneType, Orientation, Point, Provenance, RoadMarkType, RoadNetwork, Signal as XSignal,
    Unit,
};

/// The grid's numbers, worked out independently of the generator.
const N: usize = ROADS as usize;
const ROADS_BETWEEN: usize = 2 * N * (N - 1);
/// Crossings have 4 arms (12 movements), T-junctions 3 (6), corners 2 (2).
const CROSSINGS: usize = (N - 2) * (N - 2);
const TEES: usize = 4 * (N - 2);
const MOVEMENTS: usize = CROSSINGS * 12 + TEES * 6 + 4 * 2;
const LIGHTS: usize = CROSSINGS * 4 + TEES * 3;
/// Sidewalk lanes of connecting roads: round each corner between two arms
/// (4, 2 and 1), along a T's closed side (1) and round a bend's outside (1).
const JUNCTION_SIDEWALKS: usize = CROSSINGS * 4 + TEES * 3 + 4 * 2;

fn load() -> (RoadNetwork, Provenance) {
    xodr::load_str_with_provenance(&town_xodr()).expect("the xodr crate reads the town")
}

/// The `(road, junction)` of a lane: its `<road id>` and that road's
/// `junction` (`None` between nodes).
fn place(net: &RoadNetwork, lane: LaneId) -> (String, Option<String>) {
    let road = net.road(net.road_lane(lane).expect("a road lane").road);
    let road = road.expect("the lane's road");
    (
        road.od_id().to_string(),
        road.junction().map(str::to_string),
    )
}

/// The lane's (entry, exit) points and its heading of travel at the exit.
fn ends(net: &RoadNetwork, lane: LaneId) -> (Point, Point, f32) {
    let l = net.lane(lane).expect("lane");
    let p = l.center.points();
    let (a, b) = (p[0], p[p.len() - 1]);
    let t = l.center.tangents();
    let forward = l.direction == xodr::Direction::Forward;
    let exit_tangent = if forward { t[t.len() - 1] } else { t[0] };
    let heading = exit_tangent.y.atan2(exit_tangent.x) + if forward { 0.0 } else { PI as f32 };
    if forward {
        (a, b, heading)
    } else {
        (b, a, heading)
    }
}

fn dist(a: Point, b: Point) -> f32 {
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

fn same_angle(a: f32, b: f32, eps: f32) -> bool {
    (a - b)
        .rem_euclid(2.0 * PI as f32)
        .min((b - a).rem_euclid(2.0 * PI as f32))
        < eps
}

#[test]
fn the_text_is_deterministic_and_declares_opendrive_1_4() {
    let (a, b) = (town_xodr(), town_xodr());
    assert_eq!(a, b);
    assert!(a.starts_with("<?xml") && a.contains(r#"revMajor="1" revMinor="4""#));
    assert!(a.contains(&format!(r#"name="{NAME}""#)));
    assert!(
        a.contains("<![CDATA[+proj=tmerc +lat_0=49 +lon_0=8 "),
        "the geoReference CARLA's clients and the GNSS read"
    );
    assert!(!a.contains("NaN") && !a.contains("inf") && !a.contains("=\"-0\""));
}

#[test]
fn the_xodr_crate_reads_it_without_a_warning() {
    let (net, prov) = load();
    assert_eq!(prov.warnings, vec![]);
    let proj = net.geo_reference().proj.as_deref().unwrap_or_default();
    assert!(proj.contains("+lat_0=49 +lon_0=8"), "{proj}");
}

#[test]
fn it_has_the_grids_roads_junctions_and_lanes() {
    let (net, prov) = load();
    assert_eq!(net.roads().len(), ROADS_BETWEEN + MOVEMENTS);
    assert_eq!(prov.junctions.len(), N * N);
    let between = net.roads().iter().filter(|r| r.junction().is_none());
    assert_eq!(between.count(), ROADS_BETWEEN);
    let count = |kind| net.lanes().iter().filter(|l| l.kind == kind).count();
    assert_eq!(count(LaneType::Driving), 2 * ROADS_BETWEEN + MOVEMENTS);
    assert_eq!(
        count(LaneType::Sidewalk),
        2 * ROADS_BETWEEN + JUNCTION_SIDEWALKS
    );
    assert_eq!(
        net.lanes().len(),
        4 * ROADS_BETWEEN + MOVEMENTS + JUNCTION_SIDEWALKS
    );
    // Each connecting road is one driving lane inside its junction (and
    // where no arm is on its right, a sidewalk there), and each junction
    // has one per movement of its arms.
    let mut per_junction = BTreeMap::<String, usize>::new();
    for lane in net.lanes() {
        if let (_, Some(j)) = place(&net, lane.id) {
            if lane.kind == LaneType::Driving {
                *per_junction.entry(j).or_default() += 1;
            } else {
                assert_eq!(lane.kind, LaneType::Sidewalk, "junction {j}");
            }
        }
    }
    let mut sizes: Vec<usize> = per_junction.into_values().collect();
    sizes.sort_unstable();
    let mut expected = [vec![2; 4], vec![6; TEES], vec![12; CROSSINGS]].concat();
    expected.sort_unstable();
    assert_eq!(sizes, expected);
}

#[test]
fn every_driving_lane_can_be_driven_on_forever() {
    let (net, _) = load();
    let driving: Vec<LaneId> = net.driving_lanes().map(|l| l.id).collect();
    for &lane in &driving {
        let next: Vec<_> = net.successors(lane).collect();
        assert!(!next.is_empty(), "{:?} is a dead end", place(&net, lane));
        for succ in next {
            assert_eq!(succ.kind, LaneType::Driving);
            // Joined end to start, not across the road.
            let (exit, next_entry) = (ends(&net, lane).1, ends(&net, succ.id).0);
            assert!(
                dist(exit, next_entry) < 0.01,
                "{:?} ends {:.2} m from {:?}",
                place(&net, lane),
                dist(exit, next_entry),
                place(&net, succ.id)
            );
        }
    }
    // Every lane reaches every other one, forwards and backwards.
    for forward in [true, false] {
        let mut seen = BTreeSet::from([driving[0].0]);
        let mut todo = vec![driving[0]];
        while let Some(lane) = todo.pop() {
            let l = net.lane(lane).expect("lane");
            let next = if forward {
                &l.successors
            } else {
                &l.predecessors
            };
            for &n in next {
                if seen.insert(n.0) {
                    todo.push(n);
                }
            }
        }
        assert_eq!(seen.len(), driving.len(), "forward: {forward}");
    }
}

/// The signals of one `type`, with the `<road id>` each stands on.
fn signals_of<'a>(
    net: &'a RoadNetwork,
    prov: &Provenance,
    kind: &str,
) -> Vec<(&'a XSignal, String)> {
    let roads: BTreeMap<_, _> = prov.signals.iter().map(|p| (p.signal.0, p)).collect();
    net.signals()
        .iter()
        .filter(|s| s.kind == kind)
        .map(|s| (s, roads[&s.id.0].road_id.clone()))
        .collect()
}

/// Checks a signal stands on the ground on its one driving lane's sidewalk
/// side, 3.25 m right of the lane's centre, `from_exit` metres before the lane's exit,
/// facing its traffic; returns that lane.
fn beside_its_lane(net: &RoadNetwork, sig: &XSignal, road: &str, from_exit: f32) -> LaneId {
    assert_eq!(sig.lanes.len(), 1, "signal {road}: one lane");
    let lane = sig.lanes[0];
    assert_eq!(place(net, lane), (road.to_string(), None));
    let (_, exit, heading) = ends(net, lane);
    let (dx, dy) = (heading.cos(), heading.sin());
    let back = Point::new(exit.x - dx * from_exit, exit.y - dy * from_exit, 0.0);
    // Right of travel: (dy, −dx).
    let spot = Point::new(back.x + dy * 3.25, back.y - dx * 3.25, 0.0);
    assert!(dist(sig.position, spot) < 0.01, "signal on road {road}");
    assert!(
        sig.position.z.abs() < 1e-6,
        "on the ground, as CARLA's maps stand them"
    );
    assert!(
        same_angle(sig.heading, heading + PI as f32, 1e-4),
        "faces its traffic"
    );
    lane
}

#[test]
fn each_incoming_road_of_a_three_or_four_arm_junction_has_a_light() {
    let (net, prov) = load();
    let lights = signals_of(&net, &prov, "1000001");
    assert_eq!(lights.len(), LIGHTS);
    let orientation: BTreeMap<_, _> = prov
        .signals
        .iter()
        .map(|p| (p.signal.0, p.orientation))
        .collect();
    // Junction of each light, from the lanes its lane leads into.
    let mut by_junction = BTreeMap::<String, BTreeSet<String>>::new();
    for (light, road) in &lights {
        assert!(
            light.dynamic && light.subtype == "-1",
            "light on road {road}"
        );
        let lane = beside_its_lane(&net, light, road, LIGHT_BEFORE_END as f32);
        let od_lane = net.road_lane(lane).expect("lane").od_id;
        let expected = if od_lane < 0 {
            Orientation::Positive
        } else {
            Orientation::Negative
        };
        assert_eq!(orientation[&light.id.0], expected, "light on road {road}");
        let junctions: BTreeSet<_> = net.successors(lane).map(|s| place(&net, s.id).1).collect();
        assert_eq!(
            junctions.len(),
            1,
            "light on road {road} before one junction"
        );
        let j = junctions
            .into_iter()
            .next()
            .flatten()
            .expect("into a junction");
        assert!(
            by_junction.entry(j).or_default().insert(road.clone()),
            "one light per incoming road"
        );
    }
    let arms: Vec<usize> = by_junction.values().map(BTreeSet::len).collect();
    assert_eq!(arms.iter().filter(|&&a| a == 4).count(), CROSSINGS);
    assert_eq!(arms.iter().filter(|&&a| a == 3).count(), TEES);
}

/// Each light has a controller of its own (CARLA switches a controller's
/// lights together), listed by the junction the light stands before, with
/// the junction's turns numbered 0, 1, ... by `sequence` (CARLA cycles a
/// junction's controllers): so no two approaches are green at once.
#[test]
fn each_light_has_its_own_controller_which_its_junction_lists() {
    let (net, prov) = load();
    let lights = signals_of(&net, &prov, "1000001");
    let light_junction: BTreeMap<_, _> = lights
        .iter()
        .map(|(l, _)| {
            let next = net.successors(l.lanes[0]).next().expect("a successor");
            (l.id.0, place(&net, next.id).1.expect("a junction"))
        })
        .collect();
    assert_eq!(net.controllers().len(), LIGHTS);
    let mut turns = BTreeMap::<String, Vec<u32>>::new();
    let mut controlled = BTreeSet::new();
    for c in &prov.controllers {
        let controller = net.controller(c.controller).expect("controller");
        let [control] = controller.signals.as_slice() else {
            panic!("controller {} switches one light", c.od_id)
        };
        let light = net.signal(control.signal).expect("signal");
        assert_eq!(light.kind, "1000001", "controller {}", c.od_id);
        assert_eq!(light.controllers, vec![c.controller]);
        assert!(
            controlled.insert(control.signal.0),
            "one controller a light"
        );
        let [j] = c.junctions.as_slice() else {
            panic!("controller {} in one junction", c.od_id)
        };
        assert_eq!(j.junction_id, light_junction[&control.signal.0]);
        assert_eq!(j.kind, "0");
        assert_eq!(j.sequence, controller.sequence, "controller {}", c.od_id);
        let turn = j.sequence.expect("a turn");
        turns.entry(j.junction_id.clone()).or_default().push(turn);
    }
    assert_eq!(controlled.len(), LIGHTS, "every light controlled");
    let mut arms = Vec::new();
    for (junction, mut t) in turns {
        t.sort_unstable();
        let expected: Vec<u32> = (0..t.len() as u32).collect();
        assert_eq!(t, expected, "turns of junction {junction}");
        arms.push(t.len());
    }
    assert_eq!(arms.iter().filter(|&&a| a == 4).count(), CROSSINGS);
    assert_eq!(arms.iter().filter(|&&a| a == 3).count(), TEES);
}

#[test]
fn speed_limit_and_stop_signs_stand_beside_their_lanes() {
    let (net, prov) = load();
    let speed = signals_of(&net, &prov, "274");
    let mut values: Vec<f64> = speed.iter().filter_map(|(s, _)| s.value).collect();
    values.sort_by(f64::total_cmp);
    assert_eq!(values, [30.0, 30.0, 60.0, 60.0]);
    for (sign, road) in &speed {
        assert!(!sign.dynamic);
        assert_eq!(sign.unit, Some(Unit::KilometrePerHour));
        assert_eq!(sign.subtype, format!("{}", sign.value.unwrap_or_default()));
        // 15 m past a node centre: 8.5 m into a 47 m road.
        let lane = beside_its_lane(&net, sign, road, (SPACING - 15.0 - JUNCTION_HALF) as f32);
        let entry = net.lane(lane).expect("lane").predecessors.clone();
        assert!(
            entry.iter().all(|&p| place(&net, p).1.is_some()),
            "leaving a junction"
        );
    }
    let stops = signals_of(&net, &prov, "206");
    assert_eq!(stops.len(), 1);
    let (stop, road) = &stops[0];
    let lane = beside_its_lane(&net, stop, road, LIGHT_BEFORE_END as f32);
    // Before a corner, which has no lights.
    assert_eq!(net.successors(lane).count(), 1);
    let lit: BTreeSet<_> = prov.controllers.iter().map(|c| c.od_id.clone()).collect();
    let corner = net.successors(lane).next().map(|l| place(&net, l.id).1);
    assert!(!lit.contains(&corner.flatten().expect("a junction")));
}

#[test]
fn road_marks_are_written_as_carlas_towns_write_them() {
    let (net, prov) = load();
    let mut seen = BTreeMap::<(bool, i32), BTreeSet<String>>::new();
    for p in &prov.road_marks {
        let mark = net.road_mark(p.road_mark).expect("mark");
        let road = net
            .roads()
            .iter()
            .find(|r| r.od_id() == p.road_id)
            .expect("road");
        let what = format!("{:?} {} {:?}", mark.kind, mark.color, mark.lane_change);
        seen.entry((road.junction().is_some(), p.od_lane_id))
            .or_default()
            .insert(what);
        if mark.kind != RoadMarkType::None {
            assert!((mark.width - 0.125).abs() < 1e-6);
        }
    }
    let one = |s: &str| BTreeSet::from([s.to_string()]);
    let expected = BTreeMap::from([
        ((false, 2), one("None white None")),
        ((false, 1), one("Solid white None")),
        ((false, 0), one("Broken yellow None")),
        ((false, -1), one("Solid white None")),
        ((false, -2), one("None white None")),
        ((true, 0), one("None white None")),
        ((true, -1), one("None white None")),
        ((true, -2), one("None white None")),
    ]);
    assert_eq!(seen, expected);
}
