//! The autopilot: what a driver following the lanes would do with a car
//! (the 0.8 player's suggested control, and a client vehicle put on the
//! server's autopilot): find the driving lane under it running its way,
//! steer for a point a little ahead along the lanes (pure pursuit; at a
//! fork the way that turns least), cruise at 30 km/h, stop at red and
//! yellow lights and behind whatever is `gap` metres ahead.

use super::lights::Lights;
use super::vehicle::{Car, WHEELBASE_M};
use super::ways::Ways;
use crate::world::map::lanes::{LaneIx, Lanes};
use carla_server::types::{CBool, Control};
use std::f32::consts::PI;

/// The autopilot's cruising speed (30 km/h).
pub(crate) const AUTOPILOT_SPEED: f32 = 30.0 / 3.6;
/// How far to look for the lane under the car, metres.
const REACH: f32 = 6.0;

fn angle(a: f32) -> f32 {
    (a + PI).rem_euclid(2.0 * PI) - PI
}

/// The driving lane under `car` (nearest, running within 90° of its
/// heading) and the distance along it.
pub(crate) fn lane_of(car: &Car, lanes: &Lanes) -> Option<(LaneIx, f32)> {
    let on = lanes.nearest_driving_heading(car.x, car.y, car.z, car.yaw, REACH)?;
    Some((on.lane, on.dist))
}

/// The successor of `lane` that turns least from its end's heading.
pub(crate) fn straightest(lanes: &Lanes, lane: LaneIx) -> Option<LaneIx> {
    let l = lanes.lane(lane);
    let end = l.pose(l.length()).yaw;
    l.successors
        .iter()
        .copied()
        .filter(|&n| lanes.lane(n).kind.is_driving())
        .min_by(|&a, &b| {
            let turn = |n: LaneIx| {
                let m = lanes.lane(n);
                angle(m.pose(m.length()).yaw - end).abs()
            };
            turn(a).total_cmp(&turn(b))
        })
}

/// The control that follows the lanes; `gap` is the free distance to what
/// is ahead.
pub(crate) fn drive(
    car: &Car,
    lanes: &Lanes,
    ways: &Ways,
    lights: &Lights,
    gap: Option<f32>,
) -> Control {
    let mut want = AUTOPILOT_SPEED;
    let Some((mut lane, mut d)) = lane_of(car, lanes) else {
        // Off every lane: stand still.
        return brake();
    };
    // Red and yellow lights on this lane or the next, ahead of the car.
    let mut to_lane_end = lanes.lane(lane).length() - d;
    let next = straightest(lanes, lane);
    let stops = [(lane, -d), (next.unwrap_or(lane), to_lane_end)];
    for (i, (l, base)) in stops.iter().enumerate() {
        if i == 1 && next.is_none() {
            break;
        }
        if let Some(stop) = ways.stops[*l as usize] {
            let ahead = base + stop.dist - car.extent.x;
            if ahead > 0.0 && lights.state(stop.light).stops() {
                want = want.min((2.0 * 3.0 * (ahead - 1.0).max(0.0)).sqrt());
            }
        }
    }
    // The point `lookahead` metres ahead along the lanes.
    let mut look = 4.0 + 0.3 * car.speed.max(0.0);
    let mut guard = 0;
    while look > to_lane_end && guard < 8 {
        guard += 1;
        let Some(n) = straightest(lanes, lane) else {
            // A dead end: slow down to stop at it.
            want = want.min((2.0 * 3.0 * (to_lane_end - car.extent.x).max(0.0)).sqrt());
            break;
        };
        look -= to_lane_end;
        (lane, d) = (n, 0.0);
        to_lane_end = lanes.lane(lane).length();
    }
    let target = lanes.lane(lane).pose(d + look).position;
    let (tx, ty) = (target[0] - car.x, target[1] - car.y);
    // Pure pursuit: the wheel angle whose arc passes through the target.
    let (c, s) = (car.yaw.cos(), car.yaw.sin());
    let alpha = (ty * c - tx * s).atan2(tx * c + ty * s);
    let dist = (tx * tx + ty * ty).sqrt().max(1.0);
    let wheel = (2.0 * WHEELBASE_M * alpha.sin() / dist).atan();
    let steer = (wheel / car.max_steer_deg.to_radians()).clamp(-1.0, 1.0);
    // Slow for bends.
    want = want.min(3.0 + 20.0 * (1.0 - alpha.abs().min(1.0)));
    if let Some(g) = gap {
        want = want.min((2.0 * 3.0 * (g - 3.0).max(0.0)).sqrt());
    }
    let err = want - car.speed;
    Control {
        steer,
        throttle: (err * 0.5).clamp(0.0, 0.8),
        brake: if err < -0.5 || want < 0.1 {
            (-err * 0.3).clamp(0.3, 1.0)
        } else {
            0.0
        },
        hand_brake: CBool::FALSE,
        reverse: CBool::FALSE,
    }
}

fn brake() -> Control {
    Control {
        brake: 1.0,
        ..Default::default()
    }
}
