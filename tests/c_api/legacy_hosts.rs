//! C-ABI tests: C and C++ programs that play the engine side through the C
//! API only (`tests/c/*.c*`), compiled with the `cc` crate's compiler and
//! linked against the freshly built `libcarla_server.so`, driven by the Rust
//! client. Every value a host sends is a function of (episode, frame) that
//! `common/legacy_host.rs` recomputes, and every control the client sends
//! is checked there. On Windows (`scripts/test-windows.sh`) the same hosts,
//! compiled with mingw-w64, run against `carla_server.dll`.
#![cfg(any(target_os = "linux", windows))]

use crate::common;

use common::chost::{build, lib_dir};
use common::legacy_host;

/// Builds `source` and plays `episodes` episodes against it with this
/// build's library (see `common::legacy_host::serve`).
fn run_host(source: &str, exe: &str, episodes: u32, full: bool) {
    let exe = build(source, exe, None);
    legacy_host::serve(&exe, &lib_dir().join("libcarla_server.so"), episodes, full);
}

#[test]
fn c_host_serves_two_episodes() {
    run_host("host.c", "host_c", 2, true);
}

#[test]
fn cpp_host_with_render_thread_serves_two_episodes() {
    run_host("host.cpp", "host_cpp", 2, true);
}

#[test]
fn program_written_against_the_0_8_4_header_links_and_runs() {
    run_host("legacy_abi.cpp", "legacy_abi", 1, false);
}

/// The sources build with gcc and g++ by name (and clang if installed),
/// independently of what `CC`/`CXX` select. Unix only: under Wine a test
/// cannot wait for a compiler (`windows_hosts_build_with_mingw` is the
/// Windows counterpart).
#[cfg(unix)]
#[test]
fn sources_compile_with_gcc_and_gxx() {
    let available = |c: &str| {
        std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let mut built = 0;
    for (c_compiler, cpp_compiler) in [("gcc", "g++"), ("clang", "clang++")] {
        for (source, compiler) in [
            ("host.c", c_compiler),
            ("host.cpp", cpp_compiler),
            ("legacy_abi.cpp", cpp_compiler),
        ] {
            if !available(compiler) {
                eprintln!("{compiler} not installed: skipping {source}");
                continue;
            }
            let exe = format!("{}_{compiler}", source.replace('.', "_"));
            assert!(build(source, &exe, Some(compiler)).is_file());
            built += 1;
        }
    }
    let gnu = available("gcc") && available("g++");
    assert!(
        built >= 3 || !gnu,
        "gcc and g++ are installed but not all sources were built with them"
    );
}

/// Compiles the hosts the Windows tests run with mingw-w64 (`-Werror`)
/// against the Windows build in `$CARLA_WINDOWS_LIB_DIR`. Not part of the
/// Linux run: `scripts/test-windows.sh` runs it natively before the Windows
/// tests, which run under Wine and cannot wait for a Linux compiler.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "run by scripts/test-windows.sh"]
fn windows_hosts_build_with_mingw() {
    let lib = std::env::var_os("CARLA_WINDOWS_LIB_DIR")
        .expect("CARLA_WINDOWS_LIB_DIR: the directory of the Windows carla_server.dll");
    common::chost::build_windows_hosts(std::path::Path::new(&lib));
}
