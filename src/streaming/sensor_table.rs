//! The 0.9 sensors of a server: the streaming port and a table of created
//! sensors keyed by their stream id. Hosts refer to sensors by id, so a
//! call after `destroy` is a clean `UNKNOWN_SENSOR`, never a dangling
//! pointer. A camera can also mirror its images to a 0.8 sensor id, so one
//! registration feeds both protocols.

use crate::codes::{self, Code};
use crate::streaming::sensor::{CaptureContext, PendingImage, SensorError, SensorInstance};
use crate::streaming::stream::StreamServer;
use crate::Server;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

/// A created sensor and its optional 0.8 mirror id.
pub struct SensorEntry {
    pub instance: SensorInstance,
    legacy_id: Mutex<Option<u32>>,
}

/// The streaming port and the sensors.
#[derive(Default)]
pub struct Sensors {
    streams: RwLock<Option<StreamServer>>,
    table: RwLock<HashMap<u32, Arc<SensorEntry>>>,
}

impl Sensors {
    /// Binds the streaming port (0 picks a free one); `timeout` bounds the
    /// subscriber handshake and each write.
    pub fn listen(&self, ip: IpAddr, port: u16, timeout: Duration) -> Result<SocketAddr, Code> {
        let mut slot = self.streams.write();
        if let Some(s) = slot.as_ref() {
            crate::log_error!("the streaming port is already listening on {}", s.addr());
            return Err(codes::ALREADY_CONNECTED);
        }
        let server = StreamServer::bind(ip, port, timeout)?;
        let addr = server.addr();
        *slot = Some(server);
        Ok(addr)
    }

    /// The streaming port's address, if listening.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.streams.read().as_ref().map(StreamServer::addr)
    }

    /// Creates a sensor; returns its id (= its stream id).
    pub fn create(&self, blueprint: &str, pairs: &[(&str, &str)]) -> Result<u32, SensorError> {
        let streams = self.streams.read();
        let streams = streams.as_ref().ok_or_else(|| {
            SensorError::Settings("the streaming port is not listening (listen first)".into())
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
    pub fn get(&self, id: u32) -> Result<Arc<SensorEntry>, Code> {
        self.table.read().get(&id).cloned().ok_or_else(|| {
            crate::log_warn!("no sensor with id {} (never created or destroyed)", id);
            codes::UNKNOWN_SENSOR
        })
    }

    /// Destroys a sensor: its stream closes cleanly, later calls with its id
    /// get `UNKNOWN_SENSOR`.
    pub fn destroy(&self, id: u32) -> Result<(), Code> {
        let entry = self
            .table
            .write()
            .remove(&id)
            .ok_or(codes::UNKNOWN_SENSOR)?;
        entry.instance.destroy();
        Ok(())
    }

    /// Closes every stream and the port.
    pub fn shutdown(&self) {
        for (_, e) in self.table.write().drain() {
            e.instance.destroy();
        }
        self.streams.write().take();
    }
}

impl SensorEntry {
    /// Mirrors this camera's images to the 0.8 stream port as sensor `id`
    /// (0 stops mirroring).
    pub fn mirror_to_legacy(&self, id: u32) -> Result<(), SensorError> {
        if self.instance.camera().is_none() {
            return Err(SensorError::WrongKind {
                sensor: self.instance.sensor_type().name(),
                call: "a 0.8 mirror",
            });
        }
        *self.legacy_id.lock() = (id != 0).then_some(id);
        Ok(())
    }

    /// Sends an image (copy path) to the 0.9 stream and, if mirrored, to
    /// the 0.8 stream port.
    pub fn send_image(
        &self,
        server: &Server,
        ctx: &CaptureContext,
        pixels: &[u8],
    ) -> Result<(), SensorError> {
        self.instance.send_image(ctx, pixels)?;
        self.mirror(server, ctx, pixels);
        Ok(())
    }

    /// Sends an acquired image (zero-copy path) to both protocols.
    pub fn commit_image(
        &self,
        server: &Server,
        ctx: &CaptureContext,
        mut image: PendingImage,
    ) -> Result<(), SensorError> {
        self.mirror(server, ctx, image.pixels_mut());
        self.instance.commit(ctx, image)
    }

    /// Writes `pixels` to the 0.8 inbox with a 0.8 camera header, if mirrored.
    fn mirror(&self, server: &Server, ctx: &CaptureContext, pixels: &[u8]) {
        let (Some(id), Some((w, h, fov, kind))) = (*self.legacy_id.lock(), self.instance.camera())
        else {
            return;
        };
        let mut header = [0u8; 24];
        header[..8].copy_from_slice(&ctx.frame.to_le_bytes());
        header[8..12].copy_from_slice(&w.to_le_bytes());
        header[12..16].copy_from_slice(&h.to_le_bytes());
        header[16..20].copy_from_slice(&kind.to_le_bytes());
        header[20..24].copy_from_slice(&fov.to_le_bytes());
        if let Err(code) = server.write_sensor_data(id, &header, pixels) {
            crate::log_debug!("0.8 mirror of sensor {}: {}", id, codes::describe(code));
        }
    }
}
