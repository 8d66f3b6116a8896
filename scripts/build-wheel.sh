#!/usr/bin/env bash
# Builds the carla-host wheel: the demo world's binary (installed as the
# `carla-host` command) and the `carla_host` Python package with its pytest
# plugin (carla-host/python/), by maturin. `pip install` the file it prints;
# it needs nothing else, so it installs offline.
#
# Linux: manylinux2014 (glibc 2.17, like the Unreal plugin's library),
# linked by zig against glibc-2.17 stubs, through cargo-zigbuild as
# scripts/build-glibc217.sh links (scripts/zigbuild-cargo says why not
# `maturin --zig`); maturin's auditwheel check refuses the wheel if the
# binary needs anything newer.
# With --windows, also the win_amd64 wheel (needs Debian's mingw-w64 and
# `rustup target add x86_64-pc-windows-gnu`).
#
# maturin, cargo-zigbuild and zig come from PyPI (scripts/zig-tools.sh)
# into target/venv-zig. The binary is built with the `dist` profile, the
# plugin library's (Cargo.toml), and stripped (pyproject.toml): the two
# builds share every crate they have in common.
#
# Usage: scripts/build-wheel.sh [--windows]   (prints the wheels' paths last)
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/zig-tools.sh
OUT=target/wheels

version=$(sed -n 's/^version = "\(.*\)"/\1/p' carla-host/Cargo.toml | head -1)
rm -f "$OUT"/carla_host-"$version"-*.whl

echo "== maturin build --profile dist, linked by cargo-zigbuild (manylinux2014, glibc 2.17)" >&2
CARGO="$PWD/scripts/zigbuild-cargo" maturin build --quiet --profile dist \
  --target x86_64-unknown-linux-gnu -m carla-host/Cargo.toml --out "$OUT" >&2

if [ "${1:-}" = "--windows" ]; then
  echo "== maturin build --profile dist --target x86_64-pc-windows-gnu" >&2
  maturin build --quiet --profile dist --target x86_64-pc-windows-gnu \
    -m carla-host/Cargo.toml --out "$OUT" >&2
fi

found=0
for w in "$OUT"/carla_host-"$version"-*.whl; do
  [ -f "$w" ] && { echo "$w"; found=1; }
done
[ "$found" = 1 ] || { echo "no wheel was built in $OUT" >&2; exit 1; }
