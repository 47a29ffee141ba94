//! The MCP room's commands: the open project's MCP servers as the MCP panel shows and changes
//! them (restart, trust, the user-wide file's editor, switches, the Claude Desktop import,
//! sign-in), and the servers' resources and prompts the chat box attaches.
//!
//! Every command reaches the project's [`ProjectServers`] through the same window slot as the
//! other rooms, so a window that shows no project gets the same "no project" error everywhere.

use std::sync::Arc;

use crate::app::{Service, Window};
use crate::error::CommandError;
use crate::mcp::panel::{
    ClaudeImportPreview, ImportClaudeDesktopRequest, McpCatalog, McpPanel, McpRenderedPrompt,
    McpResourceContent, McpResourceRequest, McpServerEntry, McpServerRequest,
    RenderMcpPromptRequest, SaveMcpServersRequest, SetMcpServerEnabledRequest,
};
use crate::mcp::servers::ProjectServers;

/// The MCP room: the MCP servers of the project a window shows.
pub struct McpService {
    servers: Arc<ProjectServers>,
}

impl Service for McpService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            servers: Arc::clone(window.current()?.mcp()),
        })
    }
}

impl McpService {
    /// The open project's MCP servers: transport, state, tools, last stderr lines.
    pub async fn mcp_servers(&self) -> Result<McpPanel, CommandError> {
        Ok(self.servers.panel())
    }

    /// Restarts one MCP server.
    pub async fn restart_mcp_server(
        &self,
        request: McpServerRequest,
    ) -> Result<McpPanel, CommandError> {
        self.servers.restart(&request.name).await
    }

    /// Trusts the project's `.mcp.json` as it is now and starts its servers.
    pub async fn trust_project_mcp(&self) -> Result<McpPanel, CommandError> {
        self.servers.trust_project().await
    }

    /// One server of the user-wide file as written, for the editor.
    pub async fn mcp_server_entry(
        &self,
        request: McpServerRequest,
    ) -> Result<McpServerEntry, CommandError> {
        self.servers.entry(&request.name).await
    }

    /// Adds servers to the user-wide file, or replaces one (a rename when its name changes),
    /// and applies the change.
    pub async fn save_mcp_servers(
        &self,
        request: SaveMcpServersRequest,
    ) -> Result<McpPanel, CommandError> {
        self.servers
            .save(&request.text, request.replacing, request.original)
            .await
    }

    /// Removes a server from the user-wide file and applies the change.
    pub async fn remove_mcp_server(
        &self,
        request: McpServerRequest,
    ) -> Result<McpPanel, CommandError> {
        self.servers.remove(&request.name).await
    }

    /// Switches a server off for the open project, or on again.
    pub async fn set_mcp_server_enabled(
        &self,
        request: SetMcpServerEnabledRequest,
    ) -> Result<McpPanel, CommandError> {
        self.servers
            .set_enabled(&request.name, request.enabled)
            .await
    }

    /// What importing from Claude Desktop would bring.
    pub async fn claude_desktop_import_preview(&self) -> Result<ClaudeImportPreview, CommandError> {
        self.servers.claude_preview().await
    }

    /// Copies Claude Desktop's chosen servers into the user-wide file and applies the change.
    pub async fn import_claude_desktop(
        &self,
        request: ImportClaudeDesktopRequest,
    ) -> Result<McpPanel, CommandError> {
        self.servers.import_claude(request.names).await
    }

    /// Signs in to a remote MCP server: opens the authorization page in the system browser and
    /// waits for the user.
    pub async fn mcp_sign_in(&self, request: McpServerRequest) -> Result<McpPanel, CommandError> {
        self.servers.sign_in(&request.name).await
    }

    /// Forgets a remote MCP server's sign-in.
    pub async fn mcp_sign_out(&self, request: McpServerRequest) -> Result<McpPanel, CommandError> {
        self.servers.sign_out(&request.name).await
    }

    /// Every connected server's resources and prompts.
    pub async fn mcp_catalog(&self) -> Result<McpCatalog, CommandError> {
        Ok(self.servers.catalog())
    }

    /// Reads a server's resource, to attach it to a message.
    pub async fn read_mcp_resource(
        &self,
        request: McpResourceRequest,
    ) -> Result<McpResourceContent, CommandError> {
        self.servers
            .read_resource(&request.server, &request.uri)
            .await
    }

    /// Subscribes to (or unsubscribes from) a resource's changes (`mcp:notice` events).
    pub async fn subscribe_mcp_resource(
        &self,
        request: McpResourceRequest,
    ) -> Result<(), CommandError> {
        self.servers
            .subscribe_resource(&request.server, &request.uri, request.subscribe)
            .await
    }

    /// Renders a server's prompt into the messages to insert.
    pub async fn render_mcp_prompt(
        &self,
        request: RenderMcpPromptRequest,
    ) -> Result<McpRenderedPrompt, CommandError> {
        self.servers
            .render_prompt(&request.server, &request.name, request.arguments)
            .await
    }
}
