//! Why a settings text was rejected.

use std::fmt;

/// Where a rejected value was found: the section and key as written in the
/// text, the value (trimmed, unquoted) and its 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub section: String,
    pub key: String,
    pub value: String,
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}=", self.section, self.key)?;
        quoted(f, &self.value)
    }
}

/// Longest value or line quoted in a message, in characters.
const MAX_QUOTED: usize = 80;

/// Writes `text` quoted and escaped, cut after `MAX_QUOTED` characters
/// (then followed by `...`), so that a huge line cannot flood a message.
fn quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    match text.char_indices().nth(MAX_QUOTED) {
        Some((cut, _)) => write!(f, "{:?}...", &text[..cut]),
        None => write!(f, "{text:?}"),
    }
}

/// A settings text that cannot be applied. A host sends the `Display` text
/// back to the client as a failed episode. Every variant names the line, and
/// all but `MalformedLine`/`MissingSensorType` name the section, key and value.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingsError {
    /// A line that is not a `[Section]` header, a `Key=Value` pair or a
    /// `;` comment.
    MalformedLine { line: usize, text: String },
    /// The value does not parse as the key's type; `expected` says what
    /// would (e.g. "an unsigned integer").
    InvalidValue {
        at: Location,
        expected: &'static str,
    },
    /// A negative number for a key that takes an unsigned integer.
    Negative { at: Location },
    /// A number outside the key's accepted range, described by `allowed`
    /// (e.g. "1 to 16384", "greater than 0 and at most 1000").
    OutOfRange { at: Location, allowed: String },
    /// `SensorType` is neither `CAMERA` nor `LIDAR_RAY_CAST`.
    UnknownSensorType { sensor: String, at: Location },
    /// A sensor listed in `Sensors` has no `SensorType` in its own
    /// `section` nor in any of its `parents` parent sections.
    MissingSensorType {
        sensor: String,
        section: String,
        parents: usize,
        line: usize,
    },
    /// The text asks for more than the server's [`super::Budget`] allows:
    /// `limit` is the budget field (`max_sensors`, ...), `detail` what was
    /// asked (e.g. "Sensors lists 2000 sensors"), `allowed` the limit's
    /// value. `line` is 0 for the text's size.
    OverBudget {
        limit: &'static str,
        detail: String,
        allowed: u64,
        line: usize,
    },
    /// A camera's `PostProcessing` is not `None`, `SceneFinal`, `Depth` or
    /// `SemanticSegmentation`.
    InvalidPostProcessing { sensor: String, at: Location },
    /// A lidar's `UpperFovLimit` is below its `LowerFovLimit`. `at` is the
    /// `UpperFovLimit` found in the text, or the `LowerFovLimit` when the
    /// upper limit is the default.
    FovLimitsReversed {
        sensor: String,
        at: Location,
        upper: f32,
        lower: f32,
    },
}

impl SettingsError {
    /// The 1-based line the error is about.
    pub fn line(&self) -> usize {
        match self {
            SettingsError::MalformedLine { line, .. }
            | SettingsError::MissingSensorType { line, .. }
            | SettingsError::OverBudget { line, .. } => *line,
            SettingsError::InvalidValue { at, .. }
            | SettingsError::Negative { at }
            | SettingsError::OutOfRange { at, .. }
            | SettingsError::UnknownSensorType { at, .. }
            | SettingsError::InvalidPostProcessing { at, .. }
            | SettingsError::FovLimitsReversed { at, .. } => at.line,
        }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::MalformedLine { line, text } => {
                write!(f, "line {line}: ")?;
                quoted(f, text)?;
                write!(
                    f,
                    " is not a [Section] header, a Key=Value pair or a ; comment"
                )
            }
            SettingsError::InvalidValue { at, expected } => {
                write!(f, "{at}: expected {expected} (line {})", at.line)
            }
            SettingsError::Negative { at } => {
                write!(f, "{at}: must not be negative (line {})", at.line)
            }
            SettingsError::OutOfRange { at, allowed } => {
                write!(
                    f,
                    "{at}: out of range, allowed {allowed} (line {})",
                    at.line
                )
            }
            SettingsError::UnknownSensorType { sensor, at } => write!(
                f,
                "{at}: unknown sensor type for sensor {sensor:?}, expected CAMERA or \
                 LIDAR_RAY_CAST (line {})",
                at.line
            ),
            SettingsError::MissingSensorType {
                sensor,
                section,
                parents,
                line,
            } => {
                write!(
                    f,
                    "sensor {sensor:?} listed in Sensors has no SensorType in [{section}] \
                     or its {parents} parent sections (line {line})"
                )
            }
            SettingsError::OverBudget {
                limit,
                detail,
                allowed,
                line,
            } => {
                write!(
                    f,
                    "{detail}, over the server's budget of {allowed} ({limit})"
                )?;
                if *line > 0 {
                    write!(f, " (line {line})")?;
                }
                Ok(())
            }
            SettingsError::InvalidPostProcessing { sensor, at } => write!(
                f,
                "{at}: invalid post-processing for camera {sensor:?}, expected None, \
                 SceneFinal, Depth or SemanticSegmentation (line {})",
                at.line
            ),
            SettingsError::FovLimitsReversed {
                sensor,
                at,
                upper,
                lower,
            } => write!(
                f,
                "{at}: lidar {sensor:?} would have UpperFovLimit ({upper}) below \
                 LowerFovLimit ({lower}) (line {})",
                at.line
            ),
        }
    }
}

impl std::error::Error for SettingsError {}
