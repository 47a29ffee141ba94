//! Gantry's agent loop: a user message in, model calls and tool calls until the model answers.
//!
//! The loop only, with no UI, no database and no keychain: a [`Session`] shares a project's
//! [`gantry_tools::ToolManager`], owns its [`gantry_tools::ToolSession`] (grants and file
//! ledger), talks to a [`Provider`] (any OpenAI-compatible Chat Completions server) and keeps the
//! [`Transcript`], saved message by message through a [`TranscriptStore`]. Opening a project,
//! saving sessions in Gantry's database and finding providers with their keys are the
//! engine's (`gantry-engine`), which both front ends share.
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
//! let mut session = Session::create(SessionParts::new(Arc::new(tools), provider, store)).await?;
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
//! Modules, one job each: `attachment` (files, folders and images a user message carries), `provider` (configuration, the streamed request with retries),
//! `presets` (the shipped providers and the flags for their quirks), `local` (local servers:
//! their kind and the context window they really run), `request` (the request as sent, with
//! the fields some providers need back), `stream` (assembling deltas by index), `text_calls`
//! (tool calls written as text), `transcript` (messages, validity, context fitting), `prompt`
//! (the system prompt), `instructions` (the instruction files' parts of it, from the embedding), `gauge` (how full the window is), `compact` (summaries that replace
//! old messages), `events` (what a turn reports), `batch` (deltas gathered per frame), `persist` (where messages go), `session`
//! and `turn` (the loop), `error`.

pub mod attachment;
pub mod batch;
pub mod compact;
pub mod error;
pub mod events;
pub mod gauge;
pub mod hook_context;
pub mod instructions;
pub mod local;
pub mod persist;
pub mod presets;
pub mod prompt;
pub mod provider;
pub mod request;
pub mod session;
pub mod stream;
pub mod text_calls;
pub mod transcript;
pub mod turn;

pub use attachment::Attachment;
pub use batch::BATCH_INTERVAL;
pub use compact::{COMPACT_REQUEST, CompactError, Compacted};
pub use error::{AgentError, PersistError, ProviderError};
pub use events::{EventSink, Ticker, TurnEndReason, TurnEvent};
pub use gauge::{ContextUsage, RequestShape};
pub use instructions::{FixedInstructions, InstructionPart, InstructionSource, InstructionUsage};
pub use local::{LOCAL_DEFAULT_CONTEXT, ServerKind, ServerWindow, discover_window, server_root};
pub use persist::{MemoryTranscripts, TranscriptStore};
pub use presets::ProviderFlags;
pub use prompt::{PromptContext, system_prompt};
pub use provider::{
    ApiKey, DEFAULT_CONTEXT_WINDOW, DEFAULT_PROVIDER, Provider, ProviderConfig, ProviderOptions,
    RetryPolicy,
};
pub use request::ChatRequest;
pub use session::{DEFAULT_COMPACT_AT_PERCENT, Session, SessionOptions, SessionParts};
pub use transcript::{
    ContextBudget, ContextFit, Message, MessageKind, MessageStatus, Role, TokenUsage, ToolCall,
    ToolOutcome, Transcript,
};
pub use turn::TurnOutcome;
