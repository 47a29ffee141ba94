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
    /// Its resources (kept current on `notifications/resources/list_changed`).
    pub resources: Vec<McpResourceInfo>,
    /// Its resource templates.
    pub resource_templates: Vec<McpResourceTemplateInfo>,
    /// Its prompts (kept current on `notifications/prompts/list_changed`).
    pub prompts: Vec<McpPromptInfo>,
    /// Sign-in, for a remote server that asked for it or holds tokens; `None` otherwise.
    pub sign_in: Option<SignInState>,
}

/// Where a remote server's sign-in stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum SignInState {
    /// Gantry holds tokens for it (the server accepted them at the last connection).
    SignedIn {
        /// Who, as far as the tokens tell (or the authorization server's host).
        account: Option<String>,
    },
    /// The server asked for sign-in (401) and Gantry has no token it accepts.
    Required,
}

/// One resource a server lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "McpResourceView"))]
#[serde(rename_all = "camelCase")]
pub struct McpResourceInfo {
    /// Its URI (what `read` takes).
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A human title, when given.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Its MIME type, when known.
    pub mime_type: Option<String>,
}

/// A family of resources a server can read (`uriTemplate`, RFC 6570).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "McpResourceTemplateView")
)]
#[serde(rename_all = "camelCase")]
pub struct McpResourceTemplateInfo {
    /// The URI template, e.g. `demo://resource/{id}`.
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// A human title, when given.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// The MIME type of its resources, when uniform.
    pub mime_type: Option<String>,
}

/// One prompt a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "McpPromptView"))]
#[serde(rename_all = "camelCase")]
pub struct McpPromptInfo {
    /// Its name (what `render` takes).
    pub name: String,
    /// A human title, when given.
    pub title: Option<String>,
    /// What it does.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<McpPromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "ts",
    derive(ts_rs::TS),
    ts(rename = "McpPromptArgumentView")
)]
#[serde(rename_all = "camelCase")]
pub struct McpPromptArgument {
    /// Its name.
    pub name: String,
    /// What to give.
    pub description: Option<String>,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// Something a server told Gantry that front ends may want to show at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum McpNotice {
    /// A subscribed resource changed (`notifications/resources/updated`): read it again.
    ResourceUpdated {
        /// The server.
        server: String,
        /// The resource.
        uri: String,
    },
    /// The server's tools, resources or prompts changed (its status has the new lists).
    ListChanged {
        /// The server.
        server: String,
    },
}
