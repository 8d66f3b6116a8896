//! The world's own traffic: vehicles that follow the centre lines of the
//! map's driving lanes, pick a random way at each fork, stop at red and
//! yellow lights, enter a junction only when no vehicle is on (or about to
//! enter) a junction lane crossing theirs and their way out has room, and
//! keep their distance to whatever is ahead, the player's car and clients'
//! vehicles included. A vehicle at a dead end starts again at a free place
//! of the map. Plain kinematics, seeded: the same seed, the same traffic.

use super::lights::{Light, Lights};
use super::ways::Ways;
use crate::world::map::lanes::{LaneIx, Lanes};
use crate::world::math::{Rect, Rng};

/// Comfortable deceleration used to plan stops, m/s².
const BRAKE: f32 = 4.0;
const ACCEL: f32 = 2.5;
/// How far before a junction a vehicle decides whether it may enter.
const DECIDE: f32 = 15.0;
/// Seconds a vehicle waits at a junction before it goes anyway (a stuck
/// junction must not stop the town for ever).
const PATIENCE: f32 = 20.0;
/// A vehicle standing in a junction nose to nose with a client's car that
/// stands too (each waits for the other, or neither can pass: a client's
/// car stops on contact) backs off along its lane after this many
/// seconds, ...
const BACK_OFF_AFTER: f32 = 2.0;
/// ... at this speed (m/s), by at most this many metres, ...
const BACK_OFF_SPEED: f32 = 1.0;
const BACK_OFF_MAX: f32 = 3.0;
/// ... and stands until this many seconds have passed since it first
/// stood (the client's car drives past meanwhile). Still held up by a
/// client's car after this many seconds (it does not pass, or another car
/// stands behind), it starts again at a free place of the map, as at a
/// dead end.
const BACK_OFF_UNTIL: f32 = 6.0;
const WEDGED: f32 = 12.0;

/// Something a vehicle must not drive into: its ground rectangle (whose x
/// axis is its heading) and its id.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Obstacle {
    pub rect: Rect,
    pub id: u32,
    /// Speed, m/s (its sign ignored).
    pub speed: f32,
    /// A walker: in the way whichever way it faces.
    pub walker: bool,
    /// One of the world's own vehicles (they keep apart by their claims
    /// and gaps; this list has where they were before this step).
    pub traffic: bool,
}

/// Where a body is: position, heading, climb and roll (radians).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Pose {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub yaw: f32,
    pub pitch: f32,
    pub roll: f32,
}

/// A vehicle of the world's traffic.
#[derive(Clone)]
pub(crate) struct Vehicle {
    pub id: u32,
    pub lane: LaneIx,
    /// Distance along the lane's centre line.
    pub d: f32,
    pub speed: f32,
    pub pose: Pose,
    /// Half length, width, height.
    pub extent: (f32, f32, f32),
    pub albedo: [u8; 3],
    cruise: f32,
    /// The lane after this one, chosen on entering this one.
    next: Option<LaneIx>,
    /// May enter the junction ahead (holds a claim on its lane).
    cleared: bool,
    /// Seconds stopped before the junction ahead.
    waited: f32,
    /// The last step drove into a junction lane.
    entered: bool,
    /// Seconds stood nose to nose with a client's standing car.
    stuck: f32,
    /// Metres backed off since it last drove on.
    backed: f32,
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

/// What the vehicles of one step share: the lanes, the map's ways, the
/// lights, the obstacles, and the junction lanes claimed.
pub(crate) struct Road<'a> {
    pub lanes: &'a Lanes,
    pub ways: &'a Ways,
    pub lights: &'a Lights,
    pub obstacles: &'a [Obstacle],
    /// By lane: the vehicle on or entering it (0: none).
    pub claims: &'a mut Vec<u32>,
}

impl Vehicle {
    /// A vehicle at distance `d` along `lane`.
    pub(crate) fn new(id: u32, lanes: &Lanes, lane: LaneIx, d: f32, rng: &mut Rng) -> Vehicle {
        let mut own = Rng::new(rng.next_u64());
        let big = rng.unit() < 0.2;
        let mut v = Vehicle {
            id,
            lane,
            d,
            speed: 0.0,
            pose: Pose::default(),
            extent: if big {
                (2.7, 1.1, 1.2)
            } else {
                (2.2, 0.95, 0.75)
            },
            albedo: PAINT[rng.below(PAINT.len())],
            cruise: rng.range(7.0, 11.0),
            next: None,
            cleared: false,
            waited: 0.0,
            entered: false,
            stuck: 0.0,
            backed: 0.0,
            rng: Rng::new(0),
        };
        v.next = choose(lanes, lane, &mut own);
        v.rng = own;
        v.place(lanes);
        v
    }

    pub(crate) fn place(&mut self, lanes: &Lanes) {
        let p = lanes.lane(self.lane).pose(self.d);
        self.pose = Pose {
            x: p.position[0],
            y: p.position[1],
            z: p.position[2],
            yaw: p.yaw,
            pitch: p.pitch,
            roll: p.bank,
        };
    }

    pub(crate) fn rect(&self) -> Rect {
        Rect::new(
            self.pose.x,
            self.pose.y,
            self.pose.yaw,
            self.extent.0,
            self.extent.1,
        )
    }

    /// Whether the last step drove into a junction lane.
    #[cfg(test)]
    pub(crate) fn entered_junction(&self) -> bool {
        self.entered
    }

    /// The lane after this one.
    #[allow(dead_code)]
    pub(crate) fn next_lane(&self) -> Option<LaneIx> {
        self.next
    }

    /// Keeps its claims on the junction lane it is on or cleared to enter.
    pub(crate) fn claim(&self, lanes: &Lanes, claims: &mut [u32]) {
        if lanes.in_junction(self.lane) {
            claims[self.lane as usize] = self.id;
        }
        if self.cleared {
            if let Some(n) = self.next {
                claims[n as usize] = self.id;
            }
        }
    }

    /// Advances by `dt` on `road`, unless that drives it into a client's
    /// vehicle, the player's or a walker it was clear of: then it stands
    /// where it was (a client's car may stop or turn across its way
    /// inside the gap it keeps; a kinematic car must not pass through it).
    /// Standing in a junction nose to nose with a client's car that stands
    /// too, it backs off a little to let that car pass; wedged there, it
    /// starts again elsewhere.
    pub(crate) fn step(&mut self, road: &mut Road, dt: f32) {
        let before = self.clone();
        let was = before.rect();
        // Backing off, it lets the client's car pass before it drives on.
        let backing = self.stuck > BACK_OFF_AFTER && self.stuck <= BACK_OFF_UNTIL;
        if backing {
            self.speed = 0.0;
        } else if self.advance(road, dt) {
            let now = self.rect();
            let hit = road.obstacles.iter().any(|o| {
                o.id != self.id && !o.traffic && o.rect.overlaps(&now) && !o.rect.overlaps(&was)
            });
            if hit {
                *self = Vehicle {
                    speed: 0.0,
                    waited: self.waited,
                    ..before
                };
            }
        }
        let held = if backing {
            true
        } else if self.speed > 1.0 || !road.lanes.in_junction(self.lane) {
            false
        } else {
            // Before backing off: a client's car that stands too; after:
            // any client's car still at its front.
            self.facing_a_client(road, self.stuck <= BACK_OFF_AFTER)
        };
        if !held {
            (self.stuck, self.backed) = (0.0, 0.0);
            return;
        }
        self.stuck += dt;
        if self.stuck > WEDGED {
            self.restart(road);
            self.place(road.lanes);
            (self.stuck, self.backed) = (0.0, 0.0);
        } else if backing && self.backed < BACK_OFF_MAX {
            self.back_off(road, dt);
        }
    }

    /// Whether a client's car (or the player's) is within a metre of its
    /// front half; with `standing`, one that stands (or creeps into it:
    /// a car pressing on stops on contact at every step). Once backing
    /// off, it backs off from the car following it.
    fn facing_a_client(&self, road: &Road, standing: bool) -> bool {
        let me = self.rect();
        let near = Rect::new(me.cx, me.cy, self.pose.yaw, me.hx + 1.0, me.hy + 1.0);
        road.obstacles.iter().any(|o| {
            let along = (o.rect.cx - me.cx) * me.cos + (o.rect.cy - me.cy) * me.sin;
            !o.traffic
                && !o.walker
                && (!standing || o.speed < 0.5)
                && along > 0.0
                && o.rect.overlaps(&near)
        })
    }

    /// Moves back along its lane by one step's worth, if that is free.
    fn back_off(&mut self, road: &Road, dt: f32) {
        let step = (BACK_OFF_SPEED * dt).min(self.d);
        if step <= 0.0 {
            return;
        }
        let (d, pose) = (self.d, self.pose);
        self.d -= step;
        self.place(road.lanes);
        let r = self.rect();
        if road
            .obstacles
            .iter()
            .any(|o| o.id != self.id && o.rect.overlaps(&r))
        {
            (self.d, self.pose) = (d, pose);
        } else {
            self.backed += step;
        }
    }

    /// One step along the lanes; false when it started again elsewhere.
    fn advance(&mut self, road: &mut Road, dt: f32) -> bool {
        let lanes = road.lanes;
        let lane = lanes.lane(self.lane);
        let left = lane.length() - self.d;
        let mut target = self.cruise;
        let mut hold: Option<f32> = None;
        // A light governing this lane.
        if let Some(stop) = road.ways.stops[self.lane as usize] {
            let to_stop = stop.dist - self.d;
            if to_stop > -0.5 {
                let must = match road.lights.state(stop.light) {
                    Light::Green | Light::Off => false,
                    // Too close to stop comfortably: go on through the yellow.
                    Light::Yellow => to_stop > self.speed * self.speed / (2.0 * BRAKE) + 1.0,
                    Light::Red => true,
                };
                if must {
                    hold = Some(to_stop);
                }
            }
        }
        // The junction ahead: enter only when the way through is free.
        let into_junction = self
            .next
            .filter(|&n| lanes.in_junction(n) && !lanes.in_junction(self.lane));
        if let Some(n) = into_junction {
            if left < DECIDE && !self.cleared && hold.is_none() {
                if self.free(road, n) || self.waited > PATIENCE {
                    self.cleared = true;
                    road.claims[n as usize] = self.id;
                } else {
                    self.replan(road);
                }
            }
            if !self.cleared && left < DECIDE {
                hold = Some(hold.map_or(left, |h: f32| h.min(left)));
            }
        }
        if let Some(h) = hold {
            // The front bumper halts half a metre before the line.
            let room = h - self.extent.0 - 0.5;
            target = target.min((2.0 * BRAKE * room.max(0.0)).sqrt());
        }
        let gap = [
            gap_ahead(self.rect(), self.id, road.obstacles),
            self.gap_along(road),
        ];
        if let Some(gap) = gap.into_iter().flatten().reduce(f32::min) {
            target = target.min((2.0 * BRAKE * (gap - 2.0).max(0.0)).sqrt());
        }
        self.speed = if self.speed < target {
            (self.speed + ACCEL * dt).min(target)
        } else {
            (self.speed - 2.0 * BRAKE * dt).max(target)
        };
        self.waited = if self.speed < 0.1 && hold.is_some() {
            self.waited + dt
        } else {
            0.0
        };
        self.entered = false;
        self.d += self.speed * dt;
        let mut guard = 0;
        while self.d >= lanes.lane(self.lane).length() && guard < 16 {
            guard += 1;
            let len = lanes.lane(self.lane).length();
            match self.next {
                Some(n) if hold.is_none() || self.cleared => {
                    self.d -= len;
                    self.entered = lanes.in_junction(n) && !lanes.in_junction(self.lane);
                    self.lane = n;
                    self.cleared = false;
                    self.next = choose(lanes, n, &mut self.rng);
                }
                Some(_) => {
                    (self.d, self.speed) = (len, 0.0);
                    break;
                }
                None => {
                    self.restart(road);
                    self.place(lanes);
                    return false;
                }
            }
        }
        self.place(lanes);
        true
    }

    /// The free distance along the way ahead (this lane, then the next)
    /// to a vehicle standing on it, up to [`ALONG`]: round a junction's
    /// turn a straight look ahead ([`gap_ahead`]) misses the car queued at
    /// its exit.
    fn gap_along(&self, road: &Road) -> Option<f32> {
        let lanes = road.lanes;
        let (mut lane, mut d, mut next) = (self.lane, self.d, self.next);
        let mut travelled = 0.0;
        while travelled < ALONG {
            d += 1.0;
            travelled += 1.0;
            let len = lanes.lane(lane).length();
            if d > len {
                let Some(n) = next else { break };
                (lane, d) = (n, d - len);
                next = lanes.lane(n).successors.first().copied();
            }
            let p = lanes.lane(lane).pose(d).position;
            let on_it = road.obstacles.iter().any(|o| {
                let r = &o.rect;
                let (dx, dy) = (p[0] - r.cx, p[1] - r.cy);
                o.id != self.id
                    && !o.walker
                    && (dx * r.cos + dy * r.sin).abs() <= r.hx
                    && (-dx * r.sin + dy * r.cos).abs() <= r.hy + 0.3
            });
            if on_it {
                return Some(travelled - self.extent.0);
            }
        }
        None
    }

    /// Whether junction lane `n` may be entered: no other vehicle on or
    /// entering a lane crossing it, and room on the way out.
    fn free(&self, road: &Road, n: LaneIx) -> bool {
        let lanes = road.lanes;
        let claimed = |l: LaneIx| {
            let c = road.claims[l as usize];
            c != 0 && c != self.id
        };
        if claimed(n) || road.ways.conflicts[n as usize].iter().any(|&c| claimed(c)) {
            return false;
        }
        if client_crossing(road, n) {
            return false;
        }
        // The way out: the lane after the junction lane has room for us.
        let out = lanes.lane(n).successors.first().copied();
        out.is_none_or(|o| {
            let start = lanes.lane(o).pose(0.0).position;
            let need = 2.0 * self.extent.0 + 3.0;
            road.obstacles
                .iter()
                .filter(|ob| ob.id != self.id && !ob.walker)
                .all(|ob| {
                    let (dx, dy) = (ob.rect.cx - start[0], ob.rect.cy - start[1]);
                    dx.hypot(dy) > need || ob.speed > 2.0
                })
        })
    }

    /// Another way through the junction ahead whose lanes are free.
    fn replan(&mut self, road: &Road) {
        let lanes = road.lanes;
        let options: Vec<LaneIx> = lanes.lane(self.lane).successors.clone();
        if options.len() < 2 {
            return;
        }
        let first = self.rng.below(options.len());
        for k in 0..options.len() {
            let n = options[(first + k) % options.len()];
            if Some(n) != self.next && self.free(road, n) {
                self.next = Some(n);
                return;
            }
        }
    }

    /// A dead end: start again at a free slot of the map.
    fn restart(&mut self, road: &Road) {
        let slots = &road.ways.slots;
        if slots.is_empty() {
            self.speed = 0.0;
            return;
        }
        let lanes = road.lanes;
        for _ in 0..32 {
            let (lane, d) = slots[self.rng.below(slots.len())];
            let p = lanes.lane(lane).pose(d).position;
            let clear = road
                .obstacles
                .iter()
                .all(|o| o.id == self.id || (o.rect.cx - p[0]).hypot(o.rect.cy - p[1]) > 15.0);
            if clear {
                (self.lane, self.d, self.speed) = (lane, d, 0.0);
                self.cleared = false;
                self.next = choose(lanes, lane, &mut self.rng);
                return;
            }
        }
        self.speed = 0.0;
        self.d = lanes.lane(self.lane).length();
    }

    /// A held still vehicle (a replay).
    pub(crate) fn stop(&mut self) {
        self.speed = 0.0;
    }
}

/// How far ahead a vehicle about to enter a junction looks at the clients'
/// vehicles coming (seconds, every half second): a client's car drives on
/// its own physics and brakes as its tires let it, so the junction is left
/// to one that would be on a crossing lane by then.
const CLIENT_HORIZON: f32 = 3.0;
/// A client's car this close to a point of a crossing lane's centre line
/// (metres, beside its own half width) is on that lane.
const LANE_REACH: f32 = 1.5;

/// Whether a client's vehicle (or the player's) is on a junction lane
/// crossing `n`, or would be within [`CLIENT_HORIZON`] going on straight
/// at its speed. The world's own vehicles keep out of each other's way by
/// their claims; a client's car claims nothing.
pub(crate) fn client_crossing(road: &Road, n: LaneIx) -> bool {
    let lanes = road.lanes;
    let steps = (CLIENT_HORIZON / 0.5) as usize;
    let near = |o: &Obstacle, p: [f32; 3]| {
        let r = &o.rect;
        (0..=steps).any(|s| {
            let ahead = o.speed * 0.5 * s as f32;
            let (x, y) = (r.cx + r.cos * ahead, r.cy + r.sin * ahead);
            (x - p[0]).hypot(y - p[1]) < LANE_REACH + r.hy
        })
    };
    let clients = || road.obstacles.iter().filter(|o| !o.walker && !o.traffic);
    if clients().next().is_none() {
        return false;
    }
    road.ways.conflicts[n as usize].iter().any(|&c| {
        let lane = lanes.lane(c);
        let len = lane.length();
        let points = (len / 2.0).ceil().max(1.0) as usize;
        (0..=points).any(|k| {
            let p = lane.pose(len * k as f32 / points as f32).position;
            clients().any(|o| near(o, p))
        })
    })
}

/// A random way on after `lane`, preferring ways that go on.
fn choose(lanes: &Lanes, lane: LaneIx, rng: &mut Rng) -> Option<LaneIx> {
    let s = &lanes.lane(lane).successors;
    let on: Vec<LaneIx> = s
        .iter()
        .copied()
        .filter(|&n| lanes.lane(n).kind.is_driving() && !lanes.lane(n).successors.is_empty())
        .collect();
    let pool = if on.is_empty() { s.clone() } else { on };
    (!pool.is_empty()).then(|| pool[rng.below(pool.len())])
}

/// Free distance to the nearest obstacle in the lane ahead of `me` (bumper
/// to bumper), if any within 25 m. Vehicles coming head-on are ignored
/// (they are in the other lane), walkers are not; when two vehicles each
/// have the other ahead, the lower id goes first.
/// How far along its way a vehicle looks for one standing on it, metres.
const ALONG: f32 = 15.0;

pub(crate) fn gap_ahead(me: Rect, my_id: u32, obstacles: &[Obstacle]) -> Option<f32> {
    let ahead = |a: &Rect, b: &Rect, walker: bool| -> Option<f32> {
        let (dx, dy) = (b.cx - a.cx, b.cy - a.cy);
        let along = dx * a.cos + dy * a.sin;
        let across = (-dx * a.sin + dy * a.cos).abs();
        let facing = a.cos * b.cos + a.sin * b.sin;
        let half_b = if facing.abs() > 0.7 { b.hx } else { b.hy };
        (along > 0.0 && along < 25.0 + a.hx && across < a.hy + 0.9 && (walker || facing > -0.7))
            .then_some(along - a.hx - half_b)
    };
    obstacles
        .iter()
        .filter(|o| o.id != my_id)
        .filter_map(|o| {
            let gap = ahead(&me, &o.rect, o.walker)?;
            let mutual = !o.walker && ahead(&o.rect, &me, false).is_some();
            (!mutual || my_id > o.id).then_some(gap)
        })
        .reduce(f32::min)
}

#[cfg(test)]
#[path = "traffic_tests.rs"]
mod tests;
