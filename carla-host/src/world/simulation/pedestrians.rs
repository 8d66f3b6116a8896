//! Pedestrians. The world's own walk along the map's walkable lanes
//! (sidewalks; shoulders on a map without them), each at its own pace and
//! offset from the lane's centre, on to the next walkable lane where one
//! follows, turning round where none does. A client's walker stands where
//! it was put until its client walks it (`apply_control`, or the client's
//! crowd on the navigation mesh), on the ground under it. Seeded.

use super::dress::Dress;
use super::skeleton::Skeleton;
use crate::world::map::lanes::{LaneIx, LaneKind, Lanes};
use crate::world::map::CURB_HEIGHT;
use crate::world::math::{Rect, Rng};
use carla_server::types::Vector3D;

/// Half a pedestrian's height: its origin (the centre of its capsule, as
/// CARLA's) is this far above the ground, metres.
pub(crate) const HALF_HEIGHT: f32 = 0.9;

/// Where the world's walkers walk: the walkable lanes and how high their
/// surface stands above the lane.
pub(crate) struct Paths {
    pub lanes: Vec<LaneIx>,
    pub lift: f32,
    kind: LaneKind,
}

impl Paths {
    pub(crate) fn new(lanes: &Lanes) -> Paths {
        let any = lanes.lanes.iter().any(|l| l.kind == LaneKind::Sidewalk);
        let kind = if any {
            LaneKind::Sidewalk
        } else {
            LaneKind::Shoulder
        };
        Paths {
            lanes: (0u32..)
                .zip(&lanes.lanes)
                .filter(|(_, l)| l.kind == kind && l.length() > 1.0)
                .map(|(i, _)| i)
                .collect(),
            lift: if any { CURB_HEIGHT } else { 0.0 },
            kind,
        }
    }
}

/// A pedestrian.
pub(crate) struct Walker {
    pub id: u32,
    pub x: f32,
    pub y: f32,
    /// The ground it stands on.
    pub z: f32,
    pub yaw: f32,
    pub speed: f32,
    pub albedo: [u8; 3],
    /// On its walk: the lane, distance along it, direction (±1) and offset
    /// from its centre (a fraction of its half width).
    walk: Option<(LaneIx, f32, f32, f32)>,
    /// A client's `WalkerControl`: unit direction (x, y) and m/s.
    pub control: Option<(f32, f32, f32)>,
    /// `set_collisions(False)`: vehicles pass through it (a client's
    /// walker controller asks this of every walker it moves).
    pub ghost: bool,
    /// A client's walker: its motion besides its walk (a shove, a fall),
    /// m/s.
    pub motion: Vector3D,
    /// Its bones, walking cycle and a client's pose.
    pub skeleton: Skeleton,
    pub dress: Dress,
}

const CLOTHES: [[u8; 3]; 4] = [[60, 60, 140], [140, 50, 50], [50, 50, 50], [200, 180, 120]];
/// Pedestrian blueprints: `walker.pedestrian.0001` to `.0049`, as CARLA
/// 0.9.16's.
pub(crate) const BLUEPRINTS: u32 = 49;

/// The blueprint number the world's own pedestrian `id` is reported as
/// (and dressed as).
pub(crate) fn own_blueprint(id: u32) -> u32 {
    1 + id % BLUEPRINTS
}

/// A child's size against an adult's (1.3 m against 1.8 m).
pub(crate) const CHILD_SIZE: f32 = 0.72;

/// Whether pedestrian blueprint number `n` is a child's (CARLA's
/// `age` attribute "child").
pub(crate) fn is_child(n: u32) -> bool {
    matches!(n, 9..=14 | 48 | 49)
}

/// Shirts of the blueprints.
const SHIRTS: [[u8; 3]; 7] = [
    [70, 90, 170],
    [170, 55, 55],
    [60, 60, 60],
    [215, 195, 140],
    [50, 130, 70],
    [225, 225, 220],
    [190, 110, 40],
];

impl Walker {
    /// One of the world's walkers somewhere on `paths` (none: standing at
    /// the origin).
    pub(crate) fn new(id: u32, lanes: &Lanes, paths: &Paths, rng: &mut Rng) -> Walker {
        let mut w = Walker {
            id,
            x: 0.0,
            y: 0.0,
            z: 0.0,
            yaw: 0.0,
            speed: rng.range(0.9, 1.6),
            albedo: CLOTHES[rng.below(CLOTHES.len())],
            walk: None,
            control: None,
            ghost: false,
            motion: Vector3D::default(),
            skeleton: Skeleton::default(),
            dress: Dress::of(id, [0; 3]),
        };
        w.dress_as(own_blueprint(id));
        if !paths.lanes.is_empty() {
            let lane = paths.lanes[rng.below(paths.lanes.len())];
            let d = rng.range(0.0, lanes.lane(lane).length());
            let dir = if rng.unit() < 0.5 { 1.0 } else { -1.0 };
            w.walk = Some((lane, d, dir, rng.range(-0.5, 0.5)));
            w.place(lanes, paths);
        } else {
            w.speed = 0.0;
        }
        w
    }

    /// A pedestrian a client placed at `(x, y, z)` (`z`: the ground) facing
    /// `yaw` (radians).
    pub(crate) fn standing(id: u32, x: f32, y: f32, z: f32, yaw: f32) -> Walker {
        Walker {
            id,
            x,
            y,
            z,
            yaw,
            speed: 0.0,
            albedo: CLOTHES[id as usize % CLOTHES.len()],
            walk: None,
            control: None,
            ghost: false,
            motion: Vector3D::default(),
            skeleton: Skeleton::default(),
            dress: Dress::of(id, CLOTHES[id as usize % CLOTHES.len()]),
        }
    }

    /// Dressed as blueprint number `n` (`walker.pedestrian.00nn`): the
    /// same clothes for the same blueprint.
    pub(crate) fn dress_as(&mut self, n: u32) {
        let shirt = SHIRTS[(n.wrapping_mul(0x9E37_79B1) >> 16) as usize % SHIRTS.len()];
        self.albedo = shirt;
        self.dress = Dress::of(n.wrapping_add(0x5EED), shirt);
        if is_child(n) {
            self.skeleton = Skeleton::of_size(CHILD_SIZE);
        }
    }

    /// A client drives it from now on (`apply_control`, a controller, a
    /// batch of walker states): it leaves its walk.
    pub(crate) fn take_over(&mut self) {
        self.walk = None;
    }

    /// Whether it walks the world's paths.
    pub(crate) fn on_its_walk(&self) -> bool {
        self.walk.is_some()
    }

    fn place(&mut self, lanes: &Lanes, paths: &Paths) {
        let Some((lane, d, dir, off)) = self.walk else {
            return;
        };
        let p = lanes.lane(lane).pose(d);
        let (rx, ry) = (-p.yaw.sin(), p.yaw.cos());
        let k = off * p.half_width;
        self.x = p.position[0] + rx * k;
        self.y = p.position[1] + ry * k;
        self.z = p.position[2] + paths.lift;
        self.yaw = if dir > 0.0 {
            p.yaw
        } else {
            p.yaw + std::f32::consts::PI
        };
    }

    /// Whether it walks as a character ([`crate::world::physics::walkers`]):
    /// a client's walker that collides.
    pub(crate) fn is_character(&self) -> bool {
        self.walk.is_none() && !self.ghost
    }

    /// A character's stride over `dt` under its control (metres along x
    /// and y); it turns to where it walks.
    pub(crate) fn stride(&mut self, dt: f32) -> (f32, f32) {
        let Some((dx, dy, speed)) = self.control else {
            self.speed = 0.0;
            return (0.0, 0.0);
        };
        self.speed = speed;
        if speed > 0.0 && (dx != 0.0 || dy != 0.0) {
            self.yaw = dy.atan2(dx);
        }
        (dx * speed * dt, dy * speed * dt)
    }

    /// Walks `dt` seconds. A client's walker moves by its control and
    /// `ground` (the height under a point) keeps it on the ground.
    pub(crate) fn step(
        &mut self,
        lanes: &Lanes,
        paths: &Paths,
        dt: f32,
        ground: &dyn Fn(f32, f32, f32) -> f32,
    ) {
        let Some((mut lane, mut d, mut dir, off)) = self.walk else {
            if let Some((dx, dy, speed)) = self.control {
                self.x += dx * speed * dt;
                self.y += dy * speed * dt;
                self.speed = speed;
                if speed > 0.0 && (dx != 0.0 || dy != 0.0) {
                    self.yaw = dy.atan2(dx);
                    self.z = ground(self.x, self.y, self.z);
                }
            }
            return;
        };
        d += dir * self.speed * dt;
        for _ in 0..4 {
            let len = lanes.lane(lane).length();
            if (0.0..=len).contains(&d) {
                break;
            }
            let l = lanes.lane(lane);
            let (links, over) = if d > len {
                (&l.successors, d - len)
            } else {
                (&l.predecessors, -d)
            };
            let on = links
                .iter()
                .copied()
                .find(|&n| lanes.lane(n).kind == paths.kind && lanes.lane(n).length() > 1.0);
            match on {
                Some(n) => {
                    lane = n;
                    d = if dir > 0.0 {
                        over
                    } else {
                        lanes.lane(n).length() - over
                    };
                }
                None => {
                    // Turn round.
                    dir = -dir;
                    d = if d > len { len - over } else { over };
                }
            }
            d = d.clamp(0.0, lanes.lane(lane).length());
        }
        self.walk = Some((lane, d, dir, off));
        self.place(lanes, paths);
    }

    pub(crate) fn rect(&self) -> Rect {
        Rect::new(self.x, self.y, self.yaw, 0.3, 0.3)
    }
}
