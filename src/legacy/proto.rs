//! The protobuf messages of `carla_server.proto` (CARLA 0.8.4), written as
//! prost derive structs (no build script, no `protoc`).
//!
//! Field numbers and wire types follow the 0.8.4 schema exactly. Field numbers
//! that were retired in the schema's history (Vehicle/Pedestrian 2,
//! PlayerMeasurements 2 and 11, Control 6) are deliberately absent so they are
//! never emitted. Enums are carried as `int32` (same varint wire format).

/// `Vector3D`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Vector3D {
    #[prost(float, tag = "1")]
    pub x: f32,
    #[prost(float, tag = "2")]
    pub y: f32,
    #[prost(float, tag = "3")]
    pub z: f32,
}

/// `Rotation3D` (degrees).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Rotation3D {
    #[prost(float, tag = "1")]
    pub pitch: f32,
    #[prost(float, tag = "2")]
    pub yaw: f32,
    #[prost(float, tag = "3")]
    pub roll: f32,
}

/// `Transform`; `orientation` is deprecated in the schema but still filled.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Transform {
    #[prost(message, optional, tag = "1")]
    pub location: Option<Vector3D>,
    #[prost(message, optional, tag = "2")]
    pub orientation: Option<Vector3D>,
    #[prost(message, optional, tag = "3")]
    pub rotation: Option<Rotation3D>,
}

/// `BoundingBox`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct BoundingBox {
    #[prost(message, optional, tag = "1")]
    pub transform: Option<Transform>,
    #[prost(message, optional, tag = "2")]
    pub extent: Option<Vector3D>,
}

/// `Sensor.Type` values.
pub mod sensor_type {
    pub const UNKNOWN: i32 = 0;
    pub const CAMERA: i32 = 1;
    pub const LIDAR_RAY_CAST: i32 = 2;
}

/// `Sensor`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sensor {
    #[prost(fixed32, tag = "1")]
    pub id: u32,
    #[prost(int32, tag = "2")]
    pub r#type: i32,
    #[prost(string, tag = "3")]
    pub name: String,
}

/// `Vehicle` and `Pedestrian`, two messages of one shape (field 2
/// retired in both).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Mover {
    #[prost(message, optional, tag = "1")]
    pub transform: Option<Transform>,
    #[prost(float, tag = "3")]
    pub forward_speed: f32,
    #[prost(message, optional, tag = "4")]
    pub bounding_box: Option<BoundingBox>,
}

/// `Vehicle`.
pub type Vehicle = Mover;
/// `Pedestrian`.
pub type Pedestrian = Mover;

/// `TrafficLight.State` values.
pub mod traffic_light_state {
    pub const GREEN: i32 = 0;
    pub const YELLOW: i32 = 1;
    pub const RED: i32 = 2;
}

/// `TrafficLight`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct TrafficLight {
    #[prost(message, optional, tag = "1")]
    pub transform: Option<Transform>,
    #[prost(int32, tag = "2")]
    pub state: i32,
}

/// `SpeedLimitSign`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct SpeedLimitSign {
    #[prost(message, optional, tag = "1")]
    pub transform: Option<Transform>,
    #[prost(float, tag = "2")]
    pub speed_limit: f32,
}

/// `Agent` with its `oneof agent`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Agent {
    #[prost(fixed32, tag = "1")]
    pub id: u32,
    #[prost(oneof = "AgentKind", tags = "2, 3, 4, 5")]
    pub agent: Option<AgentKind>,
}

/// The members of `Agent.agent`.
#[derive(Clone, Copy, PartialEq, prost::Oneof)]
pub enum AgentKind {
    #[prost(message, tag = "2")]
    Vehicle(Vehicle),
    #[prost(message, tag = "3")]
    Pedestrian(Pedestrian),
    #[prost(message, tag = "4")]
    TrafficLight(TrafficLight),
    #[prost(message, tag = "5")]
    SpeedLimitSign(SpeedLimitSign),
}

/// `RequestNewEpisode`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestNewEpisode {
    #[prost(string, tag = "1")]
    pub ini_file: String,
}

/// `SceneDescription` (`map_name` is number 3 and encoded last).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SceneDescription {
    #[prost(message, repeated, tag = "1")]
    pub player_start_spots: Vec<Transform>,
    #[prost(message, repeated, tag = "2")]
    pub sensors: Vec<Sensor>,
    #[prost(string, tag = "3")]
    pub map_name: String,
}

/// `EpisodeStart`.
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct EpisodeStart {
    #[prost(uint32, tag = "1")]
    pub player_start_spot_index: u32,
}

/// `EpisodeReady` (`ready = false` encodes to zero bytes).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct EpisodeReady {
    #[prost(bool, tag = "1")]
    pub ready: bool,
}

/// `Control` (field 6 retired).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct Control {
    #[prost(float, tag = "1")]
    pub steer: f32,
    #[prost(float, tag = "2")]
    pub throttle: f32,
    #[prost(float, tag = "3")]
    pub brake: f32,
    #[prost(bool, tag = "4")]
    pub hand_brake: bool,
    #[prost(bool, tag = "5")]
    pub reverse: bool,
}

/// `Measurements.PlayerMeasurements` (fields 2 and 11 retired).
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct PlayerMeasurements {
    #[prost(message, optional, tag = "1")]
    pub transform: Option<Transform>,
    #[prost(message, optional, tag = "3")]
    pub acceleration: Option<Vector3D>,
    #[prost(float, tag = "4")]
    pub forward_speed: f32,
    #[prost(float, tag = "5")]
    pub collision_vehicles: f32,
    #[prost(float, tag = "6")]
    pub collision_pedestrians: f32,
    #[prost(float, tag = "7")]
    pub collision_other: f32,
    #[prost(float, tag = "8")]
    pub intersection_otherlane: f32,
    #[prost(float, tag = "9")]
    pub intersection_offroad: f32,
    #[prost(message, optional, tag = "10")]
    pub autopilot_control: Option<Control>,
    #[prost(message, optional, tag = "12")]
    pub bounding_box: Option<BoundingBox>,
}

/// `Measurements`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Measurements {
    #[prost(uint32, tag = "1")]
    pub platform_timestamp: u32,
    #[prost(uint32, tag = "2")]
    pub game_timestamp: u32,
    #[prost(message, optional, tag = "3")]
    pub player_measurements: Option<PlayerMeasurements>,
    #[prost(message, repeated, tag = "4")]
    pub non_player_agents: Vec<Agent>,
    #[prost(uint64, tag = "5")]
    pub frame_number: u64,
}
