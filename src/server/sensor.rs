//! The 0.9 half of [`Server`]: the streaming port, sensors created from
//! blueprints, and [`Sensor`], the handle a host sends a sensor's data
//! through. Sensors are named by id (their stream id), so a call after
//! [`Server::destroy_sensor`] is a clean [`Error::UnknownSensor`].

use super::Server;
use crate::legacy::mirror::CAMERA_HEADER_SIZE;
use crate::sensor::table::SensorEntry;
use crate::sensor::{
    CaptureContext, GBufferTexture, LidarHit, PendingGBuffer, PendingImage, PlannedRay,
    SensorAttributes, SensorType,
};
use crate::streaming::stream::{Message, StreamStats};
use crate::sync::shared_bytes::SharedBytes;
use crate::types::Vector3D;
use crate::Error;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

impl Server {
    /// Binds the 0.9 streaming port on the configured address (`port` 0
    /// picks a free one) and returns its address; subscribers get the
    /// configured `stream_timeout`. Subscribers send a 4-byte
    /// stream id, then receive `[u32 size][48-byte header][payload]`.
    pub fn listen_streaming(&self, port: u16) -> Result<SocketAddr, Error> {
        let config = self.config();
        self.sensors
            .listen(config.bind_ip, port, config.stream_timeout)
    }

    /// The streaming port's address, if it is listening.
    pub fn streaming_addr(&self) -> Option<SocketAddr> {
        self.sensors.addr()
    }

    /// Creates a sensor from a blueprint id (`sensor.camera.rgb`,
    /// `sensor.lidar.ray_cast_semantic`, ...) and `key = value` attributes;
    /// returns its id, which is also the id its subscribers send.
    pub fn create_sensor(
        &self,
        blueprint: &str,
        attributes: &[(&str, &str)],
    ) -> Result<u32, Error> {
        self.sensors.create(blueprint, attributes)
    }

    /// The sensor with this id.
    pub fn sensor(&self, id: u32) -> Result<Sensor<'_>, Error> {
        Ok(Sensor {
            server: self,
            entry: self.sensors.get(id)?,
        })
    }

    /// Destroys a sensor: its subscribers get the message being written,
    /// then end of file.
    pub fn destroy_sensor(&self, id: u32) -> Result<(), Error> {
        self.sensors.destroy(id)
    }
}

/// A sensor of a [`Server`], from [`Server::sensor`]. Every send takes the
/// capture-time [`CaptureContext`], so each message carries its frame.
/// Sends work from any thread.
pub struct Sensor<'a> {
    server: &'a Server,
    entry: Arc<SensorEntry>,
}

impl Sensor<'_> {
    /// Its id (= its stream id).
    pub fn id(&self) -> u32 {
        self.entry.instance.stream().id()
    }

    /// Its registry type (the `sensor_type` of its headers).
    pub fn sensor_type(&self) -> SensorType {
        self.entry.instance.sensor_type()
    }

    /// Every attribute of its blueprint as resolved at creation (the given
    /// values, defaults for the rest), e.g. `attributes().iter()`.
    pub fn attributes(&self) -> &SensorAttributes {
        self.entry.instance.attributes()
    }

    /// The float attribute `key` (`None`: no such attribute, or not a float).
    pub fn attribute_f64(&self, key: &str) -> Option<f64> {
        self.attributes().get_f64(key)
    }

    /// The int attribute `key` (`None`: no such attribute, or not an int).
    pub fn attribute_i64(&self, key: &str) -> Option<i64> {
        self.attributes().get_i64(key)
    }

    /// The bool attribute `key` (`None`: no such attribute, or not a bool).
    pub fn attribute_bool(&self, key: &str) -> Option<bool> {
        self.attributes().get_bool(key)
    }

    /// The string attribute `key` (`None`: no such attribute, or not a string).
    pub fn attribute_str(&self, key: &str) -> Option<&str> {
        self.attributes().get_str(key)
    }

    /// Simulation seconds between captures (`sensor_tick`; 0 = every tick,
    /// also for sensors without the attribute). The host decides when to
    /// capture; the library sends whatever it is given.
    pub fn sensor_tick(&self) -> f64 {
        self.attributes().sensor_tick()
    }

    /// Camera geometry: width, height, horizontal FOV and 0.8.4 image type.
    pub fn camera(&self) -> Option<(u32, u32, f32, u32)> {
        self.entry.instance.camera()
    }

    /// Synchronous (`Some(bound)`: a send waits up to `bound` per slow
    /// subscriber and never drops) or asynchronous (`None`: newest wins per
    /// subscriber, drops counted) delivery. Either ends queued delivery.
    pub fn set_synchronous(&self, bound: Option<Duration>) {
        self.entry.instance.set_synchronous(bound);
    }

    /// Queued delivery, for a render thread that must never wait on a
    /// subscriber: each subscriber gets every message in order through its
    /// own queue of up to `depth` messages (1..=64); a send never waits;
    /// when a subscriber already has `depth` unsent messages, the new one
    /// is dropped for it alone (counted in [`StreamStats::dropped`], logged
    /// once per stall) and the others still get it. 0 returns to
    /// asynchronous delivery; over 64 is [`Error::InvalidArgument`]. A
    /// stalled subscriber holds up to `depth` payload blocks (the stream's
    /// pool makes new ones meanwhile); one that keeps up costs what it
    /// costs in the other modes.
    pub fn set_queued(&self, depth: u32) -> Result<(), Error> {
        self.entry.instance.set_queued(depth)
    }

    /// Cameras and lidars: also send every image, or every lidar sweep as
    /// a 0.8.4 lidar record (built from the same plan and hits, see
    /// [`crate::legacy::lidar_record`]), to the 0.8.4 stream port as sensor
    /// `legacy_id` (one of the scene description's ids; 0 stops). Other
    /// sensors: [`Error::WrongSensorKind`].
    pub fn mirror_to_legacy(&self, legacy_id: u32) -> Result<(), Error> {
        self.entry.mirror_to_legacy(legacy_id)
    }

    /// Cameras, copy path: sends BGRA pixels (width × height × 4 bytes) to
    /// the stream and, if mirrored, to the 0.8.4 stream port.
    pub fn send_image(&self, ctx: &CaptureContext, pixels: &[u8]) -> Result<(), Error> {
        let mirror = self.entry.legacy_mirror(ctx);
        self.entry
            .instance
            .send_image(ctx, pixels, |m, at| self.mirror(mirror, m, at))
    }

    /// Cameras, zero-copy path: a pooled buffer for one image; write the
    /// pixels into [`PendingImage::pixels_mut`], then [`Sensor::commit_image`].
    pub fn acquire_image(&self) -> Result<PendingImage, Error> {
        self.entry.instance.acquire_image()
    }

    /// Sends an acquired image to the stream and, if mirrored, to the 0.8.4
    /// stream port.
    pub fn commit_image(&self, ctx: &CaptureContext, image: PendingImage) -> Result<(), Error> {
        let mirror = self.entry.legacy_mirror(ctx);
        self.entry
            .instance
            .commit(ctx, image, |m, at| self.mirror(mirror, m, at))
    }

    /// RGB cameras: whether a client listens to G-buffer `texture` (it
    /// enabled G-buffers and subscribed), so the host should produce it.
    pub fn gbuffer_wanted(&self, texture: GBufferTexture) -> Result<bool, Error> {
        Ok(self.entry.instance.gbuffers()?.wanted(texture).is_some())
    }

    /// RGB cameras: a pooled buffer for one BGRA image of G-buffer
    /// `texture` (the camera's size), or `None` when no client listens.
    /// Write the pixels, then [`Sensor::commit_gbuffer`].
    pub fn acquire_gbuffer(
        &self,
        texture: GBufferTexture,
    ) -> Result<Option<PendingGBuffer>, Error> {
        let acquired = self.entry.instance.acquire_gbuffer(texture)?;
        Ok(acquired.map(|(stream, image)| PendingGBuffer::new(stream, image)))
    }

    /// Sends an acquired G-buffer image (registry id 18) to its listeners.
    pub fn commit_gbuffer(&self, ctx: &CaptureContext, image: PendingGBuffer) -> Result<(), Error> {
        let (stream, image) = image.into_parts();
        self.entry.instance.commit_gbuffer(&stream, ctx, image)
    }

    /// RGB cameras, copy path: sends BGRA `pixels` (the camera's size) as
    /// G-buffer `texture` if a client listens; nothing otherwise.
    pub fn send_gbuffer(
        &self,
        texture: GBufferTexture,
        ctx: &CaptureContext,
        pixels: &[u8],
    ) -> Result<(), Error> {
        let Some(mut image) = self.acquire_gbuffer(texture)? else {
            return Ok(());
        };
        let region = image.pixels_mut();
        if region.len() != pixels.len() {
            return Err(Error::InvalidArgument(format!(
                "a G-buffer image of this camera is {} bytes, got {}",
                region.len(),
                pixels.len()
            )));
        }
        region.copy_from_slice(pixels);
        self.commit_gbuffer(ctx, image)
    }

    /// Lidars: plans this tick's rays for a tick of `dt` seconds and runs
    /// `with` on them (trace each, then [`Sensor::send_lidar_hits`]).
    pub fn plan_lidar<R>(
        &self,
        dt: f32,
        with: impl FnOnce(&[PlannedRay]) -> R,
    ) -> Result<R, Error> {
        self.entry.instance.plan_lidar(dt, with)
    }

    /// Lidars: this tick's trace results, one per planned ray that was
    /// traced; the lidar model computes the detections and sends them. If
    /// mirrored, the 0.8.4 lidar record of the same hits (frame
    /// `ctx.frame`, the plan's sweep angle) goes to the 0.8.4 stream port.
    pub fn send_lidar_hits(&self, ctx: &CaptureContext, hits: &[LidarHit]) -> Result<(), Error> {
        self.entry.send_lidar_hits(ctx, hits, |record| {
            let (id, header, data) = (record.id, record.header(), record.data());
            if let Err(e) = self.server.write_sensor_data(id, header, data) {
                crate::log_debug!("0.8 mirror of sensor {}: {}", id, e);
            }
        })
    }

    /// Safe distance: the overlap box (centre offset in the owner's frame,
    /// half extent) for an owner whose bounding box has half extent
    /// `owner_extent`.
    pub fn safe_distance_box(&self, owner_extent: Vector3D) -> Result<(Vector3D, Vector3D), Error> {
        self.entry.instance.safe_distance_box(owner_extent)
    }

    /// Safe distance: sends the ids of the overlapping actors (the owner
    /// and duplicates are removed).
    pub fn send_actor_ids(
        &self,
        ctx: &CaptureContext,
        owner: u32,
        ids: &[u32],
    ) -> Result<(), Error> {
        self.entry.instance.send_actor_ids(ctx, owner, ids)
    }

    /// Any sensor: sends an already-serialized payload (the library writes
    /// the 48-byte header from `ctx`).
    pub fn send_raw(&self, ctx: &CaptureContext, payload: &[u8]) -> Result<(), Error> {
        self.entry.instance.send_raw(ctx, payload)
    }

    /// Its stream's counters (messages, subscribers now, drops, deliveries,
    /// pool allocations).
    pub fn stats(&self) -> StreamStats {
        self.entry.instance.stream().stats()
    }

    /// Hands the image's message to the 0.8 stream (shared, not copied).
    fn mirror(
        &self,
        mirror: Option<(u32, [u8; CAMERA_HEADER_SIZE])>,
        message: &Arc<Message>,
        at: usize,
    ) {
        if let Some((id, header)) = mirror {
            let data = SharedBytes::new(message.clone(), at);
            if let Err(e) = self.server.write_sensor_shared(id, &header, data) {
                crate::log_debug!("0.8 mirror of sensor {}: {}", id, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::sensor::{serialize, CaptureContext, SensorType};
    use crate::Error;
    use std::time::Duration;

    use crate::test_util::streaming_server as server;

    #[test]
    fn every_new_blueprint_makes_a_sensor_of_its_0_9_16_type() {
        let server = server();
        let cases = [
            (
                "sensor.camera.instance_segmentation",
                SensorType::InstanceSegmentationCamera,
                15,
            ),
            ("sensor.other.gnss", SensorType::Gnss, 4),
            ("sensor.other.imu", SensorType::Imu, 5),
            ("sensor.other.collision", SensorType::Collision, 0),
            ("sensor.other.obstacle", SensorType::ObstacleDetection, 7),
            ("sensor.other.radar", SensorType::Radar, 9),
            ("sensor.other.lane_invasion", SensorType::LaneInvasion, 6),
        ];
        let ctx = CaptureContext::default();
        for (blueprint, kind, id) in cases {
            let sensor = server.sensor(server.create_sensor(blueprint, &[]).unwrap());
            let sensor = sensor.unwrap();
            assert_eq!((sensor.sensor_type(), kind.id()), (kind, id), "{blueprint}");
            assert_eq!(sensor.attributes().id(), blueprint);
            // Every one of them takes a payload the host serialized.
            sensor.send_raw(&ctx, &[1, 2, 3]).unwrap();
            assert_eq!(sensor.stats().messages, 1, "{blueprint}");
            let camera = kind == SensorType::InstanceSegmentationCamera;
            assert_eq!(sensor.camera().is_some(), camera, "{blueprint}");
            assert_eq!(sensor.acquire_image().is_ok(), camera, "{blueprint}");
            let not_lidar = sensor.send_lidar_hits(&ctx, &[]).unwrap_err();
            assert!(matches!(not_lidar, Error::WrongSensorKind { .. }));
        }
    }

    #[test]
    fn an_instance_segmentation_camera_sends_images_of_its_size() {
        let server = server();
        let pairs = [("image_size_x", "4"), ("image_size_y", "2"), ("fov", "60")];
        let id = server
            .create_sensor("sensor.camera.instance_segmentation", &pairs)
            .unwrap();
        let camera = server.sensor(id).unwrap();
        assert_eq!(camera.camera().map(|c| (c.0, c.1, c.2)), Some((4, 2, 60.0)));
        let mut image = camera.acquire_image().unwrap();
        assert_eq!(image.pixels_mut().len(), 4 * 2 * 4);
        camera
            .commit_image(&CaptureContext::default(), image)
            .unwrap();
        let ctx = CaptureContext::default();
        assert!(
            camera.send_image(&ctx, &[0; 31]).is_err(),
            "4x2 BGRA is 32 bytes"
        );
        camera.send_image(&ctx, &[0; 32]).unwrap();
        assert_eq!(camera.stats().messages, 2);
    }

    /// Commits `image` (filled by `fill`) on `camera` at simulation time
    /// `t` seconds.
    fn commit_at(camera: &super::Sensor<'_>, t: f64, fill: impl Fn(&mut [u8])) {
        let mut image = camera.acquire_image().unwrap();
        fill(image.pixels_mut());
        let ctx = CaptureContext {
            timestamp: t,
            ..CaptureContext::default()
        };
        camera.commit_image(&ctx, image).unwrap();
    }

    #[test]
    fn a_dvs_camera_turns_images_into_events_on_its_stream() {
        use crate::client::stream::StreamClient;
        let server = server();
        let pairs = [("image_size_x", "4"), ("image_size_y", "2")];
        let id = server.create_sensor("sensor.camera.dvs", &pairs).unwrap();
        let camera = server.sensor(id).unwrap();
        assert_eq!(camera.sensor_type().id(), 3);
        assert!(camera.mirror_to_legacy(1).is_err(), "events are no image");
        let addr = server.streaming_addr().unwrap();
        let mut client = StreamClient::subscribe(addr, id, Duration::from_secs(5)).unwrap();
        // The first image only sets the references and sends nothing; then
        // pixel 5 (x 1, y 1) alternates dark and bright until the
        // subscription is registered and a message arrives.
        commit_at(&camera, 0.0, |p| p.fill(40));
        let mut t = 0.0;
        while !client.wait_for_data(Duration::from_millis(20)).unwrap() {
            t += 0.1;
            let level = if (t * 10.0) as u32 % 2 == 1 { 220 } else { 40 };
            commit_at(&camera, t, |p| {
                p.fill(40);
                p[20..23].fill(level);
            });
            assert!(t < 100.0, "no message");
        }
        let m = client.next_message().unwrap();
        assert_eq!(m.sensor_type(), 3);
        let payload = m.payload();
        assert_eq!(payload[..8], [4, 0, 0, 0, 2, 0, 0, 0], "width, height");
        let events = &payload[serialize::IMAGE_HEADER_SIZE..];
        assert!(!events.is_empty() && events.len().is_multiple_of(serialize::DVS_EVENT_SIZE));
        for e in events.chunks_exact(serialize::DVS_EVENT_SIZE) {
            assert_eq!(e[..4], [1, 0, 1, 0], "x 1, y 1");
            let ns = i64::from_le_bytes(e[4..12].try_into().unwrap());
            assert!(
                ns > ((m.timestamp() - 0.1) * 1e9) as i64 && ns <= (m.timestamp() * 1e9) as i64
            );
            assert_eq!(e[12] == 1, (m.timestamp() * 10.0).round() as u32 % 2 == 1);
        }
    }

    #[test]
    fn an_optical_flow_camera_takes_two_floats_a_pixel() {
        let server = server();
        let pairs = [("image_size_x", "3"), ("image_size_y", "2")];
        let id = server
            .create_sensor("sensor.camera.optical_flow", &pairs)
            .unwrap();
        let camera = server.sensor(id).unwrap();
        assert_eq!(camera.sensor_type().id(), 8);
        let mut image = camera.acquire_image().unwrap();
        assert_eq!(image.pixels_mut().len(), 3 * 2 * 8);
        assert_eq!(image.payload()[..8], [3, 0, 0, 0, 2, 0, 0, 0]);
        drop(image);
        let ctx = CaptureContext::default();
        assert!(camera.send_image(&ctx, &[0; 24]).is_err(), "BGRA-sized");
        camera.send_image(&ctx, &[0; 48]).unwrap();
        assert_eq!(camera.stats().messages, 1);
        assert!(camera.mirror_to_legacy(1).is_err());
        for (blueprint, type_id) in [
            ("sensor.camera.normals", 2),
            ("sensor.camera.cosmos_visualization", 16),
        ] {
            let id = server.create_sensor(blueprint, &pairs).unwrap();
            let camera = server.sensor(id).unwrap();
            assert_eq!(camera.sensor_type().id(), type_id);
            assert_eq!(camera.acquire_image().unwrap().pixels_mut().len(), 24);
            camera.mirror_to_legacy(1).unwrap();
        }
    }

    #[test]
    fn hosts_read_the_resolved_attributes() {
        let server = server();
        let pairs = [
            ("range", "150"),
            ("sensor_tick", "0.05"),
            ("noise_seed", "7"),
        ];
        let radar = server.create_sensor("sensor.other.radar", &pairs).unwrap();
        let radar = server.sensor(radar).unwrap();
        assert_eq!(radar.attribute_f64("range"), Some(150.0));
        assert_eq!(radar.attribute_f64("vertical_fov"), Some(30.0), "default");
        assert_eq!(radar.attribute_i64("points_per_second"), Some(1500));
        assert_eq!(radar.attribute_i64("noise_seed"), Some(7));
        assert_eq!(radar.sensor_tick(), 0.05);
        assert_eq!(radar.attribute_f64("points_per_second"), None, "an int");
        assert_eq!(radar.attribute_f64("zoom"), None);
        assert_eq!(radar.attributes().iter().count(), 6);
        let pairs = [("only_dynamics", "true")];
        let obstacle = server.create_sensor("sensor.other.obstacle", &pairs);
        let obstacle = server.sensor(obstacle.unwrap()).unwrap();
        assert_eq!(obstacle.attribute_bool("only_dynamics"), Some(true));
        assert_eq!(obstacle.attribute_bool("debug_linetrace"), Some(false));
        assert_eq!(obstacle.attribute_f64("hit_radius"), Some(0.5));
        let rgb = server.create_sensor("sensor.camera.rgb", &[]).unwrap();
        let rgb = server.sensor(rgb).unwrap();
        assert_eq!(rgb.attribute_str("exposure_mode"), Some("histogram"));
        assert_eq!(rgb.attribute_i64("blade_count"), Some(5));
        let collision = server.create_sensor("sensor.other.collision", &[]).unwrap();
        assert_eq!(server.sensor(collision).unwrap().sensor_tick(), 0.0);

        let unknown = server.create_sensor("sensor.other.imu", &[("range", "5")]);
        let text = unknown.unwrap_err().to_string();
        assert!(
            text.contains("\"sensor.other.imu\" has no attribute \"range\""),
            "{text}"
        );
        let bad = server.create_sensor("sensor.other.gnss", &[("noise_seed", "x")]);
        assert!(bad.unwrap_err().to_string().contains("noise_seed"));
    }

    #[test]
    fn the_serializers_make_payloads_for_send_raw() {
        let server = server();
        let gnss = server.create_sensor("sensor.other.gnss", &[]).unwrap();
        let gnss = server.sensor(gnss).unwrap();
        let mut payload = Vec::new();
        serialize::gnss(&mut payload, 48.1, 11.5, 520.0);
        assert_eq!(payload.len(), 28);
        gnss.send_raw(&CaptureContext::default(), &payload).unwrap();
        assert_eq!(gnss.stats().messages, 1);
    }
}
