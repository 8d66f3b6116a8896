//! The CARLA 0.8.4 protocol: three ports per server (world P, stream P+1,
//! control P+2), every message a `u32` little-endian length and a protobuf
//! body (or, on the stream port, raw sensor records).
//!
//! - `world_port`: the world port's thread and the request/response
//!   rounds (RequestNewEpisode → SceneDescription → EpisodeStart →
//!   EpisodeReady) it trades with the host;
//! - `agent`: one episode's stream and control threads, fed through
//!   lock-free slots; `episode_end`: why an episode ended and what is
//!   closed then;
//! - `framing`, [`proto`], `encode`: the length framing, the protobuf
//!   messages and the conversions between them and [`crate::types`];
//! - [`settings`]: the client's `CarlaSettings.ini`, parsed for the host;
//! - [`lidar_record`]: the 0.8.4 lidar record, built from a lidar plan and
//!   its traced hits; `mirror`: a 0.9 camera or lidar that also feeds a
//!   0.8.4 sensor id (camera header, lidar record, shared image bytes).
//!
//! The host drives all of it through [`crate::Server`].

pub(crate) mod agent;
pub(crate) mod encode;
pub(crate) mod episode_end;
pub(crate) mod framing;
pub mod lidar_record;
pub(crate) mod mirror;
pub mod proto;
pub mod settings;
pub(crate) mod world_port;
