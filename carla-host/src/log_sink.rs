//! `carla-host`'s log: every line on stderr with its UTC time, so an
//! operator (or a monitoring script) can tell when a refusal or a summary
//! happened. The library hands the host plain lines; the host stamps them
//! (with the library's `log::utc_timestamp`).

use carla_server::log::{self, Level};
use std::sync::Arc;
use std::time::SystemTime;

/// Installs the sink: `2026-11-26T16:55:01.123Z [carla_server] warning: ...`.
pub(crate) fn install() {
    log::set_sink(Some(Arc::new(|level: Level, line: &str| {
        let name = match level {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
        };
        eprintln!("{} [carla_server] {}: {}", now_utc(), name, line);
    })));
}

/// The current time as ISO 8601 UTC with milliseconds.
pub(crate) fn now_utc() -> String {
    log::utc_timestamp(SystemTime::now())
}
