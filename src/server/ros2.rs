//! The ROS 2 half of [`Server`]: publishing sensors on DDS as CARLA
//! 0.9.16's `--ros2` does ([`crate::ros2`]).

use super::Server;
use crate::ros2::{Ros2Options, Ros2Stats, SensorNames};
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
        self.start_ros2_with(Ros2Options::domain(domain_id))
    }

    /// [`Server::start_ros2`] with the DDS settings in `options` (the
    /// datagram size for readers on other hosts); a size over
    /// [`Ros2Options::MAX_DATAGRAM`] is [`Error::InvalidArgument`].
    pub fn start_ros2_with(&self, options: Ros2Options) -> Result<(), Error> {
        self.sensors
            .ros
            .start(options)
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
    use crate::ros2::Ros2Options;
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

    // A datagram size over MAX_DATAGRAM is refused before anything starts;
    // one within it starts publishing as a plain start does.
    #[test]
    fn ros2_refuses_a_datagram_over_the_largest_and_starts_with_the_largest() {
        let server = Server::new();
        let domain = 150 + (std::process::id() % 50) as u16;
        let over = Ros2Options {
            domain_id: domain,
            other_host_datagram: Ros2Options::MAX_DATAGRAM + 1,
        };
        match server.start_ros2_with(over) {
            Err(e @ Error::InvalidArgument(_)) => {
                assert!(e.to_string().contains("65001"), "{e}")
            }
            other => panic!("an oversized datagram gave {other:?}"),
        }
        assert_eq!(server.ros2_domain(), None);
        let largest = Ros2Options {
            other_host_datagram: Ros2Options::MAX_DATAGRAM,
            ..over
        };
        server.start_ros2_with(largest).expect("joins a DDS domain");
        assert_eq!(server.ros2_domain(), Some(domain));
    }

    // The ROS 2 thread gives a camera's pool the blocks its messages in
    // flight will hold (PER_SENSOR waiting, one being encoded, DDS's
    // window) at the first message: the game thread's later sends find them idle and
    // allocate nothing, however far the ROS 2 side falls behind.
    #[test]
    fn publishing_a_camera_reserves_its_blocks_off_the_sending_thread() {
        use crate::ros2::SensorNames;
        use crate::types::CaptureContext;
        use std::time::{Duration, Instant};
        let server = Server::new();
        let _stream = server.listen_streaming(0).unwrap();
        let (w, h) = (640u32, 480u32);
        let id = server
            .create_sensor(
                "sensor.camera.rgb",
                &[("image_size_x", "640"), ("image_size_y", "480")],
            )
            .unwrap();
        server
            .start_ros2(150 + (std::process::id() % 50) as u16)
            .unwrap();
        let names = SensorNames {
            base: "rt/carla/pool_test/cam".into(),
            frame_id: "cam".into(),
            parent_frame: "hero".into(),
            publish_tf: false,
            transform: Default::default(),
        };
        server.publish_sensor_on_ros2(id, names).unwrap();
        let pixels = vec![9u8; (w * h * 4) as usize];
        let sensor = server.sensor(id).unwrap();
        let send = |frame: u64| {
            let ctx = CaptureContext {
                frame,
                ..Default::default()
            };
            sensor.send_image(&ctx, &pixels).unwrap();
        };
        send(1);
        let deadline = Instant::now() + Duration::from_secs(20);
        while server.ros2_stats().published == 0 {
            assert!(
                Instant::now() < deadline,
                "the first image was never published"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let reserved = crate::ros2::HELD_BLOCKS;
        assert_eq!(
            sensor.stats().pool_allocations,
            1 + reserved as u64,
            "the first send's block, then the reserve"
        );
        for frame in 2..60 {
            send(frame);
        }
        assert_eq!(sensor.stats().pool_allocations, 1 + reserved as u64);
    }
}
