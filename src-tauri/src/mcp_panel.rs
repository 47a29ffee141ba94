//! What the MCP servers panel shows: each configured server's transport, state, tools and last
//! stderr lines, and whether the project's `.mcp.json` waits for the user's trust.
//!
//! The engine's [`ServerStatus`] is mapped into view types here (the engine crate has no
//! TypeScript bindings): only names, commands and URLs cross to the webview — never an env or a
//! header value, which the engine's status does not hold either.

use gantry_mcp::{ConfigOrigin, ServerState, ServerStatus, TransportSummary};
use serde::{Deserialize, Serialize};

/// Where the project's MCP servers are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum McpHubState {
    /// The configuration is being read and the servers started.
    Starting,
    /// The servers below are what is configured.
    Running,
    /// The configuration could not be read; no server runs.
    Failed {
        /// The error, naming the file, line and key.
        message: String,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    /// Its name in the configuration.
    pub name: String,
    /// `user` (the user-wide file) or `project` (the project's `.mcp.json`).
    pub origin: String,
    /// The file it is configured in.
    pub config_path: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The program and its arguments, or the URL (as configured, before `${VAR}` expansion).
    pub target: String,
    /// `starting`, `connected`, `failed`, `stopped`, `disabled` or `untrusted`.
    pub state: String,
    /// Why it failed, when it did.
    pub reason: Option<String>,
    /// The names of its tools as registered (`mcp__server__tool`).
    pub tools: Vec<String>,
    /// The last lines it wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// Its process id, while a stdio server runs.
    pub pid: Option<u32>,
    /// How many times it was started again.
    pub restarts: u32,
}

/// What the MCP panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpPanel {
    /// Whether the servers are starting, running, or could not be configured.
    pub hub: McpHubState,
    /// The configured servers, the user's first.
    pub servers: Vec<McpServerView>,
    /// Warnings about the configuration (unknown keys, ...).
    pub warnings: Vec<String>,
}

/// The argument of `restart_mcp_server`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpServerRequest {
    /// The server's name.
    pub name: String,
}

impl From<&ServerStatus> for McpServerView {
    fn from(status: &ServerStatus) -> Self {
        let (origin, config_path) = match &status.source {
            ConfigOrigin::User { path } => ("user", path),
            ConfigOrigin::Project { path, .. } => ("project", path),
        };
        let (transport, target) = match &status.transport {
            TransportSummary::Stdio { command, args } => {
                let mut line = vec![command.clone()];
                line.extend(args.iter().cloned());
                ("stdio", line.join(" "))
            }
            TransportSummary::Http { url } => ("http", url.clone()),
            TransportSummary::Sse { url } => ("sse", url.clone()),
        };
        let reason = match &status.state {
            ServerState::Failed { reason } => Some(reason.clone()),
            _ => None,
        };
        Self {
            name: status.name.clone(),
            origin: origin.to_owned(),
            config_path: config_path.display().to_string(),
            transport: transport.to_owned(),
            target,
            state: status.state.as_str().to_owned(),
            reason,
            tools: status.tools.iter().map(|tool| tool.name.clone()).collect(),
            stderr_tail: status.stderr_tail.clone(),
            pid: status.pid,
            restarts: status.restarts,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_status_maps_to_names_commands_and_state_only() {
        let status = ServerStatus {
            name: "files".into(),
            source: ConfigOrigin::Project {
                path: PathBuf::from("/p/.mcp.json"),
                root: PathBuf::from("/p"),
            },
            transport: TransportSummary::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "server".into()],
            },
            state: ServerState::Failed {
                reason: "exited with status 1".into(),
            },
            tools: Vec::new(),
            stderr_tail: vec!["boom".into()],
            pid: None,
            restarts: 2,
            listings: 0,
            call_timeout: Duration::from_secs(60),
        };
        let view = McpServerView::from(&status);
        assert_eq!(view.origin, "project");
        assert_eq!(view.config_path, "/p/.mcp.json");
        assert_eq!(
            (view.transport.as_str(), view.target.as_str()),
            ("stdio", "npx -y server")
        );
        assert_eq!(view.state, "failed");
        assert_eq!(view.reason.as_deref(), Some("exited with status 1"));
        assert_eq!(view.stderr_tail, ["boom"]);
        assert_eq!(view.restarts, 2);
    }
}
