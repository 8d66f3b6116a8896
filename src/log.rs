//! Logging: one sink for the whole library.
//!
//! By default lines go to stderr. A host (Unreal's `UE_LOG`, a test) installs
//! its own sink; the C API exposes it as `carla_server_set_log_callback`.
//! Network threads log every connection, close and protocol error here.
//!
//! No client can make the log grow faster than a bounded rate: each
//! `log_*!` call site lets [`LINES_PER_WINDOW`] lines a second through and
//! summarises the rest in one line ([`Site`]), and every line is cut at
//! [`MAX_LINE_BYTES`].

use parking_lot::{Mutex, RwLock};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

/// Longest line passed to a sink, in bytes; a longer one is cut at a
/// character boundary and ends with how much was cut, so that no client
/// text (a key, a name) can make one line huge.
pub const MAX_LINE_BYTES: usize = 2048;

/// Lines one call site may emit per [`WINDOW`]; the rest are counted and
/// summarised in one line.
pub const LINES_PER_WINDOW: u32 = 10;

/// The limiter's window.
pub const WINDOW: Duration = Duration::from_secs(1);

/// Emits one line without the per-site limit (the line is still cut at
/// [`MAX_LINE_BYTES`]). Use the `log_*!` macros instead.
pub fn emit(level: Level, args: fmt::Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    let mut line = args.to_string();
    cut(&mut line);
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

fn cut(line: &mut String) {
    if line.len() <= MAX_LINE_BYTES {
        return;
    }
    let mut at = MAX_LINE_BYTES;
    while !line.is_char_boundary(at) {
        at -= 1;
    }
    let cut = line.len() - at;
    line.truncate(at);
    line.push_str(&format!("... ({cut} more bytes)"));
}

/// One place in the code that logs: each `log_*!` call has its own, so a
/// client that makes one line repeat (a flood of connections, of unknown
/// keys, of bad handshakes) is limited to [`LINES_PER_WINDOW`] lines a
/// second from that place, plus one summary line
/// ("...and 10,418 more like this in the last 1.0 s: ...").
///
/// The summary is written when the window ends: by the first line logged
/// (from any site) after that, or else by the summary thread (one at most,
/// `carla-log`, started when a site begins suppressing and gone once no
/// summary is owed), and by [`flush`] (a server's disconnect, the C API's
/// `carla_free_server`) for windows still open. Sites are statics, so the
/// number of sites is fixed and the log grows at a bounded rate whatever
/// clients do.
pub struct Site {
    state: Mutex<SiteState>,
}

struct SiteState {
    level: Level,
    window_start: Option<Instant>,
    lines: u32,
    suppressed: u64,
    /// The start of the last line let through this window, for the summary.
    sample: String,
    /// Whether the site is in `PENDING`.
    pending: bool,
}

/// What the limiter decided for one line.
#[derive(Debug, PartialEq)]
pub(crate) struct Admission {
    /// Whether the line itself is emitted.
    pub emit: bool,
    /// A summary of the previous window to emit first, if it suppressed lines.
    pub summary: Option<String>,
    /// The window just started suppressing: the caller registers the site
    /// in `PENDING` (after the site's lock is released: `flush_expired`
    /// takes `PENDING`, then a site's lock, so never the other way round).
    pub newly_pending: bool,
}

/// Whether each site's lines are limited. Fuzzing: the harness checks
/// that particular lines reach the sink, so it turns the per-site limit
/// off (lines are still cut).
#[cfg(any(test, fuzzing))]
pub(crate) static LIMIT_SITES: AtomicBool = AtomicBool::new(true);

/// Sites that suppressed lines in a window that is still open.
static PENDING: Mutex<Vec<&'static Site>> = parking_lot::const_mutex(Vec::new());
/// Whether [`PENDING`] holds any site (read without its lock).
static ANY_PENDING: AtomicBool = AtomicBool::new(false);

impl Default for Site {
    fn default() -> Self {
        Self::new()
    }
}

impl Site {
    /// A site that has logged nothing yet.
    pub const fn new() -> Site {
        Site {
            state: parking_lot::const_mutex(SiteState {
                level: Level::Info,
                window_start: None,
                lines: 0,
                suppressed: 0,
                sample: String::new(),
                pending: false,
            }),
        }
    }

    /// Decides about a line logged at `now`.
    pub(crate) fn admit(&self, level: Level, now: Instant) -> Admission {
        let mut s = self.state.lock();
        let mut summary = None;
        match s.window_start {
            Some(start) if now.saturating_duration_since(start) < WINDOW => {}
            _ => {
                summary = s.summary(now);
                s.window_start = Some(now);
                s.lines = 0;
            }
        }
        s.level = level;
        if s.lines < LINES_PER_WINDOW {
            s.lines += 1;
            return Admission {
                emit: true,
                summary,
                newly_pending: false,
            };
        }
        s.suppressed += 1;
        let newly_pending = !s.pending;
        s.pending = true;
        Admission {
            emit: false,
            summary,
            newly_pending,
        }
    }

    /// Keeps the start of a line just let through, for the summary.
    fn remember(&self, line: &fmt::Arguments<'_>) {
        let mut s = self.state.lock();
        if s.lines == LINES_PER_WINDOW {
            s.sample.clear();
            let _ = fmt::write(&mut s.sample, *line);
            if let Some((at, _)) = s.sample.char_indices().nth(SAMPLE_CHARS) {
                s.sample.truncate(at);
                s.sample.push_str("...");
            }
        }
    }

    /// The summary of a window that ended by `now` (`all`: or is still
    /// open), if it suppressed lines.
    fn expired_summary(&self, now: Instant, all: bool) -> Option<(Level, String)> {
        let mut s = self.state.lock();
        let start = s.window_start?;
        if !all && now.saturating_duration_since(start) < WINDOW {
            return None;
        }
        let summary = s.summary(now)?;
        s.window_start = None;
        s.lines = 0;
        Some((s.level, summary))
    }
}

/// Characters of the sample line quoted in a summary.
const SAMPLE_CHARS: usize = 120;

impl SiteState {
    /// Takes the window's suppressed count as a summary line.
    fn summary(&mut self, now: Instant) -> Option<String> {
        let n = std::mem::take(&mut self.suppressed);
        self.pending = false;
        if n == 0 {
            return None;
        }
        let secs = self
            .window_start
            .map_or(0.0, |s| now.saturating_duration_since(s).as_secs_f64());
        Some(format!(
            "...and {} more like this in the last {:.1} s: {}",
            thousands(n),
            secs,
            self.sample
        ))
    }
}

/// `10418` -> `"10,418"`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Writes the summaries of sites whose window ended.
fn flush_expired(now: Instant) {
    flush_sites(now, false);
}

/// Writes every summary owed now, also of windows still open (their count
/// so far): what a host calls before it exits, so no suppressed line goes
/// uncounted. The server's `disconnect` calls it.
pub fn flush() {
    flush_sites(Instant::now(), true);
}

/// Writes the summaries of sites whose window ended (`all`: of every site
/// that suppressed lines).
fn flush_sites(now: Instant, all: bool) {
    if !ANY_PENDING.load(Ordering::Relaxed) {
        return;
    }
    let mut due = Vec::new();
    {
        let mut pending = PENDING.lock();
        pending.retain(|site| match site.expired_summary(now, all) {
            Some(summary) => {
                due.push(summary);
                false
            }
            None => site.state.lock().pending,
        });
        ANY_PENDING.store(!pending.is_empty(), Ordering::SeqCst);
    }
    for (level, summary) in due {
        emit(level, format_args!("{summary}"));
    }
}

/// Whether the summary thread runs.
static SUMMARY_THREAD: AtomicBool = AtomicBool::new(false);

/// Starts the summary thread unless it runs: it writes each summary when
/// its window ends, and exits once none is owed.
fn start_summary_thread() {
    // SeqCst here and in the thread: a site's "pending, then is a thread
    // running?" and the thread's "not running, then is anything pending?"
    // must not both miss the other's store.
    if SUMMARY_THREAD.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("carla-log".into())
        .spawn(|| loop {
            std::thread::sleep(WINDOW / 10);
            flush_expired(Instant::now());
            if !ANY_PENDING.load(Ordering::SeqCst) {
                SUMMARY_THREAD.store(false, Ordering::SeqCst);
                // A site that became pending after the check but saw the
                // flag still set relies on this thread: stay if so.
                if !ANY_PENDING.load(Ordering::SeqCst)
                    || SUMMARY_THREAD.swap(true, Ordering::SeqCst)
                {
                    return;
                }
            }
        });
    if spawned.is_err() {
        // No thread: summaries are written by the next line or `flush`.
        SUMMARY_THREAD.store(false, Ordering::SeqCst);
    }
}

/// Emits one line from `site`, subject to its limit. Used by the macros.
#[doc(hidden)]
pub fn emit_at(site: &'static Site, level: Level, args: fmt::Arguments<'_>) {
    if !enabled(level) {
        return;
    }
    #[cfg(test)]
    if capturing() {
        // A unit test sees every line of its own thread, whatever other
        // tests logged from the same site this second.
        return emit(level, args);
    }
    #[cfg(any(test, fuzzing))]
    if !LIMIT_SITES.load(Ordering::Relaxed) {
        return emit(level, args);
    }
    let now = Instant::now();
    flush_expired(now);
    let admission = site.admit(level, now);
    if admission.newly_pending {
        PENDING.lock().push(site);
        ANY_PENDING.store(true, Ordering::SeqCst);
        start_summary_thread();
    }
    if let Some(summary) = admission.summary {
        emit(level, format_args!("{summary}"));
    }
    if admission.emit {
        site.remember(&args);
        emit(level, args);
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

#[cfg(test)]
fn capturing() -> bool {
    CAPTURED.with(|c| c.borrow().is_some())
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
    ($level:expr, $($arg:tt)*) => {{
        static SITE: $crate::log::Site = $crate::log::Site::new();
        $crate::log::emit_at(&SITE, $level, format_args!($($arg)*))
    }};
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

/// `time` as ISO 8601 UTC with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmmZ`:
/// the stamp a host puts on the lines its sink receives (`carla-host`
/// does). A time before 1970 is stamped as 1970's start.
pub fn utc_timestamp(time: std::time::SystemTime) -> String {
    let since = time
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (secs, millis) = (since.as_secs(), since.subsec_millis());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard
/// Hinnant's days-to-civil algorithm: eras of 400 years from 0000-03-01).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_timestamps_of_known_instants() {
        use std::time::{Duration, UNIX_EPOCH};
        let at = |secs: u64, millis: u64| {
            utc_timestamp(UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis))
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        // 2000-02-29 (a leap day of a century year) and 2026-11-26.
        assert_eq!(at(951_782_400 + 3_723, 45), "2000-02-29T01:02:03.045Z");
        assert_eq!(at(1_795_700_101, 999), "2026-11-26T13:35:01.999Z");
        assert_eq!(at(4_107_542_399, 0), "2100-02-28T23:59:59.000Z");
        assert_eq!(
            utc_timestamp(UNIX_EPOCH - Duration::from_secs(5)),
            "1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn a_site_lets_ten_lines_a_second_through_and_summarises_the_rest() {
        let site = Site::new();
        let t0 = Instant::now();
        let mut registered = 0;
        let mut emitted = 0;
        for i in 0..10_428u32 {
            let now = t0 + Duration::from_micros(u64::from(i) * 10);
            let a = site.admit(Level::Warning, now);
            registered += usize::from(a.newly_pending);
            assert_eq!(a.summary, None);
            if a.emit {
                emitted += 1;
                site.remember(&format_args!("unknown key k{i} ignored"));
            }
        }
        assert_eq!((emitted, registered), (10, 1));
        // The window ended: the next line carries the summary first.
        let a = site.admit(Level::Warning, t0 + Duration::from_millis(1500));
        registered += usize::from(a.newly_pending);
        assert!(a.emit);
        let summary = a.summary.expect("a summary");
        assert!(
            summary.starts_with("...and 10,418 more like this in the last 1.5 s: unknown key k9"),
            "{summary}"
        );
        assert_eq!(registered, 1);
    }

    #[test]
    fn an_expired_window_is_summarised_without_a_new_line_from_its_site() {
        let site = Site::new();
        let t0 = Instant::now();
        for _ in 0..15 {
            site.admit(Level::Info, t0);
        }
        assert_eq!(
            site.expired_summary(t0 + Duration::from_millis(10), false),
            None
        );
        let (level, s) = site
            .expired_summary(t0 + Duration::from_secs(2), false)
            .expect("summary");
        assert_eq!(level, Level::Info);
        assert!(s.starts_with("...and 5 more like this"), "{s}");
        assert_eq!(
            site.expired_summary(t0 + Duration::from_secs(3), false),
            None
        );
    }

    #[test]
    fn long_lines_are_cut_at_a_char_boundary() {
        let mut line = "é".repeat(MAX_LINE_BYTES);
        cut(&mut line);
        assert!(line.len() < MAX_LINE_BYTES + 40);
        assert!(line.ends_with(&format!("... ({} more bytes)", MAX_LINE_BYTES)));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
