# Sourced by scripts/build-glibc217.sh and scripts/build-wheel.sh: the
# glibc-2.17 build tools, pinned, from PyPI into the virtual environment
# target/venv-zig (installed on first use; wheels with prebuilt binaries,
# nothing is compiled), and that environment first on PATH. cargo finds
# `cargo-zigbuild` there; cargo-zigbuild finds zig through the venv's
# `python -m ziglang`.
ZIGBUILD_VERSION=0.24.0
MATURIN_VERSION=1.16.0
ZIG_VERSION=0.17.1
ZIG_VENV=target/venv-zig

zig_tools_installed() {
  [ "$("$ZIG_VENV/bin/cargo-zigbuild" --version 2>/dev/null)" = "cargo-zigbuild $ZIGBUILD_VERSION" ] &&
    [ "$("$ZIG_VENV/bin/maturin" --version 2>/dev/null)" = "maturin $MATURIN_VERSION" ] &&
    [ "$("$ZIG_VENV/bin/python" -m ziglang version 2>/dev/null)" = "$ZIG_VERSION" ]
}
if ! zig_tools_installed; then
  echo "== installing cargo-zigbuild $ZIGBUILD_VERSION, maturin $MATURIN_VERSION and zig $ZIG_VERSION from PyPI into $ZIG_VENV" >&2
  rm -rf "$ZIG_VENV"
  python3 -m venv "$ZIG_VENV"
  "$ZIG_VENV/bin/pip" install --quiet --disable-pip-version-check \
    "cargo-zigbuild==$ZIGBUILD_VERSION" "maturin==$MATURIN_VERSION" "ziglang==$ZIG_VERSION" >&2
  zig_tools_installed || { echo "cargo-zigbuild, maturin or zig did not install into $ZIG_VENV" >&2; exit 1; }
fi
export PATH="$PWD/$ZIG_VENV/bin:$PATH"
