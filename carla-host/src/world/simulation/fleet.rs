//! Vehicles driven by 0.9 clients: each is the player's car model under the
//! last control its client applied (`apply_control`), moved by
//! `set_transform` and `set_target_velocity`, colliding with everything
//! else. Also the world's actor look-ups by id the 0.9 side needs.

use super::pedestrians::HALF_HEIGHT;
use super::pilot;
use super::traffic;
use super::vehicle::{self, Car};
use crate::world::ids::PLAYER_ID;
use crate::world::math::Rect;
use crate::world::World;
use carla_server::types::{Control, Transform};

/// A vehicle a client spawned.
#[derive(Clone, Debug)]
pub(crate) struct Driven {
    pub id: u32,
    pub car: Car,
    pub control: Control,
    pub albedo: [u8; 3],
    /// Yaw rate of the last tick, deg/s.
    pub yaw_rate: f32,
    /// How clients' commands change the way it moves.
    pub modes: DriveModes,
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
    /// `apply_ackermann_control`: (wheel angle rad, speed m/s), followed
    /// each step until the next control.
    pub ackermann: Option<(f32, f32)>,
    /// `apply_physics_control`'s mass, kg (impulses and forces).
    pub mass_kg: Option<f32>,
}

/// A contact of a tick: `actor` ran into `other` (0: static geometry).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Contact {
    pub actor: u32,
    pub other: u32,
    /// kg·m/s, along the actor's heading before the contact.
    pub impulse: f32,
    /// Static geometry: what it is (internal tag); `other` is the actor it
    /// is part of (a light, a sign) or 0.
    pub static_tag: u8,
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

    /// Adds a client's vehicle `id` at `t` (on the ground, its yaw). Like
    /// CARLA, a spot where it would collide is refused.
    pub(crate) fn spawn_car(
        &mut self,
        id: u32,
        t: &Transform,
        albedo: [u8; 3],
        extent: carla_server::types::Vector3D,
        ahead: f32,
    ) -> Result<(), String> {
        let mut car = Car::sized(t, extent, ahead);
        let (sin, cos) = car.yaw.sin_cos();
        let aside = settle_aside(id);
        (car.x, car.y) = (car.x - sin * aside, car.y + cos * aside);
        car.z = self.ground_under(t);
        self.settle(&mut car);
        if self.spot_taken(&car.footprint(), car.z) {
            return Err("Spawn failed because of collision at spawn position".into());
        }
        self.fleet.push(Driven {
            id,
            car,
            control: Control::default(),
            albedo,
            yaw_rate: 0.0,
            modes: DriveModes::default(),
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
        let before = self.fleet.len() + self.vehicles.len() + self.walkers.len();
        self.fleet.retain(|d| d.id != id);
        self.vehicles.retain(|v| v.id != id);
        self.walkers.retain(|w| w.id != id);
        let removed = before != self.fleet.len() + self.vehicles.len() + self.walkers.len();
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
                d.modes.ackermann = None;
            })
            .is_some()
    }

    /// Changes `f(velocity along the heading)` of a client vehicle at once
    /// (an impulse, a force over a step); false if it is not one.
    pub(crate) fn push_car(&mut self, id: u32, delta_v: (f32, f32)) -> bool {
        self.driven_mut(id)
            .map(|d| d.car.speed += delta_v.0 * d.car.yaw.cos() + delta_v.1 * d.car.yaw.sin())
            .is_some()
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
            if let Some(d) = self.driven_mut(id) {
                d.car = car;
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
        } else {
            false
        };
        if moved {
            self.refresh();
        }
        moved
    }

    /// CARLA's `set_target_velocity`: the body gets this velocity once;
    /// a car keeps its heading and takes the component along it.
    pub(crate) fn set_velocity(&mut self, id: u32, vx: f32, vy: f32) -> bool {
        self.driven_mut(id)
            .map(|d| d.car.speed = vx * d.car.yaw.cos() + vy * d.car.yaw.sin())
            .is_some()
    }

    /// Steps the client vehicles by one sub-step (after the traffic).
    pub(in crate::world) fn step_fleet(&mut self, dt: f32) {
        for i in 0..self.fleet.len() {
            let (me, yaw0, modes) = (self.fleet[i].id, self.fleet[i].car.yaw, self.fleet[i].modes);
            if modes.frozen {
                self.fleet[i].car.speed = 0.0;
                self.fleet[i].yaw_rate = 0.0;
                continue;
            }
            let mut car = self.fleet[i].car;
            let control = if modes.autopilot {
                let gap = traffic::gap_ahead(car.footprint(), me, &self.obstacles);
                let t = &self.town;
                pilot::drive(&car, &t.map.lanes, &t.ways, &t.lights, self.time, gap)
            } else if let Some((wheel, speed)) = modes.ackermann {
                car.follow(wheel, speed)
            } else {
                self.fleet[i].control
            };
            if let Some(v) = modes.constant_speed {
                car.speed = v;
            }
            if modes.ghost {
                car.step(&control, dt, |_| None);
            } else {
                car.step(&control, dt, |r| self.collision(r, me));
            }
            if let Some(v) = modes.constant_speed {
                car.speed = v;
            }
            self.settle(&mut car);
            let d = &mut self.fleet[i];
            let turn = (car.yaw - yaw0 + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                - std::f32::consts::PI;
            d.yaw_rate = turn.to_degrees() / dt;
            d.car = car;
            if let Some((other, impulse, static_tag)) = car.hit {
                self.contacts.push(Contact {
                    actor: me,
                    other,
                    impulse,
                    static_tag,
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

/// How far to its right a client's vehicle comes to rest from the spot it
/// was put at, metres: 0.05 to 0.5 mm either way, different from one
/// vehicle to the next, as a physics engine's contact solver never lands a
/// body exactly where it was put. Two vehicles put on one lane's centre
/// line would otherwise stand exactly in line, and CARLA's BasicAgent (so
/// ScenarioRunner's npc_agent) does not see a vehicle exactly dead ahead:
/// `agents/tools/misc.py` `is_within_distance` asks `0 < angle`, and the
/// angle is exactly 0; it drove into a parked car.
pub(crate) fn settle_aside(id: u32) -> f32 {
    let h = id.wrapping_mul(2_654_435_761) >> 8;
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
