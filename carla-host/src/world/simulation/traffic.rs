//! Non-player traffic: vehicles that follow the lanes from junction to
//! junction (a quadratic Bézier per road stretch and per turn), pick a
//! random way at each junction, stop at red and yellow lights, enter a
//! junction only when their way out has room (else take another way that
//! has), let oncoming traffic pass before turning left and keep their
//! distance to whatever is ahead, the player's car included. Plain
//! kinematics, seeded. (Pedestrians: [`super::pedestrians`].)

use crate::world::map::town::{
    self, dir_vec, lane_point, light_state, neighbour, Light, Node, ROAD_HALF,
};
use crate::world::math::{Rect, Rng};

/// Comfortable deceleration used to plan stops, m/s².
const BRAKE: f32 = 4.0;
const ACCEL: f32 = 2.5;
/// Where a stretch ends (the stop line) / a turn ends, past the node centre.
pub(in crate::world) const MOUTH: f32 = ROAD_HALF + 0.5;

/// Something a vehicle must not drive into: its ground rectangle (whose x
/// axis is its heading) and its id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Obstacle {
    pub rect: Rect,
    pub id: u32,
    /// Speed, m/s (its sign ignored).
    pub speed: f32,
}

/// A quadratic Bézier path in the ground plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::world) struct Leg {
    p0: (f32, f32),
    p1: (f32, f32),
    p2: (f32, f32),
}

impl Leg {
    /// Approximate length: the mean of the chord and the control polygon.
    pub(in crate::world) fn length(&self) -> f32 {
        let dist = |a: (f32, f32), b: (f32, f32)| (b.0 - a.0).hypot(b.1 - a.1);
        (dist(self.p0, self.p2) + dist(self.p0, self.p1) + dist(self.p1, self.p2)) / 2.0
    }
    pub(in crate::world) fn point(&self, u: f32) -> (f32, f32) {
        let (a, b, c) = ((1.0 - u) * (1.0 - u), 2.0 * u * (1.0 - u), u * u);
        (
            a * self.p0.0 + b * self.p1.0 + c * self.p2.0,
            a * self.p0.1 + b * self.p1.1 + c * self.p2.1,
        )
    }
    fn tangent(&self, u: f32) -> (f32, f32) {
        let (a, b) = (2.0 * (1.0 - u), 2.0 * u);
        (
            a * (self.p1.0 - self.p0.0) + b * (self.p2.0 - self.p1.0),
            a * (self.p1.1 - self.p0.1) + b * (self.p2.1 - self.p1.1),
        )
    }
}

fn mid(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0)
}

/// The stretch of the lane from node `from` towards its neighbour along `d`.
fn stretch(from: Node, d: u8) -> Leg {
    let p0 = lane_point(from, d, MOUTH);
    let p2 = lane_point(from, d, town::SPACING - MOUTH);
    Leg {
        p0,
        p1: mid(p0, p2),
        p2,
    }
}

/// The way through node `n` from direction `d` into direction `e`.
pub(in crate::world) fn turn(n: Node, d: u8, e: u8) -> Leg {
    let p0 = lane_point(n, d, -MOUTH);
    let p2 = lane_point(n, e, MOUTH);
    let p1 = if d == e {
        mid(p0, p2)
    } else {
        // Where the two lane lines cross.
        let (a, b) = (lane_point(n, d, 0.0), lane_point(n, e, 0.0));
        let c = town::node_pos(n);
        (a.0 + b.0 - c.0, a.1 + b.1 - c.1)
    };
    Leg { p0, p1, p2 }
}

/// A random way on at node `n` for traffic heading `d`: straight (half the
/// time when possible), right or left; back only at a dead end.
pub(crate) fn choose_exit(n: Node, d: u8, rng: &mut Rng) -> u8 {
    let mut ways = [0u8; 4];
    let mut count = 0;
    for (e, weight) in [(d, 2), (d + 1, 1), (d + 3, 1)] {
        if neighbour(n, e % 4).is_some() {
            for _ in 0..weight {
                ways[count] = e % 4;
                count += 1;
            }
        }
    }
    if count == 0 {
        (d + 2) % 4
    } else {
        ways[rng.below(count)]
    }
}

/// A non-player vehicle.
pub(crate) struct Vehicle {
    pub id: u32,
    pub x: f32,
    pub y: f32,
    pub yaw: f32,
    pub speed: f32,
    /// Half length, width, height.
    pub extent: (f32, f32, f32),
    pub albedo: [u8; 3],
    cruise: f32,
    leg: Leg,
    u: f32,
    /// The junction at the end of the stretch (or the one being crossed).
    node: Node,
    dir: u8,
    next: u8,
    turning: bool,
    /// The last step drove past the stop line into the junction.
    entered: bool,
    rng: Rng,
}

const PAINT: [[u8; 3]; 7] = [
    [180, 30, 30],
    [30, 60, 160],
    [220, 220, 215],
    [25, 25, 28],
    [200, 170, 40],
    [120, 125, 130],
    [40, 120, 70],
];

impl Vehicle {
    /// A vehicle at fraction `u` of the stretch leaving `from` along `d`.
    pub(crate) fn new(id: u32, from: Node, d: u8, u: f32, rng: &mut Rng) -> Vehicle {
        let node = neighbour(from, d).expect("a stretch with an end");
        let mut own = Rng::new(rng.next_u64());
        let next = choose_exit(node, d, &mut own);
        let big = rng.unit() < 0.2;
        let mut v = Vehicle {
            id,
            x: 0.0,
            y: 0.0,
            yaw: 0.0,
            speed: 0.0,
            extent: if big {
                (2.7, 1.1, 1.2)
            } else {
                (2.2, 0.95, 0.75)
            },
            albedo: PAINT[rng.below(PAINT.len())],
            cruise: rng.range(7.0, 11.0),
            leg: stretch(from, d),
            u,
            node,
            dir: d,
            next,
            turning: false,
            entered: false,
            rng: own,
        };
        v.place();
        v
    }

    fn place(&mut self) {
        (self.x, self.y) = self.leg.point(self.u);
        let (tx, ty) = self.leg.tangent(self.u);
        self.yaw = ty.atan2(tx);
    }

    pub(crate) fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.yaw, self.extent.0, self.extent.1)
    }

    /// The junction ahead (or being crossed).
    #[cfg(test)]
    pub(crate) fn node(&self) -> Node {
        self.node
    }
    /// The direction the vehicle arrives at [`Vehicle::node`] with.
    #[cfg(test)]
    pub(crate) fn dir(&self) -> u8 {
        self.dir
    }
    /// Whether the last step crossed the stop line into the junction.
    #[cfg(test)]
    pub(crate) fn entered_junction(&self) -> bool {
        self.entered
    }

    /// Advances by `dt` at time `t`, keeping clear of `obstacles`.
    pub(crate) fn step(&mut self, t: f32, dt: f32, obstacles: &[Obstacle]) {
        let mut target = self.cruise;
        let mut stop = false;
        if !self.turning {
            let left = (1.0 - self.u) * (town::SPACING - 2.0 * MOUTH);
            stop = match light_state(self.node, self.dir, t) {
                Light::Green => false,
                // Too close to stop comfortably: go on through the yellow.
                Light::Yellow => left > self.speed * self.speed / (2.0 * BRAKE) + 1.0,
                Light::Red => true,
            };
            // Nor enter the junction without room on the way out (another
            // way on is taken if it has room), nor turn left across
            // oncoming traffic.
            if left < 15.0 && !self.exit_clear(obstacles) {
                self.replan(obstacles);
            }
            stop = stop
                || (left < 15.0 && !(self.exit_clear(obstacles) && self.oncoming_clear(obstacles)));
            if stop {
                // The front bumper halts half a metre before the junction.
                let room = left - self.extent.0 - 0.5;
                target = target.min((2.0 * BRAKE * room.max(0.0)).sqrt());
            }
        }
        if let Some(gap) = gap_ahead(self.rect(), self.id, obstacles) {
            target = target.min((2.0 * BRAKE * (gap - 2.0).max(0.0)).sqrt());
        }
        self.speed = if self.speed < target {
            (self.speed + ACCEL * dt).min(target)
        } else {
            (self.speed - 2.0 * BRAKE * dt).max(target)
        };
        self.entered = false;
        let mut ds = self.speed * dt;
        while ds > 0.0 {
            let (tx, ty) = self.leg.tangent(self.u);
            let rate = (tx * tx + ty * ty).sqrt().max(1e-3);
            let step = ds.min(0.5);
            self.u += step / rate;
            ds -= step;
            if self.u >= 1.0 {
                let carry = (self.u - 1.0) * rate;
                if self.turning {
                    let from = self.node;
                    self.dir = self.next;
                    self.node = neighbour(from, self.dir).unwrap_or(from);
                    self.next = choose_exit(self.node, self.dir, &mut self.rng);
                    self.leg = stretch(from, self.dir);
                    self.turning = false;
                } else if stop {
                    // Hold at the stop line.
                    (self.u, self.speed) = (1.0, 0.0);
                    break;
                } else {
                    self.leg = turn(self.node, self.dir, self.next);
                    self.turning = true;
                    self.entered = true;
                }
                self.u = 0.0;
                ds += carry;
            }
        }
        self.place();
    }
}

impl Vehicle {
    /// Whether the first metres of the lane this vehicle turns into are free.
    fn exit_clear(&self, obstacles: &[Obstacle]) -> bool {
        let (x, y) = lane_point(self.node, self.next, 0.0);
        let (hx, hy) = dir_vec(self.next);
        let need = MOUTH + 2.0 * self.extent.0 + 3.0;
        obstacles.iter().filter(|o| o.id != self.id).all(|o| {
            let (dx, dy) = (o.rect.cx - x, o.rect.cy - y);
            let along = dx * hx + dy * hy;
            let across = (dy * hx - dx * hy).abs();
            across > 2.0 || along < -ROAD_HALF || along > need + o.rect.hx
        })
    }

    /// Picks another way on at the coming junction whose exit has room,
    /// if there is one.
    fn replan(&mut self, obstacles: &[Obstacle]) {
        let planned = self.next;
        let first = self.rng.below(3) as u8;
        for k in 0..3u8 {
            let e = (self.dir + [0, 1, 3][((first + k) % 3) as usize]) % 4;
            if e != planned && neighbour(self.node, e).is_some() {
                self.next = e;
                if self.exit_clear(obstacles) {
                    return;
                }
            }
        }
        self.next = planned;
    }

    /// For a left turn: whether no oncoming vehicle is moving towards or
    /// through the junction (ones waiting do not count, so two vehicles
    /// turning left from opposite sides go together).
    fn oncoming_clear(&self, obstacles: &[Obstacle]) -> bool {
        if self.next != (self.dir + 3) % 4 {
            return true;
        }
        let (nx, ny) = town::node_pos(self.node);
        let (hx, hy) = dir_vec(self.dir);
        obstacles.iter().all(|o| {
            let r = &o.rect;
            let facing = r.cos * hx + r.sin * hy;
            let (dx, dy) = (r.cx - nx, r.cy - ny);
            let along = dx * hx + dy * hy;
            let across = (dy * hx - dx * hy).abs();
            facing > -0.7
                || o.speed < 1.0
                || !(-ROAD_HALF..=35.0).contains(&along)
                || across > ROAD_HALF + 0.5
        })
    }
}

/// Free distance to the nearest obstacle in the lane ahead of `me` (bumper
/// to bumper), if any within 25 m. Obstacles coming head-on are ignored (they
/// are in the other lane); when two vehicles each have the other ahead, the
/// lower id goes first.
pub(crate) fn gap_ahead(me: Rect, my_id: u32, obstacles: &[Obstacle]) -> Option<f32> {
    let ahead = |a: &Rect, b: &Rect| -> Option<f32> {
        let (dx, dy) = (b.cx - a.cx, b.cy - a.cy);
        let along = dx * a.cos + dy * a.sin;
        let across = (-dx * a.sin + dy * a.cos).abs();
        let facing = a.cos * b.cos + a.sin * b.sin;
        let half_b = if facing.abs() > 0.7 { b.hx } else { b.hy };
        (along > 0.0 && along < 25.0 + a.hx && across < a.hy + 0.9 && facing > -0.7)
            .then_some(along - a.hx - half_b)
    };
    obstacles
        .iter()
        .filter(|o| o.id != my_id)
        .filter_map(|o| {
            let gap = ahead(&me, &o.rect)?;
            let mutual = ahead(&o.rect, &me).is_some();
            (!mutual || my_id > o.id).then_some(gap)
        })
        .reduce(f32::min)
}

/// All stretches' spawn slots (node, direction, fraction), in a fixed order.
pub(crate) fn spawn_slots() -> Vec<(Node, u8, f32)> {
    let mut out = Vec::new();
    for i in 0..town::ROADS {
        for j in 0..town::ROADS {
            for d in 0..4u8 {
                if neighbour((i, j), d).is_some() {
                    for k in 0..5 {
                        out.push(((i, j), d, 0.1 + 0.2 * k as f32));
                    }
                }
            }
        }
    }
    out
}
