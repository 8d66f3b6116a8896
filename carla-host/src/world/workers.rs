//! How many threads a frame's work (an image, a lidar sweep) spreads over,
//! and the threads it runs on (kept from frame to frame).

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

/// The threads that run a frame's work beside the caller, kept from frame
/// to frame: a thread made and joined each time cost 75 µs (two per
/// camera frame).
fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads().saturating_sub(1).max(1))
            .thread_name(|i| format!("carla-host-worker-{i}"))
            .build()
            .expect("the worker threads start")
    })
}

/// Whether frames use the kept threads (the A/B switch of the benchmark).
static KEPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Makes [`on_threads`] use kept threads (`true`) or threads of its own
/// each time (`false`), for the benchmark to compare.
pub(crate) fn keep_threads(on: bool) {
    KEPT.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Runs `work` on `n` threads at once (`n >= 1`): the caller and `n - 1`
/// others; returns when all have returned. The pieces of work are theirs
/// to share out (a queue in the closure).
pub(crate) fn on_threads(n: usize, work: impl Fn() + Sync) {
    let work = &work;
    if KEPT.load(std::sync::atomic::Ordering::Relaxed) {
        pool().in_place_scope(|s| {
            for _ in 1..n {
                s.spawn(move |_| work());
            }
            work();
        });
    } else {
        std::thread::scope(|s| {
            for _ in 1..n {
                s.spawn(work);
            }
            work();
        });
    }
}

/// Runs `work` on the pieces of `items` and `out` (`piece` long, the same
/// split of both), the first piece on the calling thread and the others on
/// the kept threads; `work` gets the index of its first item.
pub(crate) fn split<T: Sync, U: Send>(
    items: &[T],
    out: &mut [U],
    piece: usize,
    work: impl Fn(usize, &[T], &mut [U]) + Sync,
) {
    let piece = piece.max(1);
    let work = &work;
    let mut pieces = items.chunks(piece).zip(out.chunks_mut(piece)).enumerate();
    let first = pieces.next();
    let mine = move || {
        if let Some((_, (items, out))) = first {
            work(0, items, out);
        }
    };
    if KEPT.load(std::sync::atomic::Ordering::Relaxed) {
        pool().in_place_scope(|s| {
            for (k, (items, out)) in pieces {
                s.spawn(move |_| work(k * piece, items, out));
            }
            mine();
        });
    } else {
        std::thread::scope(|s| {
            for (k, (items, out)) in pieces {
                s.spawn(move || work(k * piece, items, out));
            }
            mine();
        });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_item_is_worked_once_at_its_own_index() {
        for (n, piece) in [(0, 4), (1, 4), (10, 3), (12, 4), (7, 100)] {
            let items: Vec<usize> = (0..n).collect();
            let mut out = vec![usize::MAX; n];
            super::split(&items, &mut out, piece, |first, items, out| {
                for (k, (i, o)) in items.iter().zip(out).enumerate() {
                    assert_eq!(*i, first + k);
                    *o = i * 2;
                }
            });
            assert_eq!(out, (0..n).map(|i| i * 2).collect::<Vec<_>>());
        }
    }
}
