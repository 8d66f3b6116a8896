//! Ray-cast lidar and semantic lidar models, as CARLA 0.9's ray-cast
//! lidars compute them.
//!
//! The engine side stays thin. Each tick it:
//!
//! 1. calls [`Lidar::plan`] with the tick's delta and traces every ray of the
//!    returned [`RayPlan`] from the sensor's world location to
//!    `start + range · direction`, the direction being rotated by the sensor's
//!    world rotation ([`rotate_to_world`], [`ray_end_world`]);
//! 2. reports one [`LidarHit`] per planned ray (hit point and normal in the
//!    sensor frame, see [`world_point_to_sensor`] / [`rotate_to_local`]);
//! 3. calls [`Lidar::process`], which writes the whole lidar payload (header
//!    plus detections, little-endian) into the caller's buffer.
//!
//! Everything else — laser layout, horizontal stepping, the carried sweep
//! angle, intensity, noise and drop-off — lives here and is deterministic for
//! a fixed `noise_seed`.
//!
//! Payload (bytes after the 48-byte sensor header):
//! `f32 angle (radians, bit copy) | u32 C | u32[C] points per channel |
//! detections in channel order`, a detection being 16 bytes
//! (`x, y, z, intensity` f32) for the ray-cast lidar and 24 bytes
//! (`x, y, z, cos_inc` f32, `object_idx` u32, `object_tag` u32) for the
//! semantic lidar.

use crate::sensor::blueprint::{self, SensorAttributes};
#[cfg(test)]
use crate::sensor::geometry::axes;
pub use crate::sensor::geometry::{rotate_to_local, rotate_to_world, world_point_to_sensor};
use crate::types::Vector3D;
use crate::types::{ActorTransform, LidarHit, PlannedRay};
use std::fmt;

/// Bytes per ray-cast detection (`LidarDetection`).
pub const LIDAR_DETECTION_SIZE: usize = 16;
/// Bytes per semantic detection (`SemanticLidarDetection`).
pub const SEMANTIC_LIDAR_DETECTION_SIZE: usize = 24;
/// Upper bound on the rays planned in one tick (`points per laser × C`).
/// Above it [`Lidar::plan`] plans nothing and reports
/// [`PlanWarning::TooManyRays`] instead of allocating gigabytes.
pub const MAX_RAYS_PER_TICK: usize = 1 << 24;

/// Size of the lidar header for `channels` lasers: `4 · (2 + C)` bytes.
pub fn header_size(channels: u32) -> usize {
    4 * (2 + channels as usize)
}

/// Lidar attributes (CARLA's lidar blueprint). Angles in degrees, range in metres.
/// Not the 0.8 settings file's lidar section,
/// [`crate::legacy::settings::LidarSettings`], whose defaults are UE4 0.8.4's.
#[derive(Clone, Debug, PartialEq)]
pub struct LidarSettings {
    /// Number of lasers; laser 0 is the top one.
    pub channels: u32,
    /// Maximum trace distance, metres.
    pub range_m: f32,
    /// Points per second, all lasers together.
    pub points_per_second: u32,
    /// Revolutions per second (Hz).
    pub rotation_frequency: f32,
    /// Angle of the top laser, degrees (positive above the horizon).
    pub upper_fov: f32,
    /// Angle of the bottom laser, degrees.
    pub lower_fov: f32,
    /// Horizontal field of view swept, degrees, in (0, 360].
    pub horizontal_fov: f32,
    /// Intensity attenuation, 1/m: `I = exp(−rate · distance)`.
    pub atmosphere_attenuation_rate: f32,
    /// Probability of dropping a ray before it is traced (ray-cast only).
    pub dropoff_general_rate: f32,
    /// Intensity above which a point is always kept (ray-cast only).
    pub dropoff_intensity_limit: f32,
    /// Probability of dropping a point of zero intensity (ray-cast only).
    pub dropoff_zero_intensity: f32,
    /// Standard deviation of the range noise, metres (ray-cast only).
    pub noise_stddev: f32,
    /// Seed of the random generator used for drop-off and noise.
    pub noise_seed: u64,
    /// `true`: semantic lidar (24-byte detections, no drop-off, no noise).
    pub semantic: bool,
}

impl Default for LidarSettings {
    /// The `sensor.lidar.ray_cast` blueprint's defaults (the blueprint
    /// table is their one source).
    fn default() -> Self {
        let attributes = blueprint::create("sensor.lidar.ray_cast", &[])
            .expect("the ray-cast lidar is in the blueprint table");
        LidarSettings::from_attributes(&attributes, false)
    }
}

impl LidarSettings {
    /// The settings of a lidar blueprint's resolved attributes
    /// (`sensor.lidar.ray_cast`, or `_semantic` with `semantic`); a
    /// semantic lidar has no drop-off or noise attributes, which stay 0.
    pub fn from_attributes(a: &SensorAttributes, semantic: bool) -> LidarSettings {
        let f = |k: &str| a.get_f32(k).unwrap_or_default();
        LidarSettings {
            channels: resolved(a.get_u32("channels"), "channels"),
            range_m: resolved(a.get_f32("range"), "range"),
            points_per_second: resolved(a.get_u32("points_per_second"), "points_per_second"),
            rotation_frequency: resolved(a.get_f32("rotation_frequency"), "rotation_frequency"),
            upper_fov: resolved(a.get_f32("upper_fov"), "upper_fov"),
            lower_fov: resolved(a.get_f32("lower_fov"), "lower_fov"),
            horizontal_fov: resolved(a.get_f32("horizontal_fov"), "horizontal_fov"),
            atmosphere_attenuation_rate: f("atmosphere_attenuation_rate"),
            dropoff_general_rate: f("dropoff_general_rate"),
            dropoff_intensity_limit: f("dropoff_intensity_limit"),
            dropoff_zero_intensity: f("dropoff_zero_intensity"),
            noise_stddev: f("noise_stddev"),
            noise_seed: a.get_i64("noise_seed").unwrap_or_default() as u64,
            semantic,
        }
    }
}

/// An attribute every lidar blueprint resolves (a missing one is a bug of
/// the blueprint table, caught by the tests).
fn resolved<T: Default>(value: Option<T>, key: &str) -> T {
    debug_assert!(value.is_some(), "lidar blueprints define {key}");
    value.unwrap_or_default()
}

/// Errors from settings validation and [`Lidar::process`].
#[derive(Clone, Debug, PartialEq)]
pub enum LidarError {
    /// A setting is out of its domain.
    InvalidSetting { field: &'static str, reason: String },
    /// `process` got a different number of hits than rays were planned.
    HitCountMismatch { expected: usize, got: usize },
    /// A hit names a ray that was not planned.
    RayIndexOutOfRange { ray_index: u32, ray_count: usize },
    /// Two hits name the same ray.
    DuplicateRayIndex { ray_index: u32 },
    /// A hit (`hit != 0`) carries a non-finite or negative value.
    InvalidHit {
        ray_index: u32,
        reason: &'static str,
    },
}

impl fmt::Display for LidarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LidarError::InvalidSetting { field, reason } => {
                write!(f, "invalid lidar setting `{field}`: {reason}")
            }
            LidarError::HitCountMismatch { expected, got } => {
                write!(
                    f,
                    "expected one hit per planned ray ({expected}), got {got}"
                )
            }
            LidarError::RayIndexOutOfRange {
                ray_index,
                ray_count,
            } => {
                write!(
                    f,
                    "hit for ray {ray_index}, but only {ray_count} rays were planned"
                )
            }
            LidarError::DuplicateRayIndex { ray_index } => {
                write!(f, "more than one hit for ray {ray_index}")
            }
            LidarError::InvalidHit { ray_index, reason } => {
                write!(f, "hit for ray {ray_index}: {reason}")
            }
        }
    }
}

impl std::error::Error for LidarError {}

fn invalid(field: &'static str, reason: impl Into<String>) -> LidarError {
    LidarError::InvalidSetting {
        field,
        reason: reason.into(),
    }
}

impl LidarSettings {
    /// Checks every value against its domain; the error names the field.
    pub fn validate(&self) -> Result<(), LidarError> {
        if self.channels == 0 {
            return Err(invalid("channels", "must be at least 1"));
        }
        if self.points_per_second == 0 {
            return Err(invalid("points_per_second", "must be at least 1"));
        }
        const NON_NEGATIVE: (f32, f32) = (0.0, f32::INFINITY);
        const PROBABILITY: (f32, f32) = (0.0, 1.0);
        const ELEVATION: (f32, f32) = (-90.0, 90.0);
        let s = self;
        let domains = [
            ("range", s.range_m, NON_NEGATIVE),
            ("rotation_frequency", s.rotation_frequency, NON_NEGATIVE),
            ("upper_fov", s.upper_fov, ELEVATION),
            ("lower_fov", s.lower_fov, ELEVATION),
            ("horizontal_fov", s.horizontal_fov, (0.0, 360.0)),
            (
                "atmosphere_attenuation_rate",
                s.atmosphere_attenuation_rate,
                NON_NEGATIVE,
            ),
            ("dropoff_general_rate", s.dropoff_general_rate, PROBABILITY),
            (
                "dropoff_intensity_limit",
                s.dropoff_intensity_limit,
                PROBABILITY,
            ),
            (
                "dropoff_zero_intensity",
                s.dropoff_zero_intensity,
                PROBABILITY,
            ),
            ("noise_stddev", s.noise_stddev, NON_NEGATIVE),
        ];
        for (field, v, (min, max)) in domains {
            if !(v.is_finite() && v >= min && v <= max) {
                let why = format!("must be finite and in [{min}, {max}], got {v}");
                return Err(invalid(field, why));
            }
        }
        // Zero would make every trace empty / every yaw a division by zero.
        for (field, v) in [("range", s.range_m), ("horizontal_fov", s.horizontal_fov)] {
            if v == 0.0 {
                return Err(invalid(field, "must be > 0"));
            }
        }
        if self.upper_fov < self.lower_fov {
            let (u, l) = (self.upper_fov, self.lower_fov);
            return Err(invalid(
                "upper_fov",
                format!("must be >= lower_fov ({u} < {l})"),
            ));
        }
        Ok(())
    }

    /// Vertical angle of each laser, degrees: laser i = upper − i·Δ with
    /// Δ = (upper − lower)/(C − 1), Δ = 0 for a single laser.
    pub fn laser_angles_deg(&self) -> Vec<f32> {
        let c = self.channels;
        let delta = if c > 1 {
            (self.upper_fov - self.lower_fov) / (c - 1) as f32
        } else {
            0.0
        };
        (0..c).map(|i| self.upper_fov - i as f32 * delta).collect()
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a 64-bit state advanced by a
/// fixed odd increment, each output a bijective mix of the state. Small,
/// fast, and every seed (0 included) gives a full-period, well-mixed stream.
/// Only determinism for a fixed seed matters here; it does not reproduce
/// CARLA's `std::mt19937` streams.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1): the top 24 bits scaled by 2⁻²⁴ (exact in f32).
    pub(crate) fn uniform_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Uniform in [0, 1) with 53 bits.
    fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Normal sample N(mean, stddev) by the Box–Muller transform (the cosine
    /// branch only, so every sample consumes exactly two draws):
    /// `mean + stddev · sqrt(−2 ln u1) · cos(2π u2)` with u1 in (0, 1].
    pub(crate) fn normal_f32(&mut self, mean: f32, stddev: f32) -> f32 {
        let u1 = 1.0 - self.uniform_f64();
        let u2 = self.uniform_f64();
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        mean + stddev * z as f32
    }
}

/// Why a tick planned no rays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanWarning {
    /// `points_per_second · dt / C` rounds to 0 (or dt is not positive):
    /// nothing simulated and the sweep angle is not advanced.
    ZeroPoints,
    /// More than [`MAX_RAYS_PER_TICK`] rays would be needed (huge dt):
    /// nothing simulated and the sweep angle is not advanced.
    TooManyRays { requested: u64 },
}

/// The rays of one tick: a view into the lidar's reused buffers.
#[derive(Clone, Copy, Debug)]
pub struct RayPlan<'a> {
    rays: &'a [PlannedRay],
    yaw_deg: &'a [f32],
    laser_pitch_deg: &'a [f32],
    range_m: f32,
    points_per_channel: u32,
    warning: Option<PlanWarning>,
}

impl<'a> RayPlan<'a> {
    /// Rays to trace, grouped by channel in channel order. Rays dropped
    /// before tracing (ray-cast `dropoff_general_rate`) are not listed.
    pub fn rays(&self) -> &'a [PlannedRay] {
        self.rays
    }
    pub fn ray_count(&self) -> usize {
        self.rays.len()
    }
    /// Trace length, metres.
    pub fn range_m(&self) -> f32 {
        self.range_m
    }
    /// Rays per laser before the pre-trace drop-off.
    pub fn points_per_channel(&self) -> u32 {
        self.points_per_channel
    }
    /// Rays removed by the pre-trace drop-off this tick.
    pub fn dropped_before_trace(&self) -> usize {
        self.points_per_channel as usize * self.laser_pitch_deg.len() - self.rays.len()
    }
    pub fn warning(&self) -> Option<PlanWarning> {
        self.warning
    }
    /// Vertical angle of ray `i`, degrees. Panics if `i >= ray_count()`.
    pub fn pitch_deg(&self, i: usize) -> f32 {
        self.laser_pitch_deg[self.rays[i].channel as usize]
    }
    /// Horizontal angle of ray `i` relative to the sensor's forward axis,
    /// degrees, in [−hfov/2, hfov/2). Panics if `i >= ray_count()`.
    pub fn yaw_deg(&self, i: usize) -> f32 {
        self.yaw_deg[i]
    }
}

/// Counters of one [`Lidar::process`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessStats {
    /// Rays traced (= hits passed in).
    pub rays: usize,
    /// Rays that hit something.
    pub hits: usize,
    /// Detections written.
    pub kept: usize,
    /// Hits removed by the intensity drop-off (always 0 for semantic).
    pub dropped: usize,
    /// Bytes appended to the output.
    pub bytes: usize,
}

const NO_SLOT: u32 = u32::MAX;

/// A lidar instance: settings, laser layout, carried sweep angle, RNG and
/// the per-tick buffers (reused; no allocation once a tick size was seen).
#[derive(Clone, Debug)]
pub struct Lidar {
    settings: LidarSettings,
    laser_pitch_deg: Vec<f32>,
    /// Sweep angle carried between ticks, degrees in [0, hfov).
    angle_deg: f32,
    rng: SplitMix64,
    rays: Vec<PlannedRay>,
    ray_yaw_deg: Vec<f32>,
    points_per_channel: u32,
    warning: Option<PlanWarning>,
    /// ray index → index of its entry in the `hits` slice.
    slots: Vec<u32>,
    counts: Vec<u32>,
}

impl Lidar {
    /// Validates the settings and precomputes the laser angles.
    pub fn new(settings: LidarSettings) -> Result<Lidar, LidarError> {
        settings.validate()?;
        Ok(Lidar {
            laser_pitch_deg: settings.laser_angles_deg(),
            angle_deg: 0.0,
            rng: SplitMix64::new(settings.noise_seed),
            rays: Vec::new(),
            ray_yaw_deg: Vec::new(),
            points_per_channel: 0,
            warning: None,
            slots: Vec::new(),
            counts: Vec::new(),
            settings,
        })
    }

    pub fn settings(&self) -> &LidarSettings {
        &self.settings
    }
    /// Vertical angle of each laser, degrees (laser 0 first).
    pub fn laser_angles_deg(&self) -> &[f32] {
        &self.laser_pitch_deg
    }
    /// Carried sweep angle, degrees in [0, hfov).
    pub fn horizontal_angle_deg(&self) -> f32 {
        self.angle_deg
    }
    /// Carried sweep angle in radians, as written into the header.
    pub fn horizontal_angle_rad(&self) -> f32 {
        (self.angle_deg as f64).to_radians() as f32
    }

    /// Plans the rays of a tick of `dt` seconds and advances the sweep angle.
    pub fn plan(&mut self, dt: f32) -> RayPlan<'_> {
        self.rays.clear();
        self.ray_yaw_deg.clear();
        self.points_per_channel = 0;
        self.warning = None;
        let s = &self.settings;
        let c = s.channels as usize;
        let raw = s.points_per_second as f32 * dt / s.channels as f32;
        // f32::round rounds half away from zero, like UE's RoundHalfFromZero.
        let per_laser = if raw.is_finite() && raw > 0.0 {
            raw.round()
        } else {
            0.0
        };
        if per_laser < 1.0 {
            self.warning = Some(PlanWarning::ZeroPoints);
            return self.last_plan();
        }
        let requested = per_laser as u64 * c as u64;
        if requested > MAX_RAYS_PER_TICK as u64 {
            self.warning = Some(PlanWarning::TooManyRays { requested });
            return self.last_plan();
        }
        let per_laser = per_laser as u32;
        let hfov = s.horizontal_fov;
        let swept = s.rotation_frequency * hfov * dt;
        let step = swept / per_laser as f32;
        let current = self.angle_deg;
        let drop_rate = if s.semantic {
            0.0
        } else {
            s.dropoff_general_rate
        };
        self.rays.reserve(requested as usize);
        self.ray_yaw_deg.reserve(requested as usize);
        for (channel, &pitch) in self.laser_pitch_deg.iter().enumerate() {
            let (sin_p, cos_p) = pitch.to_radians().sin_cos();
            for j in 0..per_laser {
                if drop_rate > 0.0 && self.rng.uniform_f32() < drop_rate {
                    continue;
                }
                let yaw = (current + j as f32 * step) % hfov - hfov / 2.0;
                let (sin_y, cos_y) = yaw.to_radians().sin_cos();
                self.rays.push(PlannedRay {
                    channel: channel as u32,
                    direction: vec3(cos_p * cos_y, cos_p * sin_y, sin_p),
                });
                self.ray_yaw_deg.push(yaw);
            }
        }
        self.points_per_channel = per_laser;
        self.angle_deg = (current + swept) % hfov;
        self.last_plan()
    }

    /// The plan made by the last [`Lidar::plan`] call (empty before it).
    pub fn last_plan(&self) -> RayPlan<'_> {
        RayPlan {
            rays: &self.rays,
            yaw_deg: &self.ray_yaw_deg,
            laser_pitch_deg: &self.laser_pitch_deg,
            range_m: self.settings.range_m,
            points_per_channel: self.points_per_channel,
            warning: self.warning,
        }
    }

    /// Turns the hits of the last plan into a payload appended to `out`.
    /// `hits` must hold exactly one entry per planned ray, in any order. On
    /// error `out` is left untouched and no random number is consumed.
    pub fn process(
        &mut self,
        hits: &[LidarHit],
        out: &mut Vec<u8>,
    ) -> Result<ProcessStats, LidarError> {
        let ray_count = self.rays.len();
        if hits.len() != ray_count {
            return Err(LidarError::HitCountMismatch {
                expected: ray_count,
                got: hits.len(),
            });
        }
        // Validation pass over the hits (nothing written yet).
        self.slots.clear();
        self.slots.resize(ray_count, NO_SLOT);
        let mut hit_count = 0;
        for (k, h) in hits.iter().enumerate() {
            let slot =
                self.slots
                    .get_mut(h.ray_index as usize)
                    .ok_or(LidarError::RayIndexOutOfRange {
                        ray_index: h.ray_index,
                        ray_count,
                    })?;
            if *slot != NO_SLOT {
                return Err(LidarError::DuplicateRayIndex {
                    ray_index: h.ray_index,
                });
            }
            *slot = k as u32;
            if h.hit != 0 {
                hit_count += 1;
                check_hit(h)?;
            }
        }
        // Count == ray count, all in range, no duplicate: every slot is set.
        let semantic = self.settings.semantic;
        let det_size = if semantic {
            SEMANTIC_LIDAR_DETECTION_SIZE
        } else {
            LIDAR_DETECTION_SIZE
        };
        let channels = self.settings.channels;
        let start = out.len();
        // Room for every ray the plans have held (not just this tick's
        // hits): the pooled block then stops growing after the first tick,
        // however the drop-off and the scene vary the hit count.
        out.reserve(header_size(channels) + self.rays.capacity().max(hit_count) * det_size);
        put_u32(out, self.horizontal_angle_rad().to_bits());
        put_u32(out, channels);
        out.resize(start + header_size(channels), 0);
        self.counts.clear();
        self.counts.resize(channels as usize, 0);

        let mut stats = ProcessStats {
            rays: ray_count,
            hits: hit_count,
            ..Default::default()
        };
        for (ray, &slot) in self.rays.iter().zip(&self.slots) {
            let h = &hits[slot as usize];
            if h.hit == 0 {
                continue;
            }
            if semantic {
                let cos_inc = dot(neg(normalized(h.point_sensor)), normalized(h.normal_sensor));
                put_vec(out, h.point_sensor);
                put_u32(out, cos_inc.to_bits());
                put_u32(out, h.actor_id);
                put_u32(out, h.semantic_tag);
            } else {
                let s = &self.settings;
                let intensity = (-s.atmosphere_attenuation_rate * h.distance_m).exp();
                let mut p = h.point_sensor;
                if s.noise_stddev > 0.0 {
                    let n = self.rng.normal_f32(0.0, s.noise_stddev);
                    p = add(p, scale(normalized(p), n));
                }
                if !keep_after_dropoff(&mut self.rng, s, intensity) {
                    stats.dropped += 1;
                    continue;
                }
                put_vec(out, p);
                put_u32(out, intensity.to_bits());
            }
            self.counts[ray.channel as usize] += 1;
            stats.kept += 1;
        }
        for (i, &n) in self.counts.iter().enumerate() {
            let at = start + 8 + 4 * i;
            out[at..at + 4].copy_from_slice(&n.to_le_bytes());
        }
        stats.bytes = out.len() - start;
        Ok(stats)
    }
}

/// Intensity drop-off (the formula of CARLA's code): always keep
/// above the limit, else keep with probability α·I + β, α = zero/limit,
/// β = 1 − zero. A limit of 0 leaves only I = 0 here, kept with β.
fn keep_after_dropoff(rng: &mut SplitMix64, s: &LidarSettings, intensity: f32) -> bool {
    if intensity > s.dropoff_intensity_limit {
        return true;
    }
    let alpha = if s.dropoff_intensity_limit > 0.0 {
        s.dropoff_zero_intensity / s.dropoff_intensity_limit
    } else {
        0.0
    };
    let beta = 1.0 - s.dropoff_zero_intensity;
    rng.uniform_f32() < alpha * intensity + beta
}

fn check_hit(h: &LidarHit) -> Result<(), LidarError> {
    let bad = |reason| {
        Err(LidarError::InvalidHit {
            ray_index: h.ray_index,
            reason,
        })
    };
    if !(h.distance_m.is_finite() && h.distance_m >= 0.0) {
        return bad("distance must be finite and >= 0");
    }
    if !finite(h.point_sensor) {
        return bad("hit point must be finite");
    }
    if !finite(h.normal_sensor) {
        return bad("normal must be finite");
    }
    Ok(())
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_vec(out: &mut Vec<u8>, v: Vector3D) {
    for c in [v.x, v.y, v.z] {
        put_u32(out, c.to_bits());
    }
}

fn vec3(x: f32, y: f32, z: f32) -> Vector3D {
    Vector3D { x, y, z }
}

fn finite(v: Vector3D) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

fn dot(a: Vector3D, b: Vector3D) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

fn neg(v: Vector3D) -> Vector3D {
    vec3(-v.x, -v.y, -v.z)
}

fn add(a: Vector3D, b: Vector3D) -> Vector3D {
    vec3(a.x + b.x, a.y + b.y, a.z + b.z)
}

fn scale(v: Vector3D, k: f32) -> Vector3D {
    vec3(v.x * k, v.y * k, v.z * k)
}

/// `v / |v|` (component-wise division), or zero for a (near) zero vector.
fn normalized(v: Vector3D) -> Vector3D {
    let len = dot(v, v).sqrt();
    if len > 1e-8 {
        vec3(v.x / len, v.y / len, v.z / len)
    } else {
        Vector3D::default()
    }
}

/// World end point of a trace: `location + range · (rotation · direction)`.
pub fn ray_end_world(sensor: &ActorTransform, direction: Vector3D, range_m: f32) -> Vector3D {
    let dir_world = rotate_to_world(&sensor.rotation, direction);
    add(sensor.location, scale(dir_world, range_m))
}

#[cfg(test)]
mod tests;
