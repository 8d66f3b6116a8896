//! The 0.9 half of [`Server`]: the streaming port, sensors created from
//! blueprints, and [`Sensor`], the handle a host sends a sensor's data
//! through. Sensors are named by id (their stream id), so a call after
//! [`Server::destroy_sensor`] is a clean [`Error::UnknownSensor`].

use super::Server;
use crate::streaming::sensor_table::SensorEntry;
use crate::streaming::stream::{Message, StreamStats};
use crate::streaming::{CaptureContext, LidarHit, PendingImage, PlannedRay, SensorType};
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

    /// Camera geometry: width, height, horizontal FOV and 0.8.4 image type.
    pub fn camera(&self) -> Option<(u32, u32, f32, u32)> {
        self.entry.instance.camera()
    }

    /// Synchronous (`Some(bound)`: a send waits up to `bound` per slow
    /// subscriber and never drops) or asynchronous (`None`: newest wins per
    /// subscriber, drops counted) delivery.
    pub fn set_synchronous(&self, bound: Option<Duration>) {
        self.entry.instance.set_synchronous(bound);
    }

    /// Cameras: also send every image to the 0.8.4 stream port as sensor
    /// `legacy_id` (one of the scene description's ids; 0 stops).
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
    /// traced; the lidar model computes the detections and sends them.
    pub fn send_lidar_hits(&self, ctx: &CaptureContext, hits: &[LidarHit]) -> Result<(), Error> {
        self.entry.instance.send_lidar_hits(ctx, hits)
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
    fn mirror(&self, mirror: Option<(u32, [u8; 24])>, message: &Arc<Message>, at: usize) {
        if let Some((id, header)) = mirror {
            if let Err(e) = self.server.write_sensor_shared(id, &header, message, at) {
                crate::log_debug!("0.8 mirror of sensor {}: {}", id, e);
            }
        }
    }
}
