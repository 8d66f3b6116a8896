//! The 0.9 sensors of a server: the streaming port and a table of created
//! sensors keyed by their stream id. Hosts refer to sensors by id, so a
//! call after `destroy` is a clean [`Error::UnknownSensor`], never a
//! dangling pointer. A camera or a lidar can also mirror its data to a
//! 0.8.4 sensor id ([`crate::legacy::mirror`]), so one registration feeds
//! both protocols.

use crate::legacy::mirror::{CameraGeometry, LegacyMirror, LidarRecord, CAMERA_HEADER_SIZE};
use crate::sensor::gbuffer::GBufferTexture;
use crate::sensor::instance::SensorInstance;
use crate::sensor::Lidar;
use crate::streaming::stream::{Stream, StreamServer};
use crate::types::{CaptureContext, LidarHit};
use crate::Error;
use parking_lot::RwLock;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// A created sensor and its optional 0.8.4 mirror.
pub(crate) struct SensorEntry {
    pub(crate) instance: SensorInstance,
    legacy: LegacyMirror,
}

/// The streaming port and the sensors.
#[derive(Default)]
pub(crate) struct SensorTable {
    streams: RwLock<Option<StreamServer>>,
    table: RwLock<HashMap<u32, Arc<SensorEntry>>>,
    /// Their ROS 2 publishing.
    pub(crate) ros: crate::ros2::Hub,
}

impl SensorTable {
    /// Binds the streaming port (0 picks a free one); `timeout` bounds the
    /// subscriber handshake and each write.
    pub(crate) fn listen(
        &self,
        ip: IpAddr,
        port: u16,
        timeout: Duration,
    ) -> Result<SocketAddr, Error> {
        let mut slot = self.streams.write();
        if let Some(s) = slot.as_ref() {
            let e = format!("the streaming port is already listening on {}", s.addr());
            crate::log_error!("{}", e);
            return Err(Error::AlreadyStarted(e));
        }
        let server = StreamServer::bind(ip, port, timeout)?;
        let addr = server.addr();
        *slot = Some(server);
        Ok(addr)
    }

    /// The streaming port's address, if listening.
    pub(crate) fn addr(&self) -> Option<SocketAddr> {
        self.streams.read().as_ref().map(StreamServer::addr)
    }

    /// Creates a sensor; returns its id (= its stream id).
    pub(crate) fn create(&self, blueprint: &str, pairs: &[(&str, &str)]) -> Result<u32, Error> {
        let streams = self.streams.read();
        let streams = streams.as_ref().ok_or_else(|| {
            Error::InvalidArgument(
                "invalid settings: the streaming port is not listening (listen first)".into(),
            )
        })?;
        let instance = SensorInstance::create(streams, blueprint, pairs)?;
        let id = instance.stream().id();
        let entry = Arc::new(SensorEntry {
            instance,
            legacy: LegacyMirror::default(),
        });
        self.table.write().insert(id, entry);
        Ok(id)
    }

    /// The sensor with this id.
    pub(crate) fn get(&self, id: u32) -> Result<Arc<SensorEntry>, Error> {
        self.table.read().get(&id).cloned().ok_or_else(|| {
            crate::log_warn!("no sensor with id {} (never created or destroyed)", id);
            Error::UnknownSensor(id)
        })
    }

    /// The sensor with this id, without a log line when there is none.
    pub(crate) fn get_quiet(&self, id: u32) -> Option<Arc<SensorEntry>> {
        self.table.read().get(&id).cloned()
    }

    /// A stream of no sensor (the 0.9 world-observer stream).
    pub(crate) fn create_stream(&self) -> Result<Stream, Error> {
        let streams = self.streams.read();
        let streams = streams.as_ref().ok_or_else(|| {
            Error::InvalidArgument("the streaming port is not listening (listen first)".into())
        })?;
        Ok(streams.create_stream())
    }

    /// RGB cameras: the stream id of G-buffer `texture`, created the first
    /// time.
    pub(crate) fn gbuffer_stream(&self, id: u32, texture: GBufferTexture) -> Result<u32, Error> {
        let entry = self.get(id)?;
        let streams = self.streams.read();
        let streams = streams.as_ref().ok_or(Error::NotConnected)?;
        Ok(entry
            .instance
            .gbuffers()?
            .stream_id(texture, || streams.create_stream()))
    }

    /// Destroys a sensor: its stream closes cleanly, later calls with its id
    /// get `UnknownSensor`.
    pub(crate) fn destroy(&self, id: u32) -> Result<(), Error> {
        let entry = self
            .table
            .write()
            .remove(&id)
            .ok_or(Error::UnknownSensor(id))?;
        self.ros.disable_sensor(id);
        entry.instance.destroy();
        Ok(())
    }

    /// Closes every stream and the port.
    pub(crate) fn shutdown(&self) {
        self.ros.stop();
        for (_, e) in self.table.write().drain() {
            e.instance.destroy();
        }
        self.streams.write().take();
    }
}

impl SensorEntry {
    /// Mirrors this camera's images, or this lidar's sweeps (as 0.8.4 lidar
    /// records), to the 0.8.4 stream port as sensor `id` (0 stops).
    pub(crate) fn mirror_to_legacy(&self, id: u32) -> Result<(), Error> {
        if self.camera_geometry().is_none() && !self.instance.is_lidar() {
            return Err(Error::WrongSensorKind {
                sensor: self.instance.sensor_type().name(),
                call: "a 0.8 mirror (BGRA cameras and lidars only)",
            });
        }
        self.legacy.set(id);
        Ok(())
    }

    /// If this camera is mirrored: its 0.8.4 sensor id and the 0.8.4 camera
    /// header for an image of `ctx`.
    pub(crate) fn legacy_mirror(
        &self,
        ctx: &CaptureContext,
    ) -> Option<(u32, [u8; CAMERA_HEADER_SIZE])> {
        self.legacy.camera_header(ctx, self.camera_geometry()?)
    }

    fn camera_geometry(&self) -> Option<CameraGeometry> {
        let (width, height, fov, image_type) = self.instance.bgra_camera()?;
        Some(CameraGeometry {
            width,
            height,
            fov,
            image_type,
        })
    }

    /// Lidars: sends this tick's hits to the 0.9 stream and, if mirrored,
    /// hands `write` the 0.8.4 lidar record built from the same plan and
    /// hits. The record is written whatever the 0.9 send's outcome (as a
    /// camera's mirror), unless the hits were refused.
    pub(crate) fn send_lidar_hits(
        &self,
        ctx: &CaptureContext,
        hits: &[LidarHit],
        write: impl FnOnce(&LidarRecord<'_>),
    ) -> Result<(), Error> {
        let mut record = None;
        let sent = self.instance.send_lidar_hits(ctx, hits, |lidar: &Lidar| {
            record = self.legacy.lidar_record(ctx, lidar, hits);
        });
        if let Some(record) = &record {
            write(record);
        }
        sent
    }
}
