#!/usr/bin/env bash
# The project's test command: what the README tells you to run and what CI
# (.ci/run) runs. Everything here needs only the Rust toolchain and a C/C++
# compiler (gcc/g++, used by the `cc` crate for the C-ABI tests).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== format and lints"
cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings

echo "== unit, integration, C and C++ tests"
cargo test

echo "== release-mode stress test of the lock-free slot"
cargo test --release --test slot_stress

echo "== loom model check of the lock-free slot"
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
  cargo test --release --test loom_slot
