//! The sensor registry: which numeric sensor type id each sensor gets on the
//! wire, its stable name and the payload format (serializer) it uses.
//!
//! # Which LibCarla version the ids mirror
//!
//! In LibCarla the sensor type id written into the 48-byte header (see
//! [`super::header`]) is nothing but the position of the sensor in the
//! registry's list, counting from 0; there is no explicit numbering, so ids
//! change whenever a sensor is inserted into the list. Client and server must
//! therefore agree on the exact list. Ids 0–22 here mirror the newest
//! LibCarla registry list (the 23-entry list with the wide-angle cameras and the two G-buffer
//! streams, commit `0213851c`). Id 23 is the safe-distance sensor of the
//! "add a new sensor" tutorial, appended at the end as the tutorial instructs;
//! a stock CARLA client of that version does not know it.
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
    WorldObserver = 16,
    RgbCameraWideAngle = 17,
    DepthCameraWideAngle = 18,
    InstanceSegmentationCameraWideAngle = 19,
    SemanticSegmentationCameraWideAngle = 20,
    GBufferUint8 = 21,
    GBufferFloat = 22,
    SafeDistance = 23,
}

/// Number of registered sensors.
pub const SENSOR_COUNT: usize = 24;

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
pub const REGISTRY: [Entry; SENSOR_COUNT] = {
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
        entry(S::WorldObserver, "world_observer", F::EpisodeState),
        entry(
            S::RgbCameraWideAngle,
            "sensor.camera.rgb.wide_angle_lens",
            F::Image,
        ),
        entry(
            S::DepthCameraWideAngle,
            "sensor.camera.depth.wide_angle_lens",
            F::Image,
        ),
        entry(
            S::InstanceSegmentationCameraWideAngle,
            "sensor.camera.instance_segmentation.wide_angle_lens",
            F::Image,
        ),
        entry(
            S::SemanticSegmentationCameraWideAngle,
            "sensor.camera.semantic_segmentation.wide_angle_lens",
            F::Image,
        ),
        // The G-buffer streams are not blueprints in CARLA (they are extra
        // streams of a camera), hence names without the "sensor." prefix.
        entry(S::GBufferUint8, "gbuffer_uint8", F::GBufferUint8),
        entry(S::GBufferFloat, "gbuffer_float", F::GBufferFloat),
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

    /// The sensor with this stable name (exact match), if registered.
    pub fn from_name(name: &str) -> Option<SensorType> {
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
        assert_eq!(SensorType::ALL.len(), 24);
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
        assert_eq!(SensorType::from_id(24), None);
        assert_eq!(SensorType::from_id(u32::MAX), None);
        assert_eq!(SensorType::from_name("sensor.camera"), None);
        assert_eq!(SensorType::from_name(""), None);
    }

    #[test]
    fn ids_match_the_newest_libcarla_list() {
        let cases = [
            (SensorType::Collision, 0, "sensor.other.collision"),
            (SensorType::NormalsCamera, 2, "sensor.camera.normals"),
            (SensorType::Gnss, 4, "sensor.other.gnss"),
            (SensorType::Imu, 5, "sensor.other.imu"),
            (SensorType::Radar, 9, "sensor.other.radar"),
            (
                SensorType::SemanticLidar,
                10,
                "sensor.lidar.ray_cast_semantic",
            ),
            (SensorType::Lidar, 11, "sensor.lidar.ray_cast"),
            (SensorType::RgbCamera, 13, "sensor.camera.rgb"),
            (SensorType::WorldObserver, 16, "world_observer"),
            (SensorType::GBufferFloat, 22, "gbuffer_float"),
            (SensorType::SafeDistance, 23, "sensor.other.safe_distance"),
        ];
        for (s, id, name) in cases {
            assert_eq!(s.id(), id);
            assert_eq!(SensorType::from_id(id), Some(s));
            assert_eq!(SensorType::from_name(name), Some(s));
        }
    }

    #[test]
    fn formats() {
        use PayloadFormat as F;
        assert_eq!(SensorType::Collision.format(), F::CollisionEvent);
        assert_eq!(SensorType::RgbCamera.format(), F::Image);
        assert_eq!(SensorType::DepthCameraWideAngle.format(), F::Image);
        assert_eq!(SensorType::LaneInvasion.format(), F::Noop);
        assert_eq!(SensorType::Rss.format(), F::Noop);
        assert_eq!(SensorType::DvsCamera.format(), F::Dvs);
        assert_eq!(SensorType::SafeDistance.format(), F::ActorIds);
        assert_eq!(SensorType::GBufferUint8.format(), F::GBufferUint8);
        let image_like = REGISTRY.iter().filter(|e| e.format == F::Image).count();
        assert_eq!(image_like, 8);
    }
}
