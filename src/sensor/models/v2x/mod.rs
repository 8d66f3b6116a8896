//! V2X: `sensor.other.v2x` (Cooperative Awareness Messages each equipped
//! station generates) and `sensor.other.v2x_custom` (texts a client sends
//! with `sensor.send(...)`), the way CARLA 0.9.16 models them, with the
//! engine side thin: the host says each tick where the stations are and
//! what lies between two antennas; generation ([`ca_service`]),
//! propagation ([`path_loss`]) and the bytes the client decodes ([`cam`])
//! live here.
//!
//! Each tick a host
//! 1. asks every V2X sensor's [`CaService`] whether its parent sends a CAM
//!    now ([`CaService::trigger`]) and keeps the messages of this tick with
//!    the sender's `transmit_power`;
//! 2. for every sensor, for every message of another station, finds the
//!    link between the two antennas and asks the receiver's
//!    [`Propagation::received_power`];
//! 3. writes what was received ([`cam::write_cam`], [`cam::write_custom`])
//!    as the sensor's data, and sends nothing when nothing was received
//!    (as CARLA).

pub mod ca_service;
pub mod cam;
pub mod path_loss;
#[cfg(test)]
mod tests;

pub use ca_service::{CaService, CamSettings, StationKind, StationState};
pub use cam::{Cam, PduHeader};
pub use path_loss::{Fading, Link, Model, Obstruction, Path, Propagation, Scenario};

use crate::types::Vector3D;

/// A V2X sensor's attributes, parsed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct V2xSettings {
    pub propagation: Propagation,
    /// `sensor.other.v2x` only.
    pub cam: CamSettings,
    pub noise_seed: u64,
}

impl V2xSettings {
    /// From a blueprint's `(id, value)` attributes; a missing or unreadable
    /// value keeps CARLA's default (the library checked them at spawn).
    pub fn from_attributes<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> V2xSettings {
        let mut s = V2xSettings::default();
        let (p, c) = (&mut s.propagation, &mut s.cam);
        for (key, value) in pairs {
            let f = value.trim().parse::<f32>().ok().filter(|v| v.is_finite());
            let b = value.trim().eq_ignore_ascii_case("true");
            let set = |slot: &mut f32| {
                if let Some(v) = f {
                    *slot = v;
                }
            };
            match key {
                "transmit_power" => set(&mut p.transmit_power),
                "receiver_sensitivity" => set(&mut p.receiver_sensitivity),
                "frequency_ghz" => set(&mut p.frequency_ghz),
                "combined_antenna_gain" => set(&mut p.combined_antenna_gain),
                "path_loss_exponent" => set(&mut p.path_loss_exponent),
                "d_ref" => set(&mut p.reference_distance),
                "filter_distance" => set(&mut p.filter_distance),
                "custom_fading_stddev" => set(&mut p.custom_fading_stddev),
                "use_etsi_fading" => p.use_etsi_fading = b,
                "path_loss_model" => {
                    p.model = if value == "winner" {
                        Model::Winner
                    } else {
                        Model::Geometric
                    }
                }
                "scenario" => {
                    p.scenario = match value {
                        "highway" => Scenario::Highway,
                        "rural" => Scenario::Rural,
                        _ => Scenario::Urban,
                    }
                }
                "gen_cam_min" => set(&mut c.gen_cam_min),
                "gen_cam_max" => set(&mut c.gen_cam_max),
                "fixed_rate" => c.fixed_rate = b,
                "noise_lat_stddev" => set(&mut c.latitude_noise.0),
                "noise_lat_bias" => set(&mut c.latitude_noise.1),
                "noise_lon_stddev" => set(&mut c.longitude_noise.0),
                "noise_lon_bias" => set(&mut c.longitude_noise.1),
                "noise_alt_stddev" => set(&mut c.altitude_noise.0),
                "noise_alt_bias" => set(&mut c.altitude_noise.1),
                "noise_head_stddev" => set(&mut c.heading_noise.0),
                "noise_head_bias" => set(&mut c.heading_noise.1),
                "noise_accel_stddev_x" => set(&mut c.acceleration_stddev.x),
                "noise_accel_stddev_y" => set(&mut c.acceleration_stddev.y),
                "noise_accel_stddev_z" => set(&mut c.acceleration_stddev.z),
                "noise_yawrate_stddev" => set(&mut c.yaw_rate_noise.0),
                "noise_yawrate_bias" => set(&mut c.yaw_rate_noise.1),
                "noise_vel_stddev_x" => set(&mut c.speed_stddev),
                "noise_seed" => s.noise_seed = value.trim().parse().unwrap_or(0),
                _ => {}
            }
        }
        s.cam.gen_cam_max = s.cam.gen_cam_max.max(s.cam.gen_cam_min);
        s
    }
}

/// Where a station's antenna is: on top of its box (`location` is the
/// box's bottom centre, `height` its full height), as CARLA puts it.
pub fn antenna(location: Vector3D, height: f32) -> Vector3D {
    Vector3D {
        z: location.z + height,
        ..location
    }
}
