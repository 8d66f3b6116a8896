//! Which glibc versions a shared library needs, read with `readelf` (GNU
//! binutils, which Debian's gcc depends on, so it is wherever the C tests
//! can run).

use std::path::Path;
use std::process::Command;

/// "GLIBC_2.2.5" → [2, 2, 5]; `None` for other version names.
pub(crate) fn parse(name: &str) -> Option<Vec<u32>> {
    let numbers = name.strip_prefix("GLIBC_")?;
    numbers.split('.').map(|n| n.parse().ok()).collect()
}

fn readelf(lib: &Path, what: &str) -> String {
    let out = Command::new("readelf")
        .env("LC_ALL", "C")
        .args(["--wide", what])
        .arg(lib)
        .output()
        .unwrap_or_else(|e| panic!("cannot run readelf (binutils) on {}: {e}", lib.display()));
    assert!(
        out.status.success(),
        "readelf {what} {} failed: {}",
        lib.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("readelf prints text")
}

/// The GLIBC versions in the library's version-needs section
/// (`.gnu.version_r`): what the dynamic loader checks before it loads the
/// library. Sorted, lowest first.
pub(crate) fn versions_needed(lib: &Path) -> Vec<Vec<u32>> {
    let text = readelf(lib, "--version-info");
    let mut in_needs = false;
    let mut versions = Vec::new();
    for line in text.lines() {
        if line.starts_with("Version ") {
            in_needs = line.starts_with("Version needs section");
        }
        let name = line
            .split("Name: ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next());
        if let Some(version) = name.filter(|_| in_needs).and_then(parse) {
            versions.push(version);
        }
    }
    versions.sort();
    versions.dedup();
    versions
}

/// The dynamic symbols bound to a GLIBC version above `max`, as
/// `name@GLIBC_x.y`.
pub(crate) fn symbols_above(lib: &Path, max: &[u32]) -> Vec<String> {
    let text = readelf(lib, "--dyn-syms");
    let mut symbols: Vec<String> = text
        .lines()
        .filter_map(|line| line.split_whitespace().nth(7))
        .filter(|sym| {
            let version = sym.rsplit('@').next().unwrap_or("");
            parse(version).is_some_and(|v| v.as_slice() > max)
        })
        .map(String::from)
        .collect();
    symbols.sort();
    symbols.dedup();
    symbols
}

/// Every needed GLIBC version above `max`, with the symbols that need it,
/// as one message; empty when the library loads on glibc `max`.
pub(crate) fn violations(lib: &Path, max: &[u32]) -> String {
    let above: Vec<String> = versions_needed(lib)
        .into_iter()
        .filter(|v| v.as_slice() > max)
        .map(|v| {
            let numbers: Vec<String> = v.iter().map(u32::to_string).collect();
            format!("GLIBC_{}", numbers.join("."))
        })
        .collect();
    if above.is_empty() {
        return String::new();
    }
    format!(
        "{} needs {} (symbols: {})",
        lib.display(),
        above.join(", "),
        symbols_above(lib, max).join(" ")
    )
}
