//! Logging: one sink for the whole library.
//!
//! By default lines go to stderr. A host (Unreal's `UE_LOG`, a test) installs
//! its own sink; the C API exposes it as `carla_server_set_log_callback`.
//! Network threads log every connection, close and protocol error here.

use parking_lot::RwLock;
use std::fmt;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

/// Severity of a log line. The numbers are part of the C API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Level {
    Error = 1,
    Warning = 2,
    Info = 3,
    Debug = 4,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
        }
    }
}

/// A log sink: receives the level and the formatted line.
pub type Sink = Arc<dyn Fn(Level, &str) + Send + Sync>;

static SINK: RwLock<Option<Sink>> = RwLock::new(None);
static MAX_LEVEL: AtomicI32 = AtomicI32::new(Level::Info as i32);

/// Replaces the sink (None restores stderr).
pub fn set_sink(sink: Option<Sink>) {
    *SINK.write() = sink;
}

/// Lines above this level are discarded before formatting.
pub fn set_max_level(level: Level) {
    MAX_LEVEL.store(level as i32, Ordering::Relaxed);
}

/// Whether a line at `level` would be emitted.
pub fn enabled(level: Level) -> bool {
    level as i32 <= MAX_LEVEL.load(Ordering::Relaxed)
}

/// Emits one line. Use the `log_*!` macros instead of calling this directly.
pub fn emit(level: Level, args: fmt::Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    let line = args.to_string();
    #[cfg(test)]
    let Some(line) = captured(level, line) else {
        return;
    };
    let sink = SINK.read().clone();
    match sink {
        Some(sink) => sink(level, &line),
        None => eprintln!("[carla_server] {}: {}", level.name(), line),
    }
}

#[cfg(test)]
thread_local! {
    /// Unit tests: lines this thread emits while `capture` runs.
    static CAPTURED: std::cell::RefCell<Option<Vec<(Level, String)>>> =
        const { std::cell::RefCell::new(None) };
}

/// Unit tests: keeps `line` if this thread is capturing (None), else hands
/// it back.
#[cfg(test)]
fn captured(level: Level, line: String) -> Option<String> {
    CAPTURED.with(|c| match c.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push((level, line));
            None
        }
        None => Some(line),
    })
}

/// Unit tests: runs `f` and returns the lines this thread emitted
/// meanwhile (they reach no sink), whatever other tests do to the sink.
#[cfg(test)]
pub(crate) fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<(Level, String)>) {
    CAPTURED.with(|c| *c.borrow_mut() = Some(Vec::new()));
    let result = f();
    let lines = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
    (result, lines)
}

#[macro_export]
#[doc(hidden)]
macro_rules! log_at {
    ($level:expr, $($arg:tt)*) => {
        $crate::log::emit($level, format_args!($($arg)*))
    };
}

/// Logs an error line.
#[macro_export]
macro_rules! log_error { ($($arg:tt)*) => { $crate::log_at!($crate::log::Level::Error, $($arg)*) }; }
/// Logs a warning line.
#[macro_export]
macro_rules! log_warn { ($($arg:tt)*) => { $crate::log_at!($crate::log::Level::Warning, $($arg)*) }; }
/// Logs an informational line.
#[macro_export]
macro_rules! log_info { ($($arg:tt)*) => { $crate::log_at!($crate::log::Level::Info, $($arg)*) }; }
/// Logs a debug line.
#[macro_export]
macro_rules! log_debug { ($($arg:tt)*) => { $crate::log_at!($crate::log::Level::Debug, $($arg)*) }; }
