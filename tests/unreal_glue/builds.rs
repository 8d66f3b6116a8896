//! The glue as each engine build compiles it: UE 4.26/4.27 (C++14, float
//! `FVector`), UE 5 (C++20, double), Linux's `char16_t` `TCHAR` and
//! Windows' `wchar_t`, each with g++ and clang++ and the same warnings as
//! errors. A check of the glue's own code (`-fsyntax-only`): the stand-in's
//! headers come in as system headers, so the C++17 they use themselves is
//! not held against a C++14 build. The C++17 build is linked and run by
//! the scenario tests.
//!
//! Each build compiles the module as one translation unit that includes
//! every glue `.cpp`, as UnrealBuildTool's unity build (its default)
//! compiles a module: the headers are read once per build instead of once
//! per file (1.8 s against 14 s a build on this project's 2-core machine).
//! Each file alone, which is what catches a missing `#include`, is
//! compiled by the scenario tests' C++17 builds (`sim.rs`: one translation
//! unit per file, with both compilers).

use super::sim::{
    compile_flags, compiler_available, files_with_ext, glue_module, tests_dir, CRATE,
};
use super::uht;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// One `-fsyntax-only` run: the compiler, its build and the source.
struct Job<'a> {
    compiler: &'static str,
    build: &'static str,
    std: &'static str,
    defines: &'static [&'static str],
    source: &'a PathBuf,
}

/// A unity source for the module: one `#include` of each glue `.cpp` (by
/// absolute path, so each finds its own neighbours as in its folder).
fn write_unity_source(sources: &[PathBuf], path: &std::path::Path) {
    let text: String = (sources.iter())
        .map(|s| format!("#include \"{}\"\n", s.display()))
        .collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

impl Job<'_> {
    /// What the compiler said when it failed, else `None`.
    fn run(&self, generated: &std::path::Path) -> Option<String> {
        let Job {
            compiler,
            build,
            std,
            defines,
            source,
        } = self;
        let out = Command::new(compiler)
            .args(
                compile_flags(compiler)
                    .into_iter()
                    .filter(|f| !f.starts_with("-std=")),
            )
            .arg(std)
            .args(*defines)
            .arg("-fsyntax-only")
            .arg("-isystem")
            .arg(tests_dir().join("Standin"))
            .arg(format!("-I{}", generated.display()))
            .arg(format!("-I{}", glue_module().join("Public").display()))
            .arg(format!("-I{CRATE}/include"))
            .arg(source)
            .output()
            .unwrap_or_else(|e| panic!("run {compiler}: {e}"));
        (!out.status.success()).then(|| {
            format!(
                "{build} with {compiler} ({std} {defines:?}): {}\n{}",
                source.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

#[test]
fn the_glue_compiles_as_every_engine_build_compiles_it() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("unreal_glue_builds");
    let generated = dir.join("generated");
    uht::write_generated_headers(&glue_module().join("Public"), &generated);
    let sources = files_with_ext(&glue_module().join("Private"), "cpp");
    assert!(sources.len() >= 9, "glue sources: {sources:?}");
    let unity = dir.join("Module.CarlaServerGlue.cpp");
    write_unity_source(&sources, &unity);
    let mut jobs = Vec::new();
    for compiler in ["g++", "clang++"] {
        assert!(compiler_available(compiler), "{compiler} is not installed");
        for (build, std, defines) in BUILDS {
            jobs.push(Job {
                compiler,
                build,
                std,
                defines,
                source: &unity,
            });
        }
    }
    assert_eq!(jobs.len(), 2 * BUILDS.len());
    // The runs are independent: one per core at a time.
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut failed = Vec::new();
                    while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        failed.extend(job.run(&generated));
                    }
                    failed
                })
            })
            .collect();
        (handles.into_iter())
            .flat_map(|h| h.join().expect("a compiler run panicked"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(next.load(Ordering::Relaxed) >= jobs.len(), "every job ran");
}
