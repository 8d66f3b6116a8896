//! Lidar tracing for the library's lidar model.
//!
//! Per tick: `lidar.plan(dt)` (library) → [`trace`] each planned ray against
//! the scene → `lidar.process(&hits, ..)` for the 0.9 payload and/or
//! `carla_server::legacy::lidar_record::build` for the 0.8 one, both from
//! the same hits.

use crate::world::ids::PLAYER_ID;
use crate::world::math::{sub, Axes};
use crate::world::scene::Scene;
use crate::world::workers::{split, threads};
use crate::world::World;
use carla_server::sensor::{compose, ActorTransform};
use carla_server::sensor::{LidarHit, LidarSettings, PlannedRay};
use carla_server::types::{Rotation3D, Transform, Vector3D};

/// A sensor's pose relative to the player's car (metres: x forward, y right,
/// z up from the car's origin on the ground; degrees).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Mount {
    pub position: Vector3D,
    pub rotation: Rotation3D,
}

impl Mount {
    /// The sensor's world transform on a parent at `player` (the library's
    /// [`compose`]).
    pub(crate) fn world(&self, player: &Transform) -> ActorTransform {
        let parent = ActorTransform {
            location: player.location,
            rotation: player.rotation,
        };
        let child = ActorTransform {
            location: self.position,
            rotation: self.rotation,
        };
        compose(&parent, &child)
    }
}

/// The library lidar's settings for a 0.8 lidar section: 360° sweep, and
/// neither drop-off nor noise (0.8's lidar had none), intensity unused.
#[allow(dead_code)] // for a host that drives a `Lidar` itself
pub(crate) fn legacy_lidar_settings(
    channels: u32,
    range_m: f32,
    points_per_second: u32,
    rotation_frequency: f32,
    upper_fov: f32,
    lower_fov: f32,
) -> LidarSettings {
    LidarSettings {
        channels,
        range_m,
        points_per_second,
        rotation_frequency,
        upper_fov,
        lower_fov,
        horizontal_fov: 360.0,
        atmosphere_attenuation_rate: 0.0,
        dropoff_general_rate: 0.0,
        dropoff_intensity_limit: 1.0,
        dropoff_zero_intensity: 0.0,
        noise_stddev: 0.0,
        noise_seed: 0,
        semantic: false,
    }
}

/// Traces each ray (unit direction in the sensor frame) from `sensor` up to
/// `range_m`, passing through actor `ignore` (the car carrying the sensor).
/// `hits` is refilled with one entry per ray, `ray_index` = position; hit
/// points and normals are in the sensor frame. A long sweep is split over
/// [`threads`].
pub(crate) fn trace(
    scene: &Scene,
    sensor: &ActorTransform,
    rays: &[PlannedRay],
    range_m: f32,
    ignore: u32,
    hits: &mut Vec<LidarHit>,
) {
    let axes = Axes::from_rotation(&sensor.rotation);
    let origin = sensor.location;
    hits.clear();
    hits.resize(rays.len(), LidarHit::default());
    let pieces = threads().min(rays.len().div_ceil(MIN_RAYS_A_THREAD)).max(1);
    split(
        rays,
        hits,
        rays.len().div_ceil(pieces),
        |first, rays, out| {
            for (k, (ray, out)) in rays.iter().zip(out).enumerate() {
                let dir = axes.to_world(ray.direction);
                *out = match scene.raycast_ignoring(origin, dir, range_m, ignore) {
                    Some(h) => LidarHit {
                        ray_index: (first + k) as u32,
                        hit: 1,
                        distance_m: h.distance,
                        point_sensor: axes.to_local(sub(h.point, origin)),
                        normal_sensor: axes.to_local(h.normal),
                        actor_id: h.actor_id,
                        semantic_tag: h.semantic_tag as u32,
                    },
                    None => LidarHit {
                        ray_index: (first + k) as u32,
                        ..Default::default()
                    },
                };
            }
        },
    );
}

/// Rays below which a sweep is not worth another thread.
const MIN_RAYS_A_THREAD: usize = 512;

impl World {
    /// Traces `rays` (sensor frame) from a sensor at world transform
    /// `sensor`, passing through actor `ignore` (its parent).
    pub(crate) fn trace_from(
        &self,
        sensor: &ActorTransform,
        rays: &[PlannedRay],
        range_m: f32,
        ignore: u32,
        hits: &mut Vec<LidarHit>,
    ) {
        trace(self.scene(), sensor, rays, range_m, ignore, hits);
    }

    /// Traces `rays` (a lidar plan, sensor frame) from a lidar mounted on
    /// the 0.8 player at `mount`, up to `range_m`; the player's own car is
    /// not hit. `hits` gets one entry per ray, in order.
    pub(crate) fn trace_lidar(
        &self,
        mount: &Mount,
        rays: &[PlannedRay],
        range_m: f32,
        hits: &mut Vec<LidarHit>,
    ) {
        let sensor = mount.world(&self.player_transform());
        trace(self.scene(), &sensor, rays, range_m, PLAYER_ID, hits);
    }
}

#[cfg(test)]
#[path = "lidar_tests.rs"]
mod tests;
