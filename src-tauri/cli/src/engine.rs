//! Opening a project: a ToolManager with Gantry's tools, the project's settings and the tools of
//! its MCP servers.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gantry_mcp::{HubSettings, McpHub, MemoryTrust};
use gantry_tools::{Approver, ToolManager, UserPrompter, builtin};

use crate::CliError;

/// Who answers for the user in this run.
#[derive(Default)]
pub(crate) struct People {
    pub approver: Option<Arc<dyn Approver>>,
    pub prompter: Option<Arc<dyn UserPrompter>>,
}

/// A manager for the project at `root` with every built-in tool registered.
pub(crate) fn open_project(root: &Path, people: People) -> Result<ToolManager, CliError> {
    let mut manager = ToolManager::new(root).map_err(|error| CliError::Usage(error.to_string()))?;
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(|error| CliError::Failed(error.into()))?;
    Ok(manager)
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
    let manager = Arc::new(open_project(root, people)?);
    let hub = match start_mcp(&manager, trust_project_mcp).await {
        Ok(hub) => Some(hub),
        Err(error) => {
            eprintln!("gantry-cli: MCP servers not started: {error}");
            None
        }
    };
    Ok(Session { manager, hub })
}

/// Starts the MCP servers for the manager's project and waits until each has connected or
/// failed once.
pub(crate) async fn start_mcp(
    manager: &Arc<ToolManager>,
    trust_project_mcp: bool,
) -> Result<McpHub, gantry_mcp::ConfigError> {
    // Approvals are remembered in memory only until the store keeps them.
    let mut settings = HubSettings::new(Arc::new(MemoryTrust::new()));
    settings.project_root = Some(manager.root().to_owned());
    settings.trust_project_for_this_run = trust_project_mcp;
    let wait = settings.options.startup_timeout + Duration::from_secs(5);
    let hub = McpHub::start(Arc::clone(manager), settings).await?;
    for warning in hub.warnings() {
        eprintln!("gantry-cli: warning: {warning}");
    }
    hub.wait_started(wait).await;
    Ok(hub)
}
