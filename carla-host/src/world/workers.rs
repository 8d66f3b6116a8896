//! How many threads a frame's work (an image, a lidar sweep) spreads over.

/// Worker threads for one piece of work: the available cores (at most 8),
/// asked once (on Linux the answer reads cgroup files).
pub(crate) fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}
