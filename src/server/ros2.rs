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
        self.sensors
            .ros
            .start(domain_id)
            .inspect_err(|e| crate::log_error!("ros2: {}", e))
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

#[cfg(test)]
mod tests {
    use crate::{Error, Server};

    // A second start is AlreadyStarted naming the domain in use (C: 106);
    // a domain DDS cannot use is an invalid argument (C: -2).
    #[test]
    fn ros2_starts_once_and_refuses_a_domain_dds_cannot_use() {
        let server = Server::new();
        assert!(matches!(
            server.start_ros2(233),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(server.ros2_domain(), None);
        let domain = 100 + (std::process::id() % 50) as u16;
        server.start_ros2(domain).expect("joins a DDS domain");
        match server.start_ros2(domain + 1) {
            Err(e @ Error::AlreadyStarted(_)) => {
                assert!(e.to_string().contains(&format!("domain {domain}")), "{e}");
                assert_eq!(e.code(), 106);
            }
            other => panic!("a second start gave {other:?}"),
        }
        assert_eq!(server.ros2_domain(), Some(domain));
    }
}
