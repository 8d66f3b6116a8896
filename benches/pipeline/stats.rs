//! Percentiles, thread CPU time and the report's number formatting.

use std::time::Duration;

/// p50 / p99 / max of a set of durations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Spread {
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

/// Sorts `samples` in place and reads its percentiles (zeros when empty).
pub(crate) fn spread(samples: &mut [Duration]) -> Spread {
    if samples.is_empty() {
        return Spread::default();
    }
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Spread {
        p50: at(0.50),
        p99: at(0.99),
        max: samples[samples.len() - 1],
    }
}

/// The median of `values` (zero when empty).
pub(crate) fn median<T: Ord + Default>(values: impl Iterator<Item = T>) -> T {
    let mut v: Vec<T> = values.collect();
    v.sort_unstable();
    let mid = v.len() / 2;
    v.into_iter().nth(mid).unwrap_or_default()
}

/// Microseconds, 1 decimal below 100 µs.
pub(crate) fn us(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 100.0 {
        format!("{us:.1}")
    } else {
        format!("{us:.0}")
    }
}

/// CPU time the calling thread has used (Linux; zero elsewhere).
#[cfg(not(target_os = "linux"))]
pub(crate) fn thread_cpu() -> Duration {
    Duration::ZERO
}

/// CPU time the whole process has used (Linux; zero elsewhere).
#[cfg(not(target_os = "linux"))]
pub(crate) fn process_cpu() -> Duration {
    Duration::ZERO
}

/// Involuntary switches (Linux; zero elsewhere).
#[cfg(not(target_os = "linux"))]
pub(crate) fn involuntary_switches() -> u64 {
    0
}

/// CPU time the calling thread has used.
#[cfg(target_os = "linux")]
pub(crate) fn thread_cpu() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time the whole process (every thread) has used.
#[cfg(target_os = "linux")]
pub(crate) fn process_cpu() -> Duration {
    cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

#[cfg(target_os = "linux")]
fn cpu_clock(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime({clock})");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Times the calling thread was descheduled against its will so far.
#[cfg(target_os = "linux")]
pub(crate) fn involuntary_switches() -> u64 {
    // SAFETY: an all-zero rusage is a valid value to overwrite.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable for the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_THREAD)");
    ru.ru_nivcsw as u64
}
