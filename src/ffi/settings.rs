//! The C API of the CarlaSettings.ini parser ([`crate::legacy::settings`]): parse a
//! text into an immutable settings object, read it with getters, free it.
//! A settings object may be read from several threads at once.
#![allow(non_camel_case_types)]

use super::args::{bytes, handle, into_handle, take_handle, write, write_text};
use super::codes::Fail;
use crate::legacy::settings::{self, Budget, SensorSettings, Settings};
use crate::types::{CBool, Rotation3D, Vector3D};
use crate::Error;
use std::ffi::{c_char, CString};

/// Parsed settings, from `carla_settings_parse`; free it with
/// `carla_settings_free`.
pub type CarlaSettingsPtr = *mut carla_settings;

/// `carla_sensor_settings.post_processing`: no post-processing.
pub const CARLA_SETTINGS_POST_PROCESSING_NONE: u32 = 0;
/// `carla_sensor_settings.post_processing`: the final scene image.
pub const CARLA_SETTINGS_POST_PROCESSING_SCENE_FINAL: u32 = 1;
/// `carla_sensor_settings.post_processing`: depth.
pub const CARLA_SETTINGS_POST_PROCESSING_DEPTH: u32 = 2;
/// `carla_sensor_settings.post_processing`: semantic segmentation.
pub const CARLA_SETTINGS_POST_PROCESSING_SEMANTIC_SEGMENTATION: u32 = 3;

/// `carla_level_settings.quality_level`: no `QualityLevel` (keep the current).
pub const CARLA_SETTINGS_QUALITY_NONE: u32 = 0;
/// `carla_level_settings.quality_level`: Low.
pub const CARLA_SETTINGS_QUALITY_LOW: u32 = 1;
/// `carla_level_settings.quality_level`: Medium.
pub const CARLA_SETTINGS_QUALITY_MEDIUM: u32 = 2;
/// `carla_level_settings.quality_level`: High.
pub const CARLA_SETTINGS_QUALITY_HIGH: u32 = 3;
/// `carla_level_settings.quality_level`: Epic.
pub const CARLA_SETTINGS_QUALITY_EPIC: u32 = 4;

/// `[CARLA/LevelSettings]`, plus `[CARLA/QualitySettings] QualityLevel`.
#[repr(C)]
pub struct carla_level_settings {
    pub number_of_vehicles: u32,
    pub number_of_pedestrians: u32,
    /// Index of the map's weather preset; negative keeps the map default.
    pub weather_id: i32,
    pub seed_vehicles: i32,
    pub seed_pedestrians: i32,
    pub disable_two_wheeled_vehicles: CBool,
    /// `CARLA_SETTINGS_QUALITY_*`.
    pub quality_level: u32,
    /// UE class path of the player's pawn, "" for the default. NUL-terminated,
    /// valid until `carla_settings_free`.
    pub player_vehicle: *const c_char,
}

/// One sensor of `Sensors`. Fields of the other sensor type are zero.
#[repr(C)]
pub struct carla_sensor_settings {
    /// `CARLA_SERVER_CAMERA` (101) or `CARLA_SERVER_LIDAR_RAY_CAST` (102).
    pub r#type: u32,
    /// The name as listed in `Sensors` (may contain '/'). NUL-terminated,
    /// valid until `carla_settings_free`.
    pub name: *const c_char,
    /// Relative to the player's vehicle, metres.
    pub position: Vector3D,
    /// Relative to the player's vehicle, degrees.
    pub rotation: Rotation3D,
    /// Camera: `CARLA_SETTINGS_POST_PROCESSING_*` (the 0.8 image type).
    pub post_processing: u32,
    /// Camera: pixels.
    pub image_size_x: u32,
    pub image_size_y: u32,
    /// Camera: horizontal field of view, degrees.
    pub fov: f32,
    /// Lidar: number of lasers.
    pub channels: u32,
    /// Lidar: metres.
    pub range: f32,
    /// Lidar: all lasers together.
    pub points_per_second: u32,
    /// Lidar: Hz.
    pub rotation_frequency: f32,
    /// Lidar: degrees.
    pub upper_fov_limit: f32,
    pub lower_fov_limit: f32,
    pub show_debug_points: CBool,
}

/// Parsed settings and NUL-terminated copies of their strings (opaque; C
/// sees only `struct carla_settings *`).
#[allow(non_camel_case_types)]
pub struct carla_settings {
    settings: Settings,
    names: Vec<CString>,
    player_vehicle: CString,
}

fn c_string(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::InvalidArgument(format!("{s:?} contains a NUL character")))
}

/// Parses `text` over `previous` (None: UE4's defaults) within `budget`.
fn parse(
    text: &[u8],
    previous: Option<&Settings>,
    budget: &Budget,
) -> Result<carla_settings, Error> {
    // A terminator counted in `length` (or any NUL) ends the text.
    let text = text.split(|&b| b == 0).next().unwrap_or_default();
    let text = std::str::from_utf8(text).map_err(|e| {
        Error::InvalidArgument(format!(
            "settings text is not valid UTF-8 (byte {})",
            e.valid_up_to()
        ))
    })?;
    let defaults;
    let previous = match previous {
        Some(p) => p,
        None => {
            defaults = Settings::default();
            &defaults
        }
    };
    let settings = settings::parse_within(text, previous, budget)
        .map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let names = settings
        .sensors
        .iter()
        .map(|s| c_string(s.name()))
        .collect::<Result<_, _>>()?;
    let player_vehicle = c_string(&settings.level.player_vehicle)?;
    Ok(carla_settings {
        settings,
        names,
        player_vehicle,
    })
}

/// The body of both parse functions: NULL checks, parse, output and the
/// error text (logged with the function's name).
///
/// # Safety
/// As `carla_settings_parse_over`.
unsafe fn parse_into(
    name: &str,
    budget: *const Budget,
    previous: CarlaSettingsPtr,
    (ini, length): (*const c_char, u32),
    (out, error, error_size): (*mut CarlaSettingsPtr, *mut c_char, u32),
) -> Result<(), Fail> {
    let report = |message: &str| {
        crate::log_error!("{}: {}", name, message);
        // SAFETY: the caller's contract for `error`.
        unsafe { write_text(message, error, error_size) };
    };
    // SAFETY: the caller's contract for `out`.
    let Ok(out) = (unsafe { write(out) }) else {
        report("out is NULL");
        return Err(Fail::Null);
    };
    *out = std::ptr::null_mut();
    // SAFETY: the caller's contract for `ini` and `previous`.
    let (text, previous) = unsafe { (bytes(ini, length), handle(previous).ok()) };
    let Ok(text) = text else {
        report("ini is NULL");
        return Err(Fail::Null);
    };
    // SAFETY: the caller's contract for `budget`.
    let budget = unsafe { budget.as_ref() }.map_or_else(Budget::default, |b| *b);
    match parse(text, previous.map(|p| &p.settings), &budget) {
        Ok(parsed) => {
            *out = into_handle(Box::new(parsed));
            Ok(())
        }
        Err(e) => {
            report(&e.to_string());
            Err(Fail::Lib(e))
        }
    }
}

/// Parses a CarlaSettings.ini text over UE4's defaults. `ini` holds `length`
/// bytes of UTF-8 (ASCII in practice), need not be NUL-terminated, and ends
/// early at a NUL byte; NULL is accepted when `length` is 0. On success writes
/// a new settings object to `*out`. Otherwise writes NULL to `*out` (when
/// `out` is not NULL) and, when `error` is not NULL, the reason (for a bad
/// value: section, key, value, what was expected and the line) NUL-terminated
/// and truncated to `error_size` bytes; returns `CARLA_SERVER_INVALID_ARGUMENT`
/// for a text that cannot be applied, `CARLA_SERVER_NULL_ARGUMENT` for a NULL
/// `out` (or a NULL `ini` with a length). Unknown keys are logged, not errors.
///
/// # Safety
/// `ini` NULL or readable for `length` bytes; `out` NULL or writable; `error`
/// NULL or writable for `error_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_parse(
    ini: *const c_char,
    length: u32,
    out: *mut CarlaSettingsPtr,
    error: *mut c_char,
    error_size: u32,
) -> i32 {
    export!({
        let (input, output) = ((ini, length), (out, error, error_size));
        let name = "carla_settings_parse";
        parse_into(name, std::ptr::null(), std::ptr::null_mut(), input, output)
    })
}

/// As `carla_settings_parse`, but keys absent from the text keep the values
/// of `previous` (NULL: UE4's defaults), as UE4 applies each load over the
/// last one: a server-side file, then each client request. The sensor list
/// is always the text's own, and a missing `QualityLevel` gives
/// `CARLA_SETTINGS_QUALITY_NONE`. `previous` is only read and stays valid.
///
/// # Safety
/// `previous` NULL or a live settings object; otherwise as
/// `carla_settings_parse`.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_parse_over(
    previous: CarlaSettingsPtr,
    ini: *const c_char,
    length: u32,
    out: *mut CarlaSettingsPtr,
    error: *mut c_char,
    error_size: u32,
) -> i32 {
    export!({
        let (input, output) = ((ini, length), (out, error, error_size));
        let name = "carla_settings_parse_over";
        parse_into(name, std::ptr::null(), previous, input, output)
    })
}

/// Writes the default budget (what `carla_settings_parse` and
/// `carla_settings_parse_over` apply) to `*out`.
///
/// # Safety
/// `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_budget_default(out: *mut Budget) -> i32 {
    export!({
        // SAFETY: the caller's contract for `out`.
        *unsafe { write(out) }? = Budget::default();
        Ok(())
    })
}

/// As `carla_settings_parse_over`, within `budget` (NULL: the defaults). A
/// text that asks for more than the budget allows fails with
/// `CARLA_SERVER_INVALID_ARGUMENT` and an error naming the limit, e.g.
/// "Sensors lists 2000 sensors, over the server's budget of 64
/// (max_sensors) (line 2)".
///
/// # Safety
/// `budget` NULL or readable; otherwise as `carla_settings_parse_over`.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_parse_within(
    budget: *const Budget,
    previous: CarlaSettingsPtr,
    ini: *const c_char,
    length: u32,
    out: *mut CarlaSettingsPtr,
    error: *mut c_char,
    error_size: u32,
) -> i32 {
    export!({
        let (input, output) = ((ini, length), (out, error, error_size));
        let name = "carla_settings_parse_within";
        parse_into(name, budget, previous, input, output)
    })
}

/// Frees a settings object and the strings it handed out. NULL is accepted.
///
/// # Safety
/// `settings` NULL or from `carla_settings_parse*`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_free(settings: CarlaSettingsPtr) {
    if !settings.is_null() {
        export!({
            drop(take_handle(settings)?);
            Ok(())
        });
    }
}

/// The body of the getters: checks `settings`, then `out`, for NULL and
/// writes to `*out` what `value` reads from the settings object.
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
unsafe fn get<T>(
    settings: CarlaSettingsPtr,
    out: *mut T,
    value: impl FnOnce(&carla_settings) -> T,
) -> Result<(), Fail> {
    // SAFETY: the caller's contract for `settings` and `out`.
    let (p, out) = unsafe { (handle(settings)?, write(out)?) };
    *out = value(p);
    Ok(())
}

/// `[CARLA/Server] SynchronousMode` (default true).
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_synchronous_mode(
    settings: CarlaSettingsPtr,
    out: *mut CBool,
) -> i32 {
    export!({ get(settings, out, |p| p.settings.synchronous_mode.into()) })
}

/// `[CARLA/Server] SendNonPlayerAgentsInfo` (default false).
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_send_non_player_agents(
    settings: CarlaSettingsPtr,
    out: *mut CBool,
) -> i32 {
    export!({
        get(settings, out, |p| {
            p.settings.send_non_player_agents_info.into()
        })
    })
}

/// The level keys and the quality level.
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_level(
    settings: CarlaSettingsPtr,
    out: *mut carla_level_settings,
) -> i32 {
    export!({
        get(settings, out, |p| {
            let l = &p.settings.level;
            carla_level_settings {
                number_of_vehicles: l.number_of_vehicles,
                number_of_pedestrians: l.number_of_pedestrians,
                weather_id: l.weather_id,
                seed_vehicles: l.seed_vehicles,
                seed_pedestrians: l.seed_pedestrians,
                disable_two_wheeled_vehicles: l.disable_two_wheeled_vehicles.into(),
                quality_level: p.settings.quality_level as u32,
                player_vehicle: p.player_vehicle.as_ptr(),
            }
        })
    })
}

/// Number of sensors (the names of `Sensors`, in order).
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_sensor_count(
    settings: CarlaSettingsPtr,
    out: *mut u32,
) -> i32 {
    export!({ get(settings, out, |p| p.settings.sensors.len() as u32) })
}

/// Sensor `index` (0 to count - 1; otherwise `CARLA_SERVER_INVALID_ARGUMENT`).
///
/// # Safety
/// `settings` NULL or live; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn carla_settings_sensor(
    settings: CarlaSettingsPtr,
    index: u32,
    out: *mut carla_sensor_settings,
) -> i32 {
    export!({
        let (p, out) = (handle(settings)?, write(out)?);
        let i = index as usize;
        let (Some(sensor), Some(name)) = (p.settings.sensors.get(i), p.names.get(i)) else {
            crate::log_error!(
                "carla_settings_sensor: index {} out of range ({} sensors)",
                index,
                p.settings.sensors.len()
            );
            return Err(Fail::Lib(Error::InvalidArgument(format!(
                "sensor index {index} out of range"
            ))));
        };
        let mut s = carla_sensor_settings {
            r#type: sensor.type_id(),
            name: name.as_ptr(),
            position: sensor.position(),
            rotation: sensor.rotation(),
            post_processing: 0,
            image_size_x: 0,
            image_size_y: 0,
            fov: 0.0,
            channels: 0,
            range: 0.0,
            points_per_second: 0,
            rotation_frequency: 0.0,
            upper_fov_limit: 0.0,
            lower_fov_limit: 0.0,
            show_debug_points: CBool::FALSE,
        };
        match sensor {
            SensorSettings::Camera(c) => {
                s.post_processing = c.post_processing as u32;
                s.image_size_x = c.image_size_x;
                s.image_size_y = c.image_size_y;
                s.fov = c.fov;
            }
            SensorSettings::Lidar(l) => {
                s.channels = l.channels;
                s.range = l.range_m;
                s.points_per_second = l.points_per_second;
                s.rotation_frequency = l.rotation_frequency;
                s.upper_fov_limit = l.upper_fov;
                s.lower_fov_limit = l.lower_fov;
                s.show_debug_points = l.show_debug_points.into();
            }
        }
        *out = s;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legacy::settings::{PostProcessing, QualityLevel};

    #[test]
    fn exported_numbers_match_the_rust_enums() {
        let post = [
            (PostProcessing::None, CARLA_SETTINGS_POST_PROCESSING_NONE),
            (
                PostProcessing::SceneFinal,
                CARLA_SETTINGS_POST_PROCESSING_SCENE_FINAL,
            ),
            (PostProcessing::Depth, CARLA_SETTINGS_POST_PROCESSING_DEPTH),
            (
                PostProcessing::SemanticSegmentation,
                CARLA_SETTINGS_POST_PROCESSING_SEMANTIC_SEGMENTATION,
            ),
        ];
        for (rust, c) in post {
            assert_eq!(rust as u32, c);
        }
        let quality = [
            (QualityLevel::None, CARLA_SETTINGS_QUALITY_NONE),
            (QualityLevel::Low, CARLA_SETTINGS_QUALITY_LOW),
            (QualityLevel::Medium, CARLA_SETTINGS_QUALITY_MEDIUM),
            (QualityLevel::High, CARLA_SETTINGS_QUALITY_HIGH),
            (QualityLevel::Epic, CARLA_SETTINGS_QUALITY_EPIC),
        ];
        for (rust, c) in quality {
            assert_eq!(rust as u32, c);
        }
    }
}
