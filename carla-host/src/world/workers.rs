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

/// Runs `work` on the pieces of `items` and `out` (`piece` long, the same
/// split of both), the first piece on the calling thread and each other on
/// a thread of its own; `work` gets the index of its first item.
pub(crate) fn split<T: Sync, U: Send>(
    items: &[T],
    out: &mut [U],
    piece: usize,
    work: impl Fn(usize, &[T], &mut [U]) + Sync,
) {
    let piece = piece.max(1);
    let work = &work;
    std::thread::scope(|s| {
        let mut pieces = items.chunks(piece).zip(out.chunks_mut(piece)).enumerate();
        let first = pieces.next();
        for (k, (items, out)) in pieces {
            s.spawn(move || work(k * piece, items, out));
        }
        if let Some((_, (items, out))) = first {
            work(0, items, out);
        }
    });
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
