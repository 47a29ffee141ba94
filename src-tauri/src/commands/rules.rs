//! The Tools panel's commands and rules: how the project's commands are sandboxed, the
//! variables they receive on purpose, and the rules that last.

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::project_commands::{
    CommandSettingsView, RemoveRuleRequest, RuleView, SaveCommandSettingsRequest, SaveRuleRequest,
};

/// How the open project's commands run: sandboxed (or why not), network, writable folders,
/// variables passed on purpose.
#[tauri::command]
pub fn command_settings(state: WindowState) -> Result<CommandSettingsView, CommandError> {
    state.command_settings()
}

/// Saves the open project's command settings (they hold for the next command).
#[tauri::command]
pub async fn save_command_settings(
    state: WindowState,
    request: SaveCommandSettingsRequest,
) -> Result<CommandSettingsView, CommandError> {
    state.save_command_settings(&request).await
}

/// The open project's rules, with how many calls each decided.
#[tauri::command]
pub async fn tool_rules(state: WindowState) -> Result<Vec<RuleView>, CommandError> {
    state.tool_rules().await
}

/// Adds a rule, or changes one (`id`); returns the rules.
#[tauri::command]
pub async fn save_tool_rule(
    state: WindowState,
    request: SaveRuleRequest,
) -> Result<Vec<RuleView>, CommandError> {
    state.save_tool_rule(&request).await
}

/// Removes a rule; returns the rules left.
#[tauri::command]
pub async fn remove_tool_rule(
    state: WindowState,
    request: RemoveRuleRequest,
) -> Result<Vec<RuleView>, CommandError> {
    state.remove_tool_rule(request.id).await
}
