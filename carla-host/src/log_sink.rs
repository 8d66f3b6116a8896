//! `carla-host`'s log: every line on stderr with its UTC time, so an
//! operator (or a monitoring script) can tell when a refusal or a summary
//! happened. The library hands the host plain lines; the time is ours.

use carla_server::log::{self, Level};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

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
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    utc(since.as_secs(), since.subsec_millis())
}

/// `secs` after the Unix epoch, as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn utc(secs: u64, millis: u32) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = carla_server::log::civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn formats_known_instants() {
        assert_eq!(utc(0, 0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century year) and 2026-11-26.
        assert_eq!(utc(951_782_400 + 3_723, 45), "2000-02-29T01:02:03.045Z");
        assert_eq!(utc(1_795_700_101, 999), "2026-11-26T13:35:01.999Z");
        assert_eq!(utc(4_107_542_399, 0), "2100-02-28T23:59:59.000Z");
    }
}
