//! gantry-sandbox's integration tests, compiled as one binary: real bubblewrap, real processes.
//!
//! Run as root they also re-run themselves as the ordinary user `nobody` (`as_nobody`), so a
//! plain `cargo test -p gantry-sandbox` covers both. Under `scripts/with-keyring` the D-Bus
//! and keyring escapes are tried against a real session bus; without a bus they say they did
//! not run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
