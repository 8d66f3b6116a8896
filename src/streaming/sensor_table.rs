//! The 0.9 sensors of a server: the streaming port and a table of created
//! sensors keyed by their stream id. Hosts refer to sensors by id, so a
//! call after `destroy` is a clean [`Error::UnknownSensor`], never a
//! dangling pointer. A camera or a lidar can also mirror its data to a
//! 0.8.4 sensor id, so one registration feeds both protocols.

use crate::legacy::lidar_record;
use crate::streaming::models::lidar::Lidar;
use crate::streaming::sensor::SensorInstance;
use crate::streaming::stream::{Stream, StreamServer};
use crate::types::{CaptureContext, LidarHit};
use crate::Error;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// A created sensor and its optional 0.8.4 mirror.
pub(crate) struct SensorEntry {
    pub(crate) instance: SensorInstance,
    legacy: Mutex<LegacyMirror>,
}

/// The 0.8.4 sensor id a sensor mirrors to, and (lidars) the record's
/// buffers, reused from tick to tick.
#[derive(Default)]
struct LegacyMirror {
    id: Option<u32>,
    header: Vec<u8>,
    data: Vec<u8>,
}

/// The streaming port and the sensors.
#[derive(Default)]
pub(crate) struct SensorTable {
    streams: RwLock<Option<StreamServer>>,
    table: RwLock<HashMap<u32, Arc<SensorEntry>>>,
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
            crate::log_error!("the streaming port is already listening on {}", s.addr());
            return Err(Error::AlreadyConnected);
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
            legacy: Mutex::new(LegacyMirror::default()),
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

    /// Destroys a sensor: its stream closes cleanly, later calls with its id
    /// get `UnknownSensor`.
    pub(crate) fn destroy(&self, id: u32) -> Result<(), Error> {
        let entry = self
            .table
            .write()
            .remove(&id)
            .ok_or(Error::UnknownSensor(id))?;
        entry.instance.destroy();
        Ok(())
    }

    /// Closes every stream and the port.
    pub(crate) fn shutdown(&self) {
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
        if self.instance.camera().is_none() && !self.instance.is_lidar() {
            return Err(Error::WrongSensorKind {
                sensor: self.instance.sensor_type().name(),
                call: "a 0.8 mirror (cameras and lidars only)",
            });
        }
        let mut mirror = self.legacy.lock();
        mirror.id = (id != 0).then_some(id);
        if mirror.id.is_none() {
            // Stopped: let go of the record buffers too.
            *mirror = LegacyMirror::default();
        }
        Ok(())
    }

    /// If this camera is mirrored: its 0.8.4 sensor id and the 0.8.4 camera
    /// header (frame, width, height, image type, FOV) for an image of `ctx`.
    pub(crate) fn legacy_mirror(&self, ctx: &CaptureContext) -> Option<(u32, [u8; 24])> {
        let (Some(id), Some((w, h, fov, kind))) = (self.legacy.lock().id, self.instance.camera())
        else {
            return None;
        };
        let mut header = [0u8; 24];
        header[..8].copy_from_slice(&ctx.frame.to_le_bytes());
        header[8..12].copy_from_slice(&w.to_le_bytes());
        header[12..16].copy_from_slice(&h.to_le_bytes());
        header[16..20].copy_from_slice(&kind.to_le_bytes());
        header[20..24].copy_from_slice(&fov.to_le_bytes());
        Some((id, header))
    }

    /// Lidars: sends this tick's hits to the 0.9 stream and, if mirrored,
    /// hands `write` the 0.8.4 id and lidar record (header, data) built
    /// from the same plan and hits: frame `ctx.frame`, the sweep angle the
    /// plan reached. The record is written whatever the 0.9 send's outcome
    /// (as a camera's mirror), unless the hits were refused.
    pub(crate) fn send_lidar_hits(
        &self,
        ctx: &CaptureContext,
        hits: &[LidarHit],
        write: impl FnOnce(u32, &[u8], &[u8]),
    ) -> Result<(), Error> {
        let mut mirror = None;
        let sent = self.instance.send_lidar_hits(ctx, hits, |lidar: &Lidar| {
            let mut m = self.legacy.lock();
            let Some(id) = m.id else { return };
            let LegacyMirror { header, data, .. } = &mut *m;
            let rays = lidar.last_plan().rays();
            let (angle, channels) = (lidar.horizontal_angle_deg(), lidar.settings().channels);
            lidar_record::build(ctx.frame, angle, channels, rays, hits, header, data);
            mirror = Some((id, m));
        });
        if let Some((id, m)) = mirror {
            write(id, &m.header, &m.data);
        }
        sent
    }
}
