//! What moves: the world's traffic on the lane graph ([`traffic`], with
//! what it knows of the lanes: [`ways`]), its walkers ([`pedestrians`]),
//! the lights' cycle ([`lights`]), the player's car ([`vehicle`]) and the
//! autopilot ([`pilot`]), the vehicles 0.9 clients drive ([`fleet`]), the props
//! they spawn ([`props`]), and the world's actors by id ([`actors`]).

pub(crate) mod ackermann;
pub(crate) mod actors;
pub(crate) mod bones;
pub(crate) mod carbody;
pub(crate) mod dress;
pub(crate) mod figure;
pub(crate) mod fleet;
pub(crate) mod lights;
pub(crate) mod pedestrians;
pub(crate) mod pilot;
pub(crate) mod props;
pub(crate) mod skeleton;
pub(crate) mod traffic;
pub(crate) mod vehicle;
pub(crate) mod ways;
