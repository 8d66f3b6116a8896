#!/usr/bin/env bash
# Builds the release libcarla_server.so against glibc 2.17, the baseline of
# Unreal Engine's Linux toolchain, so a packaged game that ships it starts on
# old distributions too. The ordinary `cargo build` links against this
# machine's glibc and needs GLIBC_2.34 (Debian 12).
#
# How: cargo-zigbuild with zig as the linker; zig links against stub
# libraries of the glibc version named in the target (`.2.17`). Both tools
# come from PyPI (pinned below) into the virtual environment target/venv-zig,
# installed on first use; the Rust target is the ordinary
# x86_64-unknown-linux-gnu (Rust's std itself supports glibc 2.17).
#
# Usage: scripts/build-glibc217.sh   (prints the library's path last)
# Output: ${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release/libcarla_server.so
set -euo pipefail
cd "$(dirname "$0")/.."

ZIGBUILD_VERSION=0.24.0
ZIG_VERSION=0.17.1
VENV=target/venv-zig

installed() {
  [ "$("$VENV/bin/cargo-zigbuild" --version 2>/dev/null)" = "cargo-zigbuild $ZIGBUILD_VERSION" ] &&
    [ "$("$VENV/bin/python" -m ziglang version 2>/dev/null)" = "$ZIG_VERSION" ]
}
if ! installed; then
  echo "== installing cargo-zigbuild $ZIGBUILD_VERSION and zig $ZIG_VERSION from PyPI into $VENV" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "cargo-zigbuild==$ZIGBUILD_VERSION" "ziglang==$ZIG_VERSION" >&2
  installed || { echo "cargo-zigbuild or zig did not install into $VENV" >&2; exit 1; }
fi

# cargo finds `cargo-zigbuild` on PATH; cargo-zigbuild finds zig through
# the venv's `python -m ziglang`.
export PATH="$PWD/$VENV/bin:$PATH"
echo "== cargo zigbuild --release --lib --target x86_64-unknown-linux-gnu.2.17" >&2
cargo zigbuild --quiet --release --lib --target x86_64-unknown-linux-gnu.2.17 >&2

lib="${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release/libcarla_server.so"
[ -f "$lib" ] || { echo "$lib was not built" >&2; exit 1; }
echo "$lib"
