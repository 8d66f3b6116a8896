#!/usr/bin/env bash
# Builds the release libcarla_server.so (the `dist` profile, Cargo.toml)
# against glibc 2.17, the baseline of Unreal Engine's Linux toolchain, so a
# packaged game that ships it starts on old distributions too. The ordinary `cargo build` links against this
# machine's glibc and needs GLIBC_2.34 (Debian 12).
#
# How: cargo-zigbuild with zig as the linker; zig links against stub
# libraries of the glibc version named in the target (`.2.17`). Both tools
# come from PyPI (pinned in scripts/zig-tools.sh) into the virtual
# environment target/venv-zig, installed on first use; the Rust target is
# the ordinary x86_64-unknown-linux-gnu (Rust's std supports glibc 2.17).
#
# Usage: scripts/build-glibc217.sh   (prints the library's path last)
# Output: ${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/dist/libcarla_server.so
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/zig-tools.sh
echo "== cargo zigbuild --profile dist --lib --target x86_64-unknown-linux-gnu.2.17" >&2
cargo zigbuild --quiet --profile dist --lib --target x86_64-unknown-linux-gnu.2.17 >&2

lib="${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/dist/libcarla_server.so"
[ -f "$lib" ] || { echo "$lib was not built" >&2; exit 1; }
echo "$lib"
