//! What lies between two V2X antennas: the static scene (buildings,
//! terrain, the road over a crest) blocks the path; vehicles whose bodies
//! the straight line passes through are knife edges (the library's path
//! loss model wants their distances and heights above the line). Walkers
//! do not count (they attenuate, they do not block).

use crate::world::math::{length, sub, v3};
use crate::world::World;
use carla_server::sensor::models::v2x::Obstruction;
use carla_server::types::Vector3D;

/// A path's state, without the obstructions' list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathState {
    Clear,
    Vehicles,
    Blocked,
}

impl World {
    /// The path between antennas `tx` and `rx` (world, metres) of actors
    /// `ends` (neither obstructs its own link); vehicles in the way are
    /// written to `out` (cleared first).
    pub(crate) fn radio_path(
        &self,
        tx: Vector3D,
        rx: Vector3D,
        ends: (u32, u32),
        out: &mut Vec<Obstruction>,
    ) -> PathState {
        out.clear();
        let d = sub(rx, tx);
        let dist = length(d);
        if dist <= 1e-3 {
            return PathState::Clear;
        }
        let dir = v3(d.x / dist, d.y / dist, d.z / dist);
        if self.scene.cast_static(tx, dir, dist).is_some() {
            return PathState::Blocked;
        }
        let horizontal = (d.x * d.x + d.y * d.y).sqrt();
        for o in self.obstacles.iter().filter(|o| !o.walker) {
            if o.id == ends.0 || o.id == ends.1 {
                continue;
            }
            let Some(t) = o.rect.segment_entry((tx.x, tx.y), (rx.x, rx.y)) else {
                continue;
            };
            let Some(body) = self.actor_transform(o.id) else {
                continue;
            };
            let height = self.vehicle_extent(o.id).map_or(1.5, |e| 2.0 * e.z);
            let top = body.location.z + height;
            let line = tx.z + t * d.z;
            if line > top || line < body.location.z {
                continue; // over its roof or under it
            }
            out.push(Obstruction {
                from_tx: t * horizontal,
                to_rx: (1.0 - t) * horizontal,
                height: top - line,
            });
        }
        if out.is_empty() {
            PathState::Clear
        } else {
            PathState::Vehicles
        }
    }
}
