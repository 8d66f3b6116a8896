#!/usr/bin/env bash
# Builds the Windows library for an engine on Windows (Unreal with MSVC,
# or any C/C++ program), on Linux: the release carla_server.dll for
# x86_64-pc-windows-gnu (mingw-w64), its .def and an import library MSVC's
# linker takes, and the header, in target/windows-dll/ (CARGO_TARGET_DIR
# honoured). Needs the x86_64-pc-windows-gnu Rust target and Debian's
# mingw-w64 (apt-get install mingw-w64). See README.md, "Windows".
set -euo pipefail
cd "$(dirname "$0")/.."
TRIPLE=x86_64-pc-windows-gnu
TARGET_DIR=$(realpath -m "${CARGO_TARGET_DIR:-target}")
BUILT="$TARGET_DIR/$TRIPLE/release"
OUT="$TARGET_DIR/windows-dll"

cargo build --release --lib --target "$TRIPLE"
mkdir -p "$OUT/include/carla"
cp "$BUILT/carla_server.dll" "$BUILT/carla_server.def" "$BUILT/libcarla_server.dll.a" "$OUT/"
cp include/carla/carla_server.h "$OUT/include/carla/"
# The MSVC import library, from the .def the linker wrote (the four exported
# constants are DATA). With Visual Studio the same file comes from
#   lib /def:carla_server.def /machine:x64 /name:carla_server.dll /out:carla_server.dll.lib
x86_64-w64-mingw32-dlltool -m i386:x86-64 -d "$OUT/carla_server.def" \
  -D carla_server.dll -l "$OUT/carla_server.dll.lib"
ls -l "$OUT"
