//! The library's error type.

use std::time::Duration;

/// What can go wrong starting, feeding or querying a scripted provider.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The listening socket could not be bound.
    #[error("could not bind 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0 for any).
        port: u16,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A script is not valid JSON for the format, or does not fit its schema.
    #[error("script is not valid: {0}")]
    ScriptJson(#[source] serde_json::Error),
    /// A script parsed but cannot be played (see `Turn::validate`).
    #[error("script cannot be played: {0}")]
    InvalidScript(String),
    /// A wait ended before its condition held.
    #[error("timed out after {waited:?} waiting for {what}")]
    Timeout {
        /// How long the wait lasted.
        waited: Duration,
        /// What was awaited, and what was there instead.
        what: String,
    },
    /// `Handle::verify` found failures or unplayed turns.
    #[error("scripted provider was not used as scripted:\n{0}")]
    NotAsScripted(String),
    /// The server task ended abnormally.
    #[error("scripted provider server failed: {0}")]
    Server(String),
}
