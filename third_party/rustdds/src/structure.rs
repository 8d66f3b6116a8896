pub mod cache_change;
pub mod dds_cache;
pub mod duration;
pub mod endpoint;
pub mod entity;
pub mod guid;
pub mod locator;
pub mod parameter_id;
pub mod sequence_number;
pub mod time;
pub mod topic_kind;

pub mod rpc;
