//! The server's share of each tick: the time the game loop spends on one
//! tick's work (the clients' requests it carries out, the world step, the
//! sensors and the episode state), as a histogram of 10 µs buckets, for
//! the last second (the status line) and the whole run (the line printed
//! at exit). Waiting for requests is not counted.

use std::time::{Duration, Instant};

/// Bucket width, µs.
const BUCKET_US: u64 = 10;
/// Buckets up to 100 ms; slower ticks land in the last one.
const BUCKETS: usize = 10_000;

/// One histogram of per-tick times.
pub(crate) struct Histogram {
    counts: Vec<u32>,
    total: u64,
    sum: Duration,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS],
            total: 0,
            sum: Duration::ZERO,
        }
    }

    fn add(&mut self, d: Duration) {
        let i = (d.as_micros() as u64 / BUCKET_US).min(BUCKETS as u64 - 1);
        self.counts[i as usize] += 1;
        self.total += 1;
        self.sum += d;
    }

    fn clear(&mut self) {
        self.counts.fill(0);
        (self.total, self.sum) = (0, Duration::ZERO);
    }

    /// Ticks counted.
    pub(crate) fn ticks(&self) -> u64 {
        self.total
    }

    /// The `q` quantile (0..=1), ms, to the bucket's upper edge.
    pub(crate) fn quantile_ms(&self, q: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += u64::from(c);
            if seen >= rank {
                return ((i as u64 + 1) * BUCKET_US) as f64 / 1000.0;
            }
        }
        (BUCKETS as u64 * BUCKET_US) as f64 / 1000.0
    }

    /// Mean, ms.
    pub(crate) fn mean_ms(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum.as_secs_f64() * 1000.0 / self.total as f64
        }
    }
}

/// What the game loop spent on the tick being prepared, and the
/// histograms of finished ticks.
pub(crate) struct TickTimes {
    busy: Duration,
    pub(crate) window: Histogram,
    pub(crate) run: Histogram,
}

impl TickTimes {
    pub(crate) fn new() -> TickTimes {
        TickTimes {
            busy: Duration::ZERO,
            window: Histogram::new(),
            run: Histogram::new(),
        }
    }

    /// Counts the time since `started` towards the next tick.
    pub(crate) fn busy_since(&mut self, started: Instant) {
        self.busy += started.elapsed();
    }

    /// A tick finished: its time goes into both histograms.
    pub(crate) fn tick_done(&mut self) {
        let busy = std::mem::take(&mut self.busy);
        self.window.add(busy);
        self.run.add(busy);
    }

    /// Starts a new status window.
    pub(crate) fn new_window(&mut self) {
        self.window.clear();
    }

    /// The summary of the whole run.
    pub(crate) fn summary(&self) -> String {
        format!(
            "server time per tick: {} ticks, mean {:.3} ms, p50 {:.2} ms, p99 {:.2} ms",
            self.run.ticks(),
            self.run.mean_ms(),
            self.run.quantile_ms(0.5),
            self.run.quantile_ms(0.99)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_the_buckets_and_windows_reset() {
        let mut t = TickTimes::new();
        for us in [100u64, 200, 300, 400, 5_000] {
            t.busy += Duration::from_micros(us / 2);
            t.busy += Duration::from_micros(us / 2);
            t.tick_done();
        }
        assert_eq!(t.run.ticks(), 5);
        assert_eq!(t.run.quantile_ms(0.5), 0.31, "third of five: 300 µs");
        assert_eq!(t.run.quantile_ms(0.99), 5.01);
        assert!((t.run.mean_ms() - 1.2).abs() < 1e-9);
        t.new_window();
        assert_eq!((t.window.ticks(), t.window.quantile_ms(0.5)), (0, 0.0));
        t.busy += Duration::from_secs(1);
        t.tick_done();
        assert_eq!(t.window.quantile_ms(1.0), 100.0, "the overflow bucket");
        assert!(t.summary().starts_with("server time per tick: 6 ticks"));
    }
}
