//! The CARLA 0.9-style sensor pipeline: a registry of sensor types, their
//! serializers (LibCarla byte layouts: 48-byte header + payload), sensor
//! models that keep the engine side thin (lidar, safe distance, GNSS), and
//! blueprint-like sensor definitions with attributes.

pub mod blueprint;
pub mod geom;
pub mod gnss;
pub mod header;
pub mod instance;
pub mod lidar;
pub mod msgpack;
pub mod registry;
pub mod safe_distance;
pub mod serialize;
