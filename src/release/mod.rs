//! The CARLA client releases this library serves, and what differs between
//! them on the wire. The library's own numbering is 0.9.16's (registry ids,
//! attribute types, command indices, semantic labels); a client of another
//! release is served through the tables here, at the edges: the RPC
//! endpoint of its release translates its calls, and its stream
//! subscriptions get the 48-byte header's sensor type rewritten.
//!
//! Every fact below was read from the wheel of that release on PyPI (its
//! `libcarla` carries full debug information: the registry's serializer
//! list, enum orders, struct layouts) and checked live with its unmodified
//! client; `docs/releases.md` has the table and how each was checked.
//!
//! A client never says which release it is (0.9.12 and 0.9.13 send the
//! same bytes; 0.9.15 and 0.9.16 differ only once they attach a sensor,
//! after the world stream and the blueprint library they must already
//! decode), so a server knows a client's release by the port it dialled:
//! one RPC port per release, and a stream id tagged with the release of the
//! endpoint that handed out its token (its bits 28 to 30).

use crate::sensor::SensorType;
use std::fmt;
use std::str::FromStr;

/// A CARLA client release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Release {
    V0_9_12,
    V0_9_13,
    V0_9_14,
    V0_9_15,
    /// The library's own numbering.
    V0_9_16,
}

/// Stream ids below this are the library's; the bits above carry a
/// release tag (0: 0.9.16, the untagged id).
pub(crate) const STREAM_ID_LIMIT: u32 = 1 << 28;

impl Release {
    /// Every release served, oldest first.
    pub const ALL: [Release; 5] = [
        Release::V0_9_12,
        Release::V0_9_13,
        Release::V0_9_14,
        Release::V0_9_15,
        Release::V0_9_16,
    ];

    /// The library's own release (its ids are 0.9.16's).
    pub const NATIVE: Release = Release::V0_9_16;

    /// `"0.9.12"` … `"0.9.16"`: what the release's `client.get_client_version()`
    /// says, and what its RPC endpoint answers to `version`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Release::V0_9_12 => "0.9.12",
            Release::V0_9_13 => "0.9.13",
            Release::V0_9_14 => "0.9.14",
            Release::V0_9_15 => "0.9.15",
            Release::V0_9_16 => "0.9.16",
        }
    }

    /// The minor-minor number: 12 … 16 (`carla-host` offers release
    /// 0.9.N on port P + N).
    pub const fn number(self) -> u16 {
        match self {
            Release::V0_9_12 => 12,
            Release::V0_9_13 => 13,
            Release::V0_9_14 => 14,
            Release::V0_9_15 => 15,
            Release::V0_9_16 => 16,
        }
    }

    /// `"0.9.12, 0.9.13, 0.9.14, 0.9.15, 0.9.16"`, for errors and help.
    pub fn list() -> String {
        let names: Vec<&str> = Release::ALL.iter().map(|r| r.as_str()).collect();
        names.join(", ")
    }

    fn tag(self) -> u32 {
        match self {
            Release::V0_9_16 => 0,
            other => 1 + other as u32,
        }
    }

    /// The stream id this release's clients are given for stream `id`
    /// (`id` < 2^28; 0.9.16's is `id` itself).
    pub(crate) fn tag_stream(self, id: u32) -> u32 {
        debug_assert!(id < STREAM_ID_LIMIT);
        (self.tag() << 28) | (id & (STREAM_ID_LIMIT - 1))
    }

    /// The library's stream id inside a (possibly tagged) stream id a
    /// client sends back (a tag no release has is left as it is).
    pub(crate) fn library_stream_id(raw: u32) -> u32 {
        Release::split_stream_id(raw).map_or(raw, |(_, id)| id)
    }

    /// The release and library stream id a subscriber asked for (None: a
    /// tag no release has).
    pub(crate) fn split_stream_id(raw: u32) -> Option<(Release, u32)> {
        let id = raw & (STREAM_ID_LIMIT - 1);
        let release = match raw >> 28 {
            0 => Release::V0_9_16,
            t => *Release::ALL.get(t as usize - 1).filter(|r| r.tag() == t)?,
        };
        Some((release, id))
    }

    /// The sensor type id a client of this release decodes the data of
    /// library sensor type `native` with, if it has one. Image-layout
    /// sensors the release lacks (the Cosmos camera; the instance
    /// segmentation camera in 0.9.12) go out under its RGB camera's id and
    /// arrive as `carla.Image`; the others (normals before 0.9.14, the
    /// G-buffers before 0.9.14, V2X before 0.9.16, the library's own
    /// sensors) have none.
    pub fn sensor_type(self, native: u64) -> Option<u64> {
        use SensorType as S;
        let sensor = *SensorType::ALL.get(usize::try_from(native).ok()?)?;
        if self == Release::NATIVE {
            return Some(native);
        }
        if sensor as u32 >= S::V2x as u32 {
            return None; // V2X and the library's own sensors
        }
        // The RGB camera's id: 13 from 0.9.14 on (after the normals camera).
        let rgb = Some(if self >= Release::V0_9_14 { 13 } else { 12 });
        match self {
            Release::V0_9_14 | Release::V0_9_15 => match sensor {
                S::CosmosControl => rgb,
                s if (s as u32) < S::CosmosControl as u32 => Some(native),
                s => Some(s as u64 - 1), // world observer, G-buffers
            },
            Release::V0_9_12 | Release::V0_9_13 => match sensor {
                S::Collision | S::DepthCamera => Some(native),
                S::NormalsCamera | S::GBufferUint8 | S::GBufferFloat => None,
                S::CosmosControl => rgb,
                S::InstanceSegmentationCamera if self == Release::V0_9_12 => rgb,
                S::WorldObserver if self == Release::V0_9_12 => Some(14),
                S::WorldObserver => Some(15),
                s => Some(s as u64 - 1), // DVS … instance segmentation
            },
            Release::V0_9_16 => Some(native),
        }
    }

    /// Whether this release has blueprint `id`'s sensor with a serializer
    /// of its own, i.e. whether its blueprint library lists it.
    pub fn has_sensor_blueprint(self, id: &str) -> bool {
        match SensorType::from_name(id) {
            // Not a sensor of the registry, or the library's own (stock
            // clients of every release get those as plain actors).
            None => true,
            Some(s) if !s.in_0_9_16_release() => true,
            Some(s) => {
                let exact = match s {
                    SensorType::CosmosControl => self == Release::V0_9_16,
                    SensorType::InstanceSegmentationCamera => self != Release::V0_9_12,
                    _ => true,
                };
                exact && self.sensor_type(s as u64).is_some()
            }
        }
    }

    /// The `ActorAttributeType` number this release uses for the library's
    /// `kind` (`ATTR_BOOL` 1 … `ATTR_RGB` 5): 0-based (Bool 0 … RGBColor 4)
    /// before 0.9.16.
    pub fn attribute_type_out(self, kind: u8) -> u8 {
        match self {
            Release::V0_9_16 => kind,
            _ => kind.saturating_sub(1),
        }
    }

    /// The library's attribute type for number `wire` of this release.
    pub fn attribute_type_in(self, wire: u8) -> u8 {
        match self {
            Release::V0_9_16 => wire,
            _ => wire.saturating_add(1),
        }
    }

    /// The library's (0.9.16) `rpc::Command` variant index of this
    /// release's `index`: 0.9.14 inserted ApplyVehicleAckermannControl at
    /// 3, so 0.9.12/0.9.13's indices from 3 on are one lower.
    pub fn command_index_in(self, index: u64) -> u64 {
        match self {
            Release::V0_9_12 | Release::V0_9_13 if index >= 3 => index + 1,
            _ => index,
        }
    }

    /// Whether the release's client enables a camera's G-buffers
    /// (`enable_gbuffers`, 0.9.16); earlier clients (0.9.14, 0.9.15) get
    /// them by asking for the stream's token alone.
    pub fn enables_gbuffers(self) -> bool {
        self == Release::V0_9_16
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Release {
    type Err = String;

    /// `"0.9.12"` … `"0.9.16"`; anything else is an error naming them.
    fn from_str(s: &str) -> Result<Release, String> {
        Release::ALL
            .into_iter()
            .find(|r| r.as_str() == s.trim())
            .ok_or_else(|| {
                format!(
                    "CARLA client release {s:?} is not served; the releases served are {}",
                    Release::list()
                )
            })
    }
}

mod labels;
#[cfg(test)]
mod tests;
