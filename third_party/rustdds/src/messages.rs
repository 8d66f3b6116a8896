// message header
pub mod header;

// submessages
pub mod submessages;

pub mod protocol_id;
pub mod protocol_version;
pub mod validity_trait;
pub mod vendor_id;
