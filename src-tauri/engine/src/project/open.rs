//! Opening a project the same way in every front end.
//!
//! The CLI and the desktop app both turn a folder into a working set of tools: a
//! [`ToolManager`] with the built-in tools, the project's saved policies and its audit log
//! from the store, and the MCP servers of the user's file and of the project's `.mcp.json`
//! (whose approvals the store remembers). Keeping that assembly here means a tool, a policy or
//! an approval behaves the same whether the user types in a terminal or clicks in the window.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gantry_mcp::{ConfigError, HubSettings, McpHub, McpNotice, ProjectTrust, TokenVault};
use gantry_store::{Project, ProjectId, Store, StoreError};
use gantry_tools::{Approver, ManagerError, ProjectRoot, ToolManager, UserPrompter, builtin};

use crate::checkpoints::Checkpoints;
use crate::config::hooks::ProjectHooks;

use crate::tools::rules::{apply_saved, hide_gantry_folders};

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

/// A project's tools, opened: the manager (not shared yet, so a caller can still adjust it), and
/// the store the project is remembered in.
pub struct ProjectTools {
    /// The project's tools with its policies and audit log attached.
    pub manager: ToolManager,
    /// Gantry's database.
    pub store: Store,
    /// The project's row.
    pub project: Project,
    /// What the agent changed in the project's files (the manager's change sink).
    pub checkpoints: Checkpoints,
    /// The user's hooks for this project (the manager's tool hooks; the chat fires the
    /// session events through it).
    pub hooks: Arc<ProjectHooks>,
}

impl ProjectTools {
    /// Where this project's `.mcp.json` approvals are remembered.
    pub fn trust(&self) -> Arc<dyn ProjectTrust> {
        self.mcp().trust()
    }

    /// The project's MCP choices: approvals and servers switched off.
    pub fn mcp(&self) -> ProjectMcp {
        ProjectMcp {
            store: self.store.clone(),
            project: self.project.id,
            root: self.manager.root().to_owned(),
            user_file: gantry_mcp::user_config_path(),
            tokens: Some(Arc::new(crate::mcp::tokens::KeychainVault::new())),
            notices: None,
        }
    }
}

/// What a project decided about MCP servers, kept in the store: the approvals of its
/// `.mcp.json` and the servers it does not start. Everything that starts or reloads the
/// project's hub reads its [`HubSettings`] from here, so the CLI and the app agree.
#[derive(Clone)]
pub struct ProjectMcp {
    store: Store,
    project: ProjectId,
    root: PathBuf,
    user_file: Option<PathBuf>,
    /// Where remote servers' sign-in tokens are kept (the OS keychain).
    tokens: Option<Arc<dyn TokenVault>>,
    /// Where the servers' notices go.
    notices: Option<tokio::sync::broadcast::Sender<McpNotice>>,
}

impl std::fmt::Debug for ProjectMcp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectMcp")
            .field("project", &self.project)
            .field("root", &self.root)
            .field("user_file", &self.user_file)
            .finish_non_exhaustive()
    }
}

impl ProjectMcp {
    /// The same choices with another user-wide file (tests; the default is
    /// [`gantry_mcp::user_config_path`]).
    pub fn with_user_file(mut self, user_file: Option<PathBuf>) -> Self {
        self.user_file = user_file;
        self
    }

    /// The same choices keeping sign-in tokens in `tokens` (tests; the default is the OS
    /// keychain).
    pub fn with_tokens(mut self, tokens: Option<Arc<dyn TokenVault>>) -> Self {
        self.tokens = tokens;
        self
    }

    /// The same choices sending the servers' notices to `notices`.
    pub fn with_notices(mut self, notices: tokio::sync::broadcast::Sender<McpNotice>) -> Self {
        self.notices = Some(notices);
        self
    }

    /// Where sign-in tokens are kept.
    pub fn tokens(&self) -> Option<&Arc<dyn TokenVault>> {
        self.tokens.as_ref()
    }

    /// The user-wide MCP file the hub reads (and the app edits).
    pub fn user_file(&self) -> Option<&Path> {
        self.user_file.as_deref()
    }

    /// Where the approvals of the project's `.mcp.json` are remembered.
    pub fn trust(&self) -> Arc<dyn ProjectTrust> {
        Arc::new(StoreTrust {
            store: self.store.clone(),
            project: self.project,
        })
    }

    /// The servers switched off in this project. A store that can't be read is an error, not
    /// an empty set: starting every server could run one the user switched off.
    pub async fn disabled_servers(&self) -> Result<BTreeSet<String>, StoreError> {
        self.store.mcp_switches().disabled(self.project).await
    }

    /// Switches server `name` off for this project, or on again; true when that changed
    /// something. Takes effect at the next start or [`McpHub::reload`].
    pub async fn set_server_enabled(&self, name: &str, enabled: bool) -> Result<bool, StoreError> {
        self.store
            .mcp_switches()
            .set_enabled(self.project, name, enabled)
            .await
    }

    /// Carries the switches of a renamed user-wide server over to its new name, in every
    /// project (the user's file is every project's).
    pub async fn rename_server(&self, old: &str, new: &str) -> Result<(), StoreError> {
        self.store.mcp_switches().rename(old, new).await.map(drop)
    }

    /// The hub's settings for this project: the user's file, the project's `.mcp.json` (its
    /// approval from the store, or for this run only), and the servers switched off here.
    pub async fn settings(
        &self,
        trust_project_for_this_run: bool,
    ) -> Result<HubSettings, StoreError> {
        let mut settings = HubSettings::new(self.trust());
        settings.user_file = self.user_file.clone();
        settings.project_root = Some(self.root.clone());
        settings.trust_project_for_this_run = trust_project_for_this_run;
        settings.disabled_servers = self.disabled_servers().await?;
        settings.tokens = self.tokens.clone();
        settings.notices = self.notices.clone();
        Ok(settings)
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
/// its tool manager: the built-in tools, the saved policies and rules, the rules of the
/// project's Claude Code settings, the command settings
/// (network, writable folders, variables passed), the store's audit log, the project's
/// checkpoints (which record what calls change) and the given people. The system's sandbox is
/// probed here (once per process, off the async threads), and Gantry's own folders are hidden
/// from the project's commands.
pub async fn open_tools(
    store: Store,
    root: &Path,
    people: People,
) -> Result<ProjectTools, OpenError> {
    let mut manager = ToolManager::new(root).map_err(OpenError::Root)?;
    let project = store.projects().open(manager.root()).await?;
    let policies = store.policies().load(project.id).await?;
    register_saved_key_variables(&store).await;
    let _probed = tokio::task::spawn_blocking(gantry_tools::CommandSandbox::probe).await;
    hide_gantry_folders(&store, &manager);
    apply_saved(&store, project.id, &manager).await?;
    crate::config::rules::reload_external_rules(&store, project.id, &manager).await;
    let checkpoints = Checkpoints::open(
        store.clone(),
        project.id,
        ProjectRoot::clone(manager.project()),
    )
    .await;
    let hooks = Arc::new(ProjectHooks::new(
        store.clone(),
        project.id,
        crate::config::locations(manager.root()),
    ));
    manager = manager
        .with_hooks(hooks.clone())
        .with_policies(policies)
        .with_audit(Arc::new(store.audit_sink(project.id)))
        .with_changes(Arc::new(checkpoints.clone()));
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(OpenError::Register)?;
    crate::config::skills::install(&manager, crate::config::locations(manager.root()))
        .await
        .map_err(OpenError::Register)?;
    Ok(ProjectTools {
        manager,
        store,
        project,
        checkpoints,
        hooks,
    })
}

/// Starts the MCP servers of the user's file and of the project's `.mcp.json` (the latter only
/// when approved, or when `trust_project_for_this_run`), except those the project switched off,
/// registering their tools in `manager`, and waits until each has connected or failed once. The
/// caller must [`McpHub::shutdown`] the hub when the project closes.
pub async fn start_mcp(
    manager: &Arc<ToolManager>,
    mcp: &ProjectMcp,
    trust_project_for_this_run: bool,
) -> Result<McpHub, McpStartError> {
    let settings = mcp.settings(trust_project_for_this_run).await?;
    let wait = settings.options.startup_timeout + Duration::from_secs(5);
    let hub = McpHub::start(Arc::clone(manager), settings).await?;
    hub.wait_started(wait).await;
    Ok(hub)
}

/// Why a project's MCP servers could not start.
#[derive(Debug, thiserror::Error)]
pub enum McpStartError {
    /// A configuration file is malformed (the error names the file, line and key).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The servers this project switched off could not be read, so none is started.
    #[error("cannot read which MCP servers this project switched off, so none was started: {0}")]
    Switches(#[from] StoreError),
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
    async fn the_hub_settings_carry_the_servers_switched_off_in_the_project() {
        let data = tempfile::tempdir().unwrap();
        let (a_root, b_root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let a = open_tools(store.clone(), a_root.path(), People::default())
            .await
            .unwrap();
        let b = open_tools(store, b_root.path(), People::default())
            .await
            .unwrap();
        let mcp = a.mcp();
        assert!(
            mcp.settings(false)
                .await
                .unwrap()
                .disabled_servers
                .is_empty()
        );
        assert!(mcp.set_server_enabled("github", false).await.unwrap());
        let settings = mcp.settings(true).await.unwrap();
        assert_eq!(
            settings.disabled_servers,
            BTreeSet::from(["github".to_owned()])
        );
        assert_eq!(settings.project_root.as_deref(), Some(a.manager.root()));
        assert!(settings.trust_project_for_this_run);
        assert_eq!(settings.user_file, gantry_mcp::user_config_path());
        let elsewhere = data.path().join("mcp.json");
        let moved = mcp.clone().with_user_file(Some(elsewhere.clone()));
        assert_eq!(
            moved.settings(false).await.unwrap().user_file,
            Some(elsewhere)
        );
        assert!(
            b.mcp()
                .settings(false)
                .await
                .unwrap()
                .disabled_servers
                .is_empty()
        );
        // A renamed user-wide server keeps its switch.
        mcp.rename_server("github", "gh").await.unwrap();
        assert_eq!(
            mcp.disabled_servers().await.unwrap(),
            BTreeSet::from(["gh".to_owned()])
        );
        assert!(mcp.set_server_enabled("gh", true).await.unwrap());
        assert!(mcp.disabled_servers().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn no_server_starts_when_the_switches_cannot_be_read() {
        let data = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let user_file = data.path().join("mcp.json");
        // A server that would start (and fail, harmlessly) if it were tried.
        std::fs::write(
            &user_file,
            r#"{"mcpServers": {"off": {"command": "true"}}}"#,
        )
        .unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let open = open_tools(store.clone(), root.path(), People::default())
            .await
            .unwrap();
        let mcp = open.mcp().with_user_file(Some(user_file));
        mcp.set_server_enabled("off", false).await.unwrap();
        let manager = Arc::new(open.manager);
        store.close().await;
        let error = start_mcp(&manager, &mcp, false).await.unwrap_err();
        assert!(matches!(error, McpStartError::Switches(_)), "{error:?}");
        assert!(error.to_string().contains("none was started"), "{error}");
    }

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
                flags: gantry_store::FlagSettings::default(),
            })
            .await
            .unwrap();
        assert!(!gantry_tools::is_secret_env(variable));
        open_tools(store, root.path(), People::default())
            .await
            .unwrap();
        assert!(gantry_tools::is_secret_env(variable));
    }
}
