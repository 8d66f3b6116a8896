//! Release-mode stress test of `slot::Latest` across real threads (run by
//! `scripts/test.sh` with `--release`; in a debug build it runs shorter).
//! Complements the loom model with millions of real interleavings.

use carla_server::sync::slot::Latest;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

const WORDS: usize = 16;

#[test]
fn concurrent_writer_and_reader_never_see_torn_stale_or_duplicate_values() {
    let rounds: u64 = if cfg!(debug_assertions) {
        200_000
    } else {
        5_000_000
    };
    let slot = Arc::new(Latest::<[u64; WORDS]>::new());
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (slot, done) = (slot.clone(), done.clone());
        thread::spawn(move || {
            let mut w = slot.writer().unwrap();
            for v in 1..=rounds {
                w.with_mut(|c| c.fill(v));
                w.publish();
            }
            done.store(true, Ordering::Release);
        })
    };
    let mut r = slot.reader().unwrap();
    let (mut last, mut taken) = (0u64, 0u64);
    loop {
        let finished = done.load(Ordering::Acquire);
        if r.update() {
            let cell = *r.get();
            assert!(cell.iter().all(|&x| x == cell[0]), "torn read: {cell:?}");
            assert!(cell[0] > last, "value {} after {last}", cell[0]);
            last = cell[0];
            taken += 1;
        } else if finished {
            break;
        }
    }
    writer.join().unwrap();
    assert_eq!(last, rounds, "the newest value must be delivered");
    assert!(taken > 1);
}
