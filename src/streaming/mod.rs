//! The CARLA 0.9-style sensor pipeline: a registry of sensor types, their
//! serializers (LibCarla byte layouts: 48-byte header + payload), sensor
//! models (lidar, safe distance, GNSS), blueprint-like sensor definitions,
//! pooled buffers and per-sensor streams that many clients subscribe to.

pub mod blueprint;
pub mod geom;
pub mod header;
pub mod models;
pub mod msgpack;
pub mod pool;
pub mod registry;
pub mod sensor;
pub mod sensor_table;
pub mod serialize;
pub mod stream;

pub use geom::ActorTransform;
pub use models::lidar::{
    ray_end_world, rotate_to_local, rotate_to_world, world_point_to_sensor, Lidar, LidarHit,
    LidarSettings, PlannedRay, SplitMix64,
};
pub use registry::SensorType;
pub use sensor::{CaptureContext, PendingImage};
