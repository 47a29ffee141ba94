//! gantry-tools' integration tests, compiled as one binary: run_command through the
//! ToolManager under the real OS sandbox (bubblewrap), escape attempts and normal work.
//!
//! Run as root they also re-run themselves as the ordinary user `nobody` (`as_nobody`), so a
//! plain `cargo test -p gantry-tools --test all` covers both. Under `scripts/with-keyring` the
//! keyring escape is tried against a real session bus; without one it says it did not run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
