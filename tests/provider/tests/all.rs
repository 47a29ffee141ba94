//! Integration tests of the scripted provider, compiled into one binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
