//! The MCP servers panel.

use tauri::State;

use crate::error::CommandError;
use crate::mcp_panel::{McpPanel, McpServerRequest};
use crate::state::AppState;

/// The open project's MCP servers: transport, state, tools, last stderr lines.
#[tauri::command]
pub fn mcp_servers(state: State<'_, AppState>) -> Result<McpPanel, CommandError> {
    Ok(state.current()?.mcp_panel())
}

/// Restarts one MCP server.
#[tauri::command]
pub fn restart_mcp_server(
    state: State<'_, AppState>,
    request: McpServerRequest,
) -> Result<McpPanel, CommandError> {
    state.current()?.restart_mcp_server(&request.name)
}

/// Trusts the project's `.mcp.json` as it is now and starts its servers.
#[tauri::command]
pub async fn trust_project_mcp(state: State<'_, AppState>) -> Result<McpPanel, CommandError> {
    state.current()?.trust_project_mcp().await
}
