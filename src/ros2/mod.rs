//! Sensors on ROS 2, natively: the library publishes enabled sensors on DDS
//! as CARLA 0.9.16's `--ros2` does (`rt/carla/<parent>/<sensor>/image`,
//! `camera_info`, `point_cloud`, IMU, GNSS, `/tf`, `/clock`), the world's
//! state as carla-ros-bridge does (`/carla/objects`, the map, the traffic
//! lights, each hero vehicle's odometry, status and info), and reads each
//! hero vehicle's `vehicle_control_cmd`, so `ros2 topic echo`, rviz2 or any
//! DDS reader on another machine consumes them.
//!
//! - `messages`: the ROS 2 messages, CDR-encoded from the serialized
//!   payloads the TCP streams carry (`cdr`: the encoding);
//! - `hub`: what feeds the `carla-ros2` thread: a tap on each enabled
//!   sensor's stream and a bounded lock-free queue (the game thread never
//!   waits on DDS);
//! - `model`: what both speak of: a sensor's topic names, a control read
//!   from DDS and where it goes;
//! - `worker`: the `carla-ros2` thread: messages to topics, controls to
//!   the host, and a rejoin of the domain when a topic stays blocked;
//! - `state_topics`: the world-state topics it writes (map, traffic
//!   lights, objects, each hero vehicle's odometry, status, info and
//!   REP-105 frames);
//! - `dds`: the `rustdds` participant, writers and readers.
//!
//! Reference: docs/ros2.md.

mod cdr;
mod dds;
mod hub;
pub(crate) mod messages;
mod model;
mod state_topics;
mod worker;

pub(crate) use hub::{ActorShape, Hub};
pub(crate) use messages::{class, VehicleInfo, WheelInfo};
pub(crate) use model::RosControl;

pub use hub::Ros2Stats;
pub use model::{Ros2Options, SensorNames};
#[cfg(test)]
pub(crate) use worker::HELD_BLOCKS;
