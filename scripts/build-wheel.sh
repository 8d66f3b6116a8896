#!/usr/bin/env bash
# Builds the carla-host wheel: the demo world's binary (installed as the
# `carla-host` command) and the `carla_host` Python package with its pytest
# plugin (carla-host/python/), by maturin. `pip install` the file it prints;
# it needs nothing else, so it installs offline.
#
# Linux: manylinux2014 (glibc 2.17, like the Unreal plugin's library),
# linked by zig against glibc-2.17 stubs (`maturin --zig`); maturin's
# auditwheel check refuses the wheel if the binary needs anything newer.
# With --windows, also the win_amd64 wheel (needs Debian's mingw-w64 and
# `rustup target add x86_64-pc-windows-gnu`).
#
# maturin and zig come from PyPI (pinned below) into target/venv-zig, the
# virtual environment scripts/build-glibc217.sh uses too. The binary is
# built with the `wheel` profile (release without debug information) in
# its own folder, so wheel and release builds do not undo each other.
#
# Usage: scripts/build-wheel.sh [--windows]   (prints the wheels' paths last)
set -euo pipefail
cd "$(dirname "$0")/.."

MATURIN_VERSION=1.16.0
ZIG_VERSION=0.17.1
VENV=target/venv-zig
OUT=target/wheels

installed() {
  [ "$("$VENV/bin/maturin" --version 2>/dev/null)" = "maturin $MATURIN_VERSION" ] &&
    [ "$("$VENV/bin/python" -m ziglang version 2>/dev/null)" = "$ZIG_VERSION" ]
}
if ! installed; then
  echo "== installing maturin $MATURIN_VERSION and zig $ZIG_VERSION from PyPI into $VENV" >&2
  [ -x "$VENV/bin/pip" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "ziglang==$ZIG_VERSION" >&2
  installed || { echo "maturin or zig did not install into $VENV" >&2; exit 1; }
fi
export PATH="$PWD/$VENV/bin:$PATH"

version=$(sed -n 's/^version = "\(.*\)"/\1/p' carla-host/Cargo.toml | head -1)
rm -f "$OUT"/carla_host-"$version"-*.whl

echo "== maturin build --profile wheel --zig (manylinux2014, glibc 2.17)" >&2
maturin build --quiet --profile wheel --zig -m carla-host/Cargo.toml --out "$OUT" >&2

if [ "${1:-}" = "--windows" ]; then
  echo "== maturin build --profile wheel --target x86_64-pc-windows-gnu" >&2
  maturin build --quiet --profile wheel --target x86_64-pc-windows-gnu \
    -m carla-host/Cargo.toml --out "$OUT" >&2
fi

found=0
for w in "$OUT"/carla_host-"$version"-*.whl; do
  [ -f "$w" ] && { echo "$w"; found=1; }
done
[ "$found" = 1 ] || { echo "no wheel was built in $OUT" >&2; exit 1; }
