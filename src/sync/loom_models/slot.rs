//! Model check of `slot::Latest` with loom: every interleaving of one
//! writer and one reader (bounded preemptions).

use crate::sync::slot::Latest;
use loom::sync::Arc;
use loom::thread;

/// A value with two halves, so a torn read (a cell read while written)
/// shows up as unequal halves.
#[derive(Default, Clone, Copy)]
struct Pair(u32, u32);

#[test]
fn values_are_never_torn_duplicated_reordered_or_stuck() {
    loom::model(|| {
        let slot = Arc::new(Latest::<Pair>::new());
        let writer = {
            let slot = slot.clone();
            thread::spawn(move || {
                for v in 1..=3 {
                    let mut w = slot.writer().unwrap();
                    w.with_mut(|c| *c = Pair(v, v));
                    w.publish();
                }
            })
        };
        let mut seen = Vec::new();
        {
            let mut r = slot.reader().unwrap();
            for _ in 0..2 {
                if r.update() {
                    seen.push(r.with(|c| *c));
                }
            }
        }
        writer.join().unwrap();
        // After the writer is done the newest value must be visible (or
        // already taken): no stuck value.
        let mut r = slot.reader().unwrap();
        if r.update() {
            seen.push(r.with(|c| *c));
        }
        for p in &seen {
            assert_eq!(p.0, p.1, "torn read");
        }
        assert!(
            seen.windows(2).all(|w| w[0].0 < w[1].0),
            "duplicate or reordered value"
        );
        assert_eq!(seen.last().map(|p| p.0), Some(3), "newest value lost");
    });
}

#[test]
fn a_second_writer_is_refused_not_racing() {
    loom::model(|| {
        let slot = Arc::new(Latest::<u32>::new());
        let other = {
            let slot = slot.clone();
            thread::spawn(move || slot.writer().map(|mut w| w.with_mut(|c| *c += 1)).is_ok())
        };
        let mine = slot.writer().map(|mut w| w.with_mut(|c| *c += 1)).is_ok();
        let theirs = other.join().unwrap();
        assert!(mine || theirs);
    });
}
