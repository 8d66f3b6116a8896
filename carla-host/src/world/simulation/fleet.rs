//! Vehicles driven by 0.9 clients: each is a rigid body on wheels in the
//! world's [`physics`](crate::world::physics) under the last control its
//! client applied (`apply_control`), moved by `set_transform`, velocities
//! and impulses, colliding with everything else. Also the world's actor
//! look-ups by id the 0.9 side needs.

use super::ackermann::{Ackermann, DEFAULT_SETTINGS};
use super::pedestrians::HALF_HEIGHT;
use super::pilot;
use super::traffic;
use super::vehicle::{self, Car};
use crate::world::ids::PLAYER_ID;
use crate::world::math::{v3, Rect};
use crate::world::physics::{Drive, Mover, Part};
use crate::world::World;
use carla_server::rpc::VehiclePhysicsControl;
use carla_server::types::{Control, Transform, Vector3D};

/// A vehicle a client spawned.
#[derive(Clone, Debug)]
pub(crate) struct Driven {
    pub id: u32,
    pub car: Car,
    pub control: Control,
    /// The client's `manual_gear_shift` gear (CARLA's numbers); `None`:
    /// the automatic.
    pub manual_gear: Option<i32>,
    pub albedo: [u8; 3],
    /// Yaw rate of the last tick, deg/s.
    pub yaw_rate: f32,
    /// World velocity (m/s) and angular velocity (rad/s) after the last
    /// step.
    pub velocity: Vector3D,
    pub angular: Vector3D,
    /// Put somewhere by hand since the last step (its velocity is then
    /// the body's, not its displacement's).
    pub teleported: bool,
    /// How clients' commands change the way it moves.
    pub modes: DriveModes,
    /// Its Ackermann controller (settings kept across controls) and the
    /// control it gave this tick.
    pub ackermann: Ackermann,
    pub ackermann_out: Control,
    /// The control it drove under in the last step (what CARLA reports).
    pub applied: Control,
    /// Its lamps: `carla.VehicleLightState` bits ([`super::carbody`]).
    pub lights: u32,
}

/// What clients asked of a vehicle beyond its control.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DriveModes {
    /// `set_simulate_physics(False)`: it stays where it is (it can still
    /// be moved with `set_transform`).
    pub frozen: bool,
    /// `set_collisions(False)`: it passes through everything.
    pub ghost: bool,
    /// `set_autopilot` on the server (CARLA's legacy autopilot): the
    /// town's own lane-following driver replaces the client's control.
    pub autopilot: bool,
    /// `enable_constant_velocity`: m/s along its heading, kept each step.
    pub constant_speed: Option<f32>,
    /// `apply_ackermann_control`: the server's controller drives it
    /// ([`Driven::ackermann`]) until the next control.
    pub ackermann: bool,
}

/// A contact of a tick: `actor` ran into `other` (0: static geometry).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Contact {
    pub actor: u32,
    pub other: u32,
    /// The impulse the actor got, world frame, N·s.
    pub impulse: Vector3D,
    /// Static geometry: what it is (internal tag); `other` is the actor it
    /// is part of (a light, a sign) or 0.
    pub static_tag: u8,
}

impl Contact {
    /// An impulse of `size` N·s against a heading of `yaw` radians.
    pub(crate) fn against(size: f32, yaw: f32) -> Vector3D {
        v3(-size * yaw.cos(), -size * yaw.sin(), 0.0)
    }
}

impl World {
    /// Whether a footprint standing on `z` would overlap anything.
    fn spot_taken(&self, r: &Rect, z: f32) -> bool {
        let near = |oz: f32| (oz - z).abs() < 3.0;
        self.obstacles
            .iter()
            .any(|o| o.rect.overlaps(r) && near(self.obstacle_z(o.id)))
            || self
                .walkers
                .iter()
                .any(|w| w.rect().overlaps(r) && near(w.z))
            || self
                .scene
                .static_overlap(r, z + 0.3, z + 2.0 * vehicle::EXTENT.z)
                .is_some()
    }

    /// The ground height of an obstacle (a vehicle or a walker).
    fn obstacle_z(&self, id: u32) -> f32 {
        if let Some(d) = self.fleet.iter().find(|d| d.id == id) {
            return d.car.z;
        }
        if let Some(v) = self.vehicles.iter().find(|v| v.id == id) {
            return v.pose.z;
        }
        if let Some(w) = self.walkers.iter().find(|w| w.id == id) {
            return w.z;
        }
        self.car.z
    }

    /// The ground under a client's transform: the surface under it (a
    /// little above it counts, as a spawn point floats over the road), or
    /// the highest one under the point when it is below every surface.
    fn ground_under(&self, t: &Transform) -> f32 {
        let (x, y, z) = (t.location.x, t.location.y, t.location.z);
        let (g, _) = self.scene.ground_at(x, y, z, 1.0);
        let (ground_z, _) = self.scene.ground();
        if g <= ground_z + 1e-3 && z < ground_z + 1.0 {
            self.scene.ground_at(x, y, 1.0e4, 0.0).0
        } else {
            g
        }
    }

    /// Adds a client's vehicle `id` at `t` (on the ground, its yaw), of
    /// half size `extent` centred `ahead` of its origin, under `control`.
    /// Like CARLA, a spot where it would collide is refused.
    pub(crate) fn spawn_car(
        &mut self,
        id: u32,
        t: &Transform,
        albedo: [u8; 3],
        (extent, ahead, control): (Vector3D, f32, &VehiclePhysicsControl),
    ) -> Result<(), String> {
        let mut car = Car::sized(t, extent, ahead);
        let (sin, cos) = car.yaw.sin_cos();
        // By how many cars this world had spawned, not by the id (ids go on
        // counting across worlds): the same script gives the same run.
        self.spawned += 1;
        let aside = settle_aside(self.spawned);
        (car.x, car.y) = (car.x - sin * aside, car.y + cos * aside);
        let ground = self.ground_under(t);
        let refused = || Err("Spawn failed because of collision at spawn position".into());
        if t.location.z > ground + AIRBORNE {
            // High above the ground: it falls from where it was put, if
            // nothing is there.
            car.z = t.location.z;
            let (half, centre) = crate::world::physics::chassis::body_box(extent, ahead);
            let c = v3(
                car.x + cos * centre.x,
                car.y + sin * centre.x,
                car.z + centre.z,
            );
            if self
                .physics
                .box_taken(c, v3(half.x, half.y, half.z), car.yaw, id)
            {
                return refused();
            }
        } else {
            car.z = ground;
            self.settle(&mut car);
            if self.spot_taken(&car.footprint(), car.z) {
                return refused();
            }
        }
        self.physics.add_vehicle(
            id,
            v3(car.x, car.y, car.z),
            car.yaw,
            car.pitch,
            car.roll,
            extent,
            ahead,
            control,
        );
        self.fleet.push(Driven {
            id,
            car,
            control: Control::default(),
            manual_gear: None,
            albedo,
            yaw_rate: 0.0,
            velocity: v3(0.0, 0.0, 0.0),
            angular: v3(0.0, 0.0, 0.0),
            teleported: true,
            modes: DriveModes::default(),
            ackermann: Ackermann::new(DEFAULT_SETTINGS),
            ackermann_out: Control::default(),
            applied: Control::default(),
            lights: 0,
        });
        self.refresh();
        Ok(())
    }

    /// Adds a client's pedestrian `id` standing at `t`.
    pub(crate) fn spawn_walker(&mut self, id: u32, t: &Transform) -> Result<(), String> {
        // A walker's origin is its capsule's centre: its feet are below.
        let mut feet = *t;
        feet.location.z -= HALF_HEIGHT;
        let z = self.ground_under(&feet);
        let w = super::pedestrians::Walker::standing(
            id,
            t.location.x,
            t.location.y,
            z,
            t.rotation.yaw.to_radians(),
        );
        if self.spot_taken(&w.rect(), z) {
            return Err("Spawn failed because of collision at spawn position".into());
        }
        self.walkers.push(w);
        self.refresh();
        Ok(())
    }

    /// Removes a client's vehicle, a traffic vehicle or a pedestrian.
    pub(crate) fn remove_actor(&mut self, id: u32) -> bool {
        let count = |w: &Self| w.fleet.len() + w.vehicles.len() + w.walkers.len() + w.props.len();
        let before = count(self);
        self.fleet.retain(|d| d.id != id);
        self.vehicles.retain(|v| v.id != id);
        self.walkers.retain(|w| w.id != id);
        self.props.retain(|p| p.id != id);
        let removed = before != count(self);
        self.physics.remove(id);
        if removed {
            self.refresh();
        }
        removed
    }

    pub(crate) fn driven_mut(&mut self, id: u32) -> Option<&mut Driven> {
        self.fleet.iter_mut().find(|d| d.id == id)
    }

    /// Half the size of vehicle `id` (the player's, a client's or the
    /// town's), metres.
    pub(crate) fn vehicle_extent(&self, id: u32) -> Option<carla_server::types::Vector3D> {
        if let Some(d) = self.fleet.iter().find(|d| d.id == id) {
            return Some(d.car.extent);
        }
        if let Some(v) = self.vehicles.iter().find(|v| v.id == id) {
            let (x, y, z) = v.extent;
            return Some(carla_server::types::Vector3D { x, y, z });
        }
        (id == PLAYER_ID).then_some(self.car.extent)
    }

    /// Sets a client vehicle's lamps (`carla.VehicleLightState` bits).
    pub(crate) fn set_vehicle_lights(&mut self, id: u32, lights: u32) -> bool {
        self.driven_mut(id).map(|d| d.lights = lights).is_some()
    }

    /// Dresses pedestrian `id` as blueprint number `n`.
    pub(crate) fn dress_walker(&mut self, id: u32, n: u32) {
        if let Some(w) = self.walker_mut(id) {
            w.dress_as(n);
        }
    }

    /// A pedestrian (the town's or a client's).
    pub(crate) fn walker_mut(&mut self, id: u32) -> Option<&mut super::pedestrians::Walker> {
        self.walkers.iter_mut().find(|w| w.id == id)
    }

    pub(crate) fn fleet(&self) -> &[Driven] {
        &self.fleet
    }

    /// Sets a client vehicle's control (kept until the next one; it ends
    /// an Ackermann control).
    pub(crate) fn set_control(&mut self, id: u32, control: Control) -> bool {
        self.driven_mut(id)
            .map(|d| {
                d.control = control;
                d.modes.ackermann = false;
            })
            .is_some()
    }

    /// One tick of the Ackermann controllers of the vehicles under one.
    pub(in crate::world) fn run_ackermann(&mut self, dt: f32) {
        for d in self.fleet.iter_mut().filter(|d| d.modes.ackermann) {
            let max_steer = d.car.max_steer_deg.to_radians();
            d.ackermann_out = d.ackermann.run(d.car.speed, max_steer, dt);
        }
    }

    /// A client vehicle's gear under `manual_gear_shift` (`None`: the
    /// automatic); false if it is not one.
    pub(crate) fn set_manual_gear(&mut self, id: u32, gear: Option<i32>) -> bool {
        self.driven_mut(id).map(|d| d.manual_gear = gear).is_some()
    }

    /// A client vehicle's telemetry after the last step.
    pub(crate) fn telemetry(&self, id: u32) -> Option<carla_server::rpc::VehicleTelemetry> {
        self.physics.telemetry(id)
    }

    /// The gear a client vehicle is in, as CARLA reports it (-1 reverse, 0
    /// neutral, 1 first, ...).
    pub(crate) fn gear_of(&self, id: u32) -> Option<i32> {
        self.physics.gear(id)
    }

    /// An impulse (N·s; angular: N·m·s) on a client vehicle; false if it
    /// is not one.
    pub(crate) fn push_car(&mut self, id: u32, impulse: Vector3D, angular: bool) -> bool {
        self.physics.impulse(id, impulse, angular)
    }

    /// The world's rigid bodies (a client vehicle's physics calls).
    pub(crate) fn physics_mut(&mut self) -> &mut crate::world::physics::Physics {
        &mut self.physics
    }

    /// Moves a client vehicle, a traffic vehicle or a pedestrian (onto the
    /// ground under the transform).
    pub(crate) fn set_transform(&mut self, id: u32, t: &Transform) -> bool {
        let (x, y, yaw) = (t.location.x, t.location.y, t.rotation.yaw.to_radians());
        let moved = if self.fleet.iter().any(|d| d.id == id) {
            let z = self.ground_under(t);
            let mut car = self
                .fleet
                .iter()
                .find(|d| d.id == id)
                .map(|d| d.car)
                .unwrap_or(self.car);
            (car.x, car.y, car.z, car.yaw) = (x, y, z, yaw);
            self.settle(&mut car);
            let at = v3(car.x, car.y, car.z);
            self.physics.teleport(id, at, car.yaw, car.pitch, car.roll);
            if let Some(d) = self.driven_mut(id) {
                d.car = car;
                d.teleported = true;
            }
            true
        } else if self.walkers.iter().any(|w| w.id == id) {
            let mut feet = *t;
            feet.location.z -= HALF_HEIGHT;
            let z = self.ground_under(&feet);
            let w = self.walker_mut(id).expect("a walker");
            (w.x, w.y, w.z, w.yaw) = (x, y, z, yaw);
            true
        } else if let Some(v) = self.vehicles.iter_mut().find(|v| v.id == id) {
            // The town's own cars move by hand only while a replay holds
            // the traffic (their lane takes them back afterwards).
            (v.pose.x, v.pose.y, v.pose.z, v.pose.yaw) = (x, y, t.location.z, yaw);
            true
        } else if let Some(p) = self.props.iter_mut().find(|p| p.id == id) {
            let r = &t.rotation;
            p.at = v3(x, y, t.location.z);
            (p.yaw, p.pitch, p.roll) = (yaw, r.pitch.to_radians(), r.roll.to_radians());
            self.physics.teleport(id, p.at, p.yaw, p.pitch, p.roll);
            true
        } else {
            false
        };
        if moved {
            self.refresh();
        }
        moved
    }

    /// CARLA's `set_target_velocity` (or its angular one, rad/s): the
    /// body gets this velocity once.
    pub(crate) fn set_velocity(&mut self, id: u32, v: Vector3D, angular: bool) -> bool {
        self.physics.set_velocity(id, v, angular)
    }

    /// The other moving actors, as boxes the client vehicles meet.
    fn movers(&self) -> Vec<Mover> {
        let boxed = |part, r: Rect, z: f32, hz: f32, (speed, yaw): (f32, f32)| Mover {
            part,
            centre: v3(r.cx, r.cy, z + hz),
            half: v3(r.hx, r.hy, hz),
            yaw: r.sin.atan2(r.cos),
            velocity: v3(speed * yaw.cos(), speed * yaw.sin(), 0.0),
        };
        let mut out: Vec<Mover> = self
            .vehicles
            .iter()
            .map(|v| {
                let motion = (v.speed, v.pose.yaw);
                boxed(Part::Vehicle(v.id), v.rect(), v.pose.z, v.extent.2, motion)
            })
            .collect();
        out.extend(self.walkers.iter().filter(|w| !w.ghost).map(|w| {
            let mut m = boxed(
                Part::Walker(w.id),
                w.rect(),
                w.z,
                HALF_HEIGHT,
                (w.speed, w.yaw),
            );
            (m.velocity.x, m.velocity.y) = (m.velocity.x + w.motion.x, m.velocity.y + w.motion.y);
            m
        }));
        if self.player_active {
            let c = &self.car;
            out.push(boxed(
                Part::Vehicle(PLAYER_ID),
                c.footprint(),
                c.z,
                c.extent.z,
                (c.speed, c.yaw),
            ));
        }
        out
    }

    /// The control a client vehicle drives under this step (its client's,
    /// or what the server's autopilot or Ackermann controller gives).
    fn drive_of(&self, d: &Driven) -> Control {
        if d.modes.autopilot {
            let gap = traffic::gap_ahead(d.car.footprint(), d.id, &self.obstacles);
            let t = &self.town;
            pilot::drive(&d.car, &t.map.lanes, &t.ways, &self.lights, gap)
        } else if d.modes.ackermann {
            d.ackermann_out
        } else {
            d.control
        }
    }

    /// Steps the client vehicles by one sub-step (after the traffic).
    pub(in crate::world) fn step_fleet(&mut self, dt: f32) {
        // With no client vehicle the bodies still move for clients'
        // walkers (what their characters meet).
        let characters = self.walkers.iter().any(|w| w.is_character());
        if dt <= 0.0 || (self.fleet.is_empty() && !characters && self.props.is_empty()) {
            return;
        }
        let movers = self.movers();
        self.physics.set_movers(&movers);
        let mut drives = Vec::with_capacity(self.fleet.len());
        for i in 0..self.fleet.len() {
            self.fleet[i].applied = self.drive_of(&self.fleet[i]);
        }
        for d in &self.fleet {
            let c = d.applied;
            drives.push((
                d.id,
                Drive {
                    throttle: c.throttle,
                    steer: c.steer,
                    brake: c.brake,
                    hand_brake: c.hand_brake.get(),
                    reverse: c.reverse.get(),
                    gear: if d.modes.autopilot || d.modes.ackermann {
                        None
                    } else {
                        d.manual_gear
                    },
                },
            ));
        }
        for d in &self.fleet {
            self.physics.set_frozen(d.id, d.modes.frozen);
            self.physics.set_ghost(d.id, d.modes.ghost);
            if let (Some(v), false) = (d.modes.constant_speed, d.modes.frozen) {
                let (s, c) = d.car.yaw.sin_cos();
                self.physics
                    .set_velocity(d.id, v3(v * c, v * s, 0.0), false);
            }
        }
        self.physics.step(dt, |id| {
            drives.iter().find(|(i, _)| *i == id).map(|(_, d)| *d)
        });
        for d in &mut self.fleet {
            let Some(s) = self.physics.state(d.id) else {
                continue;
            };
            // What a client reads: the motion between the two poses (the
            // body's own velocity carries the wheels' last impulses).
            let before = d.velocity;
            let car = &mut d.car;
            let velocity = if std::mem::take(&mut d.teleported) {
                s.velocity
            } else {
                v3(
                    (s.position.x - car.x) / dt,
                    (s.position.y - car.y) / dt,
                    (s.position.z - car.z) / dt,
                )
            };
            (car.x, car.y, car.z) = (s.position.x, s.position.y, s.position.z);
            car.yaw = s.yaw.rem_euclid(std::f32::consts::TAU);
            (car.pitch, car.roll) = (s.pitch, s.roll);
            car.speed = s.forward_speed;
            car.accel = v3(
                (velocity.x - before.x) / dt,
                (velocity.y - before.y) / dt,
                (velocity.z - before.z) / dt,
            );
            car.settled_at = [car.x, car.y, car.yaw];
            d.velocity = velocity;
            d.angular = s.angular;
            d.yaw_rate = s.angular.z.to_degrees();
        }
        self.read_props();
        for t in self.physics.touches() {
            let (other, tag) = match t.other {
                Part::Vehicle(id) | Part::Walker(id) | Part::Prop(id) => (id, 0),
                Part::Static(tag, actor) => (actor, tag),
                Part::Surface => continue,
            };
            self.contacts.push(Contact {
                actor: t.vehicle,
                other,
                impulse: t.impulse,
                static_tag: tag,
            });
            // What the car hit feels it too (a client car does by itself).
            let driven = self.fleet.iter().any(|d| d.id == other);
            if other != 0 && tag == 0 && !driven {
                let i = t.impulse;
                self.contacts.push(Contact {
                    actor: other,
                    other: t.vehicle,
                    impulse: v3(-i.x, -i.y, -i.z),
                    static_tag: 0,
                });
            }
        }
    }

    /// What a footprint `r` of actor `me` would run into.
    pub(in crate::world) fn collision(&self, r: &Rect, me: u32) -> Option<vehicle::Collision> {
        use vehicle::Collision;
        if let Some(v) = self.vehicles.iter().find(|v| v.rect().overlaps(r)) {
            return Some(Collision::Vehicle(v.id));
        }
        if let Some(d) = self
            .fleet
            .iter()
            .find(|d| d.id != me && d.car.footprint().overlaps(r))
        {
            return Some(Collision::Vehicle(d.id));
        }
        if me != PLAYER_ID && self.player_active && self.car.footprint().overlaps(r) {
            return Some(Collision::Vehicle(PLAYER_ID));
        }
        if let Some(w) = self
            .walkers
            .iter()
            .find(|w| !w.ghost && w.rect().overlaps(r))
        {
            return Some(Collision::Pedestrian(w.id));
        }
        let z = self
            .fleet
            .iter()
            .find(|d| d.id == me)
            .map_or(self.car.z, |d| d.car.z);
        self.scene
            .static_overlap(r, z + 0.3, z + 2.0 * vehicle::EXTENT.z)
            .map(|(t, a)| Collision::Other(t, a))
    }

    /// This tick's contacts (cleared by each `step`).
    pub(crate) fn contacts(&self) -> &[Contact] {
        &self.contacts
    }
}

/// How high above the ground under it a client's vehicle put in the air
/// stays there (and falls), metres; lower, it is put on the ground.
const AIRBORNE: f32 = 2.0;

/// How far to its right the `n`th vehicle a world spawns comes to rest
/// from the spot it was put at, metres: 0.05 to 0.5 mm either way,
/// different from one vehicle to the next, as a physics engine's contact solver never lands a
/// body exactly where it was put. Two vehicles put on one lane's centre
/// line would otherwise stand exactly in line, and CARLA's BasicAgent (so
/// ScenarioRunner's npc_agent) does not see a vehicle exactly dead ahead:
/// `agents/tools/misc.py` `is_within_distance` asks `0 < angle`, and the
/// angle is exactly 0; it drove into a parked car.
pub(crate) fn settle_aside(n: u32) -> f32 {
    let h = n.wrapping_mul(2_654_435_761) >> 8;
    let side = if h & 1 == 0 { 1.0 } else { -1.0 };
    side * (5 + (h >> 1) % 46) as f32 * 1e-5
}

impl World {
    /// The 0.8 player's car leaves the world (its episode ended).
    pub(crate) fn deactivate_player(&mut self) {
        if self.player_active {
            self.player_active = false;
            self.refresh();
        }
    }
}
