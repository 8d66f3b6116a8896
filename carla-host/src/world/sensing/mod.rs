//! What the sensors ask of the world beyond cameras: lidar tracing
//! ([`lidar`]) and, here, the parent's motion (IMU), the nearest obstacle
//! ahead, the vehicles inside a box.

pub(crate) mod lidar;
pub(crate) mod radio;

use crate::world::math::{v3, Axes, Rect};
use crate::world::simulation::actors::ActorKind;
use crate::world::World;
use carla_server::sensor::ActorTransform;
use carla_server::types::{Transform, Vector3D};
use lidar::Mount;

impl World {
    /// Actor `id`'s acceleration (world frame, m/s²) and angular velocity
    /// (rad/s about its up axis, as a gyroscope's z).
    pub(crate) fn motion_of(&self, id: u32) -> (Vector3D, Vector3D) {
        match self.kind_of(id) {
            Some(ActorKind::Player) => (self.car.accel, v3(0.0, 0.0, 0.0)),
            Some(ActorKind::Driven) => self
                .fleet
                .iter()
                .find(|d| d.id == id)
                .map_or((v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0)), |d| {
                    (d.car.accel, d.angular)
                }),
            _ => (v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 0.0)),
        }
    }

    /// The nearest thing within `distance` ahead of a sensor at `pose`
    /// (three rays: the axis and `radius` to each side, at least 0.5 m
    /// above the ground), ignoring actor `ignore`: (actor id, 0 for static
    /// geometry, and distance). Road surface never counts; static geometry
    /// only if `!only_dynamics`.
    pub(crate) fn obstacle_ahead(
        &self,
        pose: &ActorTransform,
        distance: f32,
        radius: f32,
        only_dynamics: bool,
        ignore: u32,
    ) -> Option<(u32, f32, u8)> {
        let axes = Axes::from_rotation(&pose.rotation);
        let mut origin = pose.location;
        origin.z = origin.z.max(0.5);
        let mut best: Option<(u32, f32, u8)> = None;
        for side in [0.0, -radius, radius] {
            let o = v3(
                origin.x + axes.right.x * side,
                origin.y + axes.right.y * side,
                origin.z,
            );
            let Some(hit) = self
                .scene
                .raycast_ignoring(o, axes.forward, distance, ignore)
            else {
                continue;
            };
            let is_ground = hit.normal.z > 0.9 && hit.point.z < 0.05;
            // Lights and signs are actors, but static ones.
            let fixed = hit.actor_id == 0
                || matches!(
                    self.kind_of(hit.actor_id),
                    Some(ActorKind::Light | ActorKind::Sign)
                );
            if is_ground || (fixed && only_dynamics) {
                continue;
            }
            if best.is_none_or(|(_, d, _)| hit.distance < d) {
                best = Some((hit.actor_id, hit.distance, hit.semantic_tag));
            }
        }
        best
    }

    /// Ids of the vehicles whose footprints overlap the box of half sizes
    /// `half` centred at `centre` in the frame of a parent at `parent`.
    pub(crate) fn vehicles_in_box(
        &self,
        parent: &Transform,
        centre: Vector3D,
        half: Vector3D,
        owner: u32,
        ids: &mut Vec<u32>,
    ) {
        let mount = Mount {
            position: centre,
            rotation: Default::default(),
        };
        let c = mount.world(parent);
        let r = Rect::new(
            c.location.x,
            c.location.y,
            c.rotation.yaw.to_radians(),
            half.x,
            half.y,
        );
        ids.clear();
        ids.extend(
            self.obstacles
                .iter()
                .filter(|o| o.id != owner && o.rect.overlaps(&r))
                .map(|o| o.id),
        );
    }
}
