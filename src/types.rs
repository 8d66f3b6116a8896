//! Plain-data types shared by the Rust API and the C API.
//!
//! All are `#[repr(C)]` with the exact layouts of the 0.8.4 `carla_server.h`
//! (checked by the size/offset tests below and from C). cbindgen renames them
//! to their C names (`Vector3D` -> `carla_vector3d`, ...).

/// A C `bool` read as a byte: any non-zero value is true. Reading a C `bool`
/// straight into a Rust `bool` would be undefined behaviour for values other
/// than 0/1, which real hosts send (uninitialised struct members).
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct CBool(pub u8);

impl CBool {
    pub const TRUE: CBool = CBool(1);
    pub const FALSE: CBool = CBool(0);

    /// Normalised value.
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl From<bool> for CBool {
    fn from(value: bool) -> Self {
        CBool(value as u8)
    }
}

impl std::fmt::Debug for CBool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.get())
    }
}

/// A vector in metres (or m/s², depending on the field).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vector3D {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

/// Rotation angles in degrees.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rotation3D {
    pub pitch: f32,
    pub yaw: f32,
    pub roll: f32,
}

/// A placement in the world.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform {
    /// Location in metres.
    pub location: Vector3D,
    /// Unit vector pointing forward.
    pub orientation: Vector3D,
    /// Rotation angles in degrees.
    pub rotation: Rotation3D,
}

/// An oriented box, relative to the actor that owns it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BoundingBox {
    pub transform: Transform,
    /// Half sizes in metres.
    pub extent: Vector3D,
}

/// Agent kinds (`carla_agent.type`).
pub const CARLA_SERVER_AGENT_UNKNOWN: u32 = 0;
pub const CARLA_SERVER_AGENT_VEHICLE: u32 = 10;
pub const CARLA_SERVER_AGENT_PEDESTRIAN: u32 = 20;
pub const CARLA_SERVER_AGENT_SPEEDLIMITSIGN: u32 = 30;
pub const CARLA_SERVER_AGENT_TRAFFICLIGHT: u32 = 40;
pub const CARLA_SERVER_AGENT_TRAFFICLIGHT_GREEN: u32 = 41;
pub const CARLA_SERVER_AGENT_TRAFFICLIGHT_YELLOW: u32 = 42;
pub const CARLA_SERVER_AGENT_TRAFFICLIGHT_RED: u32 = 43;

/// Sensor kinds (`carla_sensor_definition.type`).
pub const CARLA_SERVER_SENSOR_UNKNOWN: u32 = 0;
pub const CARLA_SERVER_CAMERA: u32 = 101;
pub const CARLA_SERVER_LIDAR_RAY_CAST: u32 = 102;

/// A non-player agent. For traffic lights the box and speed are ignored; for
/// speed-limit signs `forward_speed` is the limit (m/s).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agent {
    pub id: u32,
    /// One of the `CARLA_SERVER_AGENT_*` values.
    pub r#type: u32,
    pub transform: Transform,
    pub bounding_box: BoundingBox,
    pub forward_speed: f32,
}

/// The vehicle control sent by the client (and the autopilot's suggestion).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Control {
    pub steer: f32,
    pub throttle: f32,
    pub brake: f32,
    pub hand_brake: CBool,
    pub reverse: CBool,
}

/// The player's state for one frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlayerMeasurements {
    /// World transform of the player.
    pub transform: Transform,
    /// Bounding box of the player.
    pub bounding_box: BoundingBox,
    /// Acceleration in m/s².
    pub acceleration: Vector3D,
    /// Forward speed in m/s.
    pub forward_speed: f32,
    /// Accumulated collision impulse with vehicles (kg·m/s).
    pub collision_vehicles: f32,
    /// Accumulated collision impulse with pedestrians.
    pub collision_pedestrians: f32,
    /// Accumulated collision impulse with everything else.
    pub collision_other: f32,
    /// Fraction of the car in other lanes, [0, 1].
    pub intersection_otherlane: f32,
    /// Fraction of the car off the road, [0, 1].
    pub intersection_offroad: f32,
    /// What the built-in autopilot would apply this frame.
    pub autopilot_control: Control,
}

/// The per-frame part of a measurement, without the agents array.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeasurementsHeader {
    pub frame_number: u32,
    pub platform_timestamp: u32,
    pub game_timestamp: u32,
    pub player_measurements: PlayerMeasurements,
}

/// A sensor of the scene description (Rust side of `carla_sensor_definition`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SensorDefinition {
    pub id: u32,
    /// One of the `CARLA_SERVER_*` sensor kinds.
    pub r#type: u32,
    pub name: String,
}

/// A 0.9 transform: location in metres, rotation in degrees (pitch, yaw,
/// roll, Unreal's left-handed frame: x forward, y right, z up). 24 bytes,
/// the layout of `carla::geom::Transform` on the wire.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ActorTransform {
    pub location: Vector3D,
    pub rotation: Rotation3D,
}

/// When and where the data was captured (filled by the engine at capture).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CaptureContext {
    /// Simulation frame the data belongs to.
    pub frame: u64,
    /// Simulation time in seconds.
    pub timestamp: f64,
    /// The sensor's world transform at capture.
    pub transform: ActorTransform,
}

/// One lidar ray to trace. 16 bytes, `#[repr(C)]`, so an FFI layer can hand
/// the slice to the engine as is.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlannedRay {
    /// Laser index, 0 = top laser.
    pub channel: u32,
    /// Unit direction in the sensor frame (x forward, y right, z up):
    /// `(cos p · cos y, cos p · sin y, sin p)`.
    pub direction: Vector3D,
}

/// One lidar trace result, reported by the engine for each planned ray.
/// 44 bytes, `#[repr(C)]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LidarHit {
    /// Index of the ray in the tick's plan this result belongs to.
    pub ray_index: u32,
    /// 0 = the ray hit nothing (the other fields are ignored), else a hit.
    pub hit: u32,
    /// Distance from the sensor to the hit, metres (used for intensity).
    pub distance_m: f32,
    /// Hit point in the sensor frame, metres (x forward, y right, z up).
    pub point_sensor: Vector3D,
    /// Surface normal at the hit, in the sensor frame (need not be unit).
    pub normal_sensor: Vector3D,
    /// CARLA actor id of the hit actor, 0 if not an actor.
    pub actor_id: u32,
    /// Semantic tag of the hit component (custom-depth stencil value).
    pub semantic_tag: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn layouts_match_the_0_8_4_header() {
        assert_eq!((size_of::<Vector3D>(), align_of::<Vector3D>()), (12, 4));
        assert_eq!(size_of::<Rotation3D>(), 12);
        assert_eq!(size_of::<Transform>(), 36);
        assert_eq!(offset_of!(Transform, rotation), 24);
        assert_eq!(size_of::<BoundingBox>(), 48);
        assert_eq!(offset_of!(BoundingBox, extent), 36);
        assert_eq!(size_of::<Agent>(), 96);
        assert_eq!(offset_of!(Agent, transform), 8);
        assert_eq!(offset_of!(Agent, bounding_box), 44);
        assert_eq!(offset_of!(Agent, forward_speed), 92);
        assert_eq!((size_of::<Control>(), align_of::<Control>()), (16, 4));
        assert_eq!(offset_of!(Control, hand_brake), 12);
        assert_eq!(offset_of!(Control, reverse), 13);
        assert_eq!(size_of::<PlayerMeasurements>(), 136);
        assert_eq!(offset_of!(PlayerMeasurements, bounding_box), 36);
        assert_eq!(offset_of!(PlayerMeasurements, acceleration), 84);
        assert_eq!(offset_of!(PlayerMeasurements, forward_speed), 96);
        assert_eq!(offset_of!(PlayerMeasurements, intersection_offroad), 116);
        assert_eq!(offset_of!(PlayerMeasurements, autopilot_control), 120);
    }

    #[test]
    fn capture_structs_have_fixed_layouts() {
        assert_eq!(size_of::<ActorTransform>(), 24);
        assert_eq!(size_of::<PlannedRay>(), 16);
        assert_eq!(offset_of!(PlannedRay, direction), 4);
        assert_eq!(size_of::<LidarHit>(), 44);
        assert_eq!(offset_of!(LidarHit, hit), 4);
        assert_eq!(offset_of!(LidarHit, distance_m), 8);
        assert_eq!(offset_of!(LidarHit, point_sensor), 12);
        assert_eq!(offset_of!(LidarHit, normal_sensor), 24);
        assert_eq!(offset_of!(LidarHit, actor_id), 36);
        assert_eq!(offset_of!(LidarHit, semantic_tag), 40);
    }

    #[test]
    fn cbool_treats_any_nonzero_byte_as_true() {
        assert!(CBool(1).get());
        assert!(CBool(0xAB).get());
        assert!(!CBool(0).get());
    }
}
