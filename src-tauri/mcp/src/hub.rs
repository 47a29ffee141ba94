//! Every configured server of a session, together.
//!
//! The hub reads the user-wide file and the project's `.mcp.json`, decides which servers may
//! start (not disabled; from the user's file, or from a project file the user approved with this
//! exact content), starts them all at once — a slow or broken server delays or breaks only
//! itself — and registers their tools into the session's [`ToolManager`]. It is the one object a
//! front end keeps: statuses for the UI, restart, approval of the project file, and shutdown.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use gantry_tools::ToolManager;

use crate::config::{
    ConfigError, ConfigOrigin, PROJECT_FILE, ServerConfig, read_config, user_config_path,
};
use crate::connection::{McpOptions, McpServerHandle};
use crate::status::{ServerState, ServerStatus};
use crate::trust::ProjectTrust;

/// Where the hub reads its servers from and how it treats them.
pub struct HubSettings {
    /// The user-wide file (default: [`user_config_path`]); `None` reads none.
    pub user_file: Option<PathBuf>,
    /// The project whose `.mcp.json` is read; `None` reads none.
    pub project_root: Option<PathBuf>,
    /// Remembers approved project files.
    pub trust: Arc<dyn ProjectTrust>,
    /// Treat the project file as approved for this run only (`--trust-project-mcp`).
    pub trust_project_for_this_run: bool,
    /// Timeouts and restart policy.
    pub options: McpOptions,
}

impl HubSettings {
    /// The user's file, no project, nothing trusted beyond what `trust` remembers.
    pub fn new(trust: Arc<dyn ProjectTrust>) -> Self {
        Self {
            user_file: user_config_path(),
            project_root: None,
            trust,
            trust_project_for_this_run: false,
            options: McpOptions::default(),
        }
    }
}

/// The project file as read at start.
#[derive(Debug, Clone)]
struct ProjectFile {
    root: PathBuf,
    path: PathBuf,
    sha256: String,
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
                let trusted = settings.trust_project_for_this_run
                    || settings.trust.is_trusted(&root, &path, &file.sha256).await;
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
                    sha256: file.sha256,
                });
            }
        }
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        let mut hub = Self::from_configs(manager, entries, settings.options);
        hub.warnings = warnings;
        hub.project = project;
        hub.trust = Some(settings.trust);
        Ok(hub)
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
                let initial = if config.disabled {
                    ServerState::Disabled
                } else if trusted {
                    ServerState::Starting
                } else {
                    ServerState::Untrusted
                };
                McpServerHandle::new(config, options.clone(), trusted, &manager, initial)
            })
            .collect();
        for server in &servers {
            if server.status().state == ServerState::Starting {
                server.start();
            }
        }
        Self {
            manager,
            servers,
            warnings: Vec::new(),
            project: None,
            trust: None,
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

    /// What was ignored in the files, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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

    /// Stops every server (concurrently), leaving no process behind, and removes their tools.
    pub async fn shutdown(&self) {
        join_all(self.servers.iter().map(McpServerHandle::shutdown)).await;
    }
}
