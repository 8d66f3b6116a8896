//! The glue as each engine build compiles it: UE 4.26/4.27 (C++14, float
//! `FVector`), UE 5 (C++20, double), Linux's `char16_t` `TCHAR` and
//! Windows' `wchar_t`, each with g++ and clang++ and the same warnings as
//! errors. A check of the glue's own code (`-fsyntax-only`): the stand-in's
//! headers come in as system headers, so the C++17 they use themselves is
//! not held against a C++14 build. The C++17 build is linked and run by
//! the scenario tests.

use super::sim::{
    compile_flags, compiler_available, files_with_ext, glue_module, tests_dir, CRATE,
};
use super::uht;
use std::path::PathBuf;
use std::process::Command;

/// (what it stands for, -std, extra defines).
const BUILDS: [(&str, &str, &[&str]); 4] = [
    (
        "UE 4.26/4.27 Linux",
        "-std=c++14",
        &["-DSTANDIN_UE4_FLOAT_MATH"],
    ),
    (
        "UE 4.26/4.27 Win64",
        "-std=c++14",
        &["-DSTANDIN_UE4_FLOAT_MATH", "-DSTANDIN_WCHAR_TCHAR"],
    ),
    ("UE 5 Linux", "-std=c++20", &[]),
    ("UE 5 Win64", "-std=c++20", &["-DSTANDIN_WCHAR_TCHAR"]),
];

#[test]
fn the_glue_compiles_as_every_engine_build_compiles_it() {
    let generated = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("unreal_glue_builds/generated");
    uht::write_generated_headers(&glue_module().join("Public"), &generated);
    let sources = files_with_ext(&glue_module().join("Private"), "cpp");
    let mut failures = Vec::new();
    let mut checked = 0;
    for compiler in ["g++", "clang++"] {
        assert!(compiler_available(compiler), "{compiler} is not installed");
        for (build, std, defines) in BUILDS {
            for source in &sources {
                let mut cmd = Command::new(compiler);
                cmd.args(
                    compile_flags(compiler)
                        .into_iter()
                        .filter(|f| !f.starts_with("-std=")),
                )
                .arg(std)
                .args(defines)
                .arg("-fsyntax-only")
                .arg("-isystem")
                .arg(tests_dir().join("Standin"))
                .arg(format!("-I{}", generated.display()))
                .arg(format!("-I{}", glue_module().join("Public").display()))
                .arg(format!("-I{CRATE}/include"))
                .arg(source);
                let out = cmd
                    .output()
                    .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
                checked += 1;
                if !out.status.success() {
                    failures.push(format!(
                        "{build} with {compiler} ({std} {defines:?}): {}\n{}",
                        source.display(),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, 2 * BUILDS.len() * sources.len());
}
