//! What the world's tests share: the built-in town, loaded once per test
//! binary, and a busy world on it.

use super::{Town, World, WorldConfig};
use carla_server::rpc::VehiclePhysicsControl;
use carla_server::types::Vector3D;
use std::sync::{Arc, OnceLock};

/// The built-in town (loaded once).
pub(crate) fn town() -> Arc<Town> {
    static TOWN: OnceLock<Arc<Town>> = OnceLock::new();
    TOWN.get_or_init(Town::builtin).clone()
}

/// A world on the built-in town with `vehicles` and `pedestrians` from
/// seeds `seed` and `seed + 1`, the 0.8 player at start spot `start`.
pub(crate) fn world(vehicles: u32, pedestrians: u32, seed: u64, start: usize) -> World {
    let config = WorldConfig {
        vehicles,
        pedestrians,
        seed_vehicles: seed,
        seed_pedestrians: seed + 1,
    };
    World::new(&town(), &config, start)
}

/// A map from `text` (a test's own OpenDRIVE).
pub(crate) fn town_of(text: &str) -> Arc<Town> {
    Town::load("Test", text.into(), Default::default()).expect("the test's map loads")
}

/// The library's default physics for a four-wheeled vehicle of half size
/// `extent`.
pub(crate) fn physics(extent: Vector3D) -> VehiclePhysicsControl {
    VehiclePhysicsControl::default_for(extent, 4)
}
