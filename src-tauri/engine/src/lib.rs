//! Gantry's engine: opening a project and running it, the one assembly both front ends share.
//!
//! The crates below it each do one job — tools and permissions (`gantry-tools`), the loop
//! (`gantry-agent`), MCP connections (`gantry-mcp`), the database and the keychain
//! (`gantry-store`), the project tree (`gantry-watch`). Everything that wires them together lives
//! here, so a tool, a policy, an approval or a session behaves the same in the desktop app and in
//! `gantry-cli`, and neither front end repeats the wiring.
//!
//! The engine is a few rooms, one folder each; the rooms the app's commands reach each have a
//! `service` ([`app::Service`]), built for the window a command came from:
//!
//! - [`app`]: what every window shares ([`App`]) and one window's project slot ([`Window`]);
//! - [`project`]: an open project (tree, watcher, tools, chat, MCP servers), how a folder
//!   becomes a project's tools ([`project::open`]) and the file preview;
//! - [`chat`]: a project's sessions and the turns running in them, what the chat box puts in a
//!   message (attachments, @-mentions, the project's slash commands) and compaction;
//! - [`sessions`]: sessions saved in the database, their export, search and tabs;
//! - [`checkpoints`]: what a session changed in the files, reverts and rewinds;
//! - [`providers`]: which provider a session talks to, with its key from the keychain, the
//!   provider settings, the local model servers and the model picker;
//! - [`mcp`]: a project's MCP servers as the panel shows and changes them;
//! - [`tools`]: the Tools panel (policies, grants), command settings and rules, the audit log;
//! - [`settings`]: tunables read at start and the settings the Settings dialog changes;
//! - [`notifications`]: desktop notifications about what the events tell, while the user looks
//!   elsewhere;
//! - [`dialogs`]: the approvals and questions the engine awaits; [`events`]: what it sends to
//!   the webview; [`windows`]: the app's windows; [`error`]: the one error every command
//!   returns; [`test_support`]: waiting in the engine's tests, its own and its integration tests.
//!
//! The types the webview sees derive `ts_rs::TS`; the desktop shell generates the TypeScript
//! contract from them.

pub mod app;
pub mod chat;
pub mod checkpoints;
pub mod config;
pub mod dialogs;
pub mod error;
pub mod events;
pub mod mcp;
pub mod notifications;
pub mod project;
pub mod providers;
pub mod sessions;
pub mod settings;
pub mod test_support;
pub mod tools;
pub mod windows;

pub use app::{App, Service, Window};
pub use chat::service::ChatService;
pub use checkpoints::service::ChangesService;
pub use config::service::ConfigService;
pub use error::{CommandError, ErrorKind, ErrorReason};
pub use events::{Event, EventSink};
pub use mcp::service::McpService;
pub use notifications::service::NotificationsService;
pub use project::open::{
    McpStartError, OpenError, People, ProjectMcp, ProjectTools, StoreTrust, open_tools, start_mcp,
};
pub use project::service::ProjectService;
pub use providers::service::ProvidersService;
pub use providers::{
    ProviderSource, find_provider, provider_key, remember_what_it_learned, resolve_provider,
};
pub use sessions::transcripts::StoreTranscripts;
pub use sessions::{SessionError, start_session};
pub use settings::Settings;
pub use settings::service::SettingsService;
pub use tools::service::ToolsService;
pub use windows::{Opened, Windows};

/// Gantry's database (re-exported so front ends need no other crate to open it).
pub use gantry_store::Store;
