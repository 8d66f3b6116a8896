//! Sensors on ROS 2, natively: the library publishes enabled sensors on DDS
//! as CARLA 0.9.16's `--ros2` does (`rt/carla/<parent>/<sensor>/image`,
//! `camera_info`, `point_cloud`, IMU, GNSS, `/tf`, `/clock`) and reads
//! each hero vehicle's `vehicle_control_cmd`, so `ros2 topic echo`, rviz2
//! or any DDS reader on another machine consumes them.
//!
//! - `messages`: the ROS 2 messages, CDR-encoded from the serialized
//!   payloads the TCP streams carry (`cdr`: the encoding);
//! - `hub`: the `carla-ros2` thread, fed by a tap on each enabled sensor's
//!   stream through a bounded lock-free queue (the game thread never
//!   waits on DDS);
//! - `dds`: the `rustdds` participant, writers and readers.
//!
//! Reference: docs/ros2.md.

mod cdr;
mod dds;
mod hub;
pub(crate) mod messages;

pub(crate) use hub::Hub;

pub use hub::{Ros2Stats, SensorNames};
