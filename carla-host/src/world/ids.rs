//! Actor ids of the world's own actors: the 0.8 player, then a range per
//! kind (clients' actors get ids from the library, which skips these while
//! they are in use). Not 1: that is the 0.9 spectator's id.

/// The 0.8 player's car.
pub(crate) const PLAYER_ID: u32 = 999;
/// The world's own traffic, at most [`MAX_PER_KIND`].
pub(crate) const VEHICLE_ID0: u32 = 1000;
pub(crate) const PEDESTRIAN_ID0: u32 = 2000;
/// The map's traffic lights and signs, in the map's order.
pub(crate) const LIGHT_ID0: u32 = 3000;
pub(crate) const SIGN_ID0: u32 = 4000;
/// Most actors of one kind (a map's lights and signs past it are left out
/// with a warning).
pub(crate) const MAX_PER_KIND: u32 = 1000;
