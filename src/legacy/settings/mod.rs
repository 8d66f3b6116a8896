//! The client's `CarlaSettings.ini`, parsed for any engine host.
//!
//! [`parse`] reads one settings text over the previous settings: like UE4,
//! each load only overrides the keys that are present, except that the
//! sensor list is rebuilt from scratch and `QualityLevel` falls back to
//! [`QualityLevel::None`] when missing. [`Settings::default`] holds UE4's
//! defaults. The C API is in [`crate::ffi`] (`carla_settings_parse`, ...).
//!
//! # Text
//! `[Section]` headers, `Key=Value` lines and `;` comments; section and key
//! names are compared case-insensitively, and so are the words of boolean,
//! `SensorType`, `PostProcessing` and `QualityLevel` values. Details of the
//! ini layer (quotes, duplicates, `#` comments) are in `ini.rs`.
//!
//! # Keys
//! `[CARLA/Server]` `UseNetworking`, `WorldPort`, `ServerTimeOut` (server-side
//! only: a host applies them from its own files, never from a client's
//! request, as 0.8.4 did), `SynchronousMode`, `SendNonPlayerAgentsInfo`;
//! `[CARLA/QualitySettings]` `QualityLevel`; `[CARLA/LevelSettings]`
//! `PlayerVehicle`, `NumberOfVehicles`, `NumberOfPedestrians`, `WeatherId`,
//! `SeedVehicles`, `SeedPedestrians`, `DisableTwoWheeledVehicles`;
//! `[CARLA/Sensor]` `Sensors` (comma-separated names, empty items ignored).
//!
//! Each sensor `A/B` reads its keys from `[CARLA/Sensor]`, then
//! `[CARLA/Sensor/A]`, then `[CARLA/Sensor/A/B]`, the deepest section that
//! has a key winning; `PostProcessing` alone is not inherited (only the
//! sensor's own section counts, otherwise `SceneFinal`), as in UE4.
//! `SensorName` (written by the Python client, ignored by UE4) is accepted
//! and ignored. Any other key is logged once per parse as a warning and
//! listed in [`Settings::unknown_keys`].
//!
//! # Values and bounds
//! Booleans: `True`/`False`, `Yes`/`No`, `On`/`Off` or an integer (non-zero is
//! true). Integers are parsed as 64-bit, then range-checked. Floats must be
//! finite. Where UE4 logs and keeps going (an integer out of range, garbage
//! in a float, an unknown `SensorType`, `PostProcessing` or `QualityLevel`)
//! this parser returns a [`SettingsError`] instead, so that the client gets a
//! clear failed episode rather than a sensor that silently differs from what
//! it asked for (UE4 would send image type 5 for an invalid
//! `PostProcessing`, which no client can decode).
//!
//! | Key | Accepted | 0 means |
//! |---|---|---|
//! | `WorldPort` | 0 to 65535 | |
//! | `ServerTimeOut` (ms), `NumberOfVehicles`, `NumberOfPedestrians` | 0 to 2³²−1 | |
//! | `WeatherId`, `SeedVehicles`, `SeedPedestrians` | −2³¹ to 2³¹−1 | |
//! | `PositionX/Y/Z` (metres) | −10000 to 10000 | |
//! | `RotationPitch/Yaw/Roll` (degrees) | −360 to 360 | |
//! | `ImageSizeX`, `ImageSizeY` | 0 to 16384 | 720, 512 |
//! | `FOV` (degrees) | greater than 0, less than 180 | |
//! | `Channels` | 0 to 256 | 32 |
//! | `Range` (metres) | greater than 0, at most 1000 | |
//! | `PointsPerSecond` | 0 to 10,000,000 | 56000 |
//! | `RotationFrequency` (Hz) | greater than 0, at most 1000 | |
//! | `UpperFovLimit`, `LowerFovLimit` (degrees) | −90 to 90, upper ≥ lower | |
//!
//! The sensor bounds are those of the library's 0.9 blueprints
//! ([`crate::sensor::blueprint`]), so a parsed lidar always passes the lidar
//! model's validation. Positions stay in metres (UE4 stores centimetres).

mod budget;
mod error;
mod ini;
#[cfg(test)]
mod tests;

pub use budget::{frame_bytes, Budget, LIDAR_BYTES_PER_POINT};
pub use error::{Location, SettingsError};

use crate::types::{Rotation3D, Vector3D, CARLA_SERVER_CAMERA, CARLA_SERVER_LIDAR_RAY_CAST};
use ini::{Found, Ini};
use std::collections::HashSet;
use std::num::IntErrorKind;
use std::ops::Bound::{self, Excluded, Included};
use std::str::FromStr;

const SERVER: &str = "CARLA/Server";
const QUALITY: &str = "CARLA/QualitySettings";
const LEVEL: &str = "CARLA/LevelSettings";
const SENSOR: &str = "CARLA/Sensor";

const SERVER_KEYS: &[&str] = &[
    "UseNetworking",
    "WorldPort",
    "ServerTimeOut",
    "SynchronousMode",
    "SendNonPlayerAgentsInfo",
];
const QUALITY_KEYS: &[&str] = &["QualityLevel"];
const LEVEL_KEYS: &[&str] = &[
    "PlayerVehicle",
    "NumberOfVehicles",
    "NumberOfPedestrians",
    "WeatherId",
    "SeedVehicles",
    "SeedPedestrians",
    "DisableTwoWheeledVehicles",
];
/// Keys of any sensor section (`[CARLA/Sensor]` also has `Sensors`).
const SENSOR_KEYS: &[&str] = &[
    "SensorType",
    "SensorName",
    "PositionX",
    "PositionY",
    "PositionZ",
    "RotationPitch",
    "RotationYaw",
    "RotationRoll",
    "PostProcessing",
    "ImageSizeX",
    "ImageSizeY",
    "FOV",
    "Channels",
    "Range",
    "PointsPerSecond",
    "RotationFrequency",
    "UpperFovLimit",
    "LowerFovLimit",
    "ShowDebugPoints",
];

const MAX_IMAGE_SIZE: u64 = 16384;
const MAX_CHANNELS: u64 = 256;
const MAX_POINTS_PER_SECOND: u64 = 10_000_000;
const MAX_POSITION_M: f64 = 10_000.0;
const MAX_ROTATION_DEG: f64 = 360.0;

/// `[CARLA/QualitySettings] QualityLevel`. `None` means "no change": what a
/// text without the key (or UE4 with an unknown value) gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum QualityLevel {
    None = 0,
    Low = 1,
    Medium = 2,
    High = 3,
    #[default]
    Epic = 4,
}

/// A camera's `PostProcessing`; the numbers are the 0.8 image types of the
/// sensor data header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PostProcessing {
    None = 0,
    #[default]
    SceneFinal = 1,
    Depth = 2,
    SemanticSegmentation = 3,
}

/// `[CARLA/LevelSettings]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelSettings {
    /// UE class path of the player's pawn; empty for the default.
    pub player_vehicle: String,
    pub number_of_vehicles: u32,
    pub number_of_pedestrians: u32,
    /// Index into the map's weather presets; negative keeps the map default
    /// (a host maps ids past its last preset to -1).
    pub weather_id: i32,
    pub seed_vehicles: i32,
    pub seed_pedestrians: i32,
    pub disable_two_wheeled_vehicles: bool,
}

impl Default for LevelSettings {
    /// UE4's defaults (the Python client sends 20 vehicles, 30 pedestrians).
    fn default() -> Self {
        LevelSettings {
            player_vehicle: String::new(),
            number_of_vehicles: 5,
            number_of_pedestrians: 15,
            weather_id: -1,
            seed_vehicles: 123_456_789,
            seed_pedestrians: 123_456_789,
            disable_two_wheeled_vehicles: false,
        }
    }
}

/// A `SensorType=CAMERA` sensor.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraSettings {
    /// The name as listed in `Sensors` (may contain `/`).
    pub name: String,
    pub post_processing: PostProcessing,
    /// Pixels.
    pub image_size_x: u32,
    pub image_size_y: u32,
    /// Horizontal field of view, degrees.
    pub fov: f32,
    /// Relative to the player's vehicle, metres.
    pub position: Vector3D,
    /// Relative to the player's vehicle, degrees.
    pub rotation: Rotation3D,
}

impl Default for CameraSettings {
    /// UE4's defaults, with an empty name.
    fn default() -> Self {
        CameraSettings {
            name: String::new(),
            post_processing: PostProcessing::SceneFinal,
            image_size_x: 720,
            image_size_y: 512,
            fov: 90.0,
            position: DEFAULT_POSITION,
            rotation: Rotation3D::default(),
        }
    }
}

/// A `SensorType=LIDAR_RAY_CAST` sensor (the 0.8 lidar).
/// Not the 0.9 lidar model's settings, [`crate::sensor::LidarSettings`]
/// (a blueprint's attributes, CARLA 0.9's defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct LidarSettings {
    /// The name as listed in `Sensors` (may contain `/`).
    pub name: String,
    /// Number of lasers.
    pub channels: u32,
    /// Maximum distance, metres.
    pub range_m: f32,
    /// Points per second, all lasers together.
    pub points_per_second: u32,
    /// Revolutions per second (Hz).
    pub rotation_frequency: f32,
    /// Angle of the top laser, degrees.
    pub upper_fov: f32,
    /// Angle of the bottom laser, degrees.
    pub lower_fov: f32,
    pub show_debug_points: bool,
    /// Relative to the player's vehicle, metres.
    pub position: Vector3D,
    /// Relative to the player's vehicle, degrees.
    pub rotation: Rotation3D,
}

impl Default for LidarSettings {
    /// UE4's defaults, with an empty name.
    fn default() -> Self {
        LidarSettings {
            name: String::new(),
            channels: 32,
            range_m: 50.0,
            points_per_second: 56_000,
            rotation_frequency: 10.0,
            upper_fov: 10.0,
            lower_fov: -30.0,
            show_debug_points: false,
            position: DEFAULT_POSITION,
            rotation: Rotation3D::default(),
        }
    }
}

/// UE4's sensor position, metres (the Python client sends 0.2, 0, 1.3).
const DEFAULT_POSITION: Vector3D = Vector3D {
    x: 1.7,
    y: 0.0,
    z: 1.5,
};

/// One sensor of `Sensors`, in list order.
#[derive(Clone, Debug, PartialEq)]
pub enum SensorSettings {
    Camera(CameraSettings),
    Lidar(LidarSettings),
}

impl SensorSettings {
    pub fn name(&self) -> &str {
        match self {
            SensorSettings::Camera(c) => &c.name,
            SensorSettings::Lidar(l) => &l.name,
        }
    }

    /// `CARLA_SERVER_CAMERA` (101) or `CARLA_SERVER_LIDAR_RAY_CAST` (102),
    /// the type of the scene description's sensor definition.
    pub fn type_id(&self) -> u32 {
        match self {
            SensorSettings::Camera(_) => CARLA_SERVER_CAMERA,
            SensorSettings::Lidar(_) => CARLA_SERVER_LIDAR_RAY_CAST,
        }
    }

    /// Metres, relative to the player's vehicle.
    pub fn position(&self) -> Vector3D {
        match self {
            SensorSettings::Camera(c) => c.position,
            SensorSettings::Lidar(l) => l.position,
        }
    }

    /// Degrees, relative to the player's vehicle.
    pub fn rotation(&self) -> Rotation3D {
        match self {
            SensorSettings::Camera(c) => c.rotation,
            SensorSettings::Lidar(l) => l.rotation,
        }
    }
}

/// Everything a settings text sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Server-side only (never taken from a client's request).
    pub use_networking: bool,
    /// Server-side only; the agent ports are +1 and +2.
    pub world_port: u16,
    /// Server-side only, milliseconds.
    pub server_timeout_ms: u32,
    pub synchronous_mode: bool,
    pub send_non_player_agents_info: bool,
    pub quality_level: QualityLevel,
    pub level: LevelSettings,
    /// In the order of `Sensors`.
    pub sensors: Vec<SensorSettings>,
    /// Keys this parser does not know, as `[Section] Key` written as in the
    /// text, in text order, each once.
    pub unknown_keys: Vec<String>,
}

impl Default for Settings {
    /// UE4's defaults: synchronous mode, 5 vehicles, 15 pedestrians, the
    /// map's weather, seeds 123456789, Epic quality, no sensors.
    fn default() -> Self {
        Settings {
            use_networking: false,
            world_port: 2000,
            server_timeout_ms: 10_000,
            synchronous_mode: true,
            send_non_player_agents_info: false,
            quality_level: QualityLevel::Epic,
            level: LevelSettings::default(),
            sensors: Vec::new(),
            unknown_keys: Vec::new(),
        }
    }
}

impl Settings {
    /// Whether any camera uses `SemanticSegmentation` (UE4 then enables it
    /// for the whole level).
    pub fn semantic_segmentation_enabled(&self) -> bool {
        self.sensors.iter().any(|s| {
            matches!(s, SensorSettings::Camera(c)
                if c.post_processing == PostProcessing::SemanticSegmentation)
        })
    }
}

impl FromStr for Settings {
    type Err = SettingsError;

    /// Parses `text` over the defaults.
    fn from_str(text: &str) -> Result<Settings, SettingsError> {
        parse(text, &Settings::default())
    }
}

/// Parses a settings text over `previous` within the default [`Budget`]:
/// present keys override, absent keys keep `previous`'s values, except that
/// `sensors` holds exactly the sensors of this text and `quality_level` is
/// `None` without the key. Unknown keys are logged (warning) and listed in
/// `unknown_keys`.
pub fn parse(text: &str, previous: &Settings) -> Result<Settings, SettingsError> {
    parse_within(text, previous, &Budget::default())
}

/// [`parse`] within `budget`: a text that asks for more is refused with
/// [`SettingsError::OverBudget`]. The cost is linear in the text's size:
/// the budget is checked before any per-sensor work, and a sensor's section
/// chain is one string with its prefixes as slices.
pub fn parse_within(
    text: &str,
    previous: &Settings,
    budget: &Budget,
) -> Result<Settings, SettingsError> {
    budget.check_text(text)?;
    let ini = Ini::parse(text)?;
    let sensors_key = ini.get(SENSOR, "Sensors");
    let sensors_line = sensors_key.map_or(0, |f| f.line);
    let names = sensor_names(sensors_key);
    budget.check_names(&names, sensors_line)?;
    let chains: Vec<Chain> = names.iter().map(|n| Chain::new(n)).collect();
    let unknown_keys = unknown_keys(&ini, &chains);

    let server = |key| ini.get(SERVER, key);
    let level = |key| ini.get(LEVEL, key);
    let u32_key = |found, default: u32| unsigned(found, u32::MAX.into(), default);
    let p = &previous.level;
    let mut settings = Settings {
        use_networking: boolean(server("UseNetworking"), previous.use_networking)?,
        world_port: unsigned(server("WorldPort"), u16::MAX.into(), previous.world_port)?,
        server_timeout_ms: u32_key(server("ServerTimeOut"), previous.server_timeout_ms)?,
        synchronous_mode: boolean(server("SynchronousMode"), previous.synchronous_mode)?,
        send_non_player_agents_info: boolean(
            server("SendNonPlayerAgentsInfo"),
            previous.send_non_player_agents_info,
        )?,
        quality_level: match ini.get(QUALITY, "QualityLevel") {
            Some(f) => quality_level(f)?,
            None => QualityLevel::None,
        },
        level: LevelSettings {
            player_vehicle: level("PlayerVehicle")
                .map_or_else(|| p.player_vehicle.clone(), |f| f.value.to_owned()),
            number_of_vehicles: u32_key(level("NumberOfVehicles"), p.number_of_vehicles)?,
            number_of_pedestrians: u32_key(level("NumberOfPedestrians"), p.number_of_pedestrians)?,
            weather_id: signed(level("WeatherId"), p.weather_id)?,
            seed_vehicles: signed(level("SeedVehicles"), p.seed_vehicles)?,
            seed_pedestrians: signed(level("SeedPedestrians"), p.seed_pedestrians)?,
            disable_two_wheeled_vehicles: boolean(
                level("DisableTwoWheeledVehicles"),
                p.disable_two_wheeled_vehicles,
            )?,
        },
        sensors: Vec::with_capacity(names.len()),
        unknown_keys,
    };

    let mut seen = HashSet::new();
    for (name, chain) in names.iter().zip(&chains) {
        if !seen.insert(*name) {
            crate::log_warn!("settings: sensor {name:?} is listed twice in Sensors");
        }
        let chain = chain.sections();
        let type_key = ini.get_inherited(&chain, "SensorType").ok_or_else(|| {
            SettingsError::MissingSensorType {
                sensor: (*name).to_owned(),
                section: chain[chain.len() - 1].to_owned(),
                parents: chain.len() - 1,
                line: sensors_line,
            }
        })?;
        let sensor = if type_key.value.eq_ignore_ascii_case("CAMERA") {
            SensorSettings::Camera(camera(&ini, name, &chain)?)
        } else if type_key.value.eq_ignore_ascii_case("LIDAR_RAY_CAST") {
            SensorSettings::Lidar(lidar(&ini, name, &chain)?)
        } else {
            return Err(SettingsError::UnknownSensorType {
                sensor: (*name).to_owned(),
                at: type_key.location(),
            });
        };
        settings.sensors.push(sensor);
    }
    budget.check_frame(&settings.sensors, sensors_line)?;
    Ok(settings)
}

/// The non-empty, trimmed items of `Sensors`.
fn sensor_names<'a>(key: Option<Found<'a>>) -> Vec<&'a str> {
    key.map_or("", |f| f.value)
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect()
}

/// A sensor's sections, `A/B` -> `[CARLA/Sensor, CARLA/Sensor/A,
/// CARLA/Sensor/A/B]`, held as one string and the ends of its prefixes (so
/// a deep name costs its length, not its length times its depth).
struct Chain {
    full: String,
    /// Lower-case copy of `full`, for section-name comparisons.
    lower: String,
    ends: Vec<usize>,
}

impl Chain {
    fn new(name: &str) -> Chain {
        let full = format!("{SENSOR}/{name}");
        let mut ends = vec![SENSOR.len()];
        ends.extend(
            full.match_indices('/')
                .map(|(i, _)| i)
                .filter(|&i| i > SENSOR.len()),
        );
        ends.push(full.len());
        let lower = full.to_ascii_lowercase();
        Chain { full, lower, ends }
    }

    /// The sections, outermost first.
    fn sections(&self) -> Vec<&str> {
        self.ends.iter().map(|&e| &self.full[..e]).collect()
    }

    fn lower_sections(&self) -> impl Iterator<Item = &str> {
        self.ends.iter().map(|&e| &self.lower[..e])
    }
}

/// Logs and lists the keys no section kind knows; warns about sensor
/// sections no listed sensor reads. At most `MAX_UNKNOWN_LOGGED` unknown
/// keys are logged one by one; the rest are counted in one line.
fn unknown_keys(ini: &Ini<'_>, chains: &[Chain]) -> Vec<String> {
    let used: HashSet<&str> = chains.iter().flat_map(Chain::lower_sections).collect();
    let mut unknown = Vec::new();
    let mut unread_sections = 0usize;
    for section in &ini.sections {
        let lower = section.name.to_ascii_lowercase();
        let is_sensor = lower.starts_with("carla/sensor/");
        let known: &[&str] = match lower.as_str() {
            "carla/server" => SERVER_KEYS,
            "carla/qualitysettings" => QUALITY_KEYS,
            "carla/levelsettings" => LEVEL_KEYS,
            "carla/sensor" => SENSOR_KEYS,
            _ if is_sensor => SENSOR_KEYS,
            _ => &[],
        };
        if is_sensor && !used.contains(lower.as_str()) {
            unread_sections += 1;
            if unread_sections <= MAX_UNKNOWN_LOGGED {
                crate::log_warn!(
                    "settings: section [{}] is not read by any sensor in Sensors",
                    section.name
                );
            }
        }
        let mut seen = HashSet::new();
        for e in &section.entries {
            let is_known = known.iter().any(|k| k.eq_ignore_ascii_case(e.key))
                || (lower == "carla/sensor" && e.key.eq_ignore_ascii_case("Sensors"));
            if !is_known && seen.insert(e.key.to_ascii_lowercase()) {
                if unknown.len() < MAX_UNKNOWN_LOGGED {
                    crate::log_warn!(
                        "settings: unknown key {} in [{}] (line {}) ignored",
                        e.key,
                        section.name,
                        e.line
                    );
                }
                unknown.push(format!("[{}] {}", section.name, e.key));
            }
        }
    }
    if unknown.len() > MAX_UNKNOWN_LOGGED {
        crate::log_warn!(
            "settings: ...and {} more unknown keys ignored",
            unknown.len() - MAX_UNKNOWN_LOGGED
        );
    }
    if unread_sections > MAX_UNKNOWN_LOGGED {
        crate::log_warn!(
            "settings: ...and {} more sensor sections not read by any sensor",
            unread_sections - MAX_UNKNOWN_LOGGED
        );
    }
    unknown
}

/// Unknown keys (and unread sections) logged one by one per parse.
const MAX_UNKNOWN_LOGGED: usize = 10;

fn camera(ini: &Ini<'_>, name: &str, chain: &[&str]) -> Result<CameraSettings, SettingsError> {
    let d = CameraSettings::default();
    let get = |key| ini.get_inherited(chain, key);
    let (own, parents) = chain.split_last().expect("a chain is never empty");
    let post_processing = match ini.get(own, "PostProcessing") {
        Some(f) => post_processing(f, name)?,
        None => {
            if let Some(f) = ini.get_inherited(parents, "PostProcessing") {
                crate::log_warn!(
                    "settings: camera {name:?} does not inherit PostProcessing from [{}] \
                     (line {}); it uses SceneFinal",
                    f.section,
                    f.line
                );
            }
            PostProcessing::SceneFinal
        }
    };
    let size = |key, default: u32| -> Result<u32, SettingsError> {
        let v: u32 = unsigned(get(key), MAX_IMAGE_SIZE, default)?;
        Ok(if v == 0 { default } else { v })
    };
    Ok(CameraSettings {
        name: name.to_owned(),
        post_processing,
        image_size_x: size("ImageSizeX", d.image_size_x)?,
        image_size_y: size("ImageSizeY", d.image_size_y)?,
        fov: float(get("FOV"), (Excluded(0.0), Excluded(180.0)), d.fov)?,
        position: position(ini, chain)?,
        rotation: rotation(ini, chain)?,
    })
}

fn lidar(ini: &Ini<'_>, name: &str, chain: &[&str]) -> Result<LidarSettings, SettingsError> {
    let d = LidarSettings::default();
    let get = |key| ini.get_inherited(chain, key);
    let or_default = |v: u32, default: u32| if v == 0 { default } else { v };
    let elevation = (Included(-90.0), Included(90.0));
    let positive = (Excluded(0.0), Included(1000.0));
    let (upper_key, lower_key) = (get("UpperFovLimit"), get("LowerFovLimit"));
    let upper_fov = float(upper_key, elevation, d.upper_fov)?;
    let lower_fov = float(lower_key, elevation, d.lower_fov)?;
    if upper_fov < lower_fov {
        let at = upper_key.or(lower_key).expect("the defaults are ordered");
        return Err(SettingsError::FovLimitsReversed {
            sensor: name.to_owned(),
            at: at.location(),
            upper: upper_fov,
            lower: lower_fov,
        });
    }
    Ok(LidarSettings {
        name: name.to_owned(),
        channels: or_default(
            unsigned(get("Channels"), MAX_CHANNELS, d.channels)?,
            d.channels,
        ),
        range_m: float(get("Range"), positive, d.range_m)?,
        points_per_second: or_default(
            unsigned(
                get("PointsPerSecond"),
                MAX_POINTS_PER_SECOND,
                d.points_per_second,
            )?,
            d.points_per_second,
        ),
        rotation_frequency: float(get("RotationFrequency"), positive, d.rotation_frequency)?,
        upper_fov,
        lower_fov,
        show_debug_points: boolean(get("ShowDebugPoints"), d.show_debug_points)?,
        position: position(ini, chain)?,
        rotation: rotation(ini, chain)?,
    })
}

fn position(ini: &Ini<'_>, chain: &[&str]) -> Result<Vector3D, SettingsError> {
    let bounds = (Included(-MAX_POSITION_M), Included(MAX_POSITION_M));
    let axis = |key, default| float(ini.get_inherited(chain, key), bounds, default);
    Ok(Vector3D {
        x: axis("PositionX", DEFAULT_POSITION.x)?,
        y: axis("PositionY", DEFAULT_POSITION.y)?,
        z: axis("PositionZ", DEFAULT_POSITION.z)?,
    })
}

fn rotation(ini: &Ini<'_>, chain: &[&str]) -> Result<Rotation3D, SettingsError> {
    let bounds = (Included(-MAX_ROTATION_DEG), Included(MAX_ROTATION_DEG));
    let angle = |key| float(ini.get_inherited(chain, key), bounds, 0.0);
    Ok(Rotation3D {
        pitch: angle("RotationPitch")?,
        yaw: angle("RotationYaw")?,
        roll: angle("RotationRoll")?,
    })
}

// ------------------------------------------------------------ value parsers

fn invalid(f: Found<'_>, expected: &'static str) -> SettingsError {
    SettingsError::InvalidValue {
        at: f.location(),
        expected,
    }
}

fn out_of_range(f: Found<'_>, allowed: String) -> SettingsError {
    SettingsError::OutOfRange {
        at: f.location(),
        allowed,
    }
}

/// `True/False`, `Yes/No`, `On/Off` (any case) or an integer.
fn boolean(found: Option<Found<'_>>, default: bool) -> Result<bool, SettingsError> {
    let Some(f) = found else {
        return Ok(default);
    };
    let is = |words: [&str; 3]| words.iter().any(|w| f.value.eq_ignore_ascii_case(w));
    if is(["true", "yes", "on"]) {
        Ok(true)
    } else if is(["false", "no", "off"]) {
        Ok(false)
    } else {
        match f.value.parse::<i64>() {
            Ok(n) => Ok(n != 0),
            Err(e)
                if matches!(
                    e.kind(),
                    IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
                ) =>
            {
                Ok(true)
            }
            Err(_) => Err(invalid(
                f,
                "a boolean (True/False, Yes/No, On/Off or an integer)",
            )),
        }
    }
}

/// An integer in `0..=max` (`max` fits `T`).
fn unsigned<T>(found: Option<Found<'_>>, max: u64, default: T) -> Result<T, SettingsError>
where
    T: TryFrom<u64>,
{
    let Some(f) = found else {
        return Ok(default);
    };
    let allowed = || format!("0 to {max}");
    let v = match f.value.parse::<i64>() {
        Ok(v) if v < 0 => return Err(SettingsError::Negative { at: f.location() }),
        Ok(v) => v as u64,
        Err(e) => {
            return Err(match e.kind() {
                IntErrorKind::PosOverflow => out_of_range(f, allowed()),
                IntErrorKind::NegOverflow => SettingsError::Negative { at: f.location() },
                _ => invalid(f, "an unsigned integer"),
            })
        }
    };
    if v > max {
        return Err(out_of_range(f, allowed()));
    }
    T::try_from(v).map_err(|_| out_of_range(f, allowed()))
}

/// A 32-bit signed integer.
fn signed(found: Option<Found<'_>>, default: i32) -> Result<i32, SettingsError> {
    let Some(f) = found else {
        return Ok(default);
    };
    let allowed = || format!("{} to {}", i32::MIN, i32::MAX);
    match f.value.parse::<i64>() {
        Ok(v) => i32::try_from(v).map_err(|_| out_of_range(f, allowed())),
        Err(e) => Err(match e.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => out_of_range(f, allowed()),
            _ => invalid(f, "an integer"),
        }),
    }
}

/// A finite number within `bounds`.
fn float(
    found: Option<Found<'_>>,
    bounds: (Bound<f64>, Bound<f64>),
    default: f32,
) -> Result<f32, SettingsError> {
    let Some(f) = found else {
        return Ok(default);
    };
    let v = match f.value.parse::<f64>() {
        Ok(v) if v.is_finite() => v,
        _ => return Err(invalid(f, "a finite number")),
    };
    // The bounds hold for the value as stored: `1e-50` is 0 and
    // `179.99999999` is 180 in an f32, which an open bound must refuse.
    let v = f64::from(v as f32);
    let above = match bounds.0 {
        Included(lo) => v >= lo,
        Excluded(lo) => v > lo,
        Bound::Unbounded => true,
    };
    let below = match bounds.1 {
        Included(hi) => v <= hi,
        Excluded(hi) => v < hi,
        Bound::Unbounded => true,
    };
    if above && below {
        Ok(v as f32)
    } else {
        Err(out_of_range(f, describe_bounds(bounds)))
    }
}

/// "-90 to 90", "greater than 0 and at most 1000", ...
fn describe_bounds(bounds: (Bound<f64>, Bound<f64>)) -> String {
    match bounds {
        (Included(lo), Included(hi)) => format!("{lo} to {hi}"),
        (lo, hi) => {
            let lo = match lo {
                Included(v) => Some(format!("at least {v}")),
                Excluded(v) => Some(format!("greater than {v}")),
                Bound::Unbounded => None,
            };
            let hi = match hi {
                Included(v) => Some(format!("at most {v}")),
                Excluded(v) => Some(format!("less than {v}")),
                Bound::Unbounded => None,
            };
            match (lo, hi) {
                (Some(lo), Some(hi)) => format!("{lo} and {hi}"),
                (Some(only), None) | (None, Some(only)) => only,
                (None, None) => "any finite number".to_owned(),
            }
        }
    }
}

fn post_processing(f: Found<'_>, camera: &str) -> Result<PostProcessing, SettingsError> {
    let values = [
        ("None", PostProcessing::None),
        ("SceneFinal", PostProcessing::SceneFinal),
        ("Depth", PostProcessing::Depth),
        ("SemanticSegmentation", PostProcessing::SemanticSegmentation),
    ];
    word_of(f.value, &values).ok_or_else(|| SettingsError::InvalidPostProcessing {
        sensor: camera.to_owned(),
        at: f.location(),
    })
}

fn quality_level(f: Found<'_>) -> Result<QualityLevel, SettingsError> {
    let values = [
        ("None", QualityLevel::None),
        ("Low", QualityLevel::Low),
        ("Medium", QualityLevel::Medium),
        ("High", QualityLevel::High),
        ("Epic", QualityLevel::Epic),
    ];
    word_of(f.value, &values).ok_or_else(|| invalid(f, "Low, Medium, High, Epic or None"))
}

/// The value of the word `text` is among `values` (in any case).
fn word_of<T: Copy>(text: &str, values: &[(&str, T)]) -> Option<T> {
    values
        .iter()
        .find(|(word, _)| text.eq_ignore_ascii_case(word))
        .map(|&(_, v)| v)
}
