//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) and every
//! past finding (`fuzz/regressions/<target>/`) through the fuzz target
//! bodies in `carla_server::fuzzing`, so each runs in normal CI. The heavy
//! fuzzing itself is `scripts/fuzz.sh` (cargo fuzz, not part of CI).

use std::path::Path;

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn corpus_and_regressions_replay_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    for (target, run) in carla_server::fuzzing::targets() {
        let corpus = files(&root.join("corpus").join(target));
        assert!(!corpus.is_empty(), "no seed corpus for {target}");
        for file in corpus
            .iter()
            .chain(&files(&root.join("regressions").join(target)))
        {
            let data = std::fs::read(file).expect("read a corpus file");
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{target}: {} fails", file.display());
            replayed += 1;
        }
    }
    assert!(replayed >= 6);
}
