use super::*;
use crate::world::map::town::{lane_point, right_vec, surface, LANE_OFFSET};
use std::collections::HashSet;

const EPS: f64 = 1e-9;

fn road(net: &Network, id: u32) -> &Road {
    net.roads.iter().find(|r| r.id == id).expect("road exists")
}

/// The reference line's point and heading at `s`, OpenDRIVE frame.
fn pose(r: &Road, s: f64) -> (f64, f64, f64) {
    let k = r.curvature;
    let h = r.hdg + k * s;
    if k == 0.0 {
        (r.x + s * h.cos(), r.y + s * h.sin(), h)
    } else {
        let x = r.x + (h.sin() - r.hdg.sin()) / k;
        let y = r.y - (h.cos() - r.hdg.cos()) / k;
        (x, y, h)
    }
}

/// Same angle, modulo a turn.
fn same_angle(a: f64, b: f64) -> bool {
    ((a - b).rem_euclid(2.0 * PI) + EPS) % (2.0 * PI) < 2.0 * EPS
}

/// The point and heading of travel on `lane` (±1) of `r` at `s`: lane −1
/// runs along the reference line `LANE_OFFSET` to its right, lane 1 the
/// other way on its left.
fn lane_pose(r: &Road, lane: i32, s: f64) -> (f64, f64, f64) {
    let (x, y, h) = pose(r, s);
    let t = lane.signum() as f64 * LANE_OFFSET as f64;
    let heading = if lane < 0 { h } else { h + PI };
    (x - t * h.sin(), y + t * h.cos(), heading)
}

/// A road's successors, lane by lane: (driving lane, the lanes it goes on in).
pub(super) fn successors(net: &Network, r: &Road) -> Vec<(i32, usize)> {
    let onward = |link: Link, from: i32| match link {
        Link::Junction(j) => net.junctions.iter().find(|x| x.id == j).map_or(0, |x| {
            x.connections
                .iter()
                .filter(|c| c.incoming == r.id && c.from == from)
                .count()
        }),
        Link::Road { .. } => 1,
    };
    let mut out = vec![(-1, onward(r.successor, -1))];
    if r.junction.is_none() {
        out.push((1, onward(r.predecessor, 1)));
    }
    out
}

#[test]
fn ids_are_unique_and_junctions_apart_from_roads() {
    let net = network();
    let roads: HashSet<u32> = net.roads.iter().map(|r| r.id).collect();
    let junctions: HashSet<u32> = net.junctions.iter().map(|j| j.id).collect();
    assert_eq!(roads.len(), net.roads.len());
    assert_eq!(junctions.len(), net.junctions.len());
    assert!(
        roads.is_disjoint(&junctions),
        "LibCarla tells them apart by id"
    );
    assert!(
        !roads.contains(&0) && !junctions.contains(&0),
        "0 means no link"
    );
    let n = ROADS as usize;
    assert_eq!(net.junctions.len(), n * n);
    assert_eq!(
        net.roads.iter().filter(|r| r.junction.is_none()).count(),
        2 * n * (n - 1)
    );
}

#[test]
fn roads_between_nodes_span_the_junction_mouths() {
    let net = network();
    let node_of = |link: Link| match link {
        Link::Junction(j) => {
            net.junctions
                .iter()
                .find(|x| x.id == j)
                .expect("junction")
                .node
        }
        Link::Road { .. } => panic!("roads between nodes end in junctions"),
    };
    for r in net.roads.iter().filter(|r| r.junction.is_none()) {
        assert!((r.length - (SPACING as f64 - 2.0 * JUNCTION_HALF)).abs() < EPS);
        let (a, b) = (node_of(r.predecessor), node_of(r.successor));
        for (node, s, sign) in [(a, 0.0, 1.0), (b, r.length, -1.0)] {
            let (x, y, h) = pose(r, s);
            let (nx, ny) = node_pos(node);
            let (cx, cy) = (
                nx as f64 + sign * JUNCTION_HALF * h.cos(),
                -ny as f64 + sign * JUNCTION_HALF * h.sin(),
            );
            assert!(
                (x - cx).abs() < EPS && (y - cy).abs() < EPS,
                "road {} at s={s}",
                r.id
            );
        }
        // Lane −1 carries the road's direction d, lane 1 the opposite one,
        // on the town's lane points, where `surface` has the same direction.
        let d = (0..2u8)
            .find(|&d| same_angle(heading(d), r.hdg))
            .expect("along x or y");
        for s in [0.0, r.length / 2.0, r.length] {
            for (lane, dir, from) in [(-1, d, a), (1, d + 2, b)] {
                let (x, y, h) = lane_pose(r, lane, s);
                let along = if lane < 0 {
                    s + JUNCTION_HALF
                } else {
                    r.length - s + JUNCTION_HALF
                };
                let (tx, ty) = lane_point(from, dir, along as f32);
                assert!(
                    (x - tx as f64).abs() < 1e-4 && (-y - ty as f64).abs() < 1e-4,
                    "road {} lane {lane} s={s}",
                    r.id
                );
                assert!(same_angle(h, heading(dir)), "road {} lane {lane}", r.id);
                assert_eq!(
                    surface(tx, ty).lane,
                    Some(dir % 4),
                    "road {} lane {lane}",
                    r.id
                );
            }
        }
    }
}

#[test]
fn connecting_roads_join_their_lanes_end_to_end() {
    let net = network();
    for c in net.roads.iter().filter(|r| r.junction.is_some()) {
        for (link, s) in [(c.predecessor, 0.0), (c.successor, c.length)] {
            let Link::Road {
                road: id,
                at_start,
                lane,
            } = link
            else {
                panic!("connecting road {} links to roads", c.id)
            };
            let other = road(&net, id);
            assert!(
                other.junction.is_none(),
                "connecting roads join roads between nodes"
            );
            // Traffic enters a road at its start on lane −1 (along the
            // reference line) and leaves one from its start on lane 1.
            assert_eq!(
                at_start,
                (lane < 0) == (s > 0.0),
                "road {} lane {lane}",
                c.id
            );
            let (x, y, h) = lane_pose(other, lane, if at_start { 0.0 } else { other.length });
            let (cx, cy, ch) = lane_pose(c, -1, s);
            assert!(
                (x - cx).abs() < 1e-9 && (y - cy).abs() < 1e-9,
                "road {} meets road {id}",
                c.id
            );
            assert!(same_angle(h, ch), "road {} and road {id} head apart", c.id);
        }
    }
}

#[test]
fn junctions_connect_every_legal_movement_once() {
    let net = network();
    let mut total = 0;
    for j in &net.junctions {
        let arms = (0..4u8).filter(|&d| neighbour(j.node, d).is_some()).count();
        assert_eq!(
            j.connections.len(),
            arms * (arms - 1),
            "junction {} ({arms} arms)",
            j.id
        );
        let mut movements = HashSet::new();
        for c in &j.connections {
            let incoming = road(&net, c.incoming);
            let link = if c.from < 0 {
                incoming.successor
            } else {
                incoming.predecessor
            };
            assert_eq!(
                link,
                Link::Junction(j.id),
                "road {} reaches junction {}",
                c.incoming,
                j.id
            );
            let conn = road(&net, c.connecting);
            assert_eq!(conn.junction, Some(j.id));
            assert!(
                matches!(conn.predecessor, Link::Road { road, lane, .. } if road == c.incoming && lane == c.from)
            );
            let Link::Road { road: out, .. } = conn.successor else {
                panic!()
            };
            assert_ne!(out, c.incoming, "no U-turns");
            assert!(
                movements.insert((c.incoming, out)),
                "one connecting road per movement"
            );
        }
        total += j.connections.len();
    }
    assert_eq!(
        total,
        net.roads.iter().filter(|r| r.junction.is_some()).count()
    );
    let n = ROADS as usize;
    let (inner, edge) = ((n - 2) * (n - 2), 4 * (n - 2));
    assert_eq!(
        total,
        inner * 12 + edge * 6 + 4 * 2,
        "crossings, T-junctions, L-bends"
    );
}

#[test]
fn every_driving_lane_goes_on() {
    let net = network();
    for r in &net.roads {
        for (lane, ways) in successors(&net, r) {
            assert!(ways > 0, "road {} lane {lane} is a dead end", r.id);
        }
    }
}

#[test]
fn spawn_points_sit_on_lane_centres_off_junctions() {
    let points = spawn_points();
    assert_eq!(points.len(), 4 * (ROADS as usize) * (ROADS as usize - 1));
    for p in &points {
        let (x, y) = (p.location.x, p.location.y);
        assert_eq!(p.location.z, SPAWN_Z);
        let d = ((p.rotation.yaw.rem_euclid(360.0) / 90.0).round() as u8) % 4;
        assert_eq!(
            surface(x, y).lane,
            Some(d),
            "({x}, {y}) yaw {}",
            p.rotation.yaw
        );
        let (rx, ry) = right_vec(d);
        // Back onto the centre line: a multiple of SPACING across the road.
        let across = (x - rx * LANE_OFFSET, y - ry * LANE_OFFSET);
        let c = if d % 2 == 0 { across.1 } else { across.0 };
        assert!((c / SPACING - (c / SPACING).round()).abs() < 1e-4);
        let along = if d % 2 == 0 { x } else { y };
        let from_node = along - (along / SPACING).round() * SPACING;
        assert!(
            from_node.abs() > JUNCTION_HALF as f32 + 5.0,
            "({x}, {y}) near a junction"
        );
    }
}

/// Tag names in order of appearance: opening `name`, closing `/name`.
fn tags(xml: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in xml.split('<').skip(1) {
        let body = &piece[..piece.find('>').expect("tag closes")];
        if body.starts_with('?') || body.starts_with("![CDATA[") {
            continue;
        }
        let name: String = body
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '/')
            .collect();
        if body.starts_with('/') {
            out.push(body.to_string());
        } else {
            out.push(name.clone());
            if body.ends_with('/') {
                out.push(format!("/{name}"));
            }
        }
    }
    out
}

#[test]
fn xml_nests_and_holds_the_network() {
    let (net, xml) = (network(), opendrive());
    let mut open = Vec::new();
    for t in tags(&xml) {
        if let Some(name) = t.strip_prefix('/') {
            assert_eq!(open.pop().as_deref(), Some(name), "unbalanced </{name}>");
        } else {
            open.push(t);
        }
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    let count = |s: &str| xml.matches(s).count();
    assert_eq!(count("<road "), net.roads.len());
    assert_eq!(count("<junction "), net.junctions.len());
    assert_eq!(
        count("<connection "),
        net.roads.len() - 2 * (ROADS * (ROADS - 1)) as usize
    );
    let turns = net.roads.iter().filter(|r| r.curvature != 0.0).count();
    assert_eq!(count("<arc "), turns);
    assert_eq!(count("<line/>"), net.roads.len() - turns);
    assert!(xml.contains(r#"revMajor="1" revMinor="4""#));
    let geo = format!(
        "+lat_0={} +lon_0={} ",
        GEO_REFERENCE.latitude, GEO_REFERENCE.longitude
    );
    assert!(xml.contains(&geo), "geoReference {geo}");
    assert!(!xml.contains("NaN") && !xml.contains("inf"));
}
