#!/usr/bin/env bash
# The project's test command: what the README tells you to run and what CI
# (.ci/run) runs. Everything here needs the Rust toolchain, gcc/g++ (used by
# the `cc` crate for the C-ABI tests) and clang++ (installed below if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time, printed as it ends and summed up at the end (CI
# has 20 minutes on 2 cores for all of it).
TIMES=""
STEP=""
STEP_START=$SECONDS
step() {
  if [ -n "$STEP" ]; then
    TIMES="$TIMES$(printf '%5d s  %-60s target/ %s, disk free %s' $((SECONDS - STEP_START)) "$STEP" "$(du -sh target 2>/dev/null | cut -f1)" "$(df -h --output=avail . | tail -n 1 | tr -d ' ')")"$'\n'
  fi
  STEP="$1"
  STEP_START=$SECONDS
  [ -z "$STEP" ] || echo "== $STEP"
}
summary() {
  local rc=$?
  # Background jobs still running when a step failed (the wheel's build,
  # the Python clients' installs).
  [ -z "${WHEEL_BUILD:-}" ] || kill -- "-$WHEEL_BUILD" 2>/dev/null || true
  [ -z "${PY_CLIENTS:-}" ] || kill -- "-$PY_CLIENTS" 2>/dev/null || true
  step ""
  printf '== time per step (exit status %d)\n%s%5d s  in all\n' "$rc" "$TIMES" "$SECONDS"
}
trap summary EXIT
# Waits for background job $1 (a process group, see setsid below); if it
# failed, prints its log $2 and stops the run naming it ($3).
await_background() {
  wait "$1" && return 0
  cat "$2"
  echo "$3 failed (above, and in $2)" >&2
  exit 1
}
# No incremental caches: a clean checkout gains nothing from them and they
# were a gigabyte of target/debug.
export CARGO_INCREMENTAL=0
step "compilers (Debian); the Python clients (PyPI) start installing"

# The Unreal glue is compiled with g++ and clang++ (tests/unreal_glue.rs).
if ! command -v clang++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing clang (Debian package) for the two-compiler glue test"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
  else
    echo "clang++ is required (the Unreal glue test compiles with g++ and clang++): apt-get install clang" >&2
    exit 1
  fi
fi

# Eclipse Cyclone DDS for C (idlc and libddsc): the native ROS 2 reader of
# carla-host/tests/demo_world/town_09.rs is built against it.
if ! command -v idlc >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing cyclonedds-dev (Debian package) for the native ROS 2 reader"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cyclonedds-dev >/dev/null
  else
    echo "idlc is required (the native ROS 2 reader test): apt-get install cyclonedds-dev" >&2
    exit 1
  fi
fi

# The Python clients below come from PyPI into virtual environments under
# target/ while the plugin and the lints compile (downloads and unpacking,
# little CPU: 44 s of a clean run's start before); the tests wait for them.
PY_LOG=target/python-clients.log
python_clients() {
  set -euo pipefail
  # The unmodified CARLA 0.9.16 Python client (PyPI) drives the library in
  # tests/rpc/python.rs; it lives in a virtual environment under target/.
  # Eclipse Cyclone DDS's Python binding (cyclonedds) reads the demo world's
  # ROS 2 topics there too, an independent DDS implementation; OpenCV's stock
  # people detector and line finder look at its camera pictures (the HOG
  # detector was dropped from OpenCV 5, hence 4.12).
  local venv=target/venv-carla-0.9.16
  if ! "$venv/bin/python" -c "import carla, cyclonedds, scenariogeneration, cv2" >/dev/null 2>&1; then
    echo "== installing carla==0.9.16, cyclonedds, scenariogeneration and opencv-python-headless from PyPI into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "carla==0.9.16" "cyclonedds==11.0.1" \
      "scenariogeneration==0.16.7" "opencv-python-headless==4.12.0.88"
  fi
  # The older releases' unmodified clients (tests/rpc/python.rs runs the same
  # flow with each): their wheels exist for Python 3.8 only, found with pyenv.
  local minor py38
  for minor in 12 13 14 15; do
    venv=target/venv-carla-0.9.$minor
    if ! "$venv/bin/python" -c "import carla, sys; sys.exit(carla.Client('localhost', 1).get_client_version() != '0.9.$minor')" >/dev/null 2>&1; then
      if ! py38=$(find_python38); then
        echo "Python 3.8 is required for the carla==0.9.12..0.9.15 wheels (PyPI has them for 3.8 only):" >&2
        echo "install it with pyenv (pyenv install 3.8) or set CARLA_PYTHON38 to a python3.8" >&2
        return 1
      fi
      echo "== installing carla==0.9.$minor from PyPI into $venv (with $py38)"
      rm -rf "$venv"
      "$py38" -m venv "$venv"
      "$venv/bin/pip" install --quiet --disable-pip-version-check "carla==0.9.$minor"
    fi
  done
}
find_python38() {
  local p
  for p in "${CARLA_PYTHON38:-}" "$(command -v python3.8 || true)" \
           "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.8*/bin/python \
           /root/.pyenv/versions/3.8*/bin/python; do
    if [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys; assert sys.version_info[:2] == (3, 8)' 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
export CARLA_0916_PYTHON="$PWD/target/venv-carla-0.9.16/bin/python"
for minor in 12 13 14 15; do
  export "CARLA_PYTHON_0_9_$minor=$PWD/target/venv-carla-0.9.$minor/bin/python"
done
mkdir -p target
# In a process group of its own (setsid), so a failed step stops it too.
setsid bash -c "$(declare -f python_clients find_python38); python_clients" >"$PY_LOG" 2>&1 &
PY_CLIENTS=$!

# The Unreal plugin package that tests/plugin_package.rs checks: the
# glibc-2.17 Linux library (cargo-zigbuild and zig from PyPI into
# target/venv-zig on first use) and Win64 when this machine can build it.
step "the Unreal plugin package (scripts/package-plugin.sh)"
scripts/package-plugin.sh

step "format, lints and docs"
# --all takes path dependencies too: third_party/rustdds is checked in
# its own style (its rustfmt.toml).
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet

step "unit, integration, C and C++ tests"
await_background "$PY_CLIENTS" "$PY_LOG" "installing the Python clients"
PY_CLIENTS=""
cat "$PY_LOG"
# The wheel's build (scripts/build-wheel.sh: the demo world's crates; the
# library's it shares with the plugin's build above) runs while the tests
# run, as a SCHED_IDLE job: on the CPU they leave idle while they wait on
# their Python clients (from a clean clone they ran 395 s beside it, 308 s
# without). Started before the lints, it took their CPU instead (they
# compile: 125 s alone, 255 s beside it); the whole run went from 1,095 s
# to 1,038 s. Its output: target/wheel-build.log.
WHEEL_LOG=target/wheel-build.log
IDLE=(nice -n 19)
command -v chrt >/dev/null 2>&1 && IDLE=(chrt --idle 0)
cargo test --no-run --quiet
# In a process group of its own (setsid), so a failed step stops all of it.
setsid "${IDLE[@]}" scripts/build-wheel.sh >"$WHEEL_LOG" 2>&1 &
WHEEL_BUILD=$!
WHEEL_STARTED=$(date +%s)
# One test thread more than cores: the demo world's tests wait on their
# Python clients a third of the time (2 threads left 30-35% of 2 cores
# idle); with 3 its binary ran in 221-238 s against 283 s.
RUST_TEST_THREADS=$(($(nproc) + 1)) cargo test

step "the carla-host wheel (its build's rest), installed in a fresh virtual environment"
await_background "$WHEEL_BUILD" "$WHEEL_LOG" "the wheel's build"
WHEEL_BUILD=""
echo "== the wheel's build ran $(($(stat -c %Y "$WHEEL_LOG") - WHEEL_STARTED)) s in the background"
scripts/test-wheel.sh

# The loom models, in the test profile (loom's own code optimized,
# Cargo.toml): 45 s from a cold start of this step, where building the
# library optimized for them and for a release-mode run of the slot's
# stress test took 4.5 minutes of CI's 20. The stress test runs in
# `cargo test` above (200,000 rounds unoptimized; by hand optimized:
# `cargo test --release --lib sync::slot`, 5 million).
step "loom models of the slot, the buffer pool and the subscriber hand-off"
cargo test --features loom --lib loom_models
