//! What the ROS 2 side's feeding (`hub.rs`) and its thread (`worker.rs`)
//! both speak of: where a sensor's topics go, and a control read from DDS
//! with where it is handed.

use crate::episode::VehicleControl09;
use crate::types::ActorTransform;
use std::sync::Arc;

/// Where a sensor's topics go, as CARLA 0.9.16 names them.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorNames {
    /// `rt/carla/<parent ros name>/<ros name>` (topics add `/image`,
    /// `/camera_info`, `/point_cloud`, or nothing).
    pub base: String,
    /// The sensor's frame (`ros_frame_id`, else its ros name).
    pub frame_id: String,
    /// Its parent's frame, `map` when it has none.
    pub parent_frame: String,
    /// Whether `/tf` carries its transform.
    pub publish_tf: bool,
    /// Its transform relative to its parent (CARLA units and axes).
    pub transform: ActorTransform,
}

/// How the library joins DDS ([`crate::Server::start_ros2_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ros2Options {
    /// The DDS domain (ROS 2's `ROS_DOMAIN_ID`), 0 to 232.
    pub domain_id: u16,
    /// The largest UDP datagram sent to a reader on another host, in
    /// bytes, at most [`Ros2Options::MAX_DATAGRAM`]; the kernel cuts one
    /// above the path's MTU into IP fragments. 0 (the default) keeps each
    /// datagram within the path MTU (about 1,450 bytes on Ethernet): safe
    /// on a path that loses packets, slow for images (docs/ros2.md,
    /// "Across machines"). Readers on this host always get 64 KB.
    pub other_host_datagram: u32,
}

impl Ros2Options {
    /// The largest `other_host_datagram` (UDP's own limit is 65,507).
    pub const MAX_DATAGRAM: u32 = 65_000;

    /// Domain `domain_id`, datagrams within the path MTU.
    pub fn domain(domain_id: u16) -> Ros2Options {
        Ros2Options {
            domain_id,
            other_host_datagram: 0,
        }
    }
}

/// A control read from DDS for a hero vehicle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum RosControl {
    /// `vehicle_control_cmd`: throttle, steer, brake, ...
    Vehicle(VehicleControl09),
    /// `ackermann_control_cmd`: a `carla.VehicleAckermannControl`'s steer
    /// (rad), steer speed (rad/s), speed (m/s), acceleration (m/s²) and
    /// jerk (m/s³).
    Ackermann([f32; 5]),
}

/// Called with a hero vehicle's actor id and the control read for it.
pub(crate) type ControlSink = Arc<dyn Fn(u32, RosControl) + Send + Sync>;
