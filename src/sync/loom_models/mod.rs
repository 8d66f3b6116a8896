//! Loom models of the lock-free parts, run by `scripts/test.sh` with
//! `cargo test --release --features loom --lib loom_models` (a feature, not
//! `--cfg loom`, so the release build of the dependencies is shared with
//! the slot's stress test before it). With it the primitives of
//! [`crate::sync`] are loom's, so these models drive the code that ships.

mod pool_and_handoff;
mod slot;
