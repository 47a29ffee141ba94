//! MCP for Gantry: external servers' tools beside the built-ins, and Gantry's tools for MCP
//! clients.
//!
//! Users bring MCP servers configured the way the ecosystem does it (`mcpServers` JSON, in a
//! user-wide file and a project's `.mcp.json`). The [`McpHub`] starts them concurrently and
//! registers each server tool into the session's [`gantry_tools::ToolManager`] as an ordinary
//! [`gantry_tools::Tool`] (`mcp__{server}__{tool}`), so the same permission levels, policies,
//! approvals and audit apply to it as to Gantry's own tools. Servers are other people's programs:
//! every failure of one — not starting, crashing, hanging, garbage on stdout — becomes a status
//! and an observation, never a failure of Gantry, and shutdown leaves no process behind.
//!
//! In the other direction, [`serve::GantryServer`] exposes a `ToolManager` over MCP.
//!
//! Modules, one job each: [`config`] reads the files, [`expand`] does `${VAR}`, [`naming`] makes
//! registry names, [`level`] maps annotations to levels, [`convert`] turns results into text,
//! [`trust`] remembers approved project files, [`review`] says what approving one covers, [`edit`] changes the user's file, [`claude`]
//! imports Claude Desktop's servers, [`stderr`] keeps a server's last words,
//! [`child_env`] decides what of Gantry's environment a stdio server sees,
//! [`oauth`] signs in to remote servers, [`errors`] words connection errors, [`catalog`] reads
//! resources and renders prompts, [`connection`] runs one server, [`adapter`] is the tool, [`hub`] runs them all, [`serve`] is
//! server mode.
//!
//! Built on rmcp without any Tauri dependency.

pub mod adapter;
pub mod catalog;
pub mod child_env;
pub mod claude;
pub mod config;
pub mod connection;
pub mod convert;
pub mod edit;
pub mod errors;
pub mod expand;
pub mod hub;
pub mod level;
pub mod naming;
pub mod oauth;
pub mod review;
pub mod serve;
pub mod status;
pub mod stderr;
pub mod trust;

pub use adapter::McpTool;
pub use catalog::{CatalogError, PromptMessageView, RenderedPrompt, ResourcePart};
pub use claude::{
    CLAUDE_DESKTOP_FILE, ClaudeImport, ClaudePreview, ClaudeServer, claude_desktop_config_path,
};
pub use config::{
    ConfigError, ConfigFile, ConfigOrigin, PROJECT_FILE, ServerConfig, TransportConfig,
    TransportSummary, parse_config, read_config, user_config_path,
};
pub use connection::{McpOptions, McpServerHandle};
pub use edit::{EditError, PASTED, Snippet, UserFile};
pub use hub::{HubError, HubSettings, McpHub};
pub use oauth::{Browser, MemoryVault, SignInError, SignedIn, SystemBrowser, TokenKey, TokenVault};
pub use review::{EnvReview, ProjectReview, RunFile, ServerReview, review_project_file};
pub use serve::{ClientSlot, ElicitingApprover, GantryServer, ServeError, auto_approve};
pub use status::{
    McpNotice, McpPromptArgument, McpPromptInfo, McpResourceInfo, McpResourceTemplateInfo,
    McpToolInfo, ServerState, ServerStatus, SignInState,
};
pub use trust::{MemoryTrust, ProjectTrust};
