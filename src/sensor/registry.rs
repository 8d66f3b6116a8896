//! The sensor registry: which numeric sensor type id each sensor gets on the
//! wire, its stable name and the payload format (serializer) it uses.
//!
//! # Which LibCarla version the ids mirror
//!
//! In LibCarla the sensor type id written into the 48-byte header (see
//! [`super::header`]) is nothing but the position of the sensor in the
//! registry's list, counting from 0; there is no explicit numbering, so ids
//! change whenever a sensor is inserted into the list. Client and server must
//! therefore agree on the exact list. Ids 0–21 here are the registry of the
//! **CARLA 0.9.16 release** (`pip install carla==0.9.16`), read from the
//! client library: 16 is the Cosmos control camera, 17 the world observer
//! (episode state), 18/19 the G-buffer streams, 20/21 the V2X sensors. A
//! 0.9.16 client that receives an id of 22 or more crashes, and one that
//! receives the world state under any id but 17 decodes it wrongly.
//!
//! Id 22 is the safe-distance sensor of the "add a new sensor" tutorial,
//! appended after the last 0.9.16 entry as the tutorial instructs; a stock
//! client has no decoder for it (read it with [`crate::client::StreamClient`]
//! or a client built with the tutorial's serializer).
//!
//! The wide-angle-lens cameras have no ids of their own in 0.9.16; they use
//! the image serializer, so they are sent under the id of the matching
//! ordinary camera ([`SensorType::from_name`] maps their blueprint ids).
//!
//! Other releases number differently (the world observer is 14, 15, 16 and
//! 16 in 0.9.12 … 0.9.15); their clients are served through
//! [`crate::Release::sensor_type`], which maps these ids to theirs.
//!
//! # Adding a sensor
//!
//! 1. Add a variant to [`SensorType`] with the next free discriminant (always
//!    append; never insert in the middle, that would renumber the sensors
//!    after it and break every client).
//! 2. Add one [`Entry`] at the same position in [`REGISTRY`] and bump
//!    [`SENSOR_COUNT`] (and therefore the length of [`SensorType::ALL`]).
//! 3. If the sensor needs a new payload layout, add a [`PayloadFormat`]
//!    variant and one serializer function in [`super::serialize`].
//!
//! The tests check that every id equals its position and that names are
//! unique.

/// How the payload after the 48-byte header is laid out, i.e. which
/// serializer a sensor uses. Functions in [`super::serialize`]:
///
/// * `Image`, `NormalsImage`, `GBufferUint8`: `serialize::image` (12-byte
///   image header + BGRA pixels);
/// * `GBufferFloat`: `serialize::gbuffer_float`;
/// * `OpticalFlowImage`: `serialize::optical_flow`;
/// * `Dvs`: `serialize::dvs_events`;
/// * `Gnss`, `Imu`, `CollisionEvent`, `ObstacleEvent`: the msgpack
///   serializers of the same names (`gnss`, `imu`, `collision`, `obstacle`);
/// * `Radar`, `Lidar`, `SemanticLidar`, `ActorIds`: `radar`, `lidar`,
///   `semantic_lidar`, `actor_ids`;
/// * `Noop`: the sensor never sends data from the server;
/// * `EpisodeState`: the world-observer stream (not serialized here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadFormat {
    Image,
    NormalsImage,
    OpticalFlowImage,
    Dvs,
    Gnss,
    Imu,
    Noop,
    ObstacleEvent,
    Radar,
    SemanticLidar,
    Lidar,
    CollisionEvent,
    EpisodeState,
    GBufferUint8,
    GBufferFloat,
    /// V2X messages (CAM data, custom V2X data): sent raw by the host.
    V2x,
    ActorIds,
}

/// A registered sensor. The discriminant is the sensor type id on the wire.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SensorType {
    Collision = 0,
    DepthCamera = 1,
    NormalsCamera = 2,
    DvsCamera = 3,
    Gnss = 4,
    Imu = 5,
    LaneInvasion = 6,
    ObstacleDetection = 7,
    OpticalFlowCamera = 8,
    Radar = 9,
    SemanticLidar = 10,
    Lidar = 11,
    Rss = 12,
    RgbCamera = 13,
    SemanticSegmentationCamera = 14,
    InstanceSegmentationCamera = 15,
    CosmosControl = 16,
    WorldObserver = 17,
    GBufferUint8 = 18,
    GBufferFloat = 19,
    V2x = 20,
    CustomV2x = 21,
    SafeDistance = 22,
}

/// Number of registered sensors.
pub(crate) const SENSOR_COUNT: usize = 23;

/// One registry row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub sensor: SensorType,
    /// Stable name: the CARLA blueprint id where one exists.
    pub name: &'static str,
    pub format: PayloadFormat,
}

const fn entry(sensor: SensorType, name: &'static str, format: PayloadFormat) -> Entry {
    Entry {
        sensor,
        name,
        format,
    }
}

/// The registry, indexed by sensor type id.
pub(crate) const REGISTRY: [Entry; SENSOR_COUNT] = {
    use PayloadFormat as F;
    use SensorType as S;
    [
        entry(S::Collision, "sensor.other.collision", F::CollisionEvent),
        entry(S::DepthCamera, "sensor.camera.depth", F::Image),
        entry(S::NormalsCamera, "sensor.camera.normals", F::NormalsImage),
        entry(S::DvsCamera, "sensor.camera.dvs", F::Dvs),
        entry(S::Gnss, "sensor.other.gnss", F::Gnss),
        entry(S::Imu, "sensor.other.imu", F::Imu),
        entry(S::LaneInvasion, "sensor.other.lane_invasion", F::Noop),
        entry(
            S::ObstacleDetection,
            "sensor.other.obstacle",
            F::ObstacleEvent,
        ),
        entry(
            S::OpticalFlowCamera,
            "sensor.camera.optical_flow",
            F::OpticalFlowImage,
        ),
        entry(S::Radar, "sensor.other.radar", F::Radar),
        entry(
            S::SemanticLidar,
            "sensor.lidar.ray_cast_semantic",
            F::SemanticLidar,
        ),
        entry(S::Lidar, "sensor.lidar.ray_cast", F::Lidar),
        entry(S::Rss, "sensor.other.rss", F::Noop),
        entry(S::RgbCamera, "sensor.camera.rgb", F::Image),
        entry(
            S::SemanticSegmentationCamera,
            "sensor.camera.semantic_segmentation",
            F::Image,
        ),
        entry(
            S::InstanceSegmentationCamera,
            "sensor.camera.instance_segmentation",
            F::Image,
        ),
        entry(S::CosmosControl, "cosmos_control", F::Image),
        entry(S::WorldObserver, "world_observer", F::EpisodeState),
        // The G-buffer streams are not blueprints in CARLA (they are extra
        // streams of a camera), hence names without the "sensor." prefix.
        entry(S::GBufferUint8, "gbuffer_uint8", F::GBufferUint8),
        entry(S::GBufferFloat, "gbuffer_float", F::GBufferFloat),
        entry(S::V2x, "sensor.other.v2x", F::V2x),
        entry(S::CustomV2x, "sensor.other.v2x_custom", F::V2x),
        entry(S::SafeDistance, "sensor.other.safe_distance", F::ActorIds),
    ]
};

impl SensorType {
    /// Every sensor, in id order (`ALL[i].id() == i`).
    pub const ALL: [SensorType; SENSOR_COUNT] = {
        let mut all = [SensorType::Collision; SENSOR_COUNT];
        let mut i = 0;
        while i < SENSOR_COUNT {
            all[i] = REGISTRY[i].sensor;
            i += 1;
        }
        all
    };

    /// Whether a stock 0.9.16 client can decode this sensor's data (its id
    /// is in that release's registry). A stock client that receives data
    /// of another id crashes.
    pub const fn in_0_9_16_release(self) -> bool {
        (self as u32) < SensorType::SafeDistance as u32
    }

    /// The sensor type id written into the header.
    pub const fn id(self) -> u32 {
        self as u32
    }

    /// The sensor with this id, if registered.
    pub const fn from_id(id: u32) -> Option<SensorType> {
        if (id as usize) < SENSOR_COUNT {
            Some(REGISTRY[id as usize].sensor)
        } else {
            None
        }
    }

    /// The sensor with this stable name (exact match), if registered; the
    /// wide-angle-lens camera blueprints give their ordinary camera, and
    /// CARLA's `sensor.camera.cosmos_visualization` blueprint its
    /// `cosmos_control` sensor.
    pub fn from_name(name: &str) -> Option<SensorType> {
        if let Some(base) = name.strip_suffix(".wide_angle_lens") {
            return Self::from_name(base).filter(|s| s.format() == PayloadFormat::Image);
        }
        if name == "sensor.camera.cosmos_visualization" {
            return Some(SensorType::CosmosControl);
        }
        REGISTRY.iter().find(|e| e.name == name).map(|e| e.sensor)
    }

    /// Its registry row.
    pub const fn entry(self) -> &'static Entry {
        &REGISTRY[self as usize]
    }

    /// Stable name (the CARLA blueprint id where one exists).
    pub const fn name(self) -> &'static str {
        self.entry().name
    }

    /// Payload format (serializer).
    pub const fn format(self) -> PayloadFormat {
        self.entry().format
    }
}

impl std::fmt::Display for SensorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_id_equals_its_position() {
        assert_eq!(SensorType::ALL.len(), 23);
        for (i, s) in SensorType::ALL.iter().enumerate() {
            assert_eq!(s.id() as usize, i, "{s:?}");
            assert_eq!(REGISTRY[i].sensor, *s);
        }
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        let names: HashSet<&str> = REGISTRY.iter().map(|e| e.name).collect();
        assert_eq!(names.len(), SENSOR_COUNT);
        for s in SensorType::ALL {
            assert_eq!(SensorType::from_id(s.id()), Some(s));
            assert_eq!(SensorType::from_name(s.name()), Some(s));
            assert_eq!(s.to_string(), s.name());
        }
        assert_eq!(SensorType::from_id(23), None);
        assert_eq!(SensorType::from_id(u32::MAX), None);
        assert_eq!(SensorType::from_name("sensor.camera"), None);
        assert_eq!(SensorType::from_name(""), None);
    }

    #[test]
    fn ids_are_the_0_9_16_release_list() {
        // The 22 entries of the 0.9.16 client's sensor registry, id by id.
        let release = [
            "sensor.other.collision",
            "sensor.camera.depth",
            "sensor.camera.normals",
            "sensor.camera.dvs",
            "sensor.other.gnss",
            "sensor.other.imu",
            "sensor.other.lane_invasion",
            "sensor.other.obstacle",
            "sensor.camera.optical_flow",
            "sensor.other.radar",
            "sensor.lidar.ray_cast_semantic",
            "sensor.lidar.ray_cast",
            "sensor.other.rss",
            "sensor.camera.rgb",
            "sensor.camera.semantic_segmentation",
            "sensor.camera.instance_segmentation",
            "cosmos_control",
            "world_observer",
            "gbuffer_uint8",
            "gbuffer_float",
            "sensor.other.v2x",
            "sensor.other.v2x_custom",
        ];
        for (id, name) in release.iter().enumerate() {
            assert_eq!(REGISTRY[id].name, *name, "id {id}");
        }
        assert_eq!(SensorType::WorldObserver.id(), 17);
        assert_eq!(
            SensorType::WorldObserver.format(),
            PayloadFormat::EpisodeState
        );
        assert_eq!(SensorType::GBufferUint8.id(), 18);
        assert_eq!(SensorType::GBufferFloat.id(), 19);
        // The tutorial's sensor comes right after the release's last entry.
        assert_eq!(SensorType::SafeDistance.id() as usize, release.len());
        assert_eq!(
            SensorType::from_name("sensor.other.safe_distance"),
            Some(SensorType::SafeDistance)
        );
    }

    #[test]
    fn wide_angle_cameras_are_sent_as_their_ordinary_cameras() {
        let cases = [
            ("sensor.camera.rgb.wide_angle_lens", SensorType::RgbCamera),
            (
                "sensor.camera.depth.wide_angle_lens",
                SensorType::DepthCamera,
            ),
            (
                "sensor.camera.semantic_segmentation.wide_angle_lens",
                SensorType::SemanticSegmentationCamera,
            ),
            (
                "sensor.camera.instance_segmentation.wide_angle_lens",
                SensorType::InstanceSegmentationCamera,
            ),
        ];
        for (name, sensor) in cases {
            assert_eq!(SensorType::from_name(name), Some(sensor), "{name}");
            assert_eq!(sensor.format(), PayloadFormat::Image);
        }
        assert_eq!(
            SensorType::from_name("sensor.other.gnss.wide_angle_lens"),
            None
        );
    }

    #[test]
    fn formats() {
        use PayloadFormat as F;
        assert_eq!(SensorType::Collision.format(), F::CollisionEvent);
        assert_eq!(SensorType::RgbCamera.format(), F::Image);
        assert_eq!(SensorType::LaneInvasion.format(), F::Noop);
        assert_eq!(SensorType::Rss.format(), F::Noop);
        assert_eq!(SensorType::DvsCamera.format(), F::Dvs);
        assert_eq!(SensorType::SafeDistance.format(), F::ActorIds);
        assert_eq!(SensorType::GBufferUint8.format(), F::GBufferUint8);
        let image_like = REGISTRY.iter().filter(|e| e.format == F::Image).count();
        assert_eq!(image_like, 5);
    }
}
