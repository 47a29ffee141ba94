//! Opening a project for a command: [`gantry_engine::open_tools`] (the same assembly the
//! desktop app uses) with the CLI's error mapping, plus the MCP servers with their warnings on
//! stderr.
//!
//! A command-line call belongs to no session (sessions are conversations, which `chat` starts),
//! so the audit rows of `tools call` have none.

use std::path::Path;
use std::sync::Arc;

use gantry_engine::{OpenError, ProjectMcp, ProjectTools};
use gantry_mcp::McpHub;
use gantry_tools::ToolManager;

pub(crate) use gantry_engine::People;

use crate::CliError;
use crate::state::{open_store, store_error};

/// A manager for the project at `root` with every built-in tool registered and the project's
/// saved policies and audit log attached.
pub(crate) async fn open_project(root: &Path, people: People) -> Result<ProjectTools, CliError> {
    let store = open_store().await?;
    gantry_engine::open_tools(store, root, people)
        .await
        .map_err(|error| match error {
            OpenError::Root(error) => CliError::Usage(error.to_string()),
            OpenError::Store(error) => store_error(error),
            OpenError::Register(error) => CliError::Failed(error.into()),
        })
}

/// An open project with its MCP servers started (and stopped by [`Session::close`]).
pub(crate) struct Session {
    pub manager: Arc<ToolManager>,
    pub hub: Option<McpHub>,
}

impl Session {
    /// Stops the MCP servers.
    pub async fn close(self) {
        if let Some(hub) = self.hub {
            hub.shutdown().await;
        }
    }
}

/// [`open_project`] plus the MCP servers of the user's file and the project's `.mcp.json`
/// (started only when approved: `--trust-project-mcp` approves it for this run). A broken MCP
/// config is reported on stderr and the session goes on without MCP.
pub(crate) async fn open_session(
    root: &Path,
    people: People,
    trust_project_mcp: bool,
) -> Result<Session, CliError> {
    let open = open_project(root, people).await?;
    let mcp = open.mcp();
    let manager = Arc::new(open.manager);
    let hub = start_mcp(&manager, &mcp, trust_project_mcp).await;
    Ok(Session { manager, hub })
}

/// Starts the MCP servers, printing the config's warnings; a broken config is reported on
/// stderr and the command goes on without MCP.
pub(crate) async fn start_mcp(
    manager: &Arc<ToolManager>,
    mcp: &ProjectMcp,
    trust_project_mcp: bool,
) -> Option<McpHub> {
    match gantry_engine::start_mcp(manager, mcp, trust_project_mcp).await {
        Ok(hub) => {
            for warning in hub.warnings() {
                eprintln!(
                    "gantry-cli: warning: {}",
                    crate::escape::for_terminal(&warning.to_string())
                );
            }
            Some(hub)
        }
        Err(error) => {
            eprintln!(
                "gantry-cli: MCP servers not started: {}",
                crate::escape::for_terminal(&error.to_string())
            );
            None
        }
    }
}
