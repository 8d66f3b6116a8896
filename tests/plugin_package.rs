//! The Unreal plugin package that `scripts/package-plugin.sh` makes
//! (`<target>/package/CarlaServerGlue.zip`, or `$CARLA_PLUGIN_ZIP`),
//! unpacked: its layout is what the packaged `CarlaServerGlue.Build.cs`
//! and the module's start-up code ask for, its Linux library needs no glibc
//! newer than 2.17, and a C host compiled against the packaged header and
//! linked to the packaged library serves two 0.8 episodes.
#![cfg(target_os = "linux")]

#[path = "plugin_package/build_cs.rs"]
mod build_cs;
mod common;
#[path = "plugin_package/glibc.rs"]
mod glibc;

use common::chost::{build_against, lib_dir};
use common::legacy_host;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const CRATE: &str = env!("CARGO_MANIFEST_DIR");
/// Unreal Engine's Linux baseline (its cross toolchain's sysroot).
const GLIBC_BASELINE: [u32; 2] = [2, 17];

fn zip_path() -> PathBuf {
    if let Some(zip) = std::env::var_os("CARLA_PLUGIN_ZIP") {
        return zip.into();
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    target.join("package/CarlaServerGlue.zip")
}

/// The unpacked `CarlaServerGlue/` folder (unpacked once per run).
fn plugin() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let zip = zip_path();
        assert!(
            zip.is_file(),
            "{} is missing: run scripts/package-plugin.sh (scripts/test.sh does)",
            zip.display()
        );
        let dest = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plugin_package");
        let _ = fs::remove_dir_all(&dest);
        let status = Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(&zip)
            .arg(&dest)
            .status()
            .expect("python3 unpacks the zip");
        assert!(status.success(), "unpacking {} failed", zip.display());
        let top: Vec<_> = fs::read_dir(&dest)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(top, ["CarlaServerGlue"], "the zip holds one plugin folder");
        dest.join("CarlaServerGlue")
    })
}

fn build_cs() -> build_cs::BuildCs {
    let path = plugin().join("Source/CarlaServerGlue/CarlaServerGlue.Build.cs");
    build_cs::read(&fs::read_to_string(&path).expect("the package has Build.cs"))
}

/// The one library Build.cs stages for `platform`, and the files it names.
fn platform_files(cs: &build_cs::BuildCs, platform: &str) -> (String, Vec<String>) {
    let staged = &cs.runtime[platform];
    assert_eq!(staged.len(), 1, "{platform}: one staged library");
    let mut all: Vec<String> = staged
        .iter()
        .chain(&cs.libraries[platform])
        .cloned()
        .collect();
    all.sort();
    all.dedup();
    (staged[0].clone(), all)
}

fn files_under(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(root, &path, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
}

fn same_bytes(packaged: &Path, original: &Path) {
    let (a, b) = (fs::read(packaged).unwrap(), fs::read(original).unwrap());
    assert!(
        a == b,
        "{} differs from {}: run scripts/package-plugin.sh again",
        packaged.display(),
        original.display()
    );
}

#[test]
fn layout_matches_build_cs() {
    let plugin = plugin();
    let cs = build_cs();
    let header = cs.header.clone().expect("Build.cs checks for the header");
    same_bytes(
        &plugin.join(&header),
        &Path::new(CRATE).join("include/carla/carla_server.h"),
    );

    let mut expected = vec![PathBuf::from(&header), PathBuf::from("PACKAGE.txt")];
    let (so, linux) = platform_files(&cs, "Linux");
    assert!(so.ends_with(".so"), "Linux stages {so}");
    for path in &linux {
        assert!(
            plugin.join(path).is_file(),
            "Build.cs names {path}; not in the package"
        );
    }
    expected.extend(linux.iter().map(PathBuf::from));

    // Win64: every file Build.cs names, or none (PACKAGE.txt says why).
    let (dll, win64) = platform_files(&cs, "Win64");
    let present = win64.iter().filter(|p| plugin.join(p).is_file()).count();
    let note = fs::read_to_string(plugin.join("PACKAGE.txt")).unwrap();
    if present == 0 {
        assert!(
            note.contains("Win64: skipped: "),
            "no Win64 files and no reason:\n{note}"
        );
    } else {
        assert_eq!(present, win64.len(), "some of {win64:?} are missing");
        assert!(fs::read(plugin.join(&dll)).unwrap().starts_with(b"MZ"));
        for lib in win64.iter().filter(|p| p.ends_with(".lib")) {
            assert!(fs::read(plugin.join(lib))
                .unwrap()
                .starts_with(b"!<arch>\n"));
        }
        expected.extend(win64.iter().map(PathBuf::from));
    }
    let dll_name = Path::new(&dll).file_name().unwrap().to_str().unwrap();
    assert_eq!(
        cs.delay_load,
        [dll_name],
        "the delay-loaded DLL is the staged one"
    );

    // The module loads the staged library from the path Build.cs stages it at.
    let module =
        fs::read_to_string(plugin.join("Source/CarlaServerGlue/Private/CarlaServerGlue.cpp"))
            .unwrap();
    for staged in [&so, &dll] {
        assert!(
            module.contains(&format!("TEXT(\"{staged}\")")),
            "StartupModule does not load {staged}"
        );
    }

    // The plugin's own files, unchanged, and nothing else (no Tests/).
    let glue = Path::new(CRATE).join("unreal_glue");
    let mut sources = vec![PathBuf::from("CarlaServerGlue.uplugin")];
    files_under(&glue, &glue.join("Source"), &mut sources);
    for source in &sources {
        same_bytes(&plugin.join(source), &glue.join(source));
    }
    expected.extend(sources);
    let mut got = Vec::new();
    files_under(plugin, plugin, &mut got);
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "the package's files");
}

#[test]
fn linux_library_needs_at_most_glibc_2_17() {
    // CARLA_GLIBC_CHECK_LIB checks another library, e.g. the ordinary
    // target/release/libcarla_server.so, which fails (GLIBC_2.34 on Debian 12).
    let lib = match std::env::var_os("CARLA_GLIBC_CHECK_LIB") {
        Some(lib) => PathBuf::from(lib),
        None => plugin().join(platform_files(&build_cs(), "Linux").0),
    };
    let needed = glibc::versions_needed(&lib);
    assert!(
        needed.contains(&vec![2, 2, 5]),
        "{}: no GLIBC_2.2.5 (x86-64's first version) among {needed:?}: is readelf's output read right?",
        lib.display()
    );
    let violations = glibc::violations(&lib, &GLIBC_BASELINE);
    assert!(violations.is_empty(), "{violations}");
}

/// The check rejects a library built against a newer glibc: this build's
/// own, when this machine has glibc 2.34 or newer.
#[test]
fn glibc_check_rejects_this_machines_ordinary_build() {
    assert!(glibc::parse("GLIBC_2.2.5") < glibc::parse("GLIBC_2.17"));
    assert!(glibc::parse("GLIBC_2.17") < glibc::parse("GLIBC_2.34"));
    assert_eq!(glibc::parse("GCC_3.0"), None);
    // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
    let host = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
    let host = glibc::parse(&format!("GLIBC_{}", host.to_str().unwrap())).unwrap();
    if host < vec![2, 34] {
        eprintln!("glibc {host:?} here: the ordinary build may load on 2.17; nothing to reject");
        return;
    }
    let ordinary = lib_dir().join("libcarla_server.so");
    let violations = glibc::violations(&ordinary, &GLIBC_BASELINE);
    assert!(
        violations.contains("GLIBC_2.34"),
        "not rejected: {violations:?}"
    );
    assert!(
        violations.contains("@GLIBC_2.34"),
        "no symbol named: {violations}"
    );
}

#[test]
fn linux_library_serves_two_episodes_from_the_packaged_header() {
    let plugin = plugin();
    let cs = build_cs();
    let header = plugin.join(cs.header.as_ref().unwrap());
    let include = header.parent().and_then(Path::parent).unwrap();
    let so = plugin.join(platform_files(&cs, "Linux").0);
    let exe = build_against(
        "host.c",
        "host_c_packaged",
        None,
        include,
        so.parent().unwrap(),
    );
    legacy_host::serve(&exe, &so, 2, true);
}
