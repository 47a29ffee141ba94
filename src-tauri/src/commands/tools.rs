//! The Tools panel: per-project tool policies and the session's approvals.

use gantry_tools::ToolInfo;
use tauri::State;

use gantry_engine::CommandError;
use gantry_engine::state::AppState;
use gantry_engine::tool_panel::{GrantView, RevokeGrantRequest, SetToolPolicyRequest};

/// Sets a tool's policy in the open project (it holds for the next call and is saved); returns
/// the tools. A DANGEROUS tool turned on without `confirmDangerous` is refused with
/// `needs_confirmation`, saying what the tool can do.
#[tauri::command]
pub async fn set_tool_policy(
    state: State<'_, AppState>,
    request: SetToolPolicyRequest,
) -> Result<Vec<ToolInfo>, CommandError> {
    state.set_tool_policy(&request).await
}

/// Returns every tool of the open project to its level's default; returns the tools.
#[tauri::command]
pub async fn reset_tool_policies(
    state: State<'_, AppState>,
) -> Result<Vec<ToolInfo>, CommandError> {
    state.reset_tool_policies().await
}

/// What the current session has allowed ("allow for this session" answers).
#[tauri::command]
pub fn session_grants(state: State<'_, AppState>) -> Result<Vec<GrantView>, CommandError> {
    state.session_grants()
}

/// Withdraws one grant of the current session; returns the grants left.
#[tauri::command]
pub fn revoke_grant(
    state: State<'_, AppState>,
    request: RevokeGrantRequest,
) -> Result<Vec<GrantView>, CommandError> {
    state.revoke_grant(&request.grant)
}
