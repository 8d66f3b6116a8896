//! The Unreal glue (`unreal_glue/`), compiled unchanged against the stand-in
//! engine (`unreal_glue/Tests/Standin/`) with g++ and with clang++
//! (`-Wall -Wextra -Werror`), its `.generated.h` files written by a
//! miniature UHT (`unreal_glue/uht.rs`), linked with this build's
//! `libcarla_server.so` and run as a simulated game
//! (`unreal_glue/Tests/SimGame.cpp`) in three scenarios:
//!
//! - `level.rs`: sensors placed in the level; the 0.8 client and one 0.9
//!   subscriber per stream at once, every frame of both protocols checked
//!   against the level's geometry; a stalled subscriber delays nothing
//!   (the stand-in's watchdog fails the game if a render command or a
//!   sensor's tick waits longer than a frame's budget).
//! - `ini.rs`: an episode whose CarlaSettings.ini asks for a Depth camera,
//!   a SemanticSegmentation camera and a lidar gets them at the requested
//!   sizes; collisions, agents, start-spot fallback and physics reset.
//! - `rpc.rs`: the unmodified `carla` 0.9.16 Python client spawns sensors
//!   through the glue and receives their data, then watches the level
//!   change (a walker, a car spawned late, a car destroyed and collected).
//! - `builds.rs`: the glue compiles as UE 4 (C++14, float vectors) and
//!   UE 5 (C++20) builds on Linux and Windows (`wchar_t`) compile it.
//!
//! Linux only: the glue is compiled at test time with the system's g++ and
//! clang++ against the stand-in engine's Linux build, which a Windows test
//! under Wine cannot run (it cannot wait for a Linux process).
#![cfg(target_os = "linux")]

mod common;

#[path = "unreal_glue/builds.rs"]
mod builds;
#[path = "unreal_glue/ini.rs"]
mod ini;
#[path = "unreal_glue/level.rs"]
mod level;
#[path = "unreal_glue/lint.rs"]
mod lint;
#[path = "unreal_glue/nolib.rs"]
mod nolib;
#[path = "unreal_glue/rpc.rs"]
mod rpc;
#[path = "unreal_glue/sim.rs"]
mod sim;
#[path = "unreal_glue/uht.rs"]
mod uht;
