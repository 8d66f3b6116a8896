//! A created sensor: its registry type, resolved blueprint attributes,
//! stream and model (lidar, safe-distance box, camera geometry; `Raw` for
//! the sensors whose payloads the host serializes itself with
//! [`super::serialize`] and sends with `send_raw`). Every send takes the
//! capture-time context (frame, simulation time, transform) from the engine,
//! so each message carries the frame it belongs to.

use super::blueprint::{self, SensorAttributes};
use super::gbuffer::{GBufferStreams, GBufferTexture};
use super::header::SensorHeader;
use super::models::dvs::{Dvs, DvsSettings};
use super::models::lidar::{Lidar, LidarSettings};
use super::models::safe_distance::{self, SafeDistanceSettings};
use super::registry::{PayloadFormat, SensorType};
use super::serialize::{self, IMAGE_HEADER_SIZE};
use crate::streaming::pool::Buffer;
use crate::streaming::stream::{Message, Stream, StreamServer};
use crate::types::CaptureContext;
use crate::types::Vector3D;
use crate::types::{LidarHit, PlannedRay};
use crate::Error;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Duration;

enum Model {
    Camera {
        width: u32,
        height: u32,
        fov: f32,
        legacy_type: u32,
        /// 4 (BGRA) or 8 (optical flow: two f32).
        pixel_bytes: usize,
        /// The event camera: images in, events out.
        dvs: Option<Box<Mutex<Dvs>>>,
    },
    Lidar(Box<Mutex<Lidar>>),
    SafeDistance(SafeDistanceSettings),
    /// GNSS, IMU, collision, obstacle, radar, lane invasion: the host sends
    /// payloads it serialized itself.
    Raw,
}

/// A sensor instance.
pub(crate) struct SensorInstance {
    kind: SensorType,
    attributes: SensorAttributes,
    stream: Stream,
    model: Model,
    /// RGB cameras: the G-buffer texture streams.
    gbuffers: Option<GBufferStreams>,
}

/// An attribute every camera blueprint resolves (image size, fov; a
/// missing one is a bug of the blueprint table, caught by the tests).
fn camera_attribute<T: Default>(value: Option<T>) -> T {
    debug_assert!(
        value.is_some(),
        "camera blueprints define image_size_x/y and fov"
    );
    value.unwrap_or_default()
}

impl SensorInstance {
    /// Creates a sensor from a blueprint id and `key=value` attributes, with
    /// a new stream on `streams`.
    pub(crate) fn create(
        streams: &StreamServer,
        blueprint_id: &str,
        pairs: &[(&str, &str)],
    ) -> Result<SensorInstance, Error> {
        let attributes = blueprint::create(blueprint_id, pairs)?;
        let kind = SensorType::from_name(blueprint_id).ok_or_else(|| {
            Error::InvalidArgument(format!("{blueprint_id} has no sensor type id"))
        })?;
        let model = match kind.format() {
            PayloadFormat::Image
            | PayloadFormat::NormalsImage
            | PayloadFormat::OpticalFlowImage
            | PayloadFormat::Dvs => Model::Camera {
                width: camera_attribute(attributes.get_u32("image_size_x")),
                height: camera_attribute(attributes.get_u32("image_size_y")),
                fov: camera_attribute(attributes.get_f32("fov")),
                legacy_type: match kind {
                    SensorType::DepthCamera => 2,
                    SensorType::SemanticSegmentationCamera => 3,
                    _ => 1,
                },
                pixel_bytes: if kind == SensorType::OpticalFlowCamera {
                    8
                } else {
                    4
                },
                dvs: (kind == SensorType::DvsCamera).then(|| {
                    let settings = DvsSettings::from_attributes(&attributes);
                    Box::new(Mutex::new(Dvs::new(settings, 0x0D75)))
                }),
            },
            PayloadFormat::Lidar | PayloadFormat::SemanticLidar => {
                let semantic = kind == SensorType::SemanticLidar;
                let settings = LidarSettings::from_attributes(&attributes, semantic);
                let lidar = Lidar::new(settings)
                    .map_err(|e| Error::InvalidArgument(format!("invalid settings: {e}")))?;
                Model::Lidar(Box::new(Mutex::new(lidar)))
            }
            PayloadFormat::ActorIds => {
                Model::SafeDistance(SafeDistanceSettings::from_attributes(&attributes))
            }
            // GNSS, IMU, collision, obstacle, radar, lane invasion: payloads
            // the host serializes (`serialize::gnss`, `imu`, ...).
            _ => Model::Raw,
        };
        let stream = streams.create_stream();
        let rgb = kind == SensorType::RgbCamera && blueprint_id == "sensor.camera.rgb";
        Ok(SensorInstance {
            kind,
            attributes,
            stream,
            model,
            gbuffers: rgb.then(GBufferStreams::default),
        })
    }

    /// Registry type.
    pub(crate) fn sensor_type(&self) -> SensorType {
        self.kind
    }

    /// Every attribute of its blueprint, as resolved at creation.
    pub(crate) fn attributes(&self) -> &SensorAttributes {
        &self.attributes
    }

    /// The stream clients subscribe to.
    pub(crate) fn stream(&self) -> &Stream {
        &self.stream
    }

    fn header(&self, ctx: &CaptureContext) -> [u8; 48] {
        SensorHeader::new(self.kind, ctx.frame, ctx.timestamp, ctx.transform).to_bytes()
    }

    fn wrong(&self, call: &'static str) -> Error {
        Error::WrongSensorKind {
            sensor: self.kind.name(),
            call,
        }
    }

    /// Camera geometry: (width, height, fov, 0.8 image type).
    pub(crate) fn camera(&self) -> Option<(u32, u32, f32, u32)> {
        match self.model {
            Model::Camera {
                width,
                height,
                fov,
                legacy_type,
                ..
            } => Some((width, height, fov, legacy_type)),
            _ => None,
        }
    }

    /// The geometry of a camera whose messages are BGRA images (the ones
    /// a 0.8 client can be sent): not optical flow, not DVS events.
    pub(crate) fn bgra_camera(&self) -> Option<(u32, u32, f32, u32)> {
        match &self.model {
            Model::Camera {
                pixel_bytes: 4,
                dvs: None,
                ..
            } => self.camera(),
            _ => None,
        }
    }

    /// What the sensor is counted at per tick in a client's budget:
    /// cameras width × height × pixel bytes; lidars 100 ms of points at
    /// the 0.8 budget's bytes per point (`points_per_second`); others 4 KiB.
    pub(crate) fn frame_bytes(&self) -> u64 {
        match &self.model {
            Model::Camera {
                width,
                height,
                pixel_bytes,
                ..
            } => u64::from(*width) * u64::from(*height) * *pixel_bytes as u64,
            Model::Lidar(_) => {
                let pps = self.attributes.get_f64("points_per_second").unwrap_or(0.0);
                let points = (pps.max(0.0) / 10.0).ceil() as u64;
                points.saturating_mul(crate::legacy::settings::LIDAR_BYTES_PER_POINT)
            }
            _ => 4 << 10,
        }
    }

    /// Bytes of one pixel the engine writes (4: BGRA; 8: optical flow).
    fn pixel_bytes(&self) -> Option<usize> {
        match self.model {
            Model::Camera { pixel_bytes, .. } => Some(pixel_bytes),
            _ => None,
        }
    }

    /// Copy path: sends pixels of the camera's size (BGRA; optical flow:
    /// two f32 per pixel).
    pub(crate) fn send_image(
        &self,
        ctx: &CaptureContext,
        pixels: &[u8],
        keep: impl FnOnce(&Arc<Message>, usize),
    ) -> Result<(), Error> {
        let mut image = self.acquire_image()?;
        let region = image.pixels_mut();
        if region.len() != pixels.len() {
            let (w, h, ..) = self.camera().unwrap_or_default();
            let e = serialize::SerializeError::PixelDataLength {
                width: w,
                height: h,
                expected: region.len() as u64,
                actual: pixels.len() as u64,
            };
            return Err(Error::InvalidArgument(e.to_string()));
        }
        region.copy_from_slice(pixels);
        self.commit(ctx, image, keep)
    }

    /// Zero-copy path: a pooled buffer sized for one image; the engine
    /// writes the pixels into `PendingImage::pixels_mut`, then `commit`s.
    pub(crate) fn acquire_image(&self) -> Result<PendingImage, Error> {
        let (w, h, fov, _) = self.camera().ok_or_else(|| self.wrong("an image"))?;
        let pixel = self.pixel_bytes().unwrap_or(4) as u64;
        let bytes = u64::from(w) * u64::from(h) * pixel;
        serialize::check_size(IMAGE_HEADER_SIZE as u64 + bytes)
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        let mut buffer = self.stream.pop_buffer();
        buffer.reset(IMAGE_HEADER_SIZE + bytes as usize);
        buffer[..IMAGE_HEADER_SIZE].copy_from_slice(&serialize::image_header(w, h, fov));
        Ok(PendingImage { buffer })
    }

    /// Sends an acquired image; `keep` gets the shared message and the
    /// offset of its pixels (the 0.8 mirror writes them from there). A DVS
    /// camera sends the events since its previous image instead (nothing
    /// when there are none, as CARLA's), and `keep` is not called.
    pub(crate) fn commit(
        &self,
        ctx: &CaptureContext,
        image: PendingImage,
        keep: impl FnOnce(&Arc<Message>, usize),
    ) -> Result<(), Error> {
        if let Model::Camera {
            width,
            height,
            fov,
            dvs: Some(dvs),
            ..
        } = &self.model
        {
            let mut dvs = dvs.lock();
            let events = dvs.process(image.pixels(), *width, ctx.timestamp);
            if events.is_empty() {
                return Ok(());
            }
            let mut buf = self.stream.pop_buffer();
            buf.append_with(|v| serialize::dvs_events(v, *width, *height, *fov, events))
                .map_err(|e| Error::InvalidArgument(e.to_string()))?;
            drop(dvs);
            return self.send(ctx, buf);
        }
        self.stream.send_then(&self.header(ctx), image.buffer, |m| {
            keep(m, IMAGE_HEADER_SIZE)
        })
    }

    /// Lidar: plans this tick's rays (valid until the next plan) and runs
    /// `with` on them.
    pub(crate) fn plan_lidar<R>(
        &self,
        dt: f32,
        with: impl FnOnce(&[PlannedRay]) -> R,
    ) -> Result<R, Error> {
        let Model::Lidar(lidar) = &self.model else {
            return Err(self.wrong("a lidar plan"));
        };
        let mut lidar = lidar.lock();
        let plan = lidar.plan(dt);
        Ok(with(plan.rays()))
    }

    /// Whether this is a lidar (ray-cast or semantic).
    pub(crate) fn is_lidar(&self) -> bool {
        matches!(self.model, Model::Lidar(_))
    }

    /// Lidar: turns this tick's hits into detections and sends them;
    /// `also` gets the model (its last plan, its sweep angle) once the hits
    /// were accepted, before the send.
    pub(crate) fn send_lidar_hits(
        &self,
        ctx: &CaptureContext,
        hits: &[LidarHit],
        also: impl FnOnce(&Lidar),
    ) -> Result<(), Error> {
        let Model::Lidar(lidar) = &self.model else {
            return Err(self.wrong("lidar hits"));
        };
        let mut buf = self.stream.pop_buffer();
        let mut lidar = lidar.lock();
        buf.append_with(|v| lidar.process(hits, v))
            .map_err(|e| Error::InvalidArgument(e.to_string()))?;
        also(&lidar);
        drop(lidar);
        self.send(ctx, buf)
    }

    /// Safe distance: the overlap box (centre offset in the owner's frame,
    /// half extent) for an owner with half extent `owner_extent`.
    pub(crate) fn safe_distance_box(
        &self,
        owner_extent: Vector3D,
    ) -> Result<(Vector3D, Vector3D), Error> {
        let Model::SafeDistance(s) = &self.model else {
            return Err(self.wrong("a safe-distance box"));
        };
        Ok(safe_distance::overlap_box(owner_extent, s))
    }

    /// Safe distance: sends the ids of the overlapping actors (the owner and
    /// duplicates removed).
    pub(crate) fn send_actor_ids(
        &self,
        ctx: &CaptureContext,
        owner: u32,
        ids: &[u32],
    ) -> Result<(), Error> {
        if !matches!(self.model, Model::SafeDistance(_)) {
            return Err(self.wrong("actor ids"));
        }
        let mut buf = self.stream.pop_buffer();
        buf.append_with(|v| safe_distance::actor_ids_payload(owner, ids, v));
        self.send(ctx, buf)
    }

    /// Any sensor: sends an already-serialized payload.
    pub(crate) fn send_raw(&self, ctx: &CaptureContext, payload: &[u8]) -> Result<(), Error> {
        let mut buf = self.stream.pop_buffer();
        buf.copy_from(0, payload);
        self.send(ctx, buf)
    }

    fn send(&self, ctx: &CaptureContext, buf: Buffer) -> Result<(), Error> {
        self.stream.send(&self.header(ctx), buf)
    }

    /// Synchronous (Some(bound)) or asynchronous (None) delivery.
    pub(crate) fn set_synchronous(&self, bound: Option<Duration>) {
        self.stream.set_synchronous(bound);
    }

    /// Any delivery mode (the RPC side's synchronous-mode policy).
    pub(crate) fn set_delivery(&self, delivery: crate::streaming::stream::Delivery) {
        self.stream.set_delivery(delivery);
        if let Some(g) = &self.gbuffers {
            g.set_delivery(delivery);
        }
    }

    /// RGB cameras: the G-buffer streams.
    pub(crate) fn gbuffers(&self) -> Result<&GBufferStreams, Error> {
        self.gbuffers.as_ref().ok_or(Error::WrongSensorKind {
            sensor: self.kind.name(),
            call: "G-buffers (sensor.camera.rgb only)",
        })
    }

    /// RGB cameras: a pooled buffer for one BGRA image of `texture`, if
    /// it is enabled and someone listens (`Ok(None)` otherwise).
    pub(crate) fn acquire_gbuffer(
        &self,
        texture: GBufferTexture,
    ) -> Result<Option<(Stream, PendingImage)>, Error> {
        let Some(stream) = self.gbuffers()?.wanted(texture) else {
            return Ok(None);
        };
        let (w, h, fov, _) = self.camera().ok_or_else(|| self.wrong("a G-buffer"))?;
        let mut buffer = stream.pop_buffer();
        buffer.reset(IMAGE_HEADER_SIZE + (w as usize) * (h as usize) * 4);
        buffer[..IMAGE_HEADER_SIZE].copy_from_slice(&serialize::image_header(w, h, fov));
        Ok(Some((stream, PendingImage { buffer })))
    }

    /// Sends a G-buffer image on `stream` (from `acquire_gbuffer`).
    pub(crate) fn commit_gbuffer(
        &self,
        stream: &Stream,
        ctx: &CaptureContext,
        image: PendingImage,
    ) -> Result<(), Error> {
        let header = SensorHeader::new(
            SensorType::GBufferUint8,
            ctx.frame,
            ctx.timestamp,
            ctx.transform,
        );
        stream.send(&header.to_bytes(), image.buffer)
    }

    /// Queued delivery of `depth` messages per subscriber (0: asynchronous).
    pub(crate) fn set_queued(&self, depth: u32) -> Result<(), Error> {
        self.stream.set_queued(depth)
    }

    /// Closes the stream (subscribers get end of file).
    pub(crate) fn destroy(&self) {
        self.stream.close();
        if let Some(g) = &self.gbuffers {
            g.close();
        }
    }
}

/// A pooled G-buffer image being filled by the engine (see
/// [`crate::server::Sensor::acquire_gbuffer`]).
pub struct PendingGBuffer {
    stream: Stream,
    image: PendingImage,
}

impl PendingGBuffer {
    pub(crate) fn new(stream: Stream, image: PendingImage) -> PendingGBuffer {
        PendingGBuffer { stream, image }
    }

    /// Where the BGRA pixels go (width × height × 4 bytes).
    pub fn pixels_mut(&mut self) -> &mut [u8] {
        self.image.pixels_mut()
    }

    pub(crate) fn into_parts(self) -> (Stream, PendingImage) {
        (self.stream, self.image)
    }
}

/// A pooled image buffer being filled by the engine.
pub struct PendingImage {
    buffer: Buffer,
}

impl PendingImage {
    /// Where the pixels go: width × height × 4 BGRA bytes (optical flow:
    /// × 8, two little-endian f32 per pixel, x then y).
    pub fn pixels_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[IMAGE_HEADER_SIZE..]
    }

    fn pixels(&self) -> &[u8] {
        &self.buffer[IMAGE_HEADER_SIZE..]
    }

    /// The whole payload (image header + pixels).
    pub fn payload(&self) -> &[u8] {
        &self.buffer
    }
}
