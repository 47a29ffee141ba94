//! Integration tests of gantry-mcp against real servers: the official npm servers and the crate's
//! own fault-injecting test server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
