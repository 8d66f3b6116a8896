//! The town's fixed layout: a square grid of roads (one 3.5 m lane each
//! way, dashed centre line, edge lines), 3 m sidewalks, blocks of box
//! buildings (or parks with trees and a fence) between the roads, traffic
//! lights at the junctions, a few speed-limit signs and a boundary wall.
//!
//! Frame (Unreal's): x forward/east, y right/south, z up, metres; a yaw
//! turns x towards y. Road `k` of each axis has its centre line at
//! `k · SPACING`; a junction ("node") `(i, j)` sits at
//! `(i · SPACING, j · SPACING)`. Travel directions are numbered 0 (+x),
//! 1 (+y), 2 (−x), 3 (−y): yaw = 90° · d, and traffic keeps right, so the
//! lane of direction d runs `LANE_OFFSET` to the right of the centre line.
//! The layout comes from `TOWN_SEED`: the same town every episode, like
//! CARLA's maps; only the traffic depends on the episode's seeds.

use crate::world::math::{floor, v3};
use carla_server::types::{Rotation3D, Transform};

/// Roads per axis.
pub(crate) const ROADS: i32 = 5;
/// Distance between the centre lines of parallel roads, metres.
pub(crate) const SPACING: f32 = 60.0;
pub(crate) const LANE_WIDTH: f32 = 3.5;
/// Half the carriageway (one lane each way).
pub(crate) const ROAD_HALF: f32 = LANE_WIDTH;
/// Distance of a lane's centre from the road's centre line.
pub(crate) const LANE_OFFSET: f32 = LANE_WIDTH / 2.0;
/// Half the road plus one sidewalk.
pub(crate) const WALK_HALF: f32 = ROAD_HALF + 3.0;
/// Centre line of the last road.
pub(crate) const LAST: f32 = SPACING * (ROADS - 1) as f32;
/// The boundary wall stands this far outside the outer centre lines.
pub(crate) const WALL: f32 = WALK_HALF + 20.0;
/// Seed of the layout (buildings, parks).
pub(crate) const TOWN_SEED: u64 = 0x0C1A_7A00_2018_0804;
/// Traffic-light cycle, as CARLA's light groups run: the approaches of a
/// junction get green one after the other (green, then yellow), the others
/// are red meanwhile; after each yellow, every light stays red for
/// `CLEARANCE_S` so what entered on yellow leaves the junction first.
pub(crate) const GREEN_S: f32 = 10.0;
pub(crate) const YELLOW_S: f32 = 3.0;
pub(crate) const CLEARANCE_S: f32 = 1.0;

/// CARLA's semantic tags (the whole table, some unused here).
#[allow(dead_code)]
pub(crate) mod tag {
    pub(crate) const NONE: u8 = 0;
    pub(crate) const BUILDINGS: u8 = 1;
    pub(crate) const FENCES: u8 = 2;
    pub(crate) const OTHER: u8 = 3;
    pub(crate) const PEDESTRIANS: u8 = 4;
    pub(crate) const POLES: u8 = 5;
    pub(crate) const ROAD_LINES: u8 = 6;
    pub(crate) const ROADS: u8 = 7;
    pub(crate) const SIDEWALKS: u8 = 8;
    pub(crate) const VEGETATION: u8 = 9;
    pub(crate) const VEHICLES: u8 = 10;
    pub(crate) const WALLS: u8 = 11;
    pub(crate) const TRAFFIC_SIGNS: u8 = 12;
    // Finer classes of the demo world's own, beyond 0.8's table: 0.8
    // outputs report them as the 0.8 tag named, 0.9.16 outputs as their
    // own class (see `world::map::tags`).
    /// No surface at all (0.8: NONE; 0.9.16: Sky).
    pub(crate) const SKY: u8 = 13;
    /// Grass ground (0.8: VEGETATION; 0.9.16: Terrain).
    pub(crate) const TERRAIN: u8 = 14;
    /// Traffic-light lamp housings (0.8: TRAFFIC_SIGNS; 0.9.16: TrafficLight).
    pub(crate) const TRAFFIC_LIGHTS: u8 = 15;
}

/// What the flat ground is at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ground {
    Road,
    LaneMark,
    Sidewalk,
    /// Grass (inside the blocks and outside the town), tagged Vegetation
    /// (finer: [`tag::TERRAIN`], see [`Ground::fine_tag`]).
    Grass,
}

impl Ground {
    pub(crate) fn tag(self) -> u8 {
        match self {
            Ground::Road => tag::ROADS,
            Ground::LaneMark => tag::ROAD_LINES,
            Ground::Sidewalk => tag::SIDEWALKS,
            Ground::Grass => tag::VEGETATION,
        }
    }
    pub(crate) fn albedo(self) -> [u8; 3] {
        match self {
            Ground::Road => [72, 72, 76],
            Ground::LaneMark => [235, 235, 225],
            Ground::Sidewalk => [165, 160, 150],
            Ground::Grass => [80, 128, 56],
        }
    }
    /// The finer internal tag: grass is [`tag::TERRAIN`].
    pub(crate) fn fine_tag(self) -> u8 {
        match self {
            Ground::Grass => tag::TERRAIN,
            g => g.tag(),
        }
    }
    pub(crate) fn is_road(self) -> bool {
        matches!(self, Ground::Road | Ground::LaneMark)
    }
}

/// The ground at a point, plus the travel direction of the lane there
/// (`None` off the road and inside junctions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Surface {
    pub ground: Ground,
    pub lane: Option<u8>,
}

/// Nearest road index and the signed offset from its centre line.
fn nearest(c: f32) -> (i32, f32) {
    // Truncation is a plain instruction where `round` may be a libm call.
    let k = ((c * (1.0 / SPACING)).clamp(0.0, (ROADS - 1) as f32) + 0.5) as i32;
    (k, c - k as f32 * SPACING)
}

fn within(c: f32, half: f32) -> bool {
    c >= -half && c <= LAST + half
}

/// Classifies the ground at `(x, y)`.
#[inline]
pub(crate) fn surface(x: f32, y: f32) -> Surface {
    let (_, ox) = nearest(x);
    let (_, oy) = nearest(y);
    let on_ns = ox.abs() <= ROAD_HALF && within(y, ROAD_HALF); // road along y
    let on_ew = oy.abs() <= ROAD_HALF && within(x, ROAD_HALF); // road along x
    if on_ns || on_ew {
        if on_ns && on_ew {
            return Surface {
                ground: Ground::Road,
                lane: None,
            };
        }
        // Offset across the road and position along it.
        let (across, along, lane) = if on_ew {
            (oy, x, if oy > 0.0 { 0 } else { 2 })
        } else {
            (ox, y, if ox < 0.0 { 1 } else { 3 })
        };
        let a = across.abs();
        // `along` ≥ −ROAD_HALF here: shift before truncating, for a floor.
        let shifted = along + 60.0;
        let dashed = shifted - (shifted * (1.0 / 6.0)) as i32 as f32 * 6.0 < 3.0;
        let mark = (a < 0.08 && dashed) || (ROAD_HALF - 0.3..ROAD_HALF - 0.15).contains(&a);
        // No marks inside the junction's mouth (the crossing road's sidewalk zone).
        let (_, o_along) = nearest(along);
        let ground = if mark && o_along.abs() > WALK_HALF {
            Ground::LaneMark
        } else {
            Ground::Road
        };
        return Surface {
            ground,
            lane: Some(lane),
        };
    }
    let walk = (ox.abs() <= WALK_HALF && within(y, WALK_HALF))
        || (oy.abs() <= WALK_HALF && within(x, WALK_HALF));
    Surface {
        ground: if walk {
            Ground::Sidewalk
        } else {
            Ground::Grass
        },
        lane: None,
    }
}

/// `surface(x, y).ground` as an index in `Ground` order (road, lane
/// mark, sidewalk, grass), the same classification without branches (the
/// rasterizer's per-pixel path, where ground classes change from pixel to
/// pixel and branches mispredict).
#[inline(always)]
pub(crate) fn ground_index(x: f32, y: f32) -> u32 {
    let off = |c: f32| {
        let k = floor((c * (1.0 / SPACING)).clamp(0.0, (ROADS - 1) as f32) + 0.5);
        c - k * SPACING
    };
    let within = |c: f32, half: f32| (c >= -half) & (c <= LAST + half);
    let (ox, oy) = (off(x), off(y));
    let on_ns = (ox.abs() <= ROAD_HALF) & within(y, ROAD_HALF);
    let on_ew = (oy.abs() <= ROAD_HALF) & within(x, ROAD_HALF);
    let (across, along) = if on_ew { (oy, x) } else { (ox, y) };
    let a = across.abs();
    let shifted = along + 60.0;
    let dashed = shifted - floor(shifted * (1.0 / 6.0)) * 6.0 < 3.0;
    let mark = ((a < 0.08) & dashed) | (ROAD_HALF - 0.3..ROAD_HALF - 0.15).contains(&a);
    let lane_mark = mark & (off(along).abs() > WALK_HALF) & !(on_ns & on_ew);
    let walk = ((ox.abs() <= WALK_HALF) & within(y, WALK_HALF))
        | ((oy.abs() <= WALK_HALF) & within(x, WALK_HALF));
    let road = on_ns | on_ew;
    let off_road = 2 + u32::from(!walk);
    if road {
        u32::from(lane_mark)
    } else {
        off_road
    }
}

/// A junction of the grid.
pub(crate) type Node = (i32, i32);

/// Unit vector of travel direction `d` (0 +x, 1 +y, 2 −x, 3 −y).
pub(crate) fn dir_vec(d: u8) -> (f32, f32) {
    [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][(d % 4) as usize]
}

/// Right-hand unit vector of direction `d`.
pub(crate) fn right_vec(d: u8) -> (f32, f32) {
    dir_vec(d + 1)
}

pub(crate) fn node_pos(n: Node) -> (f32, f32) {
    (n.0 as f32 * SPACING, n.1 as f32 * SPACING)
}

/// The next junction in direction `d`, if the road goes on.
pub(crate) fn neighbour(n: Node, d: u8) -> Option<Node> {
    let (dx, dy) = dir_vec(d);
    let m = (n.0 + dx as i32, n.1 + dy as i32);
    ((0..ROADS).contains(&m.0) && (0..ROADS).contains(&m.1)).then_some(m)
}

/// The point of the lane of direction `d` through node `n`, `s` metres past
/// the node centre along `d`.
pub(crate) fn lane_point(n: Node, d: u8, s: f32) -> (f32, f32) {
    let (px, py) = node_pos(n);
    let (hx, hy) = dir_vec(d);
    let (rx, ry) = right_vec(d);
    (
        px + hx * s + rx * LANE_OFFSET,
        py + hy * s + ry * LANE_OFFSET,
    )
}

/// A traffic light state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Light {
    Green,
    Yellow,
    Red,
}

/// State at time `t` (s) of the light facing traffic that arrives at node
/// `n` heading `d`. Each approach of a junction has its turn (no two
/// approaches are green at once, so no movements conflict); each junction
/// has its own phase offset. Green where there is no light.
pub(crate) fn light_state(n: Node, d: u8, t: f32) -> Light {
    light_phase(n, d, t).0
}

/// Whether traffic arrives at `n` heading `d` (it comes from a neighbour).
fn approach(n: Node, d: u8) -> bool {
    neighbour(n, (d + 2) % 4).is_some()
}

/// How long the light of an approach of `n` stays red: its clearance, then
/// each other approach's turn, seconds.
pub(crate) fn red_seconds(n: Node) -> f32 {
    let approaches = (0..4).filter(|&d| approach(n, d)).count();
    approaches as f32 * (GREEN_S + YELLOW_S + CLEARANCE_S) - GREEN_S - YELLOW_S
}

/// [`light_state`] and the seconds the light has been in that state.
pub(crate) fn light_phase(n: Node, d: u8, t: f32) -> (Light, f32) {
    if !approach(n, d) {
        return (Light::Green, t);
    }
    let slot = GREEN_S + YELLOW_S + CLEARANCE_S;
    let turn = (0..d).filter(|&e| approach(n, e)).count() as f32;
    let cycle = GREEN_S + YELLOW_S + red_seconds(n);
    let offset = ((n.0 * 5 + n.1 * 3) % 13) as f32 * 2.0;
    let phase = (t + offset - turn * slot).rem_euclid(cycle);
    if phase < GREEN_S {
        (Light::Green, phase)
    } else if phase < GREEN_S + YELLOW_S {
        (Light::Yellow, phase - GREEN_S)
    } else {
        (Light::Red, phase - GREEN_S - YELLOW_S)
    }
}

/// A traffic light: the pole stands on the right-hand corner before the
/// junction, facing the traffic that arrives heading `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LightSpot {
    pub node: Node,
    pub dir: u8,
    pub x: f32,
    pub y: f32,
}

impl LightSpot {
    /// Where the light stands, facing the traffic it controls.
    pub(crate) fn transform(&self) -> Transform {
        ground_transform(self.x, self.y, 90.0 * ((self.dir + 2) % 4) as f32)
    }
}

/// Every traffic light, in a fixed order (its index is its id offset).
pub(crate) fn light_spots() -> Vec<LightSpot> {
    let mut out = Vec::new();
    for i in 0..ROADS {
        for j in 0..ROADS {
            for dir in 0..4u8 {
                if neighbour((i, j), dir + 2).is_some() {
                    let (x, y) = lane_point((i, j), dir, -(ROAD_HALF + 0.5));
                    let (rx, ry) = right_vec(dir);
                    // On the sidewalk's corner, 1.5 m from the kerb: clear
                    // of the cars turning right there.
                    let k = ROAD_HALF + 1.5 - LANE_OFFSET;
                    out.push(LightSpot {
                        node: (i, j),
                        dir,
                        x: x + rx * k,
                        y: y + ry * k,
                    });
                }
            }
        }
    }
    out
}

/// A speed-limit sign on the right sidewalk of the lane leaving `node`
/// along `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SignSpot {
    pub x: f32,
    pub y: f32,
    pub dir: u8,
    pub limit_kmh: f32,
}

pub(crate) fn sign_spots() -> Vec<SignSpot> {
    [
        ((0, 0), 0u8, 30.0),
        ((2, 2), 1, 30.0),
        ((4, 1), 2, 60.0),
        ((1, 4), 3, 60.0),
    ]
    .iter()
    .map(|&(node, dir, limit_kmh)| {
        let (x, y) = lane_point(node, dir, 15.0);
        let (rx, ry) = right_vec(dir);
        let k = ROAD_HALF + 0.6 - LANE_OFFSET;
        SignSpot {
            x: x + rx * k,
            y: y + ry * k,
            dir,
            limit_kmh,
        }
    })
    .collect()
}

/// A transform on the ground with a yaw, degrees.
/// The yaw is reported in (−180°, 180°].
pub(crate) fn ground_transform(x: f32, y: f32, yaw_deg: f32) -> Transform {
    let (s, c) = yaw_deg.to_radians().sin_cos();
    let yaw_deg = 180.0 - (180.0 - yaw_deg).rem_euclid(360.0);
    Transform {
        location: v3(x, y, 0.0),
        orientation: v3(c, s, 0.0),
        rotation: Rotation3D {
            pitch: 0.0,
            yaw: yaw_deg,
            roll: 0.0,
        },
    }
}

/// Where the player may start: the lane centre 20 m past every junction,
/// in every direction a road leaves it (80 spots), heading along the lane.
pub(crate) fn player_start_spots() -> Vec<Transform> {
    let mut out = Vec::new();
    for i in 0..ROADS {
        for j in 0..ROADS {
            for d in 0..4u8 {
                if neighbour((i, j), d).is_some() {
                    let (x, y) = lane_point((i, j), d, 20.0);
                    out.push(ground_transform(x, y, 90.0 * d as f32));
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "town_tests.rs"]
mod tests;
