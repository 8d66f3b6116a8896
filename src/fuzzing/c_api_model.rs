//! The `c_api` target's model of what a run holds (sensors and their kinds,
//! images acquired, settings objects) and the argument helpers its step
//! files share; `c_api.rs` drives the steps.

use super::codes::{self, Code};
use super::Input;
use crate::ffi::*;
use crate::legacy::settings;

pub(super) const MAX_IMAGES: usize = 6;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    Camera {
        width: u32,
        height: u32,
        /// 4 (BGRA, and the DVS camera's input), 8 (optical flow).
        pixel_bytes: u32,
        /// Mirrors to the 0.8 port (BGRA images, not the DVS camera).
        mirrors: bool,
    },
    Lidar {
        rays: u32,
    },
    SafeDistance,
    /// GNSS, IMU, collision, obstacle, radar, lane invasion: `send_raw` only.
    Raw,
}

pub(super) struct Sensor {
    pub(super) id: u32,
    pub(super) kind: Kind,
}

pub(super) struct Run {
    pub(super) sensors: Vec<Sensor>,
    /// Acquired images and the sensor each belongs to.
    pub(super) images: Vec<(CarlaImagePtr, u32)>,
    pub(super) settings: Vec<Settings>,
}

impl Run {
    pub(super) fn sensor(&self, input: &mut Input<'_>) -> (u32, Option<Kind>) {
        let pick = usize::from(input.u8());
        match self.sensors.get(pick % (self.sensors.len() + 1)) {
            Some(s) => (s.id, Some(s.kind)),
            None => {
                let id = input.u32();
                (id, self.sensors.iter().find(|s| s.id == id).map(|s| s.kind))
            }
        }
    }
}

/// A C string argument: NULL, or NUL-terminated bytes.
pub(super) type CText = Option<Vec<u8>>;

/// A C string made of fuzz bytes (cut at a NUL, maybe not UTF-8).
pub(super) fn c_text(bytes: &[u8]) -> Vec<u8> {
    let mut text: Vec<u8> = bytes.split(|&b| b == 0).next().unwrap_or_default().to_vec();
    text.push(0);
    text
}

/// The code a string argument gives: NULL, not UTF-8, or fine.
pub(super) fn text_code(text: Option<&[u8]>) -> Option<Code> {
    match text {
        None => Some(codes::NULL_ARGUMENT),
        Some(t) if std::str::from_utf8(&t[..t.len() - 1]).is_err() => Some(codes::INVALID_ARGUMENT),
        Some(_) => None,
    }
}

pub(super) fn ptr_or_null<T>(v: &Option<Vec<T>>) -> *const T {
    v.as_ref().map_or(std::ptr::null(), |v| v.as_ptr())
}

/// What a caller's error buffer must hold: `text` NUL-terminated, cut to fit.
pub(super) fn check_text(buffer: &Option<Vec<u8>>, text: &str) {
    let Some(buf) = buffer else { return };
    if buf.is_empty() {
        return;
    }
    let n = text.len().min(buf.len() - 1);
    assert_eq!(&buf[..n], &text.as_bytes()[..n], "text written");
    assert_eq!(buf[n], 0, "NUL-terminated");
}

/// An error buffer: NULL, or 0 to 80 bytes.
pub(super) fn error_buffer(input: &mut Input<'_>) -> Option<Vec<u8>> {
    let size = input.u8();
    (size != 255).then(|| vec![0xAA; usize::from(size % 81)])
}

/// A parsed settings object and what the Rust parser made of its text.
pub(super) struct Settings {
    pub(super) ptr: CarlaSettingsPtr,
    pub(super) rust: settings::Settings,
}
