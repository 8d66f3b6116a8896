//! The built-in town, written as one OpenDRIVE 1.4 document
//! ([`town_xodr`]) that the world loads like any other map: a square grid
//! of straight two-lane roads, a junction at every node, sidewalks,
//! road marks, traffic lights, speed-limit signs and a stop sign. This
//! module is the only place that knows the grid; everything else reads the
//! map.
//!
//! Frames: OpenDRIVE's x is east and y north, headings turn x towards y;
//! CARLA shows an OpenDRIVE `(x, y)` at Unreal `(x, −y)`. Node `(i, j)`
//! (`i, j` in `0..ROADS`) stands at OpenDRIVE `(i · SPACING, −j · SPACING)`,
//! so at Unreal `(i · SPACING, j · SPACING)` as the town always has.
//! Directions are numbered as Unreal yaws: 0 east, 1 Unreal +y (OpenDRIVE
//! south), 2 west, 3 Unreal −y; direction d has the OpenDRIVE heading
//! −90°·d. Traffic keeps right.
//!
//! Roads: each pair of adjacent nodes is joined by a straight road from the
//! node with the smaller index to the other (direction 0 or 1), its ends
//! [`JUNCTION_HALF`] from the node centres (3.5 m past the far edge of the
//! crossing road's sidewalks, so a right turn's lane curves as widely as in
//! CARLA's towns). Lane −1 drives along the reference line, lane 1
//! against it, each [`LANE_WIDTH`] wide; lanes ±2 are [`SIDEWALK_WIDTH`]
//! sidewalks. Marks as CARLA's one-lane-each-way towns write them: a broken
//! yellow centre line, solid white edges, none on sidewalks.
//!
//! Junctions: every node (crossings inside, T-junctions on the edges,
//! L-bends at the corners) has one connecting road per legal movement
//! (straight, right, left; no U-turn): a single driving lane −1 whose
//! reference line follows the centre lines, a line or a quarter circle of
//! radius [`JUNCTION_HALF`], linked to its lanes by `<laneLink>`s. A
//! connecting road with no arm on its right (every right turn, the straight
//! road along a T-junction's closed side, the left turn round the outside
//! of a bend) has a sidewalk lane −2 there too, linked to the sidewalks it
//! joins: the junction's corners are sidewalk lanes, as in CARLA's towns.
//!
//! Signals: every node with three or four arms has one traffic light
//! (`type="1000001"`, dynamic) per incoming road, on that road's sidewalk
//! [`LIGHT_BEFORE_END`] before the junction, valid for the arriving lane,
//! facing its traffic (`orientation` `+` for lane −1, `-` for lane 1;
//! `hOffset` 0, so the board faces the traffic the orientation names).
//! Each light has a controller of its own (CARLA's phase: the lights one
//! controller lists turn green together), and its junction lists those
//! controllers with their turn as `sequence`: lights group by junction
//! (CARLA's light group, whose phases take turns), and no two approaches of
//! a junction are green at once, as the town's lights have always run.
//! Four speed-limit signs (`type="274"`, 30 or 60 km/h) stand
//! [`SIGN_PAST_NODE`] past a node, and one stop sign (`type="206"`) before
//! a corner. Signals stand on the ground (`zOffset` 0), as on CARLA's maps.
//!
//! Ids: junction of node `(i, j)` is `1 + i·ROADS + j`; roads follow, first
//! those between nodes, then the connecting roads (LibCarla tells a link to
//! a junction from one to a road by whether a road has that id, so the two
//! ranges never overlap). Lights are numbered from [`LIGHT_ID0`], their
//! controllers alike from [`CONTROLLER_ID0`] (light 1012, controller
//! 3012), signs from [`SIGN_ID0`].
//!
//! The text is deterministic: the same bytes every call and every build.

use std::collections::BTreeMap;
use std::f64::consts::{FRAC_PI_2, PI};

/// The map's name, as `get_available_maps` lists it.
#[allow(dead_code)] // read by the world's map list
pub(crate) const NAME: &str = "SyntheticTown";
/// Traffic-light cycle of the town's controllers (OpenDRIVE 1.4 has no
/// timings): each approach of a junction gets green then yellow in turn,
/// the others red meanwhile, and after each yellow every light stays red
/// for `CLEARANCE_S`.
#[allow(dead_code)] // read by the world's traffic lights
pub(crate) const GREEN_S: f32 = 10.0;
#[allow(dead_code)] // read by the world's traffic lights
pub(crate) const YELLOW_S: f32 = 3.0;
#[allow(dead_code)] // read by the world's traffic lights
pub(crate) const CLEARANCE_S: f32 = 1.0;

/// Roads per axis.
const ROADS: i32 = 5;
/// Distance between the centre lines of parallel roads, metres.
const SPACING: f64 = 60.0;
const LANE_WIDTH: f64 = 3.5;
const SIDEWALK_WIDTH: f64 = 3.0;
/// Junction areas reach this far from the node centre along each arm: a
/// right turn's lane then curves with a radius of 8.25 m, as in CARLA's
/// towns (7 to 10 m in Town01). Ending the roads at the crossing road's
/// sidewalks (6.5 m) left 4.75 m, tighter than a car at the town's speed
/// can follow: ScenarioRunner's npc_agent swung 0.6 m out of every right
/// turn, and its route failed OutsideRouteLanesTest.
const JUNCTION_HALF: f64 = 10.0;
/// A connecting road starts and ends this far inside its junction: a point
/// where a road meets its junction is then on that road alone. Joined end
/// to end, the road and every junction lane through that point are tied
/// for nearest, and the client's `get_waypoint` picks among them as its
/// R-tree happens to order them: half the junction exits came back as a
/// lane from another arm, and ScenarioRunner's `npc_agent` (which maps
/// every point of its route with `get_waypoint` and plans between them
/// with `GlobalRoutePlanner`) planned a loop round the block there. Links
/// join the lanes; 1 mm is far below anything a car or camera notices.
const JUNCTION_GAP: f64 = 0.001;
/// Signals stand this far from the reference line, on the sidewalk 1.5 m
/// from the kerb.
const SIGNAL_T: f64 = LANE_WIDTH + 1.5;
/// Lights stand this far before the end of their road.
const LIGHT_BEFORE_END: f64 = 0.5;
/// The geographic position of the origin (CARLA's usual 49° N, 8° E).
const LATITUDE: f64 = 49.0;
const LONGITUDE: f64 = 8.0;
/// The first light's signal id; signs are numbered from [`SIGN_ID0`].
const LIGHT_ID0: u32 = 1001;
const SIGN_ID0: u32 = 2001;
/// The controller of light `LIGHT_ID0 + k` is `CONTROLLER_ID0 + k`.
const CONTROLLER_ID0: u32 = 3001;
/// Speed-limit signs: on the lane leaving `node` along `dir`,
/// [`SIGN_PAST_NODE`] past the node centre, km/h.
const SPEED_SIGNS: [((i32, i32), u8, u32); 4] = [
    ((0, 0), 0, 30),
    ((2, 2), 1, 30),
    ((4, 1), 2, 60),
    ((1, 4), 3, 60),
];
const SIGN_PAST_NODE: f64 = 15.0;
/// The stop sign: for traffic arriving at this corner from its arm `dir`.
const STOP_SIGN: ((i32, i32), u8) = ((ROADS - 1, ROADS - 1), 2);

/// A grid node.
type Node = (i32, i32);
/// Roads between nodes, by start node and direction (0 or 1).
type Between = BTreeMap<(Node, u8), u32>;

/// What a road joins at one end: a junction (roads between nodes), or road
/// `road` at its start or end, whose lane `lane` continues this connecting
/// road's lane −1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Link {
    Junction(u32),
    Road {
        road: u32,
        at_start: bool,
        lane: i32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SignalKind {
    Light,
    SpeedLimit(u32),
    Stop,
}

/// A signal on a road, valid for the one driving lane whose traffic it
/// faces: lane −1 (orientation `+`) or lane 1 (`-`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Signal {
    id: u32,
    kind: SignalKind,
    s: f64,
    t: f64,
    lane: i32,
}

/// One road: a single line or arc in the OpenDRIVE frame.
#[derive(Clone, Debug, PartialEq)]
struct Road {
    id: u32,
    /// The junction a connecting road belongs to; `None` between nodes.
    junction: Option<u32>,
    x: f64,
    y: f64,
    hdg: f64,
    length: f64,
    /// 0 for a line; positive turns left.
    curvature: f64,
    predecessor: Link,
    successor: Link,
    /// A connecting road's sidewalk lane −2, on its right.
    sidewalk: bool,
    signals: Vec<Signal>,
}

/// A movement: traffic on lane `from` of road `incoming` goes on in lane −1
/// of road `connecting`, entered at its start.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Connection {
    id: u32,
    incoming: u32,
    connecting: u32,
    from: i32,
    /// The connecting road's sidewalk continues the incoming road's on the
    /// same side (lane `2 · from` to −2).
    sidewalk: bool,
}

/// A junction.
#[derive(Clone, Debug, PartialEq)]
struct Junction {
    id: u32,
    node: Node,
    connections: Vec<Connection>,
    /// Signal ids of its traffic lights, one per incoming road, in the
    /// order their turns come.
    lights: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
struct Network {
    /// Sorted by id, from [`Network::first_road`] on.
    roads: Vec<Road>,
    junctions: Vec<Junction>,
}

impl Network {
    fn first_road() -> u32 {
        junction_id((ROADS - 1, ROADS - 1)) + 1
    }
    fn road_mut(&mut self, id: u32) -> &mut Road {
        &mut self.roads[(id - Self::first_road()) as usize]
    }
}

fn junction_id(n: Node) -> u32 {
    1 + (n.0 * ROADS + n.1) as u32
}

/// Unit vector of direction `d`, OpenDRIVE frame.
fn dir_vec(d: u8) -> (f64, f64) {
    [(1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (0.0, 1.0)][(d % 4) as usize]
}

/// OpenDRIVE heading of direction `d`.
fn heading(d: u8) -> f64 {
    [0.0, -FRAC_PI_2, PI, FRAC_PI_2][(d % 4) as usize]
}

/// The next node in direction `d`, if the grid goes on.
fn neighbour(n: Node, d: u8) -> Option<Node> {
    let m = match d % 4 {
        0 => (n.0 + 1, n.1),
        1 => (n.0, n.1 + 1),
        2 => (n.0 - 1, n.1),
        _ => (n.0, n.1 - 1),
    };
    ((0..ROADS).contains(&m.0) && (0..ROADS).contains(&m.1)).then_some(m)
}

fn arms(n: Node) -> usize {
    (0..4).filter(|&d| neighbour(n, d).is_some()).count()
}

/// The centre-line point `s` metres from node `n` along direction `d`.
fn centre_point(n: Node, d: u8, s: f64) -> (f64, f64) {
    let (hx, hy) = dir_vec(d);
    // `+ 0.0` writes −0 as 0.
    (
        n.0 as f64 * SPACING + hx * s + 0.0,
        -(n.1 as f64) * SPACING + hy * s + 0.0,
    )
}

/// The point and heading `s` along a line (`curvature` 0) or arc that
/// starts at `(x, y)` heading `hdg`, in the OpenDRIVE frame.
fn along(x: f64, y: f64, hdg: f64, curvature: f64, s: f64) -> ((f64, f64), f64) {
    if curvature == 0.0 {
        return ((x + s * hdg.cos(), y + s * hdg.sin()), hdg);
    }
    let h = hdg + curvature * s;
    let dx = (h.sin() - hdg.sin()) / curvature;
    let dy = (hdg.cos() - h.cos()) / curvature;
    ((x + dx, y + dy), h)
}

/// The road on arm `a` of node `n` (towards `neighbour(n, a)`) and whether
/// its reference line starts at `n`.
fn arm(between: &Between, n: Node, a: u8) -> Option<(u32, bool)> {
    let m = neighbour(n, a)?;
    Some(if a < 2 {
        (between[&(n, a)], true)
    } else {
        (between[&(m, a - 2)], false)
    })
}

/// Where a signal for the traffic arriving at a node on one of its arm
/// roads stands, `from_end` metres before the road's end at the node, and
/// the lane it is valid for: (s, t, lane). `starts_here`: whether the road
/// starts at that node.
fn signal_spot(starts_here: bool, from_end: f64) -> (f64, f64, i32) {
    let length = SPACING - 2.0 * JUNCTION_HALF;
    if starts_here {
        // Traffic moves towards s = 0 on lane 1, with its right at t > 0.
        (from_end, SIGNAL_T, 1)
    } else {
        (length - from_end, -SIGNAL_T, -1)
    }
}

/// The whole network; see the module documentation for its layout.
fn network() -> Network {
    let nodes: Vec<Node> = (0..ROADS)
        .flat_map(|i| (0..ROADS).map(move |j| (i, j)))
        .collect();
    let mut net = Network {
        roads: Vec::new(),
        junctions: Vec::new(),
    };
    let mut between = Between::new();
    for &n in &nodes {
        for d in 0..2u8 {
            if let Some(m) = neighbour(n, d) {
                let id = Network::first_road() + net.roads.len() as u32;
                let (x, y) = centre_point(n, d, JUNCTION_HALF);
                between.insert((n, d), id);
                net.roads.push(Road {
                    id,
                    junction: None,
                    x,
                    y,
                    hdg: heading(d),
                    length: SPACING - 2.0 * JUNCTION_HALF,
                    curvature: 0.0,
                    predecessor: Link::Junction(junction_id(n)),
                    successor: Link::Junction(junction_id(m)),
                    sidewalk: false,
                    signals: Vec::new(),
                });
            }
        }
    }
    for &n in &nodes {
        add_junction(&mut net, &between, n);
    }
    add_lights(&mut net, &between);
    add_signs(&mut net, &between);
    net
}

/// The junction of node `n` and its connecting roads.
fn add_junction(net: &mut Network, between: &Between, n: Node) {
    let jid = junction_id(n);
    let mut connections = Vec::new();
    for a in 0..4u8 {
        let Some((incoming, in_starts_here)) = arm(between, n, a) else {
            continue;
        };
        let d_in = (a + 2) % 4;
        for b in (0..4u8).filter(|&b| b != a) {
            let Some((outgoing, out_starts_here)) = arm(between, n, b) else {
                continue;
            };
            let (x0, y0) = centre_point(n, a, JUNCTION_HALF);
            let turn = (b + 4 - d_in) % 4;
            // A sidewalk on its right where no arm is: the corner of a
            // right turn, the closed side of a T, the outside of a bend.
            let arm_to = |d: u8| neighbour(n, d % 4).is_some();
            let sidewalk = match turn {
                0 => !arm_to(d_in + 1),
                1 => true,
                _ => !arm_to(d_in) && !arm_to(d_in + 1),
            };
            let (length, curvature) = match turn {
                0 => (2.0 * JUNCTION_HALF, 0.0),
                1 => (FRAC_PI_2 * JUNCTION_HALF, -1.0 / JUNCTION_HALF),
                _ => (FRAC_PI_2 * JUNCTION_HALF, 1.0 / JUNCTION_HALF),
            };
            // [`JUNCTION_GAP`] in from both ends.
            let ((x, y), hdg) = along(x0, y0, heading(d_in), curvature, JUNCTION_GAP);
            let length = length - 2.0 * JUNCTION_GAP;
            let from = if in_starts_here { 1 } else { -1 };
            let id = Network::first_road() + net.roads.len() as u32;
            net.roads.push(Road {
                id,
                junction: Some(jid),
                x,
                y,
                hdg,
                length,
                curvature,
                predecessor: Link::Road {
                    road: incoming,
                    at_start: in_starts_here,
                    lane: from,
                },
                successor: Link::Road {
                    road: outgoing,
                    at_start: out_starts_here,
                    lane: if out_starts_here { -1 } else { 1 },
                },
                sidewalk,
                signals: Vec::new(),
            });
            connections.push(Connection {
                id: connections.len() as u32,
                incoming,
                connecting: id,
                from,
                sidewalk,
            });
        }
    }
    net.junctions.push(Junction {
        id: jid,
        node: n,
        connections,
        lights: Vec::new(),
    });
}

/// A light on each incoming road of every junction with 3 or 4 arms.
fn add_lights(net: &mut Network, between: &Between) {
    let mut ids = LIGHT_ID0..;
    for k in 0..net.junctions.len() {
        let n = net.junctions[k].node;
        if arms(n) < 3 {
            continue;
        }
        for a in 0..4u8 {
            let Some((road, starts_here)) = arm(between, n, a) else {
                continue;
            };
            let (s, t, lane) = signal_spot(starts_here, LIGHT_BEFORE_END);
            let id = ids.next().expect("ids left");
            let kind = SignalKind::Light;
            let light = Signal {
                id,
                kind,
                s,
                t,
                lane,
            };
            net.road_mut(road).signals.push(light);
            net.junctions[k].lights.push(id);
        }
    }
}

/// The speed-limit signs, then the stop sign.
fn add_signs(net: &mut Network, between: &Between) {
    let stop = (STOP_SIGN.0, STOP_SIGN.1, None);
    let speed = SPEED_SIGNS.iter().map(|&(n, d, v)| (n, d, Some(v)));
    for (id, (n, d, limit)) in (SIGN_ID0..).zip(speed.chain([stop])) {
        let (road, starts_here) = arm(between, n, d).expect("the sign's road exists");
        let (s, t, lane, kind) = match limit {
            // Leaving the node: the lane whose traffic moves away from it.
            Some(v) => {
                let (s, t, lane) = signal_spot(starts_here, SIGN_PAST_NODE - JUNCTION_HALF);
                (s, -t, -lane, SignalKind::SpeedLimit(v))
            }
            None => {
                let (s, t, lane) = signal_spot(starts_here, LIGHT_BEFORE_END);
                (s, t, lane, SignalKind::Stop)
            }
        };
        let sign = Signal {
            id,
            kind,
            s,
            t,
            lane,
        };
        net.road_mut(road).signals.push(sign);
    }
}

/// The built-in town as an OpenDRIVE 1.4 document.
#[allow(dead_code)] // loaded by the world as its default map
pub(crate) fn town_xodr() -> String {
    xml::to_xml(&network())
}

#[path = "builtin_xml.rs"]
mod xml;

#[cfg(test)]
#[path = "builtin_client_tests.rs"]
mod client_tests;
#[cfg(test)]
#[path = "builtin_tests.rs"]
mod tests;
