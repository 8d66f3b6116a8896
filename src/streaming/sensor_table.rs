//! The 0.9 sensors of a server: the streaming port and a table of created
//! sensors keyed by their stream id. Hosts refer to sensors by id, so a
//! call after `destroy` is a clean [`Error::UnknownSensor`], never a
//! dangling pointer. A camera can also mirror its images to a 0.8.4 sensor
//! id, so one registration feeds both protocols.

use crate::streaming::sensor::SensorInstance;
use crate::streaming::stream::{Stream, StreamServer};
use crate::types::CaptureContext;
use crate::Error;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// A created sensor and its optional 0.8.4 mirror id.
pub(crate) struct SensorEntry {
    pub(crate) instance: SensorInstance,
    legacy_id: Mutex<Option<u32>>,
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
            legacy_id: Mutex::new(None),
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
    /// Mirrors this camera's images to the 0.8.4 stream port as sensor `id`
    /// (0 stops mirroring).
    pub(crate) fn mirror_to_legacy(&self, id: u32) -> Result<(), Error> {
        if self.instance.camera().is_none() {
            return Err(Error::WrongSensorKind {
                sensor: self.instance.sensor_type().name(),
                call: "a 0.8 mirror",
            });
        }
        *self.legacy_id.lock() = (id != 0).then_some(id);
        Ok(())
    }

    /// If this camera is mirrored: its 0.8.4 sensor id and the 0.8.4 camera
    /// header (frame, width, height, image type, FOV) for an image of `ctx`.
    pub(crate) fn legacy_mirror(&self, ctx: &CaptureContext) -> Option<(u32, [u8; 24])> {
        let (Some(id), Some((w, h, fov, kind))) = (*self.legacy_id.lock(), self.instance.camera())
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
}
