#!/usr/bin/env bash
# The Windows build and its tests, on Linux: the library cross-compiled for
# x86_64-pc-windows-gnu (mingw-w64), the Rust tests and the C/C++ hosts run
# under Wine, the import library checked with an MSVC-style linker, and the
# carla-host wheel for Windows built and its server run under Wine.
# Needs the Rust toolchain with the x86_64-pc-windows-gnu target, clang, and
# Debian's mingw-w64 and wine64 (installed below with apt when root).
# Honours CARGO_TARGET_DIR. See docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIPLE=x86_64-pc-windows-gnu
TARGET_DIR=$(realpath -m "${CARGO_TARGET_DIR:-target}")
WIN_DIR="$TARGET_DIR/$TRIPLE/debug"

echo "== tools: mingw-w64, wine, the Rust target"
if ! command -v x86_64-w64-mingw32-gcc-posix >/dev/null 2>&1 || ! command -v wine >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing mingw-w64 and wine64 (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mingw-w64 wine64 wine >/dev/null
  else
    echo "mingw-w64 and wine are required: apt-get install mingw-w64 wine64 wine" >&2
    exit 1
  fi
fi
if ! rustup target list --installed | grep -qx "$TRIPLE"; then
  rustup target add "$TRIPLE"
fi

# A Wine prefix of our own under the target directory; no Mono or Gecko
# installer prompts. Wine 8 (Debian 12) lacks bcryptprimitives.dll, which
# every Rust program built with Rust >= 1.78 imports: a stand-in goes into
# the prefix (scripts/wine/bcryptprimitives.c; never shipped).
export WINEPREFIX="$TARGET_DIR/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  echo "== creating the Wine prefix $WINEPREFIX"
  mkdir -p "$TARGET_DIR"
  wineboot -i >/dev/null 2>&1 || true
  wineserver -w
  test -f "$WINEPREFIX/system.reg" || { echo "wineboot could not create $WINEPREFIX" >&2; exit 1; }
fi
STUB="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$STUB" ] || [ scripts/wine/bcryptprimitives.c -nt "$STUB" ]; then
  x86_64-w64-mingw32-gcc -shared -O2 -o "$STUB" scripts/wine/bcryptprimitives.c -ladvapi32
fi
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine

echo "== lints for the Windows target"
cargo clippy --target "$TRIPLE" --workspace --all-targets --quiet -- -D warnings

echo "== Windows build: carla_server.dll, its .def and the tests"
cargo test --target "$TRIPLE" --no-run --quiet
# `cargo build` puts the import library next to the DLL (`cargo test` leaves it in deps/).
cargo build --target "$TRIPLE" --lib --quiet
test -f "$WIN_DIR/carla_server.dll" && test -f "$WIN_DIR/carla_server.def" && test -f "$WIN_DIR/libcarla_server.dll.a"

echo "== the C and C++ hosts, compiled natively with mingw-w64 (Wine cannot wait for a Linux compiler)"
CARLA_WINDOWS_LIB_DIR="$WIN_DIR" cargo test --quiet --test c_api -- \
  --ignored --exact legacy_hosts::windows_hosts_build_with_mingw

echo "== MSVC import library: made from the .def, linked by an MSVC-style linker (lld-link), run"
x86_64-w64-mingw32-dlltool -m i386:x86-64 -d "$WIN_DIR/carla_server.def" \
  -D carla_server.dll -l "$WIN_DIR/carla_server.dll.lib"
MSVC_DIR="$WIN_DIR/msvc-import"
mkdir -p "$MSVC_DIR"
clang --target=x86_64-pc-windows-msvc -ffreestanding -O1 -Wall -Werror \
  -Wno-dll-attribute-on-redeclaration -Iinclude \
  -c tests/c/msvc_import.c -o "$MSVC_DIR/msvc_import.obj"
"$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld" -flavor link \
  /entry:start /subsystem:console /nodefaultlib /out:"$MSVC_DIR/msvc_import.exe" \
  "$MSVC_DIR/msvc_import.obj" "$WIN_DIR/carla_server.dll.lib"
cp "$WIN_DIR/carla_server.dll" "$MSVC_DIR/"
status=0
wine "$MSVC_DIR/msvc_import.exe" || status=$?
if [ "$status" != 11 ]; then
  echo "msvc_import.exe exited with $status, expected 11 (CARLA_SERVER_TRY_AGAIN read through the import library)" >&2
  exit 1
fi
echo "msvc_import.exe: linked with carla_server.dll.lib, ran, read CARLA_SERVER_TRY_AGAIN = 11"

echo "== the Windows wheel: carla-host.exe on free ports under Wine, served to the Linux client"
wheel=$(scripts/build-wheel.sh --windows | grep win_amd64)
PY="${CARLA_0916_PYTHON:-target/venv-carla-0.9.16/bin/python}"
"$PY" -c "import carla" 2>/dev/null || { echo "$PY has no carla==0.9.16: run scripts/test.sh once (it makes that venv)" >&2; exit 1; }
"$PY" scripts/wine/wheel_exe.py "$wheel" "$TARGET_DIR/windows-wheel"

echo "== unit, integration, C and C++ tests under Wine"
cargo test --target "$TRIPLE"
