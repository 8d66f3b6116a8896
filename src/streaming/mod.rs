//! The 0.9 transport, apart from the sensor model: the streaming port,
//! one stream per sensor (or per world observer) that many clients
//! subscribe to, their sessions and delivery modes, and the pooled buffers
//! that messages are written into. What a message holds is
//! [`crate::sensor`]'s business.

pub(crate) mod pool;
pub(crate) mod stream;

pub use stream::StreamStats;

// TEMPORARY (removed before merge): old paths for the binary and tests.
#[doc(hidden)]
pub use crate::sensor::{blueprint, header, models, registry, serialize};
#[doc(hidden)]
pub use crate::sensor::{
    ray_end_world, rotate_to_local, rotate_to_world, world_point_to_sensor, ActorTransform,
    AttributeValue, BlueprintError, CaptureContext, Lidar, LidarHit, LidarSettings, PayloadFormat,
    PendingImage, PlannedRay, SensorAttributes, SensorHeader, SensorType, SplitMix64,
};
