pub mod access_control;
pub mod authentication;
mod certificate;
pub mod config;
pub mod cryptographic;
pub mod logging;
mod private_key;
pub mod security_plugins;
pub mod types;

pub use types::*;
// export top-level plugin interfaces
pub use access_control::{
  access_control_builtin::AccessControlBuiltin, access_control_plugin::AccessControl,
};
pub use authentication::{
  authentication_builtin::AuthenticationBuiltin, authentication_plugin::Authentication,
};
pub use cryptographic::{cryptographic_builtin::CryptographicBuiltin, Cryptographic};
