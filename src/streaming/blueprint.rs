//! Blueprint-like sensor definitions: for each sensor blueprint id, the list
//! of attributes it accepts (type, default, bounds), and [`create`], which
//! resolves user-supplied `key = value` strings against a definition into a
//! fully populated [`SensorAttributes`] (defaults filled in).
//!
//! Defaults follow the CARLA 0.9 sensor reference (lidar: the lidar attributes table; cameras:
//! the "basic camera attributes" table) and the "add a new sensor" tutorial
//! for `sensor.other.safe_distance`. Bounds are our own sanity limits.

use std::fmt;
use std::ops::{Bound, RangeBounds};

pub use table::DEFINITIONS;

/// The value type of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeType {
    Bool,
    Int,
    Float,
    String,
}

impl fmt::Display for AttributeType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AttributeType::Bool => "bool",
            AttributeType::Int => "int",
            AttributeType::Float => "float",
            AttributeType::String => "string",
        })
    }
}

/// Static description of one attribute of a sensor blueprint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttributeDefinition {
    pub id: &'static str,
    pub ty: AttributeType,
    /// Default value, written as a user would write it (never contains spaces).
    pub default: &'static str,
    /// Accepted numeric range (lower, upper); ignored for bool and string.
    pub range: (Bound<f64>, Bound<f64>),
    /// For string attributes: the accepted values (empty = any string).
    pub allowed: &'static [&'static str],
    pub doc: &'static str,
}

/// Static description of one sensor blueprint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorDefinition {
    pub id: &'static str,
    pub attributes: &'static [AttributeDefinition],
}

/// A parsed attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
}

/// Why [`create`] (or [`AttributeDefinition::parse`]) refused its input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlueprintError {
    UnknownSensor(String),
    UnknownAttribute {
        sensor: &'static str,
        key: String,
    },
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
    DuplicateAttribute {
        sensor: &'static str,
        key: String,
    },
}

impl fmt::Display for BlueprintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlueprintError::UnknownSensor(id) => {
                write!(f, "unknown sensor blueprint \"{id}\" (known:")?;
                for def in DEFINITIONS {
                    write!(f, " {}", def.id)?;
                }
                f.write_str(")")
            }
            BlueprintError::UnknownAttribute { sensor, key } => {
                write!(f, "sensor \"{sensor}\" has no attribute \"{key}\"")
            }
            BlueprintError::BadValue {
                key,
                value,
                expected,
            } => {
                let attr = format!("attribute \"{key}\"");
                write!(
                    f,
                    "invalid value \"{value}\" for {attr}: expected {expected}"
                )
            }
            BlueprintError::DuplicateAttribute { sensor, key } => {
                let attr = format!("attribute \"{key}\" of sensor \"{sensor}\"");
                write!(f, "{attr} is given more than once")
            }
        }
    }
}

impl std::error::Error for BlueprintError {}

impl AttributeDefinition {
    /// Human description of the accepted values, e.g. "an int in [1, 256]".
    pub fn expected(&self) -> String {
        let kind = match self.ty {
            AttributeType::Bool => return "a bool (true/false/1/0)".to_owned(),
            AttributeType::String if self.allowed.is_empty() => return "a string".to_owned(),
            AttributeType::String => return format!("one of: {}", self.allowed.join(", ")),
            AttributeType::Int => "an int",
            AttributeType::Float => "a finite float",
        };
        let (open, lo) = match self.range.0 {
            Bound::Included(v) => ('[', v),
            Bound::Excluded(v) => ('(', v),
            Bound::Unbounded => ('(', f64::NEG_INFINITY),
        };
        let (hi, close) = match self.range.1 {
            Bound::Included(v) => (v, ']'),
            Bound::Excluded(v) => (v, ')'),
            Bound::Unbounded => (f64::INFINITY, ')'),
        };
        format!("{kind} in {open}{lo}, {hi}{close}")
    }

    /// Parses `text` as a value of this attribute and checks its bounds.
    /// Numbers and booleans may have surrounding whitespace; strings are exact.
    pub fn parse(&self, text: &str) -> Result<AttributeValue, BlueprintError> {
        let t = text.trim();
        let in_range = |v: f64| v.is_finite() && self.range.contains(&v);
        let parsed = match self.ty {
            AttributeType::Bool => parse_bool(t).map(AttributeValue::Bool),
            AttributeType::Int => match t.parse::<i64>() {
                Ok(v) if in_range(v as f64) => Some(AttributeValue::Int(v)),
                _ => None,
            },
            AttributeType::Float => match t.parse::<f64>() {
                Ok(v) if in_range(v) => Some(AttributeValue::Float(v)),
                _ => None,
            },
            AttributeType::String => (self.allowed.is_empty() || self.allowed.contains(&text))
                .then(|| AttributeValue::String(text.to_owned())),
        };
        parsed.ok_or_else(|| BlueprintError::BadValue {
            key: self.id.to_owned(),
            value: text.to_owned(),
            expected: self.expected(),
        })
    }
}

fn parse_bool(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") || s == "1" {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") || s == "0" {
        Some(false)
    } else {
        None
    }
}

impl SensorDefinition {
    /// The definition of attribute `key`, if this sensor has one.
    pub fn attribute(&self, key: &str) -> Option<&'static AttributeDefinition> {
        self.attributes.iter().find(|a| a.id == key)
    }
}

/// A sensor definition together with the resolved value of every attribute,
/// in definition order.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorAttributes {
    definition: &'static SensorDefinition,
    values: Vec<AttributeValue>,
}

impl SensorAttributes {
    pub fn definition(&self) -> &'static SensorDefinition {
        self.definition
    }

    pub fn id(&self) -> &'static str {
        self.definition.id
    }

    /// Every attribute with its resolved value, in definition order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static AttributeDefinition, &AttributeValue)> {
        self.definition.attributes.iter().zip(&self.values)
    }

    /// The value of `key`, or `None` if the sensor has no such attribute.
    pub fn get(&self, key: &str) -> Option<&AttributeValue> {
        self.iter().find(|(a, _)| a.id == key).map(|(_, v)| v)
    }

    /// Float attributes only (`None` for other types or unknown keys).
    pub fn get_f64(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            AttributeValue::Float(v) => Some(*v),
            _ => None,
        }
    }

    /// Float attributes only, narrowed to `f32`.
    pub fn get_f32(&self, key: &str) -> Option<f32> {
        self.get_f64(key).map(|v| v as f32)
    }

    /// Int attributes only.
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        match self.get(key)? {
            AttributeValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// Int attributes whose value fits in `u32`.
    pub fn get_u32(&self, key: &str) -> Option<u32> {
        self.get_i64(key).and_then(|v| u32::try_from(v).ok())
    }

    pub fn get_bool(&self, key: &str) -> Option<bool> {
        match self.get(key)? {
            AttributeValue::Bool(v) => Some(*v),
            _ => None,
        }
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            AttributeValue::String(v) => Some(v),
            _ => None,
        }
    }
}

/// The static definition tables, laid out one attribute per line.
#[rustfmt::skip]
mod table {
    use super::{AttributeDefinition as Def, AttributeType as Ty, SensorDefinition};
    use std::ops::Bound::{self, Excluded as Exc, Included as Inc, Unbounded as Unb};

    const fn float(id: &'static str, default: &'static str, lo: Bound<f64>, hi: Bound<f64>, doc: &'static str) -> Def {
        Def { id, ty: Ty::Float, default, range: (lo, hi), allowed: &[], doc }
    }
    const fn int(id: &'static str, default: &'static str, lo: i64, hi: i64, doc: &'static str) -> Def {
        Def { id, ty: Ty::Int, default, range: (Inc(lo as f64), Inc(hi as f64)), allowed: &[], doc }
    }
    const fn boolean(id: &'static str, default: &'static str, doc: &'static str) -> Def {
        Def { id, ty: Ty::Bool, default, range: (Unb, Unb), allowed: &[], doc }
    }
    const fn string(id: &'static str, default: &'static str, allowed: &'static [&'static str], doc: &'static str) -> Def {
        Def { id, ty: Ty::String, default, range: (Unb, Unb), allowed, doc }
    }

    const SENSOR_TICK: Def = float("sensor_tick", "0.0", Inc(0.0), Unb, "simulation seconds between captures (0 = every tick)");
    const IMAGE_SIZE_X: Def = int("image_size_x", "800", 1, 16384, "image width in pixels");
    const IMAGE_SIZE_Y: Def = int("image_size_y", "600", 1, 16384, "image height in pixels");
    const CAMERA_FOV: Def = float("fov", "90.0", Exc(0.0), Exc(180.0), "horizontal field of view, degrees");
    const CHANNELS: Def = int("channels", "32", 1, 256, "number of lasers");
    const RANGE: Def = float("range", "10.0", Exc(0.0), Inc(1000.0), "maximum ray-cast distance, metres");
    const POINTS_PER_SECOND: Def = int("points_per_second", "56000", 1, 10_000_000, "points per second, all lasers together");
    const ROTATION_FREQUENCY: Def = float("rotation_frequency", "10.0", Exc(0.0), Inc(1000.0), "rotation frequency, Hz");
    const UPPER_FOV: Def = float("upper_fov", "10.0", Inc(-90.0), Inc(90.0), "angle of the highest laser, degrees");
    const LOWER_FOV: Def = float("lower_fov", "-30.0", Inc(-90.0), Inc(90.0), "angle of the lowest laser, degrees");
    const HORIZONTAL_FOV: Def = float("horizontal_fov", "360.0", Exc(0.0), Inc(360.0), "horizontal field of view, degrees");

    static SAFE_DISTANCE: [Def; 3] = [
        float("safe_distance_front", "1.0", Inc(0.0), Unb, "extent of the box ahead of the vehicle, metres"),
        float("safe_distance_back", "0.5", Inc(0.0), Unb, "extent of the box behind the vehicle, metres"),
        float("safe_distance_lateral", "0.5", Inc(0.0), Unb, "extent of the box to each side, metres"),
    ];

    static RAY_CAST_LIDAR: [Def; 14] = [
        CHANNELS, RANGE, POINTS_PER_SECOND, ROTATION_FREQUENCY, UPPER_FOV, LOWER_FOV, HORIZONTAL_FOV,
        float("atmosphere_attenuation_rate", "0.004", Inc(0.0), Unb, "intensity loss per metre, 1/m"),
        float("dropoff_general_rate", "0.45", Inc(0.0), Inc(1.0), "proportion of points dropped at random"),
        float("dropoff_intensity_limit", "0.8", Inc(0.0), Inc(1.0), "intensity above which no point is dropped"),
        float("dropoff_zero_intensity", "0.4", Inc(0.0), Inc(1.0), "drop probability of a zero-intensity point"),
        float("noise_stddev", "0.0", Inc(0.0), Unb, "std. deviation of the range noise, metres"),
        int("noise_seed", "0", 0, u32::MAX as i64, "seed of the noise generator"),
        SENSOR_TICK,
    ];

    static SEMANTIC_LIDAR: [Def; 8] =
        [CHANNELS, RANGE, POINTS_PER_SECOND, ROTATION_FREQUENCY, UPPER_FOV, LOWER_FOV, HORIZONTAL_FOV, SENSOR_TICK];

    static RGB_CAMERA: [Def; 7] = [
        IMAGE_SIZE_X, IMAGE_SIZE_Y, CAMERA_FOV, SENSOR_TICK,
        float("gamma", "2.2", Exc(0.0), Inc(10.0), "target gamma of the camera"),
        boolean("enable_postprocess_effects", "true", "apply the post-processing effects"),
        string("exposure_mode", "histogram", &["manual", "histogram"], "auto-exposure mode"),
    ];

    static BASIC_CAMERA: [Def; 4] = [IMAGE_SIZE_X, IMAGE_SIZE_Y, CAMERA_FOV, SENSOR_TICK];

    /// Every sensor blueprint this server knows.
    pub static DEFINITIONS: &[SensorDefinition] = &[
        SensorDefinition { id: "sensor.other.safe_distance", attributes: &SAFE_DISTANCE },
        SensorDefinition { id: "sensor.lidar.ray_cast", attributes: &RAY_CAST_LIDAR },
        SensorDefinition { id: "sensor.lidar.ray_cast_semantic", attributes: &SEMANTIC_LIDAR },
        SensorDefinition { id: "sensor.camera.rgb", attributes: &RGB_CAMERA },
        SensorDefinition { id: "sensor.camera.depth", attributes: &BASIC_CAMERA },
        SensorDefinition { id: "sensor.camera.semantic_segmentation", attributes: &BASIC_CAMERA },
    ];
}

/// Looks up a sensor definition by blueprint id (exact match).
pub fn find(id: &str) -> Option<&'static SensorDefinition> {
    DEFINITIONS.iter().find(|d| d.id == id)
}

/// Resolves `pairs` (attribute id, value text) against blueprint `id`;
/// attributes not given take their default.
pub fn create(id: &str, pairs: &[(&str, &str)]) -> Result<SensorAttributes, BlueprintError> {
    let definition = find(id).ok_or_else(|| BlueprintError::UnknownSensor(id.to_owned()))?;
    let sensor = definition.id;
    let mut given: Vec<Option<AttributeValue>> = vec![None; definition.attributes.len()];
    for &(key, text) in pairs {
        let Some(index) = definition.attributes.iter().position(|a| a.id == key) else {
            let key = key.to_owned();
            return Err(BlueprintError::UnknownAttribute { sensor, key });
        };
        if given[index].is_some() {
            let key = key.to_owned();
            return Err(BlueprintError::DuplicateAttribute { sensor, key });
        }
        given[index] = Some(definition.attributes[index].parse(text)?);
    }
    // Defaults are checked by the tests; a bad one would surface as BadValue.
    let values = (definition.attributes.iter().zip(given))
        .map(|(attr, value)| value.map_or_else(|| attr.parse(attr.default), Ok))
        .collect::<Result<_, _>>()?;
    Ok(SensorAttributes { definition, values })
}

/// One line per attribute: `<blueprint id> <attribute id> <type> <default>`,
/// e.g. `sensor.lidar.ray_cast range float 10.0`; fields never contain spaces.
pub fn describe_all() -> String {
    let mut out = String::new();
    for def in DEFINITIONS {
        for a in def.attributes {
            out.push_str(&format!("{} {} {} {}\n", def.id, a.id, a.ty, a.default));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const RGB: &str = "sensor.camera.rgb";
    const LIDAR: &str = "sensor.lidar.ray_cast";

    fn one(id: &str, key: &str, value: &str) -> Result<SensorAttributes, BlueprintError> {
        create(id, &[(key, value)])
    }

    fn message(id: &str, key: &str, value: &str) -> String {
        one(id, key, value).unwrap_err().to_string()
    }

    fn assert_tail(msg: &str, tail: &str) {
        assert!(msg.ends_with(tail), "{msg:?} should end with {tail:?}");
    }

    #[test]
    fn ids_are_unique_and_defaults_are_valid() {
        for (i, def) in DEFINITIONS.iter().enumerate() {
            let unique = DEFINITIONS[..i].iter().all(|d| d.id != def.id);
            assert!(unique, "{}", def.id);
            for (j, a) in def.attributes.iter().enumerate() {
                let name = format!("{}.{}", def.id, a.id);
                assert!(def.attributes[..j].iter().all(|b| b.id != a.id), "{name}");
                assert!(a.parse(a.default).is_ok(), "{name} default");
                assert!(!a.default.contains(char::is_whitespace) && !a.doc.is_empty());
            }
        }
    }

    #[test]
    fn defaults_are_filled_in() {
        let sd = create("sensor.other.safe_distance", &[]).unwrap();
        assert_eq!(sd.get_f32("safe_distance_front"), Some(1.0));
        assert_eq!(sd.get_f32("safe_distance_back"), Some(0.5));
        assert_eq!(sd.get_f32("safe_distance_lateral"), Some(0.5));
        let lidar = create(LIDAR, &[]).unwrap();
        assert_eq!(lidar.get_f32("range"), Some(10.0));
        assert_eq!(lidar.get_u32("channels"), Some(32));
        assert_eq!(lidar.get_u32("points_per_second"), Some(56000));
        assert_eq!(lidar.get_f64("lower_fov"), Some(-30.0));
        assert_eq!(lidar.get_f64("atmosphere_attenuation_rate"), Some(0.004));
        assert_eq!(lidar.get_u32("noise_seed"), Some(0));
        assert_eq!(lidar.iter().count(), 14);
        let semantic = create("sensor.lidar.ray_cast_semantic", &[]).unwrap();
        assert_eq!(semantic.get_f32("horizontal_fov"), Some(360.0));
        assert_eq!(semantic.get("dropoff_general_rate"), None);
        let cameras = [
            RGB,
            "sensor.camera.depth",
            "sensor.camera.semantic_segmentation",
        ];
        for id in cameras {
            let cam = create(id, &[]).unwrap();
            assert_eq!(cam.get_u32("image_size_x"), Some(800), "{id}");
            assert_eq!(cam.get_u32("image_size_y"), Some(600), "{id}");
            assert_eq!(cam.get_f32("fov"), Some(90.0), "{id}");
            assert_eq!(cam.get_f32("sensor_tick"), Some(0.0), "{id}");
            assert_eq!(cam.id(), id);
        }
        let rgb = create(RGB, &[]).unwrap();
        assert_eq!(rgb.get_bool("enable_postprocess_effects"), Some(true));
        assert_eq!(rgb.get_str("exposure_mode"), Some("histogram"));
    }

    #[test]
    fn overrides_and_typed_getters() {
        let pairs = [
            ("range", "50"),
            ("channels", " 64 "),
            ("noise_stddev", "0.02"),
        ];
        let lidar = create(LIDAR, &pairs).unwrap();
        assert_eq!(lidar.get_f32("range"), Some(50.0));
        assert_eq!(lidar.get_u32("channels"), Some(64));
        assert_eq!(lidar.get_f64("noise_stddev"), Some(0.02));
        assert_eq!(lidar.get_f32("upper_fov"), Some(10.0));
        // Wrong type or unknown key: None, never a panic.
        assert_eq!(lidar.get_u32("range"), None);
        assert_eq!(lidar.get_f32("channels"), None);
        assert_eq!(lidar.get_bool("range"), None);
        assert_eq!(lidar.get_str("nope"), None);
        let pairs = [("image_size_x", "1920"), ("exposure_mode", "manual")];
        let rgb = create(RGB, &pairs).unwrap();
        assert_eq!(rgb.get_u32("image_size_x"), Some(1920));
        assert_eq!(rgb.get_str("exposure_mode"), Some("manual"));
        assert_eq!(rgb.get("fov"), Some(&AttributeValue::Float(90.0)));
        assert!(find(RGB).unwrap().attribute("gamma").is_some());
        assert!(find("sensor.camera.thermal").is_none());
    }

    #[test]
    fn booleans_ignore_case() {
        let key = "enable_postprocess_effects";
        let cases = [
            ("true", true),
            ("TRUE", true),
            ("True", true),
            ("1", true),
            ("false", false),
            ("FaLsE", false),
            ("0", false),
        ];
        for (text, expected) in cases {
            let rgb = one(RGB, key, text).unwrap();
            assert_eq!(rgb.get_bool(key), Some(expected), "{text}");
        }
        for text in ["yes", "2", "", "t", "on"] {
            let err = one(RGB, key, text).unwrap_err();
            assert!(matches!(err, BlueprintError::BadValue { .. }), "{text}");
        }
    }

    #[test]
    fn values_at_bounds() {
        let depth = "sensor.camera.depth";
        let cases = [
            (depth, "image_size_x", "16384", true),
            (depth, "image_size_x", "16385", false),
            (depth, "image_size_y", "1", true),
            (depth, "image_size_y", "0", false),
            (depth, "fov", "179.9", true),
            (depth, "fov", "180", false),
            (depth, "fov", "0", false),
            (LIDAR, "dropoff_general_rate", "1.0", true),
            (LIDAR, "dropoff_general_rate", "1.0001", false),
            (LIDAR, "horizontal_fov", "360", true),
            (LIDAR, "channels", "1", true),
            (LIDAR, "channels", "0", false),
            (LIDAR, "channels", "32.0", false),
            (LIDAR, "sensor_tick", "0", true),
            (LIDAR, "sensor_tick", "-0.1", false),
            (LIDAR, "noise_seed", "4294967295", true),
            (LIDAR, "noise_seed", "4294967296", false),
            (LIDAR, "range", "NaN", false),
            (LIDAR, "range", "inf", false),
            (LIDAR, "range", "", false),
        ];
        for (id, key, value, ok) in cases {
            assert_eq!(one(id, key, value).is_ok(), ok, "{id} {key}={value:?}");
        }
    }

    #[test]
    fn errors_and_messages() {
        let err = create("sensor.camera.thermal", &[]).unwrap_err();
        let thermal = "sensor.camera.thermal".to_owned();
        assert_eq!(err, BlueprintError::UnknownSensor(thermal));
        let msg = err.to_string();
        let head = "unknown sensor blueprint \"sensor.camera.thermal\" (known: sensor.other";
        assert!(msg.starts_with(head), "{msg}");
        assert_tail(&msg, " sensor.camera.semantic_segmentation)");

        let sensor = "sensor.lidar.ray_cast_semantic";
        let err = one(sensor, "noise_stddev", "0.1").unwrap_err();
        let key = "noise_stddev".to_owned();
        assert_eq!(err, BlueprintError::UnknownAttribute { sensor, key });
        let msg = "sensor \"sensor.lidar.ray_cast_semantic\" has no attribute \"noise_stddev\"";
        assert_eq!(err.to_string(), msg);

        let err = one(RGB, "exposure_mode", "Manual").unwrap_err();
        assert!(matches!(&err, BlueprintError::BadValue { .. }));
        let msg = "invalid value \"Manual\" for attribute \"exposure_mode\": expected one of: ";
        assert_eq!(err.to_string(), format!("{msg}manual, histogram"));
        let msg = "invalid value \"-3\" for attribute \"channels\": expected an int in [1, 256]";
        assert_eq!(message(LIDAR, "channels", "-3"), msg);
        let msg = message(RGB, "fov", "200");
        assert_tail(&msg, "\"fov\": expected a finite float in (0, 180)");
        let msg = message("sensor.other.safe_distance", "safe_distance_back", "x");
        assert_tail(&msg, "expected a finite float in [0, inf)");
        let msg = message(RGB, "enable_postprocess_effects", "on");
        assert_tail(&msg, "expected a bool (true/false/1/0)");
        let msg = message(RGB, "exposure_mode", "auto");
        assert_tail(&msg, "expected one of: manual, histogram");

        let pairs = [("fov", "60"), ("image_size_x", "10"), ("fov", "70")];
        let err = create(RGB, &pairs).unwrap_err();
        let (sensor, key) = (RGB, "fov".to_owned());
        assert_eq!(err, BlueprintError::DuplicateAttribute { sensor, key });
        let msg = "attribute \"fov\" of sensor \"sensor.camera.rgb\" is given more than once";
        assert_eq!(err.to_string(), msg);
    }

    #[test]
    fn describe_all_lists_every_attribute() {
        let text = describe_all();
        let total: usize = DEFINITIONS.iter().map(|d| d.attributes.len()).sum();
        assert_eq!(text.lines().count(), total);
        assert!(text.lines().all(|l| l.split(' ').count() == 4));
        for line in [
            "sensor.lidar.ray_cast range float 10.0",
            "sensor.other.safe_distance safe_distance_front float 1.0",
            "sensor.camera.rgb image_size_x int 800",
            "sensor.camera.rgb enable_postprocess_effects bool true",
            "sensor.camera.rgb exposure_mode string histogram",
            "sensor.camera.semantic_segmentation sensor_tick float 0.0",
        ] {
            assert!(text.lines().any(|l| l == line), "{line}");
        }
    }
}
