//! Link arguments of the shared library:
//! - Linux: a SONAME, so programs linked against it by path record
//!   `libcarla_server.so`, not the absolute build path.
//! - Windows (mingw-w64): the linker also writes `carla_server.def` (every
//!   export; the four exported constants marked `DATA`) next to
//!   `carla_server.dll`, from which an import library for MSVC is made
//!   (`scripts/windows-dll.sh`).
use std::path::{Path, PathBuf};

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcarla_server.so");
    }
    if os == "windows" && env == "gnu" {
        // OUT_DIR is <profile dir>/build/carla_server-<hash>/out.
        let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
        let profile = out.ancestors().nth(3).map(Path::to_path_buf).unwrap_or(out);
        let def = profile.join("carla_server.def");
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--output-def,{}",
            def.display()
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}
