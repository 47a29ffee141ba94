//! Gantry's agent loop: a user message in, model calls and tool calls until the model answers.
//!
//! The engine half of a Gantry session, with no UI: a [`Session`] holds a project's
//! [`gantry_tools::ToolManager`], a [`Provider`] (any OpenAI-compatible Chat Completions server)
//! and the [`Transcript`], saved message by message through a [`TranscriptStore`].
//! [`Session::run_turn`] runs the streaming ReAct loop and reports what happens as
//! [`TurnEvent`]s, which the CLI prints and the desktop app forwards to its webview.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use gantry_agent::*;
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let tools = gantry_tools::ToolManager::new("/path/to/project")?;
//! gantry_tools::builtin::register_builtins(&tools)?;
//! let provider = Provider::from_env(ProviderConfig::default_local(), ProviderOptions::default())?;
//! let store = Arc::new(MemoryTranscripts::new());
//! let mut session = Session::create(SessionParts::new(tools, None, provider, store)).await?;
//! let (events, mut receiver) = tokio::sync::mpsc::unbounded_channel();
//! let cancel = tokio_util::sync::CancellationToken::new();
//! let outcome = session.run_turn("What does this project do?", &cancel, events).await;
//! while let Ok(event) = receiver.try_recv() {
//!     println!("{}", serde_json::to_string(&event)?);
//! }
//! # let _ = outcome;
//! # Ok(()) }
//! ```
//!
//! Modules, one job each: `provider` (configuration, presets, the streamed request with
//! retries), `stream` (assembling deltas by index), `transcript` (messages, validity, context
//! fitting), `prompt` (the system prompt), `events` (what a turn reports), `persist` (where
//! messages go), `project` (opening a project's tools, policies and MCP servers), `session`
//! and `turn` (the loop), `error`.

pub mod error;
pub mod events;
pub mod persist;
pub mod project;
pub mod prompt;
pub mod provider;
pub mod session;
pub mod stream;
pub mod transcript;
pub mod turn;

pub use error::{AgentError, PersistError, ProviderError};
pub use events::{ApprovalEvents, EventSink, TurnEndReason, TurnEvent};
pub use persist::{MemoryTranscripts, StoreTranscripts, TranscriptStore};
pub use project::{
    McpStartError, OpenError, OpenProject, People, ProjectMcp, StoreTrust, open_project, start_mcp,
};
pub use prompt::{PromptContext, system_prompt};
pub use provider::{
    ApiKey, DEFAULT_CONTEXT_WINDOW, DEFAULT_PROVIDER, Provider, ProviderConfig, ProviderOptions,
    ProviderSource, RetryPolicy, find_provider, provider_key, resolve_provider,
};
pub use session::{Session, SessionOptions, SessionParts};
pub use transcript::{
    ContextBudget, ContextFit, Message, MessageStatus, Role, TokenUsage, ToolCall, Transcript,
};
pub use turn::TurnOutcome;
