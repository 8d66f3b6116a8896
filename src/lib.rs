//! A CARLA simulator server library: the native layer between a game engine
//! running a driving simulator and the programs that read its sensors and
//! drive its vehicles.
//!
//! Every tick the engine hands a [`Server`] its measurements, camera images
//! and ray-cast hits and reads back the client's control; the library
//! serialises and streams on its own threads, so the game thread never waits
//! on the network (unless the host asks for synchronous mode). It speaks
//! two protocols:
//!
//! - **CARLA 0.8.4**, byte for byte: three TCP ports (world P, stream P+1,
//!   control P+2), so the official 0.8 clients work unmodified; the same
//!   calls are exported with the 0.8.4 C ABI (`include/carla/carla_server.h`).
//! - **The CARLA 0.9 sensor pipeline**: sensors created from blueprints,
//!   LibCarla's byte layouts (48-byte header + payload), one stream per
//!   sensor on a streaming port, many subscribers per stream.
//!
//! # Where things live
//!
//! | part | module | what it holds |
//! |---|---|---|
//! | the Rust API | `server` ([`Server`], [`Config`], [`Sensor`], [`Rpc`]) and [`Error`] | the server, and handles of a 0.9 sensor and of the RPC endpoint |
//! | the 0.8.4 protocol | [`legacy`] | world-port thread, the episode's stream and control threads, framing, protobuf messages, the settings ini, the 0.8 mirror of 0.9 sensors |
//! | the 0.9 sensor model | [`sensor`] | registry, header, serializers, blueprints, sensor models, the sensors a server created |
//! | the 0.9 transport | [`streaming`] | the streaming port, streams and their subscribers, pooled buffers |
//! | the 0.9.16 world protocol | [`rpc`] | msgpack-RPC endpoint, engine request queue, actors and blueprints, episode state, tokens |
//! | ROS 2 | [`ros2`] | sensors published on DDS as CARLA's `--ros2` does: messages, the publishing thread, the DDS participant |
//! | client releases | [`release`] ([`Release`]) | what differs between the 0.9.12 – 0.9.16 clients, applied at the RPC endpoint of each release's port and to each subscriber's header |
//! | the network layer | `net` (private) | sockets with deadlines, vectored sends, bound ports and their accept threads |
//! | the lock-free parts | `sync` (private) | the newest-value slot, the subscriber hand-off, bytes several owners send without a copy (`shared_bytes`), the loom shim and models |
//! | the C boundary | [`ffi`] | every exported function, and nothing else |
//! | plain data | [`types`] | the `#[repr(C)]` structs shared by Rust and C |
//! | clients | [`client`] | Rust clients of both protocols |
//! | logging, threads | [`log`], `threads` | the log sink; library threads that yield to the game thread |
//! | the demo world | `carla-host/` (a workspace member crate) | a headless town on the public API only (`cargo run --release`) |
//!
//! # Public API
//!
//! - [`Server`] with [`Config`]; [`Sensor`], the handle of a 0.9 sensor;
//!   [`Rpc`], the handle of the 0.9.16 RPC endpoint; [`Error`] (and
//!   [`Result`]); [`AgentStats`]; [`set_yield_to_game_thread`].
//! - [`types`]: the 0.8.4 data ([`types::Control`], [`types::Agent`],
//!   [`types::PlayerMeasurements`], ...) and the capture data of the 0.9
//!   pipeline ([`types::CaptureContext`], [`types::PlannedRay`],
//!   [`types::LidarHit`]).
//! - [`legacy::settings`] (the CarlaSettings.ini parser) and
//!   [`legacy::proto`] (the 0.8.4 messages, as the 0.8 client returns them).
//! - [`sensor`]: the registry ([`sensor::SensorType`]), the header
//!   ([`sensor::SensorHeader`]), payload serializers
//!   ([`sensor::serialize`]) for data a host sends raw, blueprints
//!   ([`sensor::blueprint`]) and the models ([`sensor::models`]);
//!   [`streaming`]: the streaming port, streams and their subscribers.
//! - [`client::Client`] (0.8.4) and [`client::StreamClient`] (0.9 streams).
//! - [`log::set_sink`], [`log::set_max_level`] and the `log_*!` macros.
//! - [`ffi`]: the C functions, callable from Rust too.
//! - [`rpc`]: the CARLA 0.9.16 world protocol (msgpack-RPC, stream tokens,
//!   the world-observer stream): the endpoint ([`rpc::RpcServer`], through
//!   [`Rpc`]), the requests the host polls ([`rpc::EngineRequest`]) and the
//!   data it hands over ([`rpc::ActorState`], [`rpc::EpisodeFrame`]).
//! - [`rpc::nav`]: the walkers' navigation mesh, in the file format the 0.9
//!   client loads, built from the host's walkable polygons.

mod episode;
mod error;
#[macro_use]
pub mod log;
pub mod client;
pub mod ffi;
#[cfg(any(fuzzing, test))]
#[doc(hidden)]
pub mod fuzzing;
pub mod legacy;
mod net;
pub mod recorder;
pub mod release;
pub mod ros2;
pub mod rpc;
pub mod sensor;
mod server;
pub mod streaming;
mod sync;
#[cfg(test)]
mod test_util;
mod threads;
pub mod types;

pub use error::{Error, Result};
pub use legacy::agent::AgentStats;
pub use release::Release;
pub use server::{Config, Rpc, Sensor, Server};
pub use threads::set_yield_to_game_thread;
