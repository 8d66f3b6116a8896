//! The town of [`super::town`] as an OpenDRIVE 1.4 map, the way CARLA 0.9
//! clients get it (`world.get_map()` receives the XML and LibCarla's parser
//! runs every map query client-side), plus the recommended spawn points
//! (`map.get_spawn_points()`, sent separately).
//!
//! Frames: OpenDRIVE's x is east and y north, headings turn x towards y
//! (counter-clockwise); CARLA maps an OpenDRIVE `(x, y)` to Unreal
//! `(x, −y)` and a heading h to the yaw −h. So the town's travel direction
//! d (Unreal yaw 90°·d) has the OpenDRIVE heading −90°·d.
//!
//! Network: every pair of adjacent nodes is joined by a straight road from
//! the node with the smaller index to the other (so along +x or +y in
//! Unreal), starting and ending [`JUNCTION_HALF`] from the node centres.
//! Its reference line is the town's centre line; lane −1 (right of the
//! reference line, driving along it) carries the road's direction, lane 1
//! the opposite one, each `LANE_WIDTH` wide, so a lane's centre lies
//! `LANE_OFFSET` to the right of the centre line as `town::lane_point` has
//! it. Sidewalks are lanes ±2. Road marks: solid outer edges of lanes ±1,
//! a broken centre line (lane 0), none on sidewalks — as the town paints
//! them, whose marks also stop `JUNCTION_HALF` from the node.
//!
//! Every node is a junction (the outer nodes are T-junctions, the corners
//! L-bends): one connecting road per legal movement (straight, right,
//! left; no U-turn), each a single lane −1 whose reference line runs along
//! the centre lines, from the incoming arm's road end to the outgoing arm's
//! road start: a line, or a quarter circle of radius `JUNCTION_HALF`, so
//! the lane's own radius is `JUNCTION_HALF ∓ LANE_OFFSET` on a right / left
//! turn. As on CARLA's maps, `s` (and so `waypoint.next(d)`) counts along
//! the reference line, not along the lane.
//!
//! Ids: junction of node `(i, j)` is `1 + i·ROADS + j`; roads follow, first
//! the roads between nodes, then the connecting roads. LibCarla tells a
//! junction link from a road link by whether a road has that id, so the two
//! ranges never overlap.

use super::town::{dir_vec, neighbour, node_pos, Node, ROADS, SPACING, WALK_HALF};
use carla_server::sensor::models::gnss::GeoReference;
use carla_server::types::Transform;
use std::collections::HashMap;
use std::f64::consts::{FRAC_PI_2, PI};

/// The geographic position of the world origin, shared by the map's
/// `<geoReference>` and the GNSS sensors (CARLA's usual 49° N, 8° E).
pub(crate) const GEO_REFERENCE: GeoReference = GeoReference {
    latitude: 49.0,
    longitude: 8.0,
    altitude: 0.0,
};
/// Junction areas reach this far from the node centre along each arm: to
/// the far edge of the crossing road's sidewalks, where the town's lane
/// marks stop.
pub(crate) const JUNCTION_HALF: f64 = WALK_HALF as f64;
/// Height of the spawn points above the ground, metres.
pub(crate) const SPAWN_Z: f32 = 0.5;

/// What a road joins at one end: a junction (roads between nodes), or road
/// `road` at its start or end, whose lane `lane` continues this connecting
/// road's lane −1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Link {
    Junction(u32),
    Road {
        road: u32,
        at_start: bool,
        lane: i32,
    },
}

/// One road: a single line or arc geometry in the OpenDRIVE frame.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Road {
    pub id: u32,
    /// The junction a connecting road belongs to; `None` between nodes.
    pub junction: Option<u32>,
    pub x: f64,
    pub y: f64,
    pub hdg: f64,
    pub length: f64,
    /// 0 for a line; positive turns left.
    pub curvature: f64,
    pub predecessor: Link,
    pub successor: Link,
}

/// A movement through a junction: traffic on lane `from` of road
/// `incoming` goes on in lane −1 of road `connecting`, entered at its start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Connection {
    pub id: u32,
    pub incoming: u32,
    pub connecting: u32,
    pub from: i32,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Junction {
    pub id: u32,
    pub node: Node,
    pub connections: Vec<Connection>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Network {
    pub roads: Vec<Road>,
    pub junctions: Vec<Junction>,
}

pub(crate) fn junction_id(n: Node) -> u32 {
    1 + (n.0 * ROADS + n.1) as u32
}

/// OpenDRIVE heading of the town's travel direction `d`.
fn heading(d: u8) -> f64 {
    [0.0, -FRAC_PI_2, PI, FRAC_PI_2][(d % 4) as usize]
}

/// The centre-line point `s` metres from node `n` along direction `d`, in
/// the OpenDRIVE frame.
fn centre_point(n: Node, d: u8, s: f64) -> (f64, f64) {
    let (px, py) = node_pos(n);
    let (hx, hy) = dir_vec(d);
    // `+ 0.0` writes −0 as 0.
    (
        px as f64 + hx as f64 * s,
        -(py as f64 + hy as f64 * s) + 0.0,
    )
}

/// The road on arm `a` of node `n` (the road towards `neighbour(n, a)`)
/// and whether its reference line starts at `n`.
fn arm(roads_from: &HashMap<(Node, u8), u32>, n: Node, a: u8) -> Option<(u32, bool)> {
    let m = neighbour(n, a)?;
    Some(if a < 2 {
        (roads_from[&(n, a)], true)
    } else {
        (roads_from[&(m, a - 2)], false)
    })
}

/// The whole network; see the module documentation for its layout.
pub(crate) fn network() -> Network {
    let nodes: Vec<Node> = (0..ROADS)
        .flat_map(|i| (0..ROADS).map(move |j| (i, j)))
        .collect();
    let first_road = junction_id((ROADS - 1, ROADS - 1)) + 1;
    let mut roads = Vec::new();
    // Roads between nodes, by start node and direction (0 or 1).
    let mut roads_from = HashMap::new();
    for &n in &nodes {
        for d in 0..2u8 {
            if let Some(m) = neighbour(n, d) {
                let (x, y) = centre_point(n, d, JUNCTION_HALF);
                roads_from.insert((n, d), first_road + roads.len() as u32);
                roads.push(Road {
                    id: first_road + roads.len() as u32,
                    junction: None,
                    x,
                    y,
                    hdg: heading(d),
                    length: SPACING as f64 - 2.0 * JUNCTION_HALF,
                    curvature: 0.0,
                    predecessor: Link::Junction(junction_id(n)),
                    successor: Link::Junction(junction_id(m)),
                });
            }
        }
    }
    let mut junctions = Vec::new();
    for &n in &nodes {
        let jid = junction_id(n);
        let mut connections = Vec::new();
        for a in 0..4u8 {
            let Some((incoming, in_starts_here)) = arm(&roads_from, n, a) else {
                continue;
            };
            let d_in = (a + 2) % 4;
            for b in (0..4u8).filter(|&b| b != a) {
                let Some((outgoing, out_starts_here)) = arm(&roads_from, n, b) else {
                    continue;
                };
                let (x, y) = centre_point(n, a, JUNCTION_HALF);
                let (length, curvature) = match (b + 4 - d_in) % 4 {
                    0 => (2.0 * JUNCTION_HALF, 0.0),
                    1 => (FRAC_PI_2 * JUNCTION_HALF, -1.0 / JUNCTION_HALF),
                    _ => (FRAC_PI_2 * JUNCTION_HALF, 1.0 / JUNCTION_HALF),
                };
                let from = if in_starts_here { 1 } else { -1 };
                let id = first_road + roads.len() as u32;
                roads.push(Road {
                    id,
                    junction: Some(jid),
                    x,
                    y,
                    hdg: heading(d_in),
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
                });
                connections.push(Connection {
                    id: connections.len() as u32,
                    incoming,
                    connecting: id,
                    from,
                });
            }
        }
        junctions.push(Junction {
            id: jid,
            node: n,
            connections,
        });
    }
    Network { roads, junctions }
}

/// The town as an OpenDRIVE 1.4 document.
#[allow(dead_code)] // served to 0.9 clients by the world's get_map
pub(crate) fn opendrive() -> String {
    xml::to_xml(&network())
}

/// CARLA-style recommended spawn points: the lane centre 20 m past every
/// node centre in every direction a road leaves it (the player's start spots
/// of [`super::town::player_start_spots`], in the same order), facing
/// along the lane, [`SPAWN_Z`] above the ground.
#[allow(dead_code)] // served to 0.9 clients by the world's get_spawn_points
pub(crate) fn spawn_points() -> Vec<Transform> {
    let mut out = super::town::player_start_spots();
    for t in &mut out {
        t.location.z = SPAWN_Z;
    }
    out
}

#[path = "opendrive_xml.rs"]
mod xml;

#[cfg(test)]
#[path = "opendrive_client_tests.rs"]
mod client_tests;
#[cfg(test)]
#[path = "opendrive_tests.rs"]
mod tests;
