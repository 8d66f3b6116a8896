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
