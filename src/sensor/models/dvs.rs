//! The DVS (event) camera: the engine renders an ordinary BGRA image each
//! capture, and this model turns the change since the previous capture into
//! brightness-change events, as CARLA 0.9.16's `sensor.camera.dvs` does:
//!
//! * each pixel's intensity is `L = ln(log_eps + I/255)` (or `I` itself
//!   with `use_log=false`), `I = 0.2989 R + 0.587 G + 0.114 B`;
//! * a pixel whose `L` changed fires one event each time `L` crosses its
//!   reference level plus a multiple of the threshold (`positive_threshold`
//!   upwards, `negative_threshold` downwards, each perturbed by
//!   `sigma_*_threshold` noise and never below 0.01); the reference moves
//!   to the last level crossed;
//! * an event's time is interpolated linearly between the two captures
//!   (nanoseconds of simulation time); a pixel does not fire again within
//!   `refractory_period_ns` of its previous event;
//! * the first capture only sets the references (no events); events go out
//!   sorted by time.
//!
//! Bounds: at most [`MAX_CROSSINGS`] events per pixel per capture and
//! [`MAX_EVENTS`] per capture (the rest are dropped and counted), so no
//! setting can make one capture unbounded.

use super::lidar::SplitMix64;
use crate::sensor::blueprint::SensorAttributes;
use crate::sensor::serialize::DvsEvent;

/// Events one pixel may fire between two captures.
pub const MAX_CROSSINGS: u32 = 256;
/// Events one capture may send (13 bytes each: 52 MB).
pub const MAX_EVENTS: usize = 4 << 20;
/// The smallest contrast threshold used (CARLA's floor for noisy ones).
const MIN_THRESHOLD: f32 = 0.01;
/// Changes smaller than this are no change.
const TOLERANCE: f32 = 1e-6;

/// The DVS blueprint attributes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DvsSettings {
    pub positive_threshold: f32,
    pub negative_threshold: f32,
    pub sigma_positive: f32,
    pub sigma_negative: f32,
    pub refractory_period_ns: i64,
    pub use_log: bool,
    pub log_eps: f32,
}

impl Default for DvsSettings {
    fn default() -> Self {
        DvsSettings {
            positive_threshold: 0.3,
            negative_threshold: 0.3,
            sigma_positive: 0.0,
            sigma_negative: 0.0,
            refractory_period_ns: 0,
            use_log: true,
            log_eps: 0.001,
        }
    }
}

impl DvsSettings {
    /// From a `sensor.camera.dvs` blueprint's resolved attributes.
    pub fn from_attributes(a: &SensorAttributes) -> DvsSettings {
        let d = DvsSettings::default();
        DvsSettings {
            positive_threshold: a
                .get_f32("positive_threshold")
                .unwrap_or(d.positive_threshold),
            negative_threshold: a
                .get_f32("negative_threshold")
                .unwrap_or(d.negative_threshold),
            sigma_positive: a.get_f32("sigma_positive_threshold").unwrap_or(0.0),
            sigma_negative: a.get_f32("sigma_negative_threshold").unwrap_or(0.0),
            refractory_period_ns: a.get_i64("refractory_period_ns").unwrap_or(0),
            use_log: a.get_bool("use_log").unwrap_or(true),
            log_eps: a.get_f32("log_eps").unwrap_or(d.log_eps),
        }
    }
}

/// A BGRA pixel's intensity under `s`.
fn intensity(s: &DvsSettings, px: &[u8]) -> f32 {
    let grey = 0.2989 * f32::from(px[2]) + 0.587 * f32::from(px[1]) + 0.114 * f32::from(px[0]);
    if s.use_log {
        (s.log_eps + grey / 255.0).ln()
    } else {
        grey
    }
}

/// One DVS camera's state between captures.
pub struct Dvs {
    settings: DvsSettings,
    /// Intensity of the previous capture, per pixel.
    previous: Vec<f32>,
    /// The level each pixel last crossed.
    reference: Vec<f32>,
    /// Time of each pixel's last event, ns (`None`: never fired).
    last_event: Vec<Option<i64>>,
    /// Time of the previous capture, ns.
    previous_ns: i64,
    events: Vec<DvsEvent>,
    rng: SplitMix64,
    /// Events dropped by the bounds since the sensor was created.
    dropped: u64,
}

impl Dvs {
    pub fn new(settings: DvsSettings, seed: u64) -> Dvs {
        Dvs {
            settings,
            previous: Vec::new(),
            reference: Vec::new(),
            last_event: Vec::new(),
            previous_ns: 0,
            events: Vec::new(),
            rng: SplitMix64::new(seed),
            dropped: 0,
        }
    }

    /// Events dropped by the bounds so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The events between the previous capture and this one: `bgra` is the
    /// `width × height` image captured at `time_s` seconds of simulation.
    /// A size change (or the first capture) restarts the model.
    pub fn process(&mut self, bgra: &[u8], width: u32, time_s: f64) -> &[DvsEvent] {
        self.events.clear();
        let now_ns = (time_s * 1e9).round() as i64;
        let n = bgra.len() / 4;
        if self.previous.len() != n || n == 0 {
            self.previous.clear();
            let settings = &self.settings;
            self.previous
                .extend(bgra.chunks_exact(4).map(|p| intensity(settings, p)));
            self.reference.clone_from(&self.previous);
            self.last_event.clear();
            self.last_event.resize(n, None);
            self.previous_ns = now_ns;
            return &self.events;
        }
        let dt_ns = (now_ns - self.previous_ns).max(0) as f64;
        let width = width.max(1) as usize;
        for (i, px) in bgra.chunks_exact(4).enumerate() {
            let now = intensity(&self.settings, px);
            let before = std::mem::replace(&mut self.previous[i], now);
            if (now - before).abs() <= TOLERANCE {
                continue;
            }
            let up = now >= before;
            let (c, sigma) = if up {
                (
                    self.settings.positive_threshold,
                    self.settings.sigma_positive,
                )
            } else {
                (
                    self.settings.negative_threshold,
                    self.settings.sigma_negative,
                )
            };
            let noisy = if sigma > 0.0 {
                c + self.rng.normal_f32(0.0, sigma)
            } else {
                c
            };
            let step = if up {
                noisy.max(MIN_THRESHOLD)
            } else {
                -noisy.max(MIN_THRESHOLD)
            };
            let mut level = self.reference[i];
            for _ in 0..MAX_CROSSINGS {
                level += step;
                let crossed = if up {
                    level > before && level <= now
                } else {
                    level < before && level >= now
                };
                if !crossed {
                    break;
                }
                let t = self.previous_ns
                    + (f64::from(level - before) * dt_ns / f64::from(now - before)) as i64;
                if self.last_event[i].is_some_and(|last| t < last) {
                    continue;
                }
                let rested = self.last_event[i]
                    .is_none_or(|last| t - last >= self.settings.refractory_period_ns);
                if rested {
                    if self.events.len() < MAX_EVENTS {
                        self.events.push(DvsEvent {
                            x: (i % width) as u16,
                            y: (i / width) as u16,
                            t,
                            pol: up,
                        });
                    } else {
                        self.dropped += 1;
                    }
                    self.last_event[i] = Some(t);
                }
                self.reference[i] = level;
            }
        }
        self.previous_ns = now_ns;
        self.events.sort_by_key(|e| e.t);
        &self.events
    }
}

#[cfg(test)]
#[path = "dvs_tests.rs"]
mod tests;
