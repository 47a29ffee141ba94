//! Opening a project the same way in every front end.
//!
//! The CLI and the desktop app both turn a folder into a working set of tools: a
//! [`ToolManager`] with the built-in tools, the project's saved policies and its audit log
//! from the store, and the MCP servers of the user's file and of the project's `.mcp.json`
//! (whose approvals the store remembers). Keeping that assembly here means a tool, a policy or
//! an approval behaves the same whether the user types in a terminal or clicks in the window.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gantry_mcp::{ConfigError, HubSettings, McpHub, ProjectTrust};
use gantry_store::{Project, ProjectId, Store, StoreError};
use gantry_tools::{Approver, ManagerError, ToolManager, UserPrompter, builtin};

/// Who answers for the user: approvals of Ask calls, and the model's questions.
#[derive(Default, Clone)]
pub struct People {
    /// Decides calls whose policy is Ask; `None` denies them (fail closed).
    pub approver: Option<Arc<dyn Approver>>,
    /// Answers ask_user; `None` makes it report that nobody can answer.
    pub prompter: Option<Arc<dyn UserPrompter>>,
}

/// Why a project could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The folder is not usable as a project.
    #[error(transparent)]
    Root(ManagerError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A built-in tool could not be registered (a bug).
    #[error("registering the built-in tools: {0}")]
    Register(ManagerError),
}

/// An open project: its tools (not shared yet, so a caller can still adjust them), and the
/// store it is remembered in.
pub struct OpenProject {
    /// The project's tools with its policies and audit log attached.
    pub manager: ToolManager,
    /// Gantry's database.
    pub store: Store,
    /// The project's row.
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

/// Marks every saved provider's key variable as a secret for the rest of the process, so no
/// command or MCP server sees it, whichever provider this session uses
/// ([`gantry_tools::register_secret_env`]). A store that cannot list providers only loses
/// this extra protection; the name patterns still apply.
pub async fn register_saved_key_variables(store: &Store) {
    match store.providers().list().await {
        Ok(providers) => {
            for provider in providers {
                if let Some(variable) = &provider.config.api_key_env {
                    gantry_tools::register_secret_env(variable);
                }
            }
        }
        Err(error) => {
            tracing::warn!(%error, "cannot list saved providers to scrub their key variables")
        }
    }
}

/// Remembers the folder at `root` in the store (as opening it in the app does), and builds
/// its tool manager: the built-in tools, the saved policies, the store's audit log, and the
/// given people.
pub async fn open_project(
    store: Store,
    root: &Path,
    people: People,
) -> Result<OpenProject, OpenError> {
    let mut manager = ToolManager::new(root).map_err(OpenError::Root)?;
    let project = store.projects().open(manager.root()).await?;
    let policies = store.policies().load(project.id).await?;
    register_saved_key_variables(&store).await;
    manager = manager
        .with_policies(policies)
        .with_audit(Arc::new(store.audit_sink(project.id)));
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(OpenError::Register)?;
    Ok(OpenProject {
        manager,
        store,
        project,
    })
}

/// Starts the MCP servers of the user's file and of the project's `.mcp.json` (the latter only
/// when approved, or when `trust_project_for_this_run`), registering their tools in `manager`,
/// and waits until each has connected or failed once. The caller must
/// [`McpHub::shutdown`] the hub when the project closes.
pub async fn start_mcp(
    manager: &Arc<ToolManager>,
    trust: Arc<dyn ProjectTrust>,
    trust_project_for_this_run: bool,
) -> Result<McpHub, ConfigError> {
    let mut settings = HubSettings::new(trust);
    settings.project_root = Some(manager.root().to_owned());
    settings.trust_project_for_this_run = trust_project_for_this_run;
    let wait = settings.options.startup_timeout + Duration::from_secs(5);
    let hub = McpHub::start(Arc::clone(manager), settings).await?;
    hub.wait_started(wait).await;
    Ok(hub)
}

/// Approvals of a project's `.mcp.json`, remembered in the store per project and per content
/// (any change to the file withdraws its approval).
pub struct StoreTrust {
    store: Store,
    project: ProjectId,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opening_a_project_scrubs_every_saved_providers_key_variable() {
        let data = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let variable = "SAVED_BUT_UNUSED_BEARER_K7";
        store
            .providers()
            .set(&gantry_store::ProviderConfig {
                name: "work".into(),
                base_url: "http://127.0.0.1:1/v1".into(),
                model: "m".into(),
                api_key_env: Some(variable.into()),
                context_window: None,
            })
            .await
            .unwrap();
        assert!(!gantry_tools::is_secret_env(variable));
        open_project(store, root.path(), People::default())
            .await
            .unwrap();
        assert!(gantry_tools::is_secret_env(variable));
    }
}
