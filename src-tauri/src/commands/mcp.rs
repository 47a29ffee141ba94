//! The MCP servers panel.

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::mcp_panel::{
    ClaudeImportPreview, ImportClaudeDesktopRequest, McpCatalog, McpPanel, McpRenderedPrompt,
    McpResourceContent, McpResourceRequest, McpServerEntry, McpServerRequest,
    RenderMcpPromptRequest, SaveMcpServersRequest, SetMcpServerEnabledRequest,
};

/// The open project's MCP servers: transport, state, tools, last stderr lines.
#[tauri::command]
pub fn mcp_servers(state: WindowState) -> Result<McpPanel, CommandError> {
    Ok(state.current()?.mcp().panel())
}

/// Restarts one MCP server.
#[tauri::command]
pub async fn restart_mcp_server(
    state: WindowState,
    request: McpServerRequest,
) -> Result<McpPanel, CommandError> {
    state.current()?.mcp().restart(&request.name).await
}

/// Trusts the project's `.mcp.json` as it is now and starts its servers.
#[tauri::command]
pub async fn trust_project_mcp(state: WindowState) -> Result<McpPanel, CommandError> {
    state.current()?.mcp().trust_project().await
}

/// One server of the user-wide file as written, for the editor.
#[tauri::command]
pub async fn mcp_server_entry(
    state: WindowState,
    request: McpServerRequest,
) -> Result<McpServerEntry, CommandError> {
    state.current()?.mcp().entry(&request.name).await
}

/// Adds servers to the user-wide file, or replaces one (a rename when its name changes), and
/// applies the change.
#[tauri::command]
pub async fn save_mcp_servers(
    state: WindowState,
    request: SaveMcpServersRequest,
) -> Result<McpPanel, CommandError> {
    state
        .current()?
        .mcp()
        .save(&request.text, request.replacing, request.original)
        .await
}

/// Removes a server from the user-wide file and applies the change.
#[tauri::command]
pub async fn remove_mcp_server(
    state: WindowState,
    request: McpServerRequest,
) -> Result<McpPanel, CommandError> {
    state.current()?.mcp().remove(&request.name).await
}

/// Switches a server off for the open project, or on again.
#[tauri::command]
pub async fn set_mcp_server_enabled(
    state: WindowState,
    request: SetMcpServerEnabledRequest,
) -> Result<McpPanel, CommandError> {
    state
        .current()?
        .mcp()
        .set_enabled(&request.name, request.enabled)
        .await
}

/// What importing from Claude Desktop would bring.
#[tauri::command]
pub async fn claude_desktop_import_preview(
    state: WindowState,
) -> Result<ClaudeImportPreview, CommandError> {
    state.current()?.mcp().claude_preview().await
}

/// Copies Claude Desktop's chosen servers into the user-wide file and applies the change.
#[tauri::command]
pub async fn import_claude_desktop(
    state: WindowState,
    request: ImportClaudeDesktopRequest,
) -> Result<McpPanel, CommandError> {
    state.current()?.mcp().import_claude(request.names).await
}

/// Signs in to a remote MCP server: opens the authorization page in the system browser and
/// waits for the user.
#[tauri::command]
pub async fn mcp_sign_in(
    state: WindowState,
    request: McpServerRequest,
) -> Result<McpPanel, CommandError> {
    let servers = state.current()?.mcp().clone();
    servers.sign_in(&request.name).await
}

/// Forgets a remote MCP server's sign-in.
#[tauri::command]
pub async fn mcp_sign_out(
    state: WindowState,
    request: McpServerRequest,
) -> Result<McpPanel, CommandError> {
    let servers = state.current()?.mcp().clone();
    servers.sign_out(&request.name).await
}

/// Every connected server's resources and prompts.
#[tauri::command]
pub fn mcp_catalog(state: WindowState) -> Result<McpCatalog, CommandError> {
    Ok(state.current()?.mcp().catalog())
}

/// Reads a server's resource, to attach it to a message.
#[tauri::command]
pub async fn read_mcp_resource(
    state: WindowState,
    request: McpResourceRequest,
) -> Result<McpResourceContent, CommandError> {
    let servers = state.current()?.mcp().clone();
    servers.read_resource(&request.server, &request.uri).await
}

/// Subscribes to (or unsubscribes from) a resource's changes (`mcp:notice` events).
#[tauri::command]
pub async fn subscribe_mcp_resource(
    state: WindowState,
    request: McpResourceRequest,
) -> Result<(), CommandError> {
    let servers = state.current()?.mcp().clone();
    servers
        .subscribe_resource(&request.server, &request.uri, request.subscribe)
        .await
}

/// Renders a server's prompt into the messages to insert.
#[tauri::command]
pub async fn render_mcp_prompt(
    state: WindowState,
    request: RenderMcpPromptRequest,
) -> Result<McpRenderedPrompt, CommandError> {
    let servers = state.current()?.mcp().clone();
    servers
        .render_prompt(&request.server, &request.name, request.arguments)
        .await
}
