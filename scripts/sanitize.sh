#!/usr/bin/env bash
# The C/C++ host tests (tests/c_api/legacy_hosts.rs, tests/c_api/streaming_host.rs,
# tests/unreal_glue.rs) under sanitizers:
#   address: AddressSanitizer + LeakSanitizer (+ UBSan on the C/C++ side)
#   thread:  ThreadSanitizer
# Usage: scripts/sanitize.sh [address] [thread]   (default: both)
#
# For each mode, in its own target dir (target/asan, target/tsan):
# 1. libcarla_server.so is built instrumented. RUSTC_BOOTSTRAP=1 unlocks
#    -Zsanitizer on the stable toolchain. With the rust-src component
#    (added here if rustup can fetch it) -Zbuild-std instruments Rust's
#    std inside the library too; without it std stays uninstrumented (see
#    the fallback below for what that misses).
# 2. The tests run with CARLA_SANITIZE=<mode>, which makes tests/common/
#    chost.rs (and the glue test) compile and link the hosts with
#    -fsanitize=<mode>, and CARLA_LIB_DIR, which links and runs them with
#    the instrumented library. The instrumented host executable carries
#    the sanitizer runtime that the library's instrumentation calls into
#    (on Linux rustc links no runtime into a cdylib). The Rust test
#    harness (the clients) is not instrumented.
# 3. Every report is written to <target dir>/reports/ and any report fails
#    the run, even from a host whose exit status a test does not check.
set -euo pipefail
cd "$(dirname "$0")/.."

modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(address thread)

# The hosts are compiled with clang: like rustc it uses LLVM's sanitizer
# runtime (the glue test also builds with g++, whose libasan/libtsan
# provide every entry point the library's instrumentation calls).
if ! command -v clang++ >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing clang (Debian package)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang >/dev/null
  else
    echo "clang++ is required: apt-get install clang" >&2
    exit 1
  fi
fi

triple=$(rustc -vV | sed -n 's/^host: //p')
supp="$PWD/scripts/sanitizers"
status=0

if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  rustup component add rust-src >/dev/null 2>&1 || true
fi
if rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  std_build=(-Zbuild-std)
  std_flags=""
  echo "== std instrumented too (-Zbuild-std)"
else
  # rustc refuses to mix TSan-instrumented crates with the prebuilt std
  # unless told to. Then TSan does not see std's own synchronisation
  # (std::sync::Mutex's contended path, Arc's drop fence, channels):
  # races between library threads may be reported falsely and races
  # inside std are missed. ASan misses accesses made inside std's
  # non-generic code (memcpy & co. are intercepted either way).
  std_build=()
  std_flags="-Cunsafe-allow-abi-mismatch=sanitizer"
  echo "!! rust-src is not installed: Rust's std is NOT instrumented" >&2
fi

# `cargo test ARGS` with the hosts built and run under sanitizer $mode
# against the instrumented library in $dir; reports go to $reports.
sanitized_test() {
  CC=clang CXX=clang++ \
    CARLA_SANITIZE=$mode CARLA_SANITIZE_LINK="$link" CARLA_LIB_DIR="$PWD/$dir/$triple/release" \
    ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:log_path=$reports/asan" \
    LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0" \
    UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan" \
    TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:suppressions=$supp/tsan.supp:print_suppressions=0:log_path=$reports/tsan" \
    CARGO_TARGET_DIR=$dir \
    cargo test --quiet --no-fail-fast "$@"
}

for mode in "${modes[@]}"; do
  case "$mode" in
    address) dir=target/asan ;;
    thread) dir=target/tsan ;;
    *) echo "unknown mode $mode (address or thread)" >&2; exit 2 ;;
  esac
  reports="$PWD/$dir/reports"
  rm -rf "$reports"
  mkdir -p "$reports"
  start=$(date +%s)

  echo "== $mode: libcarla_server.so instrumented ($dir/$triple/release)"
  # --target keeps build scripts and the test harness uninstrumented.
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zsanitizer=$mode $std_flags" CARGO_TARGET_DIR=$dir \
    cargo rustc --quiet --release "${std_build[@]}" --lib --target "$triple" --crate-type cdylib

  link=""
  if [ "$mode" = thread ]; then
    link="$PWD/$dir/tsan_memintrinsics.o"
    cc -O1 -fno-builtin -fPIC -c "$supp/tsan_memintrinsics.c" -o "$link"
  fi

  echo "== $mode: C/C++ host tests"
  set +e
  # A test-name filter applies to every --test of one command, so the
  # C-host modules of the c_api binary and the glue run as two commands.
  tests=0
  sanitized_test --test c_api -- legacy_hosts:: streaming_host:: || tests=$?
  sanitized_test --test unreal_glue || tests=$?
  set -e

  found=$(find "$reports" -type f | sort)
  if [ -n "$found" ]; then
    for f in $found; do
      echo "---- $f"
      cat "$f"
    done
    echo "!! $mode: sanitizer reports above" >&2
    status=1
  elif [ $tests -ne 0 ]; then
    echo "!! $mode: tests failed" >&2
    status=1
  else
    echo "== $mode: clean ($(($(date +%s) - start)) s)"
  fi
done
exit $status
