//! The configuration room's commands: the project's configuration from other agents as the
//! "Project configuration" view shows it, and the one trust step.

use std::sync::Arc;

use gantry_config::ConfigReport;

use crate::app::{Service, Window};
use crate::config::report::{is_project_mcp_file, project_report};
use crate::config::rules::reload_external_rules;
use crate::config::trust::{TrustConfigRequest, trust_shown};
use crate::config::{locations, trusted_files};
use crate::error::CommandError;

/// The configuration room: the project a window shows.
pub struct ConfigService {
    window: Arc<Window>,
}

impl Service for ConfigService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            window: Arc::clone(window),
        })
    }
}

impl ConfigService {
    /// Every configuration file found for the open project and the user (`CLAUDE.md`,
    /// `.claude/settings.json`, `.codex/hooks.json`, `.mcp.json`, ...): what was read, what was
    /// not understood, what waits for trust.
    pub async fn project_config(&self) -> Result<ConfigReport, CommandError> {
        let project = self.window.current()?;
        let at = locations(project.root().path());
        let trusted = trusted_files(project.store(), project.store_project()).await;
        Ok(project_report(&at, &trusted))
    }

    /// Trusts the project's configuration exactly as the trust step showed it (refused when a
    /// file changed since), then applies what it widens: the allow rules hold, the project's
    /// MCP servers start.
    pub async fn trust_project_config(
        &self,
        request: TrustConfigRequest,
    ) -> Result<ConfigReport, CommandError> {
        let project = self.window.current()?;
        let at = locations(project.root().path());
        let trusted = trust_shown(&at, project.store(), project.store_project(), &request).await?;
        // Allow rules of the files just trusted apply from the next call on.
        reload_external_rules(project.store(), project.store_project(), project.tools()).await;
        if trusted.iter().any(|path| is_project_mcp_file(&at, path)) {
            // The hub records the same approval and starts the servers it now may.
            project.mcp().trust_project().await?;
        }
        self.project_config().await
    }
}
