//! What one episode's settings may ask of the server.
//!
//! A well-formed settings text can still ask for more than any machine has
//! (2,000 cameras, a 16384×16384 image, a sensor name 10,000 levels deep).
//! [`Budget`] bounds it; [`super::parse_within`] checks the text against it
//! before building anything that grows with the request, and refuses the
//! episode with [`SettingsError::OverBudget`], which names the limit.
//!
//! The defaults admit every realistic CARLA 0.8 configuration (for example
//! 8 cameras at 1920×1080 and 4 lidars of 1.3 million points per second)
//! and keep the worst one they admit under about 512 MiB of peak memory.

use super::{SensorSettings, SettingsError};

/// Bytes per point a lidar is counted at: the largest point record the
/// server writes (0.9's semantic detection, 24 bytes; 0.8 writes 12).
pub const LIDAR_BYTES_PER_POINT: u64 = 24;

/// Limits on what one settings text may ask for (docs/reliability.md);
/// `Default` gives the documented defaults (C: `struct
/// carla_settings_budget`, filled in by `carla_settings_budget_default`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Largest settings text, in bytes (default 1 MiB; the 0.8.4 client's
    /// texts are under 2 KB).
    pub max_ini_bytes: u64,
    /// Most sensors in `Sensors` (default 64).
    pub max_sensors: u64,
    /// Longest sensor name, in bytes (default 256).
    pub max_name_bytes: u64,
    /// Most `/`-separated levels in a sensor name (default 8).
    pub max_name_depth: u64,
    /// Most bytes all sensors together may produce in one frame (default
    /// 128 MiB): a camera counts `ImageSizeX × ImageSizeY × 4`, a lidar the
    /// points of one frame (`PointsPerSecond × frame_ms / 1000`) at
    /// [`LIDAR_BYTES_PER_POINT`] (24).
    pub max_frame_bytes: u64,
    /// The longest frame the host runs, in milliseconds, for the lidar's
    /// share of `max_frame_bytes` (default 100: 10 frames per second or
    /// faster).
    pub frame_ms: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_ini_bytes: 1 << 20,
            max_sensors: 64,
            max_name_bytes: 256,
            max_name_depth: 8,
            max_frame_bytes: 128 << 20,
            frame_ms: 100,
        }
    }
}

impl Budget {
    /// No limits (what a host that trusts its clients may choose).
    ///
    /// cbindgen:ignore
    pub const UNLIMITED: Budget = Budget {
        max_ini_bytes: u64::MAX,
        max_sensors: u64::MAX,
        max_name_bytes: u64::MAX,
        max_name_depth: u64::MAX,
        max_frame_bytes: u64::MAX,
        frame_ms: 100,
    };

    pub(super) fn check_text(&self, text: &str) -> Result<(), SettingsError> {
        over(
            "max_ini_bytes",
            "the settings text has",
            "bytes",
            text.len() as u64,
            self.max_ini_bytes,
            0,
        )
    }

    /// Checks the sensor list before any per-sensor work; `line` is the
    /// `Sensors` line.
    pub(super) fn check_names(&self, names: &[&str], line: usize) -> Result<(), SettingsError> {
        over(
            "max_sensors",
            "Sensors lists",
            "sensors",
            names.len() as u64,
            self.max_sensors,
            line,
        )?;
        for name in names {
            let shown = shorten(name);
            over(
                "max_name_bytes",
                &format!("sensor name {shown:?} has"),
                "bytes",
                name.len() as u64,
                self.max_name_bytes,
                line,
            )?;
            over(
                "max_name_depth",
                &format!("sensor name {shown:?} has"),
                "levels",
                name.split('/').count() as u64,
                self.max_name_depth,
                line,
            )?;
        }
        Ok(())
    }

    /// Checks what the parsed sensors produce per frame.
    pub(super) fn check_frame(
        &self,
        sensors: &[SensorSettings],
        line: usize,
    ) -> Result<(), SettingsError> {
        let total = sensors
            .iter()
            .map(|s| frame_bytes(s, self.frame_ms))
            .fold(0u64, u64::saturating_add);
        over(
            "max_frame_bytes",
            "the sensors produce",
            "bytes per frame",
            total,
            self.max_frame_bytes,
            line,
        )
    }
}

/// What one sensor is counted at per frame of `frame_ms` milliseconds
/// (see [`Budget::max_frame_bytes`]).
pub fn frame_bytes(sensor: &SensorSettings, frame_ms: u64) -> u64 {
    match sensor {
        SensorSettings::Camera(c) => u64::from(c.image_size_x) * u64::from(c.image_size_y) * 4,
        SensorSettings::Lidar(l) => {
            let points = (u64::from(l.points_per_second) * frame_ms).div_ceil(1000);
            points.saturating_mul(LIDAR_BYTES_PER_POINT)
        }
    }
}

fn over(
    limit: &'static str,
    what: &str,
    unit: &'static str,
    asked: u64,
    allowed: u64,
    line: usize,
) -> Result<(), SettingsError> {
    if asked <= allowed {
        return Ok(());
    }
    Err(SettingsError::OverBudget {
        limit,
        detail: format!("{what} {asked} {unit}"),
        allowed,
        line,
    })
}

/// A name as quoted in a message: at most 40 characters.
fn shorten(name: &str) -> String {
    match name.char_indices().nth(40) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_owned(),
    }
}
