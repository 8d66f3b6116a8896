//! The recorder and replayer from C: `tests/c/recorder_host.c` records
//! ten episode states of its own car, reads CARLA's reports of the file,
//! replays it and checks the requests it gets, and the bad arguments on
//! the way (its header comment lists the checks).

use crate::common::chost::{build, Host};
use std::path::PathBuf;

#[test]
fn a_c_host_records_reads_back_and_replays_its_own_car() {
    let exe = build("recorder_host.c", "recorder_host", None);
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("c-recordings-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let host = Host::spawn(&exe, &[folder.display().to_string()]);
    let output = host.finish();
    assert!(output.lines().any(|l| l == "OK"), "{output}");
    let file = folder.join("c").join("run.log");
    let bytes = std::fs::read(&file).expect("the recording is where the host said");
    assert_eq!(&bytes[..18], b"\x02\x00\x0e\x00CARLA_RECORDER");
    let _ = std::fs::remove_dir_all(&folder);
}
