//! The tools room's commands: the project's tools with their policies, the current session's
//! grants, how commands run (sandbox, network, passed variables), the lasting rules, and the
//! audit log.

use std::path::PathBuf;
use std::sync::Arc;

use gantry_config::hooks::HookListing;
use gantry_tools::ToolInfo;

use crate::app::{Service, Window};
use crate::config::rules::ExternalRulesView;
use crate::error::CommandError;
use crate::project::OpenProject;
use crate::tools::audit::{self, AuditEntryView, AuditExport, AuditRequest};
use crate::tools::panel::{self, GrantView, RevokeGrantRequest, SetToolPolicyRequest};
use crate::tools::rules::{
    CommandSettingsView, RemoveRuleRequest, RuleView, SaveCommandSettingsRequest, SaveRuleRequest,
};

/// The tools room: the project a window shows.
pub struct ToolsService {
    project: Arc<OpenProject>,
}

impl Service for ToolsService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            project: window.current()?,
        })
    }
}

impl ToolsService {
    /// Every hook of the project's and the user's settings files (Claude Code's, Codex's): its
    /// event, matcher, command, source file, whether it may run, and its last run.
    pub async fn list_hooks(&self) -> Result<Vec<HookListing>, CommandError> {
        Ok(self.project.hooks().list().await)
    }

    /// The open project's tools (built-in and MCP) with their levels and policies.
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, CommandError> {
        Ok(panel::list(&self.project))
    }

    /// Sets a tool's policy in the open project (it holds for the next call and is saved);
    /// returns the tools. A DANGEROUS tool turned on without `confirmDangerous` is refused with
    /// `needs_confirmation`, saying what the tool can do.
    pub async fn set_tool_policy(
        &self,
        request: SetToolPolicyRequest,
    ) -> Result<Vec<ToolInfo>, CommandError> {
        panel::set_policy(&self.project, &request).await
    }

    /// Returns every tool of the open project to its level's default (and saves that);
    /// returns the tools.
    pub async fn reset_tool_policies(&self) -> Result<Vec<ToolInfo>, CommandError> {
        panel::reset_policies(&self.project).await
    }

    /// What the current session has allowed ("allow for this session" answers).
    pub async fn session_grants(&self) -> Result<Vec<GrantView>, CommandError> {
        Ok(panel::grants(&self.project))
    }

    /// Withdraws one grant of the current session; returns the grants left.
    pub async fn revoke_grant(
        &self,
        request: RevokeGrantRequest,
    ) -> Result<Vec<GrantView>, CommandError> {
        panel::revoke(&self.project, &request.grant)
    }

    /// How the open project's commands run: sandboxed (or why not), network, writable folders,
    /// variables passed on purpose.
    pub async fn command_settings(&self) -> Result<CommandSettingsView, CommandError> {
        Ok(self.project.commands().settings())
    }

    /// Saves the open project's command settings (they hold for the next command); returns
    /// them as they are now.
    pub async fn save_command_settings(
        &self,
        request: SaveCommandSettingsRequest,
    ) -> Result<CommandSettingsView, CommandError> {
        self.project.commands().save_settings(&request).await
    }

    /// The open project's rules, with how many calls each decided.
    pub async fn tool_rules(&self) -> Result<Vec<RuleView>, CommandError> {
        self.project.commands().rules().await
    }

    /// The rules of the open project's Claude Code settings (read-only here), with what
    /// "Copy to Gantry's rules" would save for each.
    pub async fn external_tool_rules(&self) -> Result<ExternalRulesView, CommandError> {
        Ok(self.project.commands().external_rules().await)
    }

    /// Adds a rule, or changes one (`id`); it holds for the next call. Returns the rules.
    pub async fn save_tool_rule(
        &self,
        request: SaveRuleRequest,
    ) -> Result<Vec<RuleView>, CommandError> {
        self.project.commands().save_rule(&request).await
    }

    /// Removes a rule; returns the rules left.
    pub async fn remove_tool_rule(
        &self,
        request: RemoveRuleRequest,
    ) -> Result<Vec<RuleView>, CommandError> {
        self.project.commands().remove_rule(request.id).await
    }

    /// The open project's tool calls that pass the filter, newest first (at most
    /// [`audit::DEFAULT_VIEW_LIMIT`] unless the request says otherwise), with their sessions'
    /// titles.
    pub async fn audit_log(
        &self,
        request: AuditRequest,
    ) -> Result<Vec<AuditEntryView>, CommandError> {
        audit::view(&self.project, &request).await
    }

    /// Writes the open project's tool calls that pass `request` (all of them unless it names a
    /// limit) to `path` as JSON lines, atomically: the export once the shell's save dialog said
    /// where.
    pub async fn write_audit(
        &self,
        request: AuditRequest,
        path: PathBuf,
    ) -> Result<AuditExport, CommandError> {
        audit::export(&self.project, &request, path).await
    }

    /// The project the window shows.
    pub fn project(&self) -> &Arc<OpenProject> {
        &self.project
    }
}
