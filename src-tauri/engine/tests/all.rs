//! gantry-engine's integration tests, compiled as one binary: the engine as the front ends reach
//! it, through its public API.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
