//! A plugin package without the library (a Win64 package whose
//! carla_server.dll is missing): the module logs it and every actor stays
//! idle. On Win64 the DLL is delay-loaded, so the first carla_* call
//! without it crashes the engine; on Linux the stand-in's game links the
//! library anyway, so a glue that made that call shows as a server or a
//! sensor started (`SimGame.cpp`'s `nolib` scenario fails then).

use super::sim::start_in;
use crate::common::free_port_base;
use std::path::PathBuf;

#[test]
fn without_its_library_the_glue_stays_idle_and_says_why() {
    let empty =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("unreal_glue_plugin_without_library");
    std::fs::create_dir_all(&empty).expect("an empty plugin directory");
    let host = start_in("g++", free_port_base(), 20, "nolib", &empty);
    let output = host.finish();
    assert!(output.contains("NOLIB IDLE 20 FRAMES"), "{output}");
    assert!(
        output.contains("cannot load"),
        "the module names the missing library:\n{output}"
    );
    assert!(
        output.contains("the carla_server library is not loaded"),
        "the server actor says why it is idle:\n{output}"
    );
    assert!(!output.contains("listening"), "a port was bound:\n{output}");
}
