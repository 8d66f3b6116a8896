//! What moves: non-player traffic ([`traffic`]), pedestrians
//! ([`pedestrians`]), the player's car model ([`vehicle`]) and the vehicles
//! 0.9 clients spawn and drive, with the world's actor look-ups by id
//! ([`fleet`]).

pub(crate) mod fleet;
pub(crate) mod pedestrians;
pub(crate) mod traffic;
pub(crate) mod vehicle;
