//! The world's actors by id, as the 0.9 side asks for them: what an id
//! is, where it is and how it moves, the lights' and signs' transforms, and
//! which light governs a vehicle.

use super::pedestrians::HALF_HEIGHT;
use super::vehicle::{pose_transform, Car};
use crate::world::ids::{LIGHT_ID0, MAX_PER_KIND, PLAYER_ID, SIGN_ID0};
use crate::world::map::signals::SignKind;
use crate::world::math::v3;
use crate::world::World;
use carla_server::types::{Transform, Vector3D};

/// What an actor id is in this world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ActorKind {
    Player,
    Driven,
    Traffic,
    Walker,
    Light,
    /// A speed-limit sign.
    Sign,
    /// A prop a client spawned.
    Prop,
}

impl World {
    /// What actor `id` is.
    pub(crate) fn kind_of(&self, id: u32) -> Option<ActorKind> {
        let lights = self.town.map.signs.lights().count() as u32;
        let signs = self.town.map.signs.signs.len() as u32 - lights;
        if id == PLAYER_ID && self.player_active {
            Some(ActorKind::Player)
        } else if self.fleet.iter().any(|d| d.id == id) {
            Some(ActorKind::Driven)
        } else if self.vehicles.iter().any(|v| v.id == id) {
            Some(ActorKind::Traffic)
        } else if self.walkers.iter().any(|w| w.id == id) {
            Some(ActorKind::Walker)
        } else if self.props.iter().any(|p| p.id == id) {
            Some(ActorKind::Prop)
        } else if (LIGHT_ID0..LIGHT_ID0 + lights.min(MAX_PER_KIND)).contains(&id) {
            Some(ActorKind::Light)
        } else if (SIGN_ID0..SIGN_ID0 + signs.min(MAX_PER_KIND)).contains(&id) {
            Some(ActorKind::Sign)
        } else {
            None
        }
    }

    /// Light `i`'s actor transform: at the foot of its pole, its x axis
    /// across the lanes it governs (to their right), as CARLA's light
    /// actors are turned (their trigger volume's x runs across the lanes).
    pub(crate) fn light_transform(&self, i: usize) -> Transform {
        let s = self.town.map.signs.lights().nth(i).map(|(_, s)| s);
        s.map_or_else(Transform::default, |s| {
            let [x, y, z] = s.position;
            pose_transform(
                x,
                y,
                z,
                s.traffic_yaw + std::f32::consts::FRAC_PI_2,
                0.0,
                0.0,
            )
        })
    }

    /// The signs that are not lights: (kind, transform), in actor order.
    pub(crate) fn sign_actors(&self) -> impl Iterator<Item = (SignKind, Transform)> + '_ {
        self.town
            .map
            .signs
            .signs
            .iter()
            .filter(|s| !matches!(s.kind, SignKind::Light { .. }))
            .map(|s| {
                let [x, y, z] = s.position;
                let yaw = s.traffic_yaw + std::f32::consts::FRAC_PI_2;
                (s.kind, pose_transform(x, y, z, yaw, 0.0, 0.0))
            })
    }

    /// The speed-limit signs: (km/h, transform).
    pub(crate) fn speed_signs(&self) -> impl Iterator<Item = (f32, Transform)> + '_ {
        self.sign_actors().filter_map(|(k, t)| match k {
            SignKind::SpeedLimit(v) => Some((v, t)),
            _ => None,
        })
    }

    /// The world transform of actor `id`, if it is one of the world's.
    pub(crate) fn actor_transform(&self, id: u32) -> Option<Transform> {
        Some(match self.kind_of(id)? {
            ActorKind::Player => self.car.transform(),
            ActorKind::Driven => self.fleet.iter().find(|d| d.id == id)?.car.transform(),
            ActorKind::Traffic => {
                let p = &self.vehicles.iter().find(|v| v.id == id)?.pose;
                pose_transform(p.x, p.y, p.z, p.yaw, p.pitch, p.roll)
            }
            ActorKind::Walker => {
                // As CARLA's: the walker's origin is its capsule's centre.
                let w = self.walkers.iter().find(|w| w.id == id)?;
                pose_transform(w.x, w.y, w.z + HALF_HEIGHT, w.yaw, 0.0, 0.0)
            }
            ActorKind::Light => self.light_transform((id - LIGHT_ID0) as usize),
            ActorKind::Sign => self.sign_actors().nth((id - SIGN_ID0) as usize)?.1,
            ActorKind::Prop => self.props.iter().find(|p| p.id == id)?.transform(),
        })
    }
}

impl World {
    /// The world velocity of actor `id` (m/s; zero for what does not move).
    pub(crate) fn actor_velocity(&self, id: u32) -> Vector3D {
        let planar = |speed: f32, yaw: f32| v3(speed * yaw.cos(), speed * yaw.sin(), 0.0);
        match self.kind_of(id) {
            Some(ActorKind::Player) => planar(self.car.speed, self.car.yaw),
            Some(ActorKind::Driven) => self
                .fleet
                .iter()
                .find(|d| d.id == id)
                .map_or(v3(0.0, 0.0, 0.0), |d| d.velocity),
            Some(ActorKind::Traffic) => self
                .vehicles
                .iter()
                .find(|v| v.id == id)
                .map_or(v3(0.0, 0.0, 0.0), |v| planar(v.speed, v.pose.yaw)),
            Some(ActorKind::Walker) => self
                .walkers
                .iter()
                .find(|w| w.id == id)
                .map_or(v3(0.0, 0.0, 0.0), |w| planar(w.speed, w.yaw)),
            Some(ActorKind::Prop) => self
                .props
                .iter()
                .find(|p| p.id == id)
                .map_or(v3(0.0, 0.0, 0.0), |p| p.velocity),
            _ => v3(0.0, 0.0, 0.0),
        }
    }

    /// Traffic vehicles and pedestrians, for the 0.9 side.
    pub(crate) fn traffic(&self) -> &[super::traffic::Vehicle] {
        &self.vehicles
    }
    pub(crate) fn walkers(&self) -> &[super::pedestrians::Walker] {
        &self.walkers
    }
    /// How many traffic lights the map has.
    pub(crate) fn light_count(&self) -> usize {
        self.town.lights.len()
    }
    /// The 0.8 player's car.
    pub(crate) fn player(&self) -> &Car {
        &self.car
    }

    /// The light governing a vehicle at `(x, y, z)` heading `yaw`
    /// (radians): one whose zone before its stop line holds the vehicle,
    /// on a lane running its way.
    pub(crate) fn light_governing(&self, x: f32, y: f32, z: f32, yaw: f32) -> Option<usize> {
        let lanes = &self.town.map.lanes;
        let on = lanes.driving_at(x, y, z, yaw, 3.0)?;
        self.town.ways.light_at(on.lane, on.dist)
    }
}
