#!/usr/bin/env bash
# Packages the Unreal plugin: a ready-to-drop CarlaServerGlue/ folder and
# CarlaServerGlue.zip, with the files where CarlaServerGlue.Build.cs looks:
#   CarlaServerGlue.uplugin, Source/CarlaServerGlue/   (from unreal_glue/)
#   Source/ThirdParty/carla_server/include/carla/carla_server.h
#   Binaries/ThirdParty/carla_server/Linux/libcarla_server.so   (glibc 2.17)
#   Binaries/ThirdParty/carla_server/Win64/carla_server.dll     (if built)
#   Source/ThirdParty/carla_server/lib/Win64/carla_server.dll.lib
#
# Usage: scripts/package-plugin.sh [--require-win64 | --skip-win64]
#                                  [--win64-dir DIR] [--out DIR]
#   Linux: always the glibc-2.17 build (scripts/build-glibc217.sh).
#   Win64: carla_server.dll from DIR (--win64-dir or $CARLA_WIN64_DIR;
#   carla_server.dll.lib too when DIR has it), else built here with
#   `cargo build --target x86_64-pc-windows-gnu` (needs that Rust target and
#   the mingw-w64 linker). When neither works the package is Linux-only and
#   the script says why; --require-win64 makes that an error.
#   The import library is written by zig's llvm-dlltool from the DLL's export
#   table, in the short-import format MSVC's link.exe reads.
#   --out: default ${CARGO_TARGET_DIR:-target}/package.
set -euo pipefail
caller="$PWD"
cd "$(dirname "$0")/.."
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }

win64=auto
win64_dir="${CARLA_WIN64_DIR:+$(absolute "$CARLA_WIN64_DIR")}"
out="${CARGO_TARGET_DIR:-target}/package"
while [ $# -gt 0 ]; do
  case "$1" in
    --require-win64) win64=require ;;
    --skip-win64) win64=skip ;;
    --win64-dir) win64_dir="$(absolute "${2:?--win64-dir needs a directory}")"; shift ;;
    --out) out="$(absolute "${2:?--out needs a directory}")"; shift ;;
    *) echo "unknown option $1 (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
  shift
done

linux_lib="$(scripts/build-glibc217.sh | tail -n 1)"

rm -rf "$out/CarlaServerGlue" "$out/CarlaServerGlue.zip"
mkdir -p "$out"
plugin="$out/CarlaServerGlue"
win64_bin="$plugin/Binaries/ThirdParty/carla_server/Win64"
win64_lib="$plugin/Source/ThirdParty/carla_server/lib/Win64"

# ---- Win64: carla_server.dll into $win64_bin, or the reason it is missing
skipped=""
dll=""
if [ "$win64" = skip ]; then
  skipped="--skip-win64 was given"
elif [ -n "$win64_dir" ]; then
  dll="$win64_dir/carla_server.dll"
  [ -f "$dll" ] || { echo "$dll does not exist (--win64-dir / CARLA_WIN64_DIR)" >&2; exit 1; }
elif [ ! -d "$(rustc --print target-libdir --target x86_64-pc-windows-gnu 2>/dev/null)" ]; then
  skipped="the Rust target x86_64-pc-windows-gnu is not installed (rustup target add x86_64-pc-windows-gnu)"
elif ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
  skipped="the mingw-w64 linker x86_64-w64-mingw32-gcc is missing (apt-get install gcc-mingw-w64-x86-64)"
else
  log="$out/win64-build.log"
  echo "== cargo build --release --lib --target x86_64-pc-windows-gnu (log: $log)"
  if cargo build --release --lib --target x86_64-pc-windows-gnu >"$log" 2>&1; then
    dll="${CARGO_TARGET_DIR:-target}/x86_64-pc-windows-gnu/release/carla_server.dll"
  else
    skipped="the x86_64-pc-windows-gnu build failed: $(grep -m 1 '^error' "$log" || tail -n 1 "$log")"
    echo "   failed; full log: $log"
  fi
fi

if [ -n "$dll" ]; then
  mkdir -p "$win64_bin" "$win64_lib"
  cp "$dll" "$win64_bin/carla_server.dll"
  if [ -n "$win64_dir" ] && [ -f "$win64_dir/carla_server.dll.lib" ]; then
    cp "$win64_dir/carla_server.dll.lib" "$win64_lib/"
  else
    # A module-definition file of the DLL's exports (the header's int32
    # constants are data), turned into an import library.
    def="$out/carla_server.def"
    {
      echo "LIBRARY carla_server.dll"
      echo "EXPORTS"
      objdump -p "$dll" | sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' |
        sed -n 's/^[[:space:]]*\[ *[0-9]*\] \(.*\)$/\1/p' |
        sed 's/^\(CARLA_SERVER_[A-Z_]*\)$/\1 DATA/'
    } >"$def"
    grep -q '^carla_make_server$' "$def" || { echo "no carla_make_server export in $dll" >&2; exit 1; }
    target/venv-zig/bin/python -m ziglang dlltool -m i386:x86-64 -D carla_server.dll \
      -d "$def" -l "$win64_lib/carla_server.dll.lib"
  fi
elif [ "$win64" = require ]; then
  echo "Win64 is required (--require-win64) but cannot be packaged: $skipped" >&2
  exit 1
fi

# ---- the plugin's own files, the header, the Linux library
mkdir -p "$plugin"
cp unreal_glue/CarlaServerGlue.uplugin "$plugin/"
mkdir -p "$plugin/Source/ThirdParty/carla_server/include/carla" \
  "$plugin/Binaries/ThirdParty/carla_server/Linux"
cp -R unreal_glue/Source/CarlaServerGlue "$plugin/Source/"
cp include/carla/carla_server.h "$plugin/Source/ThirdParty/carla_server/include/carla/"
cp "$linux_lib" "$plugin/Binaries/ThirdParty/carla_server/Linux/libcarla_server.so"

{
  echo "carla_server $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "Linux: libcarla_server.so built against glibc 2.17 (cargo-zigbuild)"
  if [ -n "$win64_dir" ]; then echo "Win64: carla_server.dll given with --win64-dir"
  elif [ -n "$dll" ]; then echo "Win64: carla_server.dll built for x86_64-pc-windows-gnu"; else echo "Win64: skipped: $skipped"; fi
} >"$plugin/PACKAGE.txt"

(cd "$out" && python3 -m zipfile -c CarlaServerGlue.zip CarlaServerGlue)

echo "== packaged $plugin and $out/CarlaServerGlue.zip"
sed 's/^/   /' "$plugin/PACKAGE.txt"
if [ -z "$dll" ]; then
  echo "Win64 SKIPPED: $skipped. The package is Linux-only; see docs/unreal.md for Windows."
fi
