//! Blueprint-like sensor definitions: for each sensor blueprint id, the list
//! of attributes it accepts (type, default, bounds), and [`create`], which
//! resolves user-supplied `key = value` strings against a definition into a
//! fully populated [`SensorAttributes`] (defaults filled in).
//!
//! The table itself ([`DEFINITIONS`], in `blueprint_table.rs`) follows CARLA
//! 0.9.16's blueprint library (names, types, default values) and the "add a
//! new sensor" tutorial for `sensor.other.safe_distance`. Bounds are our own
//! sanity limits.

use std::fmt;
use std::ops::{Bound, RangeBounds};

pub use super::blueprint_table::DEFINITIONS;

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
            // As CARLA (which reads ints with `Atoi`), a number written with
            // a fraction ("64.0", as `str(64.0)` gives) counts by its
            // integer part.
            AttributeType::Int => match t.parse::<i64>().ok().or_else(|| {
                (t.parse::<f64>().ok())
                    .filter(|f| f.is_finite() && f.abs() < 1e15)
                    .map(|f| f.trunc() as i64)
            }) {
                Some(v) if in_range(v as f64) => Some(AttributeValue::Int(v)),
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

    /// Simulation seconds between captures (`sensor_tick`); 0 (every tick)
    /// for sensors without one (collision, lane invasion, safe distance).
    pub fn sensor_tick(&self) -> f64 {
        self.get_f64("sensor_tick").unwrap_or(0.0)
    }
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
#[path = "blueprint_tests.rs"]
mod tests;
