//! Gantry's engine: opening a project and running it, the one assembly both front ends share.
//!
//! The crates below it each do one job — tools and permissions (`gantry-tools`), the loop
//! (`gantry-agent`), MCP connections (`gantry-mcp`), the database and the keychain
//! (`gantry-store`), the project tree (`gantry-watch`). Everything that wires them together lives
//! here, so a tool, a policy, an approval or a session behaves the same in the desktop app and in
//! `gantry-cli`, and neither front end repeats the wiring:
//!
//! - [`open`]: a folder becomes a project's tools (built-ins, saved policies and rules, command
//!   settings, the audit log, the people who answer approvals and questions) and its MCP
//!   servers; [`project_commands`]: the project's command sandbox settings, the variables it
//!   passes on purpose and its rules, changed in the store and the manager together;
//! - [`providers`] and [`transcripts`]: which provider a session talks to with its key from the
//!   keychain, and sessions saved in the database;
//! - [`sessions`]: starting or resuming an agent session of a project;
//! - for the app (Tauri-free, so tested without a window): the per-project runtime
//!   ([`project`]: tree, watcher, chat, MCP servers), the chat ([`chat`]), the dialogs through
//!   which the engine asks the user ([`dialogs`]), the events it sends ([`events`]), the panels'
//!   view models ([`tool_panel`], [`mcp_panel`], [`mcp_servers`], [`audit_view`],
//!   [`provider_settings`], [`preview`]), what the chat box puts in a message ([`attachments`]:
//!   mentioned files and folders, images; [`mentions`]: the @-completion index;
//!   [`slash_commands`]: the project's own commands), a window's state behind every command ([`state`]), the app's windows ([`windows`]), the
//!   app's limit on turns running at once as a setting ([`turn_limit`]) and
//!   the one error every command returns ([`error`]).
//!
//! The types the webview sees derive `ts_rs::TS`; the desktop shell generates the TypeScript
//! contract from them.

pub mod attachments;
pub mod audit_view;
pub mod chat;
pub mod checkpoints;
pub mod dialogs;
pub mod error;
pub mod events;
pub mod local_servers;
pub mod mcp_events;
pub mod mcp_panel;
pub mod mcp_servers;
pub mod mcp_tokens;
pub mod mentions;
pub mod model_choice;
pub mod open;
pub mod preview;
pub mod project;
pub mod project_commands;
pub mod provider_settings;
pub mod providers;
pub mod session_export;
pub mod session_search;
pub mod session_tabs;
pub mod sessions;
pub mod slash_commands;
pub mod state;
pub mod tool_panel;
pub mod transcripts;
pub mod turn_limit;
pub mod windows;

pub use error::{CommandError, ErrorKind, ErrorReason};
pub use events::{Event, EventSink};
pub use open::{
    McpStartError, OpenError, People, ProjectMcp, ProjectTools, StoreTrust, open_tools, start_mcp,
};
pub use providers::{
    ProviderSource, find_provider, provider_key, remember_what_it_learned, resolve_provider,
};
pub use sessions::{SessionError, open_session};
pub use state::{AppShared, AppState, Settings};
pub use transcripts::StoreTranscripts;
pub use windows::{Opened, Windows};

/// Gantry's database (re-exported so front ends need no other crate to open it).
pub use gantry_store::Store;
