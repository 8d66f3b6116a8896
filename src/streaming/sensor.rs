//! A created sensor: its blueprint attributes, registry type, stream and
//! model (lidar, safe-distance box, camera geometry). Every send takes the
//! capture-time context (frame, simulation time, transform) from the engine,
//! so each message carries the frame it belongs to.

use super::blueprint::{self, BlueprintError, SensorAttributes};
use super::geom::ActorTransform;
use super::header::SensorHeader;
use super::models::lidar::{Lidar, LidarHit, LidarSettings, PlannedRay};
use super::models::safe_distance::{self, SafeDistanceSettings};
use super::registry::{PayloadFormat, SensorType};
use super::serialize::{self, IMAGE_HEADER_SIZE};
use crate::codes::{self, Code};
use crate::streaming::pool::Buffer;
use crate::streaming::stream::{Stream, StreamServer};
use crate::types::Vector3D;
use parking_lot::Mutex;
use std::fmt;
use std::time::Duration;

/// When and where the data was captured (filled by the engine at capture).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CaptureContext {
    /// Simulation frame the data belongs to.
    pub frame: u64,
    /// Simulation time in seconds.
    pub timestamp: f64,
    /// The sensor's world transform at capture.
    pub transform: ActorTransform,
}

/// Why a sensor could not be created or used.
#[derive(Debug, Clone, PartialEq)]
pub enum SensorError {
    Blueprint(BlueprintError),
    /// The blueprint has no registry entry (cannot happen for the shipped list).
    Unregistered(String),
    /// Invalid settings for the model (e.g. lidar field of view order).
    Settings(String),
    /// The call does not fit this sensor (an image to a lidar, say).
    WrongKind {
        sensor: &'static str,
        call: &'static str,
    },
    /// Bad data (sizes that do not match, ray indices out of range, ...).
    BadData(String),
    /// The stream refused the message (closed, or a synchronous subscriber
    /// stayed busy past its bound); carries the stream's code.
    Stream {
        stream: u32,
        code: Code,
    },
}

impl fmt::Display for SensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SensorError::Blueprint(e) => write!(f, "{e}"),
            SensorError::Unregistered(id) => write!(f, "{id} has no sensor type id"),
            SensorError::Settings(m) => write!(f, "invalid settings: {m}"),
            SensorError::WrongKind { sensor, call } => {
                write!(f, "{call} is not valid for {sensor}")
            }
            SensorError::BadData(m) => write!(f, "{m}"),
            SensorError::Stream { stream, code } => {
                write!(f, "stream {stream}: {}", codes::describe(*code))
            }
        }
    }
}

impl SensorError {
    /// The C API code for this error.
    pub fn code(&self) -> Code {
        match self {
            // 110 for a synchronous subscriber that stayed busy, 125 for a
            // closed stream: the stream's own code.
            SensorError::Stream { code, .. } => *code,
            _ => codes::INVALID_ARGUMENT,
        }
    }
}

enum Model {
    Camera {
        width: u32,
        height: u32,
        fov: f32,
        legacy_type: u32,
    },
    Lidar(Box<Mutex<Lidar>>),
    SafeDistance(SafeDistanceSettings),
    Raw,
}

/// A sensor instance.
pub struct SensorInstance {
    kind: SensorType,
    attributes: SensorAttributes,
    stream: Stream,
    model: Model,
}

fn lidar_settings(a: &SensorAttributes, semantic: bool) -> LidarSettings {
    let d = LidarSettings::default();
    let f = |k: &str, v: f32| a.get_f32(k).unwrap_or(v);
    LidarSettings {
        channels: a.get_u32("channels").unwrap_or(d.channels),
        range_m: f("range", d.range_m),
        points_per_second: a
            .get_u32("points_per_second")
            .unwrap_or(d.points_per_second),
        rotation_frequency: f("rotation_frequency", d.rotation_frequency),
        upper_fov: f("upper_fov", d.upper_fov),
        lower_fov: f("lower_fov", d.lower_fov),
        horizontal_fov: f("horizontal_fov", d.horizontal_fov),
        atmosphere_attenuation_rate: f(
            "atmosphere_attenuation_rate",
            d.atmosphere_attenuation_rate,
        ),
        dropoff_general_rate: f("dropoff_general_rate", d.dropoff_general_rate),
        dropoff_intensity_limit: f("dropoff_intensity_limit", d.dropoff_intensity_limit),
        dropoff_zero_intensity: f("dropoff_zero_intensity", d.dropoff_zero_intensity),
        noise_stddev: f("noise_stddev", d.noise_stddev),
        noise_seed: a.get_i64("noise_seed").map_or(d.noise_seed, |s| s as u64),
        semantic,
    }
}

impl SensorInstance {
    /// Creates a sensor from a blueprint id and `key=value` attributes, with
    /// a new stream on `streams`.
    pub fn create(
        streams: &StreamServer,
        blueprint_id: &str,
        pairs: &[(&str, &str)],
    ) -> Result<SensorInstance, SensorError> {
        let attributes = blueprint::create(blueprint_id, pairs).map_err(SensorError::Blueprint)?;
        let kind = SensorType::from_name(blueprint_id)
            .ok_or_else(|| SensorError::Unregistered(blueprint_id.to_owned()))?;
        let model = match kind.format() {
            PayloadFormat::Image => Model::Camera {
                width: attributes.get_u32("image_size_x").unwrap_or(800),
                height: attributes.get_u32("image_size_y").unwrap_or(600),
                fov: attributes.get_f32("fov").unwrap_or(90.0),
                legacy_type: match kind {
                    SensorType::DepthCamera => 2,
                    SensorType::SemanticSegmentationCamera => 3,
                    _ => 1,
                },
            },
            PayloadFormat::Lidar | PayloadFormat::SemanticLidar => {
                let settings = lidar_settings(&attributes, kind == SensorType::SemanticLidar);
                let lidar =
                    Lidar::new(settings).map_err(|e| SensorError::Settings(e.to_string()))?;
                Model::Lidar(Box::new(Mutex::new(lidar)))
            }
            PayloadFormat::ActorIds => Model::SafeDistance(SafeDistanceSettings {
                front: attributes.get_f32("safe_distance_front").unwrap_or(1.0),
                back: attributes.get_f32("safe_distance_back").unwrap_or(0.5),
                lateral: attributes.get_f32("safe_distance_lateral").unwrap_or(0.5),
            }),
            _ => Model::Raw,
        };
        let stream = streams.create_stream();
        Ok(SensorInstance {
            kind,
            attributes,
            stream,
            model,
        })
    }

    /// Registry type.
    pub fn sensor_type(&self) -> SensorType {
        self.kind
    }

    /// The resolved attributes.
    pub fn attributes(&self) -> &SensorAttributes {
        &self.attributes
    }

    /// The stream clients subscribe to.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    fn header(&self, ctx: &CaptureContext) -> [u8; 48] {
        SensorHeader::new(self.kind, ctx.frame, ctx.timestamp, ctx.transform).to_bytes()
    }

    fn wrong(&self, call: &'static str) -> SensorError {
        SensorError::WrongKind {
            sensor: self.kind.name(),
            call,
        }
    }

    /// Camera geometry: (width, height, fov, 0.8 image type).
    pub fn camera(&self) -> Option<(u32, u32, f32, u32)> {
        match self.model {
            Model::Camera {
                width,
                height,
                fov,
                legacy_type,
            } => Some((width, height, fov, legacy_type)),
            _ => None,
        }
    }

    /// Copy path: sends BGRA pixels of the camera's size.
    pub fn send_image(&self, ctx: &CaptureContext, pixels: &[u8]) -> Result<(), SensorError> {
        let (w, h, fov, _) = self.camera().ok_or_else(|| self.wrong("an image"))?;
        let mut buf = self.stream.pop_buffer();
        buf.append_with(|v| serialize::image(v, w, h, fov, pixels))
            .map_err(|e| SensorError::BadData(e.to_string()))?;
        self.send(ctx, buf)
    }

    /// Zero-copy path: a pooled buffer sized for one image; the engine
    /// writes the pixels into `PendingImage::pixels_mut`, then `commit`s.
    pub fn acquire_image(&self) -> Result<PendingImage, SensorError> {
        let (w, h, fov, _) = self.camera().ok_or_else(|| self.wrong("an image"))?;
        let bytes = (w as usize) * (h as usize) * 4;
        let mut buffer = self.stream.pop_buffer();
        buffer.reset(IMAGE_HEADER_SIZE + bytes);
        buffer[..IMAGE_HEADER_SIZE].copy_from_slice(&serialize::image_header(w, h, fov));
        Ok(PendingImage { buffer })
    }

    /// Sends an acquired image.
    pub fn commit(&self, ctx: &CaptureContext, image: PendingImage) -> Result<(), SensorError> {
        self.send(ctx, image.buffer)
    }

    /// Lidar: plans this tick's rays (valid until the next plan) and runs
    /// `with` on them.
    pub fn plan_lidar<R>(
        &self,
        dt: f32,
        with: impl FnOnce(&[PlannedRay]) -> R,
    ) -> Result<R, SensorError> {
        let Model::Lidar(lidar) = &self.model else {
            return Err(self.wrong("a lidar plan"));
        };
        let mut lidar = lidar.lock();
        let plan = lidar.plan(dt);
        Ok(with(plan.rays()))
    }

    /// Lidar: turns this tick's hits into detections and sends them.
    pub fn send_lidar_hits(
        &self,
        ctx: &CaptureContext,
        hits: &[LidarHit],
    ) -> Result<(), SensorError> {
        let Model::Lidar(lidar) = &self.model else {
            return Err(self.wrong("lidar hits"));
        };
        let mut buf = self.stream.pop_buffer();
        buf.append_with(|v| lidar.lock().process(hits, v))
            .map_err(|e| SensorError::BadData(e.to_string()))?;
        self.send(ctx, buf)
    }

    /// Safe distance: the overlap box (centre offset in the owner's frame,
    /// half extent) for an owner with half extent `owner_extent`.
    pub fn safe_distance_box(
        &self,
        owner_extent: Vector3D,
    ) -> Result<(Vector3D, Vector3D), SensorError> {
        let Model::SafeDistance(s) = &self.model else {
            return Err(self.wrong("a safe-distance box"));
        };
        Ok(safe_distance::overlap_box(owner_extent, s))
    }

    /// Safe distance: sends the ids of the overlapping actors (the owner and
    /// duplicates removed).
    pub fn send_actor_ids(
        &self,
        ctx: &CaptureContext,
        owner: u32,
        ids: &[u32],
    ) -> Result<(), SensorError> {
        if !matches!(self.model, Model::SafeDistance(_)) {
            return Err(self.wrong("actor ids"));
        }
        let mut buf = self.stream.pop_buffer();
        buf.append_with(|v| safe_distance::actor_ids_payload(owner, ids, v));
        self.send(ctx, buf)
    }

    /// Any sensor: sends an already-serialized payload.
    pub fn send_raw(&self, ctx: &CaptureContext, payload: &[u8]) -> Result<(), SensorError> {
        let mut buf = self.stream.pop_buffer();
        buf.copy_from(0, payload);
        self.send(ctx, buf)
    }

    fn send(&self, ctx: &CaptureContext, buf: Buffer) -> Result<(), SensorError> {
        self.stream
            .send(&self.header(ctx), buf)
            .map_err(|code| SensorError::Stream {
                stream: self.stream.id(),
                code,
            })
    }

    /// Synchronous (Some(bound)) or asynchronous (None) delivery.
    pub fn set_synchronous(&self, bound: Option<Duration>) {
        self.stream.set_synchronous(bound);
    }

    /// Closes the stream (subscribers get end of file).
    pub fn destroy(&self) {
        self.stream.close();
    }
}

/// A pooled image buffer being filled by the engine.
pub struct PendingImage {
    buffer: Buffer,
}

impl PendingImage {
    /// Where the BGRA pixels go (width × height × 4 bytes).
    pub fn pixels_mut(&mut self) -> &mut [u8] {
        &mut self.buffer[IMAGE_HEADER_SIZE..]
    }

    /// The whole payload (image header + pixels).
    pub fn payload(&self) -> &[u8] {
        &self.buffer
    }
}
