//! The CARLA 0.9-style sensor pipeline: a registry of sensor types, their
//! serializers (LibCarla byte layouts: 48-byte header + payload), sensor
//! models (lidar, safe distance, GNSS), blueprint-like sensor definitions,
//! pooled buffers and per-sensor streams that many clients subscribe to.

pub mod blueprint;
#[rustfmt::skip]
mod blueprint_table;
pub mod header;
pub mod models;
pub(crate) mod msgpack;
pub(crate) mod pool;
pub mod registry;
pub(crate) mod sensor;
pub(crate) mod sensor_table;
pub mod serialize;
pub(crate) mod stream;

pub use crate::types::{ActorTransform, CaptureContext, LidarHit, PlannedRay};
pub use blueprint::{AttributeValue, BlueprintError, SensorAttributes};
pub use header::SensorHeader;
pub use models::lidar::{
    ray_end_world, rotate_to_local, rotate_to_world, world_point_to_sensor, Lidar, LidarSettings,
    SplitMix64,
};
pub use registry::{PayloadFormat, SensorType};
pub use sensor::PendingImage;
pub use stream::StreamStats;
