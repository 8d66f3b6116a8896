//! The committed C header must be exactly what cbindgen generates from the
//! C boundary (`src/ffi/`) and the plain data it passes (`src/types.rs`,
//! `src/episode.rs`, the settings budget `src/legacy/settings/budget.rs`).
//! `UPDATE_HEADER=1 cargo test --test c_api header::` rewrites it.

use std::path::Path;

#[test]
fn committed_header_matches_cbindgen_output() {
    let crate_dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(crate_dir).join("cbindgen.toml"))
        .expect("cbindgen.toml parses");
    let src = Path::new(crate_dir).join("src");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(src.join("ffi/mod.rs"))
        .with_src(src.join("types.rs"))
        .with_src(src.join("episode.rs"))
        .with_src(src.join("legacy/settings/budget.rs"))
        .generate()
        .expect("cbindgen generates");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = Path::new(crate_dir).join("include/carla/carla_server.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/carla/carla_server.h is out of date; run `UPDATE_HEADER=1 cargo test --test c_api header::`"
    );
}

/// Every request kind a host switches on has a value of its own (the
/// attribute types are another enumeration and may share values).
#[test]
fn request_kinds_are_distinct() {
    let header = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("include/carla/carla_server.h"),
    )
    .expect("header");
    let mut seen = std::collections::BTreeMap::new();
    for line in header.lines() {
        let mut words = line.split_whitespace();
        let (Some("#define"), Some(name), Some(value)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if !name.starts_with("CARLA_RPC_") || name.starts_with("CARLA_RPC_ATTRIBUTE_") {
            continue;
        }
        let value: u32 = value.parse().expect("a number");
        if let Some(other) = seen.insert(value, name) {
            panic!("{name} and {other} are both {value}");
        }
    }
    assert!(seen.len() > 30, "{} kinds found", seen.len());
}
