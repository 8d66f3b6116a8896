//! Loom models of the lock-free parts, run by `scripts/test.sh` with
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test
//! --release --lib loom_models`. Under `--cfg loom` the primitives of
//! [`crate::sync`] are loom's, so these models drive the code that ships.

mod pool_and_handoff;
mod slot;
