//! Opening a project: a ToolManager with Gantry's tools, the project's settings and the tools of
//! its MCP servers.
//!
//! Opening remembers the folder in Gantry's database (as the app does when the user picks it),
//! loads the project's saved tool policies and records every dispatch in its audit log. A
//! command-line call belongs to no session (sessions are conversations, which the agent loop
//! starts), so its audit row has none.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gantry_mcp::{HubSettings, McpHub, ProjectTrust};
use gantry_store::{Project, ProjectId, Store};
use gantry_tools::{Approver, ToolManager, UserPrompter, builtin};

use crate::CliError;
use crate::state::{open_store, store_error};

/// Who answers for the user in this run.
#[derive(Default)]
pub(crate) struct People {
    pub approver: Option<Arc<dyn Approver>>,
    pub prompter: Option<Arc<dyn UserPrompter>>,
}

/// An open project: its manager, and the store it is remembered in.
pub(crate) struct OpenProject {
    pub manager: ToolManager,
    pub store: Store,
    pub project: Project,
}

impl OpenProject {
    /// Where this project's `.mcp.json` approvals are remembered.
    pub fn trust(&self) -> Arc<dyn ProjectTrust> {
        Arc::new(StoreTrust {
            store: self.store.clone(),
            project: self.project.id,
        })
    }
}

/// A manager for the project at `root` with every built-in tool registered and the project's
/// saved policies and audit log attached.
pub(crate) async fn open_project(root: &Path, people: People) -> Result<OpenProject, CliError> {
    let mut manager = ToolManager::new(root).map_err(|error| CliError::Usage(error.to_string()))?;
    let store = open_store().await?;
    let project = store
        .projects()
        .open(manager.root())
        .await
        .map_err(store_error)?;
    let policies = store
        .policies()
        .load(project.id)
        .await
        .map_err(store_error)?;
    manager = manager
        .with_policies(policies)
        .with_audit(Arc::new(store.audit_sink(project.id)));
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(|error| CliError::Failed(error.into()))?;
    Ok(OpenProject {
        manager,
        store,
        project,
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
    let trust = open.trust();
    let manager = Arc::new(open.manager);
    let hub = match start_mcp(&manager, trust, trust_project_mcp).await {
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
    trust: Arc<dyn ProjectTrust>,
    trust_project_mcp: bool,
) -> Result<McpHub, gantry_mcp::ConfigError> {
    let mut settings = HubSettings::new(trust);
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

/// Approvals of a project's `.mcp.json`, remembered in the store (per project, per content).
pub(crate) struct StoreTrust {
    pub store: Store,
    pub project: ProjectId,
}

#[async_trait]
impl ProjectTrust for StoreTrust {
    async fn is_trusted(&self, _project_root: &Path, file: &Path, content_sha256: &str) -> bool {
        match self
            .store
            .mcp_trust()
            .is_approved(self.project, file, content_sha256)
            .await
        {
            Ok(approved) => approved,
            Err(error) => {
                tracing::warn!(%error, "cannot read MCP approvals; treating the file as untrusted");
                false
            }
        }
    }

    async fn trust(&self, _project_root: &Path, file: &Path, content_sha256: &str) {
        if let Err(error) = self
            .store
            .mcp_trust()
            .approve(self.project, file, content_sha256)
            .await
        {
            tracing::warn!(%error, "cannot remember the MCP approval");
        }
    }
}
