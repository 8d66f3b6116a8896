//! The demo host: plays the simulator's side through the library's public
//! API only, as an engine would.

pub mod episode;
pub mod world;
