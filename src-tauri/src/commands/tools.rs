//! The Tools panel: per-project tool policies and the session's approvals.

use gantry_tools::ToolInfo;

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::tool_panel::{GrantView, RevokeGrantRequest, SetToolPolicyRequest};

/// Sets a tool's policy in the open project (it holds for the next call and is saved); returns
/// the tools. A DANGEROUS tool turned on without `confirmDangerous` is refused with
/// `needs_confirmation`, saying what the tool can do.
#[tauri::command]
pub async fn set_tool_policy(
    state: WindowState,
    request: SetToolPolicyRequest,
) -> Result<Vec<ToolInfo>, CommandError> {
    state.set_tool_policy(&request).await
}

/// Returns every tool of the open project to its level's default; returns the tools.
#[tauri::command]
pub async fn reset_tool_policies(state: WindowState) -> Result<Vec<ToolInfo>, CommandError> {
    state.reset_tool_policies().await
}

/// What the current session has allowed ("allow for this session" answers).
#[tauri::command]
pub fn session_grants(state: WindowState) -> Result<Vec<GrantView>, CommandError> {
    state.session_grants()
}

/// Withdraws one grant of the current session; returns the grants left.
#[tauri::command]
pub fn revoke_grant(
    state: WindowState,
    request: RevokeGrantRequest,
) -> Result<Vec<GrantView>, CommandError> {
    state.revoke_grant(&request.grant)
}
