//! The 0.9 transport, apart from the sensor model: the streaming port,
//! one stream per sensor (or per world observer) that many clients
//! subscribe to, their sessions and delivery modes, and the pooled buffers
//! that messages are written into. What a message holds is
//! [`crate::sensor`]'s business.

pub(crate) mod pool;
pub(crate) mod stream;
pub(crate) mod trim;

pub use stream::StreamStats;
