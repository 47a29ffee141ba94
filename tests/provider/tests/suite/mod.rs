//! Shared helpers for the integration tests.

mod binary;
mod example_script;
mod openai_client;
mod raw_wire;

use std::time::Duration;

/// Long enough for anything on a loaded 2-core machine, short enough to fail fast.
pub const WAIT: Duration = Duration::from_secs(10);
