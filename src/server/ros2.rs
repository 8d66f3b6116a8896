//! The ROS 2 half of [`Server`]: publishing sensors on DDS as CARLA
//! 0.9.16's `--ros2` does ([`crate::ros2`]).

use super::Server;
use crate::ros2::{Ros2Stats, SensorNames};
use crate::Error;

impl Server {
    /// Joins DDS domain `domain_id` (ROS 2's `ROS_DOMAIN_ID`) and publishes
    /// every sensor enabled for ROS: by a 0.9 client's
    /// `sensor.enable_for_ros()`, or by the host
    /// ([`Server::publish_sensor_on_ros2`]); `/clock` follows each episode
    /// state, and hero vehicles' `vehicle_control_cmd` topics are read and
    /// handed to the host as `ApplyVehicleControl` requests. Starting twice
    /// is [`Error::AlreadyStarted`].
    pub fn start_ros2(&self, domain_id: u16) -> Result<(), Error> {
        self.sensors.ros.start(domain_id).map_err(|e| {
            crate::log_error!("ros2: {}", e);
            if e.contains("already") {
                Error::AlreadyStarted(e)
            } else {
                Error::InvalidArgument(e)
            }
        })
    }

    /// The DDS domain in use, if publishing.
    pub fn ros2_domain(&self) -> Option<u16> {
        self.sensors.ros.domain()
    }

    /// Counters of ROS 2 publishing.
    pub fn ros2_stats(&self) -> Ros2Stats {
        self.sensors.ros.stats()
    }

    /// Publishes the host's sensor `sensor_id` on ROS 2 under `names`
    /// (until it is destroyed or [`Server::stop_publishing_on_ros2`]); an
    /// unknown id is [`Error::UnknownSensor`].
    pub fn publish_sensor_on_ros2(&self, sensor_id: u32, names: SensorNames) -> Result<(), Error> {
        let entry = self.sensors.get(sensor_id)?;
        self.sensors
            .ros
            .enable_sensor(sensor_id, names, entry.instance.stream());
        Ok(())
    }

    /// Stops publishing sensor `sensor_id` on ROS 2.
    pub fn stop_publishing_on_ros2(&self, sensor_id: u32) {
        self.sensors.ros.disable_sensor(sensor_id);
    }
}
