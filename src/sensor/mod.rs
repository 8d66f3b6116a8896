//! The CARLA 0.9 sensor model, apart from its transport: the registry of
//! sensor types, the 48-byte sensor header, payload serializers (LibCarla's
//! byte layouts), blueprint-like sensor definitions, the sensor models that
//! keep an engine thin (lidar, safe distance, GNSS), and the sensors a
//! server created (`table`), each of which sends on its own
//! [`crate::streaming`] stream.

pub mod blueprint;
#[rustfmt::skip]
mod blueprint_table;
pub(crate) mod gbuffer;
pub(crate) mod geometry;
pub(crate) mod header;
pub(crate) mod instance;
pub mod models;
pub(crate) mod registry;
pub mod serialize;
pub(crate) mod table;

pub use crate::types::{ActorTransform, CaptureContext, LidarHit, PlannedRay};
pub use blueprint::{AttributeValue, BlueprintError, SensorAttributes};
pub use gbuffer::GBufferTexture;
pub use geometry::{compose, rotate_to_local, rotate_to_world, world_point_to_sensor};
pub use header::{SensorHeader, HEADER_SIZE};
pub use instance::{PendingGBuffer, PendingImage};
pub use models::lidar::{ray_end_world, Lidar, LidarSettings};
pub use registry::{PayloadFormat, SensorType};
