//! Integration tests of gantry-store against real SQLite files, real processes and, when the
//! test command provides one, a real Secret Service.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
