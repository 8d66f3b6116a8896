//! Target `settings_ini`: the CarlaSettings.ini parser (`crate::legacy::settings`),
//! alone and over previous settings.
//!
//! Input: a text, or two texts separated by a NUL byte (the first is parsed
//! over the defaults and, if it applies, becomes the "previous" settings of
//! the second, as a host applies its own file and then a client's request).
//! Invariants: parsing is deterministic; it succeeds over previous settings
//! exactly when it succeeds over the defaults (with the same error); parsing
//! a text over its own result changes nothing; every error names a line of
//! the text; every value of a parsed sensor lies within the documented
//! bounds, so the 0.9 sensor a host builds from it (as `carla-host` does)
//! is accepted by the blueprint and, for lidars, by the lidar model.

use super::quiet_logs;
use crate::legacy::settings::{self, CameraSettings, LidarSettings, SensorSettings, Settings};
use crate::sensor::blueprint::{self, SensorAttributes};
use crate::sensor::models::lidar::{self, Lidar};
use crate::types::{Rotation3D, Vector3D};

pub fn settings_ini(data: &[u8]) {
    quiet_logs();
    let (first, second) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let defaults = Settings::default();
    let first = String::from_utf8_lossy(first);
    let Ok(previous) = check(&first, &defaults) else {
        return;
    };
    if let Some(second) = second {
        let _ = check(&String::from_utf8_lossy(second), &previous);
    }
}

/// Parses `text` over `previous` and checks every invariant.
fn check(text: &str, previous: &Settings) -> Result<Settings, ()> {
    let result = settings::parse(text, previous);
    assert_eq!(result, settings::parse(text, previous), "deterministic");
    let over_defaults = settings::parse(text, &Settings::default());
    assert_eq!(
        result.as_ref().err(),
        over_defaults.as_ref().err(),
        "whether a text applies does not depend on the previous settings"
    );
    match result {
        Err(e) => {
            let lines = text.split('\n').count();
            assert!(
                (1..=lines).contains(&e.line()),
                "line {} of {lines}: {e}",
                e.line()
            );
            assert!(!e.to_string().is_empty());
            Err(())
        }
        Ok(s) => {
            assert_eq!(settings::parse(text, &s).as_ref(), Ok(&s), "idempotent");
            for sensor in &s.sensors {
                match sensor {
                    SensorSettings::Camera(c) => camera_in_bounds(c),
                    SensorSettings::Lidar(l) => lidar_in_bounds(l),
                }
            }
            Ok(s)
        }
    }
}

fn placement_in_bounds(p: Vector3D, r: Rotation3D) {
    for v in [p.x, p.y, p.z] {
        assert!(v.is_finite() && v.abs() <= 10_000.0, "position {v}");
    }
    for v in [r.pitch, r.yaw, r.roll] {
        assert!(v.is_finite() && v.abs() <= 360.0, "rotation {v}");
    }
}

/// Resolves blueprint attributes from the values' decimal text, as a host
/// passes them on.
fn attributes(id: &str, pairs: &[(&str, String)]) -> SensorAttributes {
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    blueprint::create(id, &pairs).unwrap_or_else(|e| panic!("{id} refuses parsed settings: {e}"))
}

fn camera_in_bounds(c: &CameraSettings) {
    placement_in_bounds(c.position, c.rotation);
    for size in [c.image_size_x, c.image_size_y] {
        assert!((1..=16384).contains(&size), "image size {size}");
    }
    assert!(c.fov > 0.0 && c.fov < 180.0, "fov {}", c.fov);
    attributes(
        "sensor.camera.rgb",
        &[
            ("image_size_x", c.image_size_x.to_string()),
            ("image_size_y", c.image_size_y.to_string()),
            ("fov", c.fov.to_string()),
        ],
    );
}

fn lidar_in_bounds(l: &LidarSettings) {
    placement_in_bounds(l.position, l.rotation);
    assert!((1..=256).contains(&l.channels), "channels {}", l.channels);
    assert!((1..=10_000_000).contains(&l.points_per_second));
    for (what, v) in [("range", l.range_m), ("frequency", l.rotation_frequency)] {
        assert!(v > 0.0 && v <= 1000.0, "{what} {v}");
    }
    let (upper, lower) = (l.upper_fov, l.lower_fov);
    assert!((-90.0..=90.0).contains(&lower) && lower <= upper && upper <= 90.0);
    let a = attributes(
        "sensor.lidar.ray_cast_semantic",
        &[
            ("channels", l.channels.to_string()),
            ("range", l.range_m.to_string()),
            ("points_per_second", l.points_per_second.to_string()),
            ("rotation_frequency", l.rotation_frequency.to_string()),
            ("upper_fov", upper.to_string()),
            ("lower_fov", lower.to_string()),
        ],
    );
    let f = |key: &str| a.get_f32(key).expect("resolved");
    let model = lidar::LidarSettings {
        channels: a.get_u32("channels").expect("resolved"),
        range_m: f("range"),
        points_per_second: a.get_u32("points_per_second").expect("resolved"),
        rotation_frequency: f("rotation_frequency"),
        upper_fov: f("upper_fov"),
        lower_fov: f("lower_fov"),
        semantic: true,
        ..lidar::LidarSettings::default()
    };
    if let Err(e) = Lidar::new(model) {
        panic!("the lidar model refuses parsed settings: {e}");
    }
}
