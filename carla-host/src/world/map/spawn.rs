//! Recommended spawn points, as CARLA's maps have them: on the centre of
//! driving lanes outside junctions, about every [`SPACING`] metres of
//! lane, at least [`FROM_ENDS`] from a lane's ends (so apart from
//! junctions), never two within [`APART`] metres, [`LIFT`] above the
//! road, facing along the lane. Deterministic: lanes in map order, points
//! in driving order.

use super::lanes::Lanes;
use carla_server::types::{Rotation3D, Transform, Vector3D};
use std::collections::HashMap;

/// Metres of lane per spawn point.
pub(crate) const SPACING: f32 = 20.0;
/// Distance kept from a lane's ends (a car's length and more: the road
/// ahead of a new car goes on for at least this far).
pub(crate) const FROM_ENDS: f32 = 10.5;
/// Distance kept between spawn points (two lanes side by side, 3 m or more
/// apart, each get theirs).
pub(crate) const APART: f32 = 3.0;
/// Height above the road, metres (CARLA's spawn points float a little).
pub(crate) const LIFT: f32 = 0.5;

/// A transform at `p` heading `yaw` (radians), level.
pub(crate) fn transform(p: [f32; 3], yaw: f32) -> Transform {
    let (s, c) = yaw.sin_cos();
    let deg = yaw.to_degrees();
    // Reported in (−180°, 180°].
    let deg = 180.0 - (180.0 - deg).rem_euclid(360.0);
    Transform {
        location: Vector3D {
            x: p[0],
            y: p[1],
            z: p[2],
        },
        orientation: Vector3D { x: c, y: s, z: 0.0 },
        rotation: Rotation3D {
            pitch: 0.0,
            yaw: deg,
            roll: 0.0,
        },
    }
}

/// The spawn points of `lanes`.
pub(crate) fn spawn_points(lanes: &Lanes) -> Vec<Transform> {
    let mut out = Vec::new();
    // Points taken, by 8 m cell.
    let mut taken: HashMap<(i32, i32), Vec<[f32; 3]>> = HashMap::new();
    let cell = |p: [f32; 3]| ((p[0] / APART).floor() as i32, (p[1] / APART).floor() as i32);
    for (_, lane) in lanes.driving().filter(|(i, _)| !lanes.in_junction(*i)) {
        let usable = lane.length() - 2.0 * FROM_ENDS;
        if usable < 0.0 {
            continue;
        }
        let n = (usable / SPACING).floor() as usize + 1;
        let step = if n > 1 { usable / (n - 1) as f32 } else { 0.0 };
        for k in 0..n {
            let d = if n == 1 {
                lane.length() / 2.0
            } else {
                FROM_ENDS + step * k as f32
            };
            let pose = lane.pose(d);
            let p = pose.position;
            let (cx, cy) = cell(p);
            let near = (cx - 1..=cx + 1)
                .flat_map(|x| (cy - 1..=cy + 1).map(move |y| (x, y)))
                .filter_map(|c| taken.get(&c))
                .flatten()
                .any(|q| (q[0] - p[0]).hypot(q[1] - p[1]) < APART && (q[2] - p[2]).abs() < 3.0);
            if near {
                continue;
            }
            taken.entry((cx, cy)).or_default().push(p);
            out.push(transform([p[0], p[1], p[2] + LIFT], pose.yaw));
        }
    }
    out
}
