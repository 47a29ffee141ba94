//! Integration tests of `gantry-cli`, run as a user would run it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
