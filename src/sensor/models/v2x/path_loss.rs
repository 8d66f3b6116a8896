//! Radio propagation between two V2X antennas: the path loss of the link
//! by its state (line of sight, blocked by vehicles, blocked by buildings
//! or terrain), shadow fading, and the received power against the
//! receiver's sensitivity, with the models and attributes CARLA 0.9.16
//! documents for `sensor.other.v2x`:
//!
//! * `winner` (WINNER+ B1, as ETSI TR 103 257-1 uses it):
//!   LOS and vehicle-blocked: highway `32.4 + 20 log10 d + 20 log10 f`,
//!   rural / urban `38.77 + 16.7 log10 d + 18.2 log10 f`; blocked:
//!   `36.85 + 30 log10 d + 18.9 log10 f` (d in m, f in GHz).
//! * `geometric`: LOS is the two-ray ground-reflection model (relative
//!   permittivity 1.02); blocked is the log-distance model
//!   `FSPL(d_ref) + 10 n log10(d / d_ref)` with `path_loss_exponent` n;
//!   vehicle-blocked is free space `20 log10(4 pi d / lambda)`.
//! * vehicles in the way add the loss of the worst knife edge (ITU-R
//!   P.526: `6.9 + 20 log10(sqrt((v - 0.1)^2 + 1) + v - 0.1)` for
//!   v > -0.78), v from the obstacle's height above the line of sight.
//!   (CARLA takes its height above the ground, which overstates the loss.)
//! * shadow fading: a normal draw with the ETSI standard deviation for the
//!   state and scenario (`use_etsi_fading`), else `custom_fading_stddev`.
//!
//! A message is received when the 3D distance is below `filter_distance`
//! and `P_tx + combined_antenna_gain - loss >= receiver_sensitivity`.

use crate::sensor::models::lidar::SplitMix64;

const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Relative permittivity of the ground in the two-ray model.
const GROUND_PERMITTIVITY: f64 = 1.02;

/// `path_loss_model`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Model {
    Geometric,
    #[default]
    Winner,
}

/// `scenario`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scenario {
    #[default]
    Highway,
    Rural,
    Urban,
}

/// A receiver's propagation settings (its blueprint's attributes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Propagation {
    /// dBm.
    pub transmit_power: f32,
    /// dBm.
    pub receiver_sensitivity: f32,
    pub frequency_ghz: f32,
    /// dBi.
    pub combined_antenna_gain: f32,
    pub path_loss_exponent: f32,
    /// m.
    pub reference_distance: f32,
    /// m.
    pub filter_distance: f32,
    pub use_etsi_fading: bool,
    /// dB.
    pub custom_fading_stddev: f32,
    pub model: Model,
    pub scenario: Scenario,
}

impl Default for Propagation {
    /// CARLA's defaults.
    fn default() -> Self {
        Propagation {
            transmit_power: 21.5,
            receiver_sensitivity: -99.0,
            frequency_ghz: 5.9,
            combined_antenna_gain: 10.0,
            path_loss_exponent: 2.7,
            reference_distance: 1.0,
            filter_distance: 500.0,
            use_etsi_fading: true,
            custom_fading_stddev: 0.0,
            model: Model::Winner,
            scenario: Scenario::Highway,
        }
    }
}

/// A vehicle between the antennas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Obstruction {
    /// Horizontal distances from the transmitter and to the receiver, m.
    pub from_tx: f32,
    pub to_rx: f32,
    /// Height of its top above the line of sight there, m (negative: the
    /// line passes above it).
    pub height: f32,
}

/// What lies on the straight line between the antennas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Path<'a> {
    Clear,
    /// Only vehicles (`NLOSv`).
    Vehicles(&'a [Obstruction]),
    /// A building, the terrain or other static geometry (`NLOSb`).
    Blocked,
}

/// One link: the 3D distance between the antennas and their heights above
/// the lower of the two stations' ground (m), as the two-ray model wants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link<'a> {
    pub distance: f32,
    pub tx_height: f32,
    pub rx_height: f32,
    pub path: Path<'a>,
}

/// The random draws of a receiver's fading: a seeded generator, so the
/// same seed gives the same draws (runs repeat).
pub struct Fading(SplitMix64);

impl Fading {
    pub fn new(seed: u64) -> Fading {
        Fading(SplitMix64::new(seed))
    }
}

impl Propagation {
    fn lambda(&self) -> f64 {
        SPEED_OF_LIGHT / (f64::from(self.frequency_ghz) * 1e9)
    }

    /// The power (dBm) at which a message sent with `tx_power` (dBm)
    /// arrives over `link`, `None` when it does not (too far, too weak).
    pub fn received_power(&self, tx_power: f32, link: &Link, fading: &mut Fading) -> Option<f32> {
        let d = f64::from(link.distance);
        if !(d.is_finite() && d < f64::from(self.filter_distance)) {
            return None;
        }
        // Below a centimetre the models' logarithms mean nothing.
        let d = d.max(0.01);
        let loss = self.path_loss(d, link) + self.fading(&link.path, &mut fading.0);
        let power = f64::from(tx_power) + f64::from(self.combined_antenna_gain) - loss;
        (power.is_finite() && power >= f64::from(self.receiver_sensitivity)).then_some(power as f32)
    }

    /// Path loss without fading, dB.
    pub fn path_loss(&self, d: f64, link: &Link) -> f64 {
        let f = f64::from(self.frequency_ghz);
        let vehicles = |path: &Path| match path {
            Path::Vehicles(o) => self.vehicle_loss(o),
            _ => 0.0,
        };
        match self.model {
            Model::Winner => {
                let base = match (link.path, self.scenario) {
                    (Path::Blocked, _) => 36.85 + 30.0 * d.log10() + 18.9 * f.log10(),
                    (_, Scenario::Highway) => 32.4 + 20.0 * d.log10() + 20.0 * f.log10(),
                    _ => 38.77 + 16.7 * d.log10() + 18.2 * f.log10(),
                };
                base + vehicles(&link.path)
            }
            Model::Geometric => match link.path {
                Path::Clear => self.two_ray(d, link.tx_height.into(), link.rx_height.into()),
                Path::Blocked => {
                    let d0 = f64::from(self.reference_distance).max(1e-3);
                    self.free_space(d0)
                        + 10.0 * f64::from(self.path_loss_exponent) * (d / d0).log10()
                }
                Path::Vehicles(_) => self.free_space(d) + vehicles(&link.path),
            },
        }
    }

    /// Free-space loss at `d` m, dB.
    fn free_space(&self, d: f64) -> f64 {
        20.0 * (4.0 * std::f64::consts::PI * d / self.lambda()).log10()
    }

    /// Two-ray ground reflection with the reflection coefficient of a
    /// vertically polarised wave; heights clamped to a centimetre.
    fn two_ray(&self, d: f64, ht: f64, hr: f64) -> f64 {
        let (ht, hr) = (ht.max(0.01), hr.max(0.01));
        let lambda = self.lambda();
        let ground = (d * d - (ht - hr).powi(2)).max(1e-6).sqrt();
        let reflected = (d * d + 4.0 * ht * hr).sqrt();
        let sin = (ht + hr) / reflected;
        let cos = ground / reflected;
        let root = (GROUND_PERMITTIVITY - cos * cos).sqrt();
        let gamma = (sin - root) / (sin + root);
        let phi = std::f64::consts::TAU / lambda * (d - reflected);
        let sum = ((1.0 + gamma * phi.cos()).powi(2) + (gamma * phi.sin()).powi(2)).sqrt();
        20.0 * (4.0 * std::f64::consts::PI * ground / lambda / sum.max(1e-9)).log10()
    }

    /// The worst single knife edge among the vehicles in the way, dB.
    fn vehicle_loss(&self, obstructions: &[Obstruction]) -> f64 {
        let lambda = self.lambda();
        obstructions
            .iter()
            .map(|o| {
                let (d1, d2) = (f64::from(o.from_tx).max(0.01), f64::from(o.to_rx).max(0.01));
                let v = f64::from(o.height) * (2.0 * (d1 + d2) / (lambda * d1 * d2)).sqrt();
                if v > -0.78 {
                    let t = v - 0.1;
                    6.9 + 20.0 * ((t * t + 1.0).sqrt() + t).log10()
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max)
    }

    /// Shadow fading, dB.
    fn fading(&self, path: &Path, rng: &mut SplitMix64) -> f64 {
        let stddev = if self.use_etsi_fading {
            match (path, self.scenario) {
                (Path::Blocked, _) => 6.8,
                (Path::Clear, Scenario::Highway) => 3.3,
                (Path::Clear, Scenario::Rural) => 4.25,
                (Path::Clear, Scenario::Urban) => 5.2,
                (Path::Vehicles(_), Scenario::Highway) => 3.8,
                (Path::Vehicles(_), Scenario::Rural) => 4.55,
                (Path::Vehicles(_), Scenario::Urban) => 5.3,
            }
        } else {
            self.custom_fading_stddev.max(0.0)
        };
        if stddev == 0.0 {
            return 0.0;
        }
        f64::from(rng.normal_f32(0.0, stddev))
    }
}
