//! Sensor models that keep the engine side thin: the engine traces rays or
//! reports overlaps; the maths and the payload layout live here.

pub mod dvs;
pub mod gnss;
pub mod lidar;
pub mod safe_distance;
pub mod v2x;
