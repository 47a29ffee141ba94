//! Every configured server of a session, together.
//!
//! The hub reads the user-wide file and the project's `.mcp.json`, decides which servers may
//! start (not disabled; from the user's file, or from a project file the user approved with this
//! exact content), starts them all at once — a slow or broken server delays or breaks only
//! itself — and registers their tools into the session's [`ToolManager`]. It is the one object a
//! front end keeps: statuses for the UI, restart, approval of the project file, and shutdown.
//!
//! A change to the configuration (an edited file, a server switched off for the project) is
//! applied by [`McpHub::reload`] without disturbing what did not change: a server whose
//! configuration, trust and switch are the same keeps running with its tools registered; only
//! new and changed servers start, and only removed and changed ones stop.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::future::join_all;
use gantry_tools::ToolManager;

use crate::catalog::{CatalogError, RenderedPrompt, ResourcePart};
use crate::config::{
    ConfigError, ConfigOrigin, PROJECT_FILE, ServerConfig, read_config, user_config_path,
};
use crate::connection::{McpOptions, McpServerHandle};
use crate::oauth::{Browser, SignInError, SignedIn, TokenVault};
use crate::review::{ProjectReview, RunFile, review_project_file};
use crate::status::McpNotice;
use crate::status::{ServerState, ServerStatus};
use crate::trust::ProjectTrust;

/// Where the hub reads its servers from and how it treats them.
#[derive(Clone)]
pub struct HubSettings {
    /// The user-wide file (default: [`user_config_path`]); `None` reads none.
    pub user_file: Option<PathBuf>,
    /// The project whose `.mcp.json` is read; `None` reads none.
    pub project_root: Option<PathBuf>,
    /// Remembers approved project files.
    pub trust: Arc<dyn ProjectTrust>,
    /// Treat the project file as approved for this run only (`--trust-project-mcp`).
    pub trust_project_for_this_run: bool,
    /// The servers this project does not start (switched off in this project only; a server's
    /// `"disabled": true` is the switch for every project). Listed as `disabled`.
    pub disabled_servers: BTreeSet<String>,
    /// Timeouts and restart policy.
    pub options: McpOptions,
    /// Where remote servers' sign-in tokens are kept; `None`: servers that ask for sign-in
    /// just fail (with the 401 said).
    pub tokens: Option<Arc<dyn TokenVault>>,
    /// Where the servers' notices go (resource updates, list changes).
    pub notices: Option<tokio::sync::broadcast::Sender<McpNotice>>,
}

impl HubSettings {
    /// The user's file, no project, nothing trusted beyond what `trust` remembers.
    pub fn new(trust: Arc<dyn ProjectTrust>) -> Self {
        Self {
            user_file: user_config_path(),
            project_root: None,
            trust,
            trust_project_for_this_run: false,
            disabled_servers: BTreeSet::new(),
            options: McpOptions::default(),
            tokens: None,
            notices: None,
        }
    }
}

/// What the hub does with a configured server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Start it.
    Start,
    /// Switched off (in its file, or for this project).
    Disabled,
    /// In a project file the user has not approved.
    Untrusted,
}

impl Gate {
    fn of(config: &ServerConfig, trusted: bool, disabled_here: bool) -> Self {
        if config.disabled || disabled_here {
            Self::Disabled
        } else if trusted {
            Self::Start
        } else {
            Self::Untrusted
        }
    }

    /// Where a handle stands, as far as its state tells; `None` once it was stopped (it can't
    /// start again, so it is never reused).
    fn current(server: &McpServerHandle) -> Option<Self> {
        match server.status().state {
            ServerState::Disabled => Some(Self::Disabled),
            ServerState::Untrusted => Some(Self::Untrusted),
            ServerState::Stopped => None,
            ServerState::Starting | ServerState::Connected | ServerState::Failed { .. } => {
                Some(Self::Start)
            }
        }
    }

    fn initial_state(self) -> ServerState {
        match self {
            Self::Start => ServerState::Starting,
            Self::Disabled => ServerState::Disabled,
            Self::Untrusted => ServerState::Untrusted,
        }
    }
}

/// Everything read from the files: each server with whether it may start (trusted) and what
/// to do with it.
struct Plan {
    entries: Vec<(ServerConfig, bool, Gate)>,
    warnings: Vec<String>,
    project: Option<ProjectFile>,
}

impl Plan {
    /// The in-project files a project server runs, as they were when the file was reviewed.
    fn pinned(&self, name: &str) -> Option<Vec<RunFile>> {
        let project = self.project.as_ref()?;
        project
            .review
            .servers
            .iter()
            .find(|server| server.name == name)
            .map(|server| server.files.clone())
    }
}

impl Plan {
    /// Reads the user's file and the project's (checking its approval).
    async fn read(settings: &HubSettings) -> Result<Self, ConfigError> {
        let mut warnings = Vec::new();
        let mut entries: Vec<(ServerConfig, bool)> = Vec::new();
        if let Some(path) = settings.user_file.clone()
            && let Some(file) = read_config(ConfigOrigin::User { path })?
        {
            warnings.extend(file.warnings);
            entries.extend(file.servers.into_iter().map(|server| (server, true)));
        }
        let mut project = None;
        if let Some(root) = settings.project_root.clone() {
            let path = root.join(PROJECT_FILE);
            let origin = ConfigOrigin::Project {
                path: path.clone(),
                root: root.clone(),
            };
            if let Some(file) = read_config(origin)? {
                // The approval covers the file and the in-project files its entries run.
                let review = {
                    let (file, root) = (file.clone(), root.clone());
                    tokio::task::spawn_blocking(move || review_project_file(&file, &root))
                        .await
                        .map_err(|error| ConfigError::Unreadable {
                            file: path.clone(),
                            reason: error.to_string(),
                        })?
                };
                let trusted = settings.trust_project_for_this_run
                    || settings
                        .trust
                        .is_trusted(&root, &path, &review.fingerprint)
                        .await;
                warnings.extend(file.warnings);
                for server in file.servers {
                    if entries.iter().any(|(known, _)| known.name == server.name) {
                        warnings.push(format!(
                            "{}: server '{}' is also in the user's file; the user's entry is used",
                            path.display(),
                            server.name
                        ));
                        continue;
                    }
                    entries.push((server, trusted));
                }
                project = Some(ProjectFile {
                    root,
                    path,
                    sha256: review.fingerprint.clone(),
                    review,
                });
            }
        }
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        let entries = entries
            .into_iter()
            .map(|(config, trusted)| {
                let gate = Gate::of(
                    &config,
                    trusted,
                    settings.disabled_servers.contains(&config.name),
                );
                (config, trusted, gate)
            })
            .collect();
        Ok(Self {
            entries,
            warnings,
            project,
        })
    }
}

/// The project file as read at start.
#[derive(Debug, Clone)]
struct ProjectFile {
    root: PathBuf,
    path: PathBuf,
    /// The fingerprint an approval is bound to (see [`crate::review`]).
    sha256: String,
    /// What the trust step shows.
    review: ProjectReview,
}

/// Errors of the hub's own API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// No server has this name.
    #[error("no MCP server named '{0}' is configured")]
    UnknownServer(String),
    /// There is no project file to approve.
    #[error("this project has no {PROJECT_FILE} to approve")]
    NoProjectFile,
}

/// The MCP servers of one session.
pub struct McpHub {
    manager: Arc<ToolManager>,
    servers: Vec<McpServerHandle>,
    warnings: Vec<String>,
    project: Option<ProjectFile>,
    trust: Option<Arc<dyn ProjectTrust>>,
    /// The servers this project does not start.
    disabled_here: BTreeSet<String>,
    /// Set once a [`McpHub::reload`] handed the servers to a new hub.
    superseded: AtomicBool,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHub")
            .field("servers", &self.servers)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

impl McpHub {
    /// Reads the configured files and starts every server that may start; returns at once (the
    /// servers connect in the background: see [`Self::wait_started`]). A malformed file is an
    /// error; unknown keys are [`Self::warnings`].
    pub async fn start(
        manager: Arc<ToolManager>,
        settings: HubSettings,
    ) -> Result<Self, ConfigError> {
        let plan = Plan::read(&settings).await?;
        let servers: Vec<McpServerHandle> = plan
            .entries
            .iter()
            .map(|(config, trusted, gate)| {
                McpServerHandle::new(
                    config.clone(),
                    settings.options.clone(),
                    *trusted,
                    &manager,
                    gate.initial_state(),
                )
                .pinned(plan.pinned(&config.name))
                .with_vault(settings.tokens.clone())
                .with_notices(settings.notices.clone())
            })
            .collect();
        let Plan {
            warnings, project, ..
        } = plan;
        start_all(&servers);
        Ok(Self::assemble(
            manager, servers, warnings, project, settings,
        ))
    }

    /// The hub of `servers` (already started), read with `warnings` and `project` under
    /// `settings`.
    fn assemble(
        manager: Arc<ToolManager>,
        servers: Vec<McpServerHandle>,
        warnings: Vec<String>,
        project: Option<ProjectFile>,
        settings: HubSettings,
    ) -> Self {
        Self {
            manager,
            servers,
            warnings,
            project,
            trust: Some(settings.trust),
            disabled_here: settings.disabled_servers,
            superseded: AtomicBool::new(false),
        }
    }

    /// Reads the configuration again and returns the hub for it, reusing every server whose
    /// configuration, trust and switches did not change: its process keeps running and its
    /// tools stay registered. Servers that are new or changed start; those removed or changed
    /// stop first (a changed server's tools go and come back under the same names).
    ///
    /// On success the servers belong to the returned hub, and this one is spent: its
    /// [`Self::shutdown`] does nothing (drop it). When the files can't be read, nothing changes
    /// and this hub stays in charge.
    pub async fn reload(&self, settings: HubSettings) -> Result<Self, ConfigError> {
        let plan = Plan::read(&settings).await?;
        let pinned: Vec<Option<Vec<RunFile>>> = plan
            .entries
            .iter()
            .map(|(config, _, _)| plan.pinned(&config.name))
            .collect();
        let Plan {
            entries,
            warnings,
            project,
        } = plan;
        let mut old: Vec<Option<McpServerHandle>> =
            self.servers.iter().cloned().map(Some).collect();
        let mut servers = Vec::with_capacity(entries.len());
        let mut fresh = Vec::new();
        for ((config, trusted, gate), pinned) in entries.into_iter().zip(pinned) {
            let reused = old
                .iter_mut()
                .find(|slot| {
                    slot.as_ref().is_some_and(|server| {
                        server.config() == &config && Gate::current(server) == Some(gate)
                    })
                })
                .and_then(Option::take);
            match reused {
                Some(server) => servers.push(server),
                None => {
                    let server = McpServerHandle::new(
                        config,
                        settings.options.clone(),
                        trusted,
                        &self.manager,
                        gate.initial_state(),
                    )
                    .pinned(pinned)
                    .with_vault(settings.tokens.clone())
                    .with_notices(settings.notices.clone());
                    fresh.push(server.clone());
                    servers.push(server);
                }
            }
        }
        // Stopped before the new ones start: a changed server's old and new handles register
        // tools under the same source.
        let stopping: Vec<McpServerHandle> = old.into_iter().flatten().collect();
        join_all(stopping.iter().map(McpServerHandle::shutdown)).await;
        for server in &servers {
            server.refresh_unavailable();
        }
        start_all(&fresh);
        self.superseded.store(true, Ordering::SeqCst);
        Ok(Self::assemble(
            Arc::clone(&self.manager),
            servers,
            warnings,
            project,
            settings,
        ))
    }

    /// A hub for servers already parsed, each with whether it may start (`trusted`). Starts the
    /// trusted, enabled ones.
    pub fn from_configs(
        manager: Arc<ToolManager>,
        entries: Vec<(ServerConfig, bool)>,
        options: McpOptions,
    ) -> Self {
        let servers: Vec<McpServerHandle> = entries
            .into_iter()
            .map(|(config, trusted)| {
                let initial = Gate::of(&config, trusted, false).initial_state();
                McpServerHandle::new(config, options.clone(), trusted, &manager, initial)
            })
            .collect();
        start_all(&servers);
        Self {
            manager,
            servers,
            warnings: Vec::new(),
            project: None,
            trust: None,
            disabled_here: BTreeSet::new(),
            superseded: AtomicBool::new(false),
        }
    }

    /// Waits until every started server has connected or failed once (bounded by `timeout`),
    /// so a front end can list tools knowing which servers made it.
    pub async fn wait_started(&self, timeout: Duration) {
        join_all(self.servers.iter().map(|server| {
            server.wait_for(timeout, |status| status.state != ServerState::Starting)
        }))
        .await;
    }

    /// Every server's status, in configuration order (user file first).
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.servers.iter().map(McpServerHandle::status).collect()
    }

    /// One server.
    pub fn server(&self, name: &str) -> Option<&McpServerHandle> {
        self.servers.iter().find(|server| server.name() == name)
    }

    /// Every server.
    pub fn servers(&self) -> &[McpServerHandle] {
        &self.servers
    }

    /// The servers this project does not start (whether configured or not).
    pub fn disabled_here(&self) -> &BTreeSet<String> {
        &self.disabled_here
    }

    /// What was ignored in the files, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The project's `.mcp.json` as read, for the trust step: what each server runs, its env
    /// and the in-project files its approval covers. `None` without a project file.
    pub fn project_review(&self) -> Option<&ProjectReview> {
        self.project.as_ref().map(|project| &project.review)
    }

    /// The manager the tools are registered in.
    pub fn manager(&self) -> &Arc<ToolManager> {
        &self.manager
    }

    /// Restarts one server now (the way out of `failed`); a disabled or untrusted server stays
    /// as it is.
    pub fn restart(&self, name: &str) -> Result<(), HubError> {
        let server = self
            .server(name)
            .ok_or_else(|| HubError::UnknownServer(name.to_owned()))?;
        match server.status().state {
            ServerState::Disabled | ServerState::Untrusted => {}
            _ => server.restart(),
        }
        Ok(())
    }

    /// Records the user's approval of the project file (as it was read) and starts its servers.
    pub async fn approve_project(&self) -> Result<(), HubError> {
        let project = self.project.as_ref().ok_or(HubError::NoProjectFile)?;
        if let Some(trust) = &self.trust {
            trust
                .trust(&project.root, &project.path, &project.sha256)
                .await;
        }
        for server in &self.servers {
            if server.status().state == ServerState::Untrusted {
                server.start_trusted();
            }
        }
        Ok(())
    }

    /// Signs in to remote server `name` (see [`crate::oauth`]) and reconnects it.
    pub async fn sign_in(
        &self,
        name: &str,
        browser: &dyn Browser,
        timeout: Duration,
    ) -> Result<SignedIn, SignInError> {
        self.named(name)?.sign_in(browser, timeout).await
    }

    /// Forgets remote server `name`'s tokens and reconnects it; true when there were some.
    pub async fn sign_out(&self, name: &str) -> Result<bool, SignInError> {
        self.named(name)?.sign_out().await
    }

    fn named(&self, name: &str) -> Result<&McpServerHandle, SignInError> {
        self.server(name).ok_or_else(|| {
            SignInError::Config(HubError::UnknownServer(name.to_owned()).to_string())
        })
    }

    /// Reads resource `uri` of server `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<Vec<ResourcePart>, CatalogError> {
        self.catalog_server(server)?.read_resource(uri).await
    }

    /// Renders prompt `name` of server `server` with `arguments`.
    pub async fn render_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<RenderedPrompt, CatalogError> {
        self.catalog_server(server)?
            .render_prompt(name, arguments)
            .await
    }

    /// Subscribes to (or unsubscribes from) resource `uri` of server `server`.
    pub async fn subscribe_resource(
        &self,
        server: &str,
        uri: &str,
        subscribe: bool,
    ) -> Result<(), CatalogError> {
        self.catalog_server(server)?
            .subscribe_resource(uri, subscribe)
            .await
    }

    fn catalog_server(&self, name: &str) -> Result<&McpServerHandle, CatalogError> {
        self.server(name)
            .ok_or_else(|| CatalogError::UnknownServer(name.to_owned()))
    }

    /// Stops every server (concurrently), leaving no process behind, and removes their tools.
    /// Does nothing on a hub a [`Self::reload`] replaced (its servers are the new hub's).
    pub async fn shutdown(&self) {
        if self.superseded.load(Ordering::SeqCst) {
            return;
        }
        join_all(self.servers.iter().map(McpServerHandle::shutdown)).await;
    }
}

/// Starts the servers that are to start (the others show why they don't).
fn start_all(servers: &[McpServerHandle]) {
    for server in servers {
        if server.status().state == ServerState::Starting {
            server.start();
        }
    }
}
