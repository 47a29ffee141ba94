//! What the CLI and the desktop UI show about each server.

use std::time::Duration;

use gantry_tools::PermissionLevel;
use serde::{Deserialize, Serialize};

use crate::config::{ConfigOrigin, TransportSummary};

/// Where a server is in its life.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum ServerState {
    /// Being started (or restarted) and initialised.
    Starting,
    /// Running; its tools are registered.
    Connected,
    /// Not running; `reason` says why (its last stderr lines are in the status).
    Failed {
        /// What went wrong, in a sentence.
        reason: String,
    },
    /// Shut down by Gantry.
    Stopped,
    /// `"disabled": true` in the config.
    Disabled,
    /// In a project file the user has not approved (or that changed since): never started.
    Untrusted,
}

impl ServerState {
    /// `starting`, `connected`, `failed`, `stopped`, `disabled` or `untrusted`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Connected => "connected",
            Self::Failed { .. } => "failed",
            Self::Stopped => "stopped",
            Self::Disabled => "disabled",
            Self::Untrusted => "untrusted",
        }
    }
}

impl std::fmt::Display for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Failed { reason } => write!(f, "failed: {reason}"),
            other => f.write_str(other.as_str()),
        }
    }
}

/// One tool of a server as registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolInfo {
    /// The registry name (`mcp__{server}__{tool}`).
    pub name: String,
    /// The server's own name for it.
    pub remote_name: String,
    /// Its permission level in Gantry.
    pub level: PermissionLevel,
}

/// A server's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// The configured name.
    pub name: String,
    /// The file it is configured in.
    pub source: ConfigOrigin,
    /// How Gantry reaches it (commands and URLs only, never env or header values).
    pub transport: TransportSummary,
    /// Where it is in its life.
    pub state: ServerState,
    /// Its tools as currently registered (kept while it restarts).
    pub tools: Vec<McpToolInfo>,
    /// The last lines it wrote to stderr (stdio servers).
    pub stderr_tail: Vec<String>,
    /// The process id of the running server (stdio servers).
    pub pid: Option<u32>,
    /// How many times it was started again after a failure.
    pub restarts: u32,
    /// How many tool listings it answered (each start and each `tools/list_changed`).
    pub listings: u64,
    /// The call timeout in force.
    #[serde(with = "gantry_tools::duration_millis")]
    pub call_timeout: Duration,
}
