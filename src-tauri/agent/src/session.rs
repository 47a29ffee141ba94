//! A session: one project's tools, one provider, one transcript.
//!
//! A [`Session`] shares the project's [`ToolManager`] (so the app can change policies while it
//! runs, and other sessions of the project use the same tools), owns its [`ToolSession`] (its id,
//! what the user allowed in it, what the model saw of each file), the [`Provider`] it talks to,
//! the store its messages go to and the transcript so far. Turns run one at a time
//! (`&mut self`); see the `turn` module for the loop.
//!
//! The manager is built by the caller (tools, approver, prompter, audit sink, policies, MCP
//! servers) and shared. The session's id lives in its [`ToolSession`] only; whoever needs it
//! while a turn holds the session (the app's grants panel) keeps a clone of that `Arc`.

use std::sync::Arc;

use gantry_tools::{ToolManager, ToolSession};

use crate::error::{AgentError, PersistError};
use crate::instructions::{FixedInstructions, InstructionSource, replay};
use crate::persist::TranscriptStore;
use crate::provider::Provider;
use crate::transcript::{Message, Transcript, cancelled_result};

/// The default share of the window at which a session is compacted.
pub const DEFAULT_COMPACT_AT_PERCENT: u8 = 80;

/// How turns run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOptions {
    /// The most model calls in one turn; reaching it ends the turn with `step_limit`.
    pub max_steps: u32,
    /// The most SAFE, auto-approved calls of one reply run at the same time.
    pub max_parallel_tools: usize,
    /// Tokens kept free for the reply when fitting the context (at most half the window).
    pub reply_reserve_tokens: u32,
    /// Add the instruction files (from [`SessionParts::instructions`]) to the system prompt.
    pub project_instructions: bool,
    /// Percent of the window at which a turn first compacts the session (asks the model for a
    /// summary and continues from it); 0 turns automatic compaction off.
    pub compact_at_percent: u8,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            max_steps: 50,
            max_parallel_tools: 4,
            reply_reserve_tokens: 4_096,
            project_instructions: true,
            compact_at_percent: DEFAULT_COMPACT_AT_PERCENT,
        }
    }
}

/// Everything a session is made of.
pub struct SessionParts {
    /// The project's tools, fully set up (approver, prompter, audit sink, policies), shared with
    /// whoever else needs them (an MCP hub, the app's settings, other sessions).
    pub tools: Arc<ToolManager>,
    /// The model provider.
    pub provider: Provider,
    /// Where messages are saved.
    pub store: Arc<dyn TranscriptStore>,
    /// How turns run.
    pub options: SessionOptions,
    /// Where the system prompt's instruction files come from (none by default).
    pub instructions: Arc<dyn InstructionSource>,
}

impl SessionParts {
    /// The parts for `tools`, with the default options.
    pub fn new(
        tools: Arc<ToolManager>,
        provider: Provider,
        store: Arc<dyn TranscriptStore>,
    ) -> Self {
        Self {
            tools,
            provider,
            store,
            options: SessionOptions::default(),
            instructions: Arc::new(FixedInstructions::default()),
        }
    }

    /// The same parts with the session's instructions from `source` (one per session).
    #[must_use]
    pub fn with_instructions(mut self, source: Arc<dyn InstructionSource>) -> Self {
        self.instructions = source;
        self
    }

    /// The same parts with `options`.
    #[must_use]
    pub fn with_options(mut self, options: SessionOptions) -> Self {
        self.options = options;
        self
    }
}

/// An open session.
pub struct Session {
    pub(crate) tools: Arc<ToolManager>,
    pub(crate) tool_session: Arc<ToolSession>,
    pub(crate) provider: Provider,
    pub(crate) store: Arc<dyn TranscriptStore>,
    pub(crate) transcript: Transcript,
    pub(crate) options: SessionOptions,
    pub(crate) instructions: Arc<dyn InstructionSource>,
    /// What the user's hooks gave the model (see [`crate::hook_context`]).
    pub(crate) hook_context: Vec<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id())
            .field("provider", &self.provider)
            .field("messages", &self.transcript.len())
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts a new session for the project of `parts.tools`.
    pub async fn create(parts: SessionParts) -> Result<Self, AgentError> {
        let id = parts
            .store
            .create_session(parts.tools.root(), Some(&parts.provider.config().model))
            .await?;
        Ok(Self::assemble(
            parts,
            Arc::new(ToolSession::new(id)),
            Transcript::new(),
        ))
    }

    /// Reopens session `id` with its saved messages. Tool calls a crash left without a result
    /// are answered with a saved `[cancelled]` message, so the transcript is valid again.
    pub async fn resume(parts: SessionParts, id: &str) -> Result<Self, AgentError> {
        Self::resume_in(parts, Arc::new(ToolSession::new(id))).await
    }

    /// [`Self::resume`] for the session whose id, grants and file ledger are `tool_session`
    /// (shared with whoever lists or revokes its grants).
    pub async fn resume_in(
        parts: SessionParts,
        tool_session: Arc<ToolSession>,
    ) -> Result<Self, AgentError> {
        let id = tool_session
            .id()
            .ok_or_else(|| PersistError::NotFound(String::new()))?
            .to_owned();
        let messages = parts.store.load_messages(&id, parts.tools.root()).await?;
        let mut session = Self::assemble(parts, tool_session, Transcript::from_messages(messages));
        // What the earlier turns' calls taught the instructions (the folders worked in).
        replay(session.instructions.as_ref(), session.transcript.messages());
        for call in session.transcript.unanswered_calls() {
            session.save(cancelled_result(&call)).await?;
        }
        Ok(session)
    }

    fn assemble(
        parts: SessionParts,
        tool_session: Arc<ToolSession>,
        transcript: Transcript,
    ) -> Self {
        Self {
            tool_session,
            tools: parts.tools,
            provider: parts.provider,
            store: parts.store,
            transcript,
            options: parts.options,
            instructions: parts.instructions,
            hook_context: Vec::new(),
        }
    }

    /// The session's id in the store.
    pub fn id(&self) -> &str {
        self.tool_session.id().unwrap_or_default()
    }

    /// The project's tools (change policies here).
    pub fn tools(&self) -> &Arc<ToolManager> {
        &self.tools
    }

    /// The session's grants and file ledger (list or revoke grants here).
    pub fn tool_session(&self) -> &Arc<ToolSession> {
        &self.tool_session
    }

    /// The provider in use.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// Switches provider or model for the next turns.
    pub fn set_provider(&mut self, provider: Provider) {
        self.provider = provider;
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// How turns run.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// Changes the share of the window at which the next turns compact first (0: never).
    pub fn set_compact_at_percent(&mut self, percent: u8) {
        self.options.compact_at_percent = percent.min(100);
    }

    /// Saves a message, then adds it to the transcript (so both always agree).
    pub(crate) async fn save(&mut self, message: Message) -> Result<(), PersistError> {
        let ordinal = self.transcript.len();
        self.store
            .append_message(
                self.tool_session.id().unwrap_or_default(),
                ordinal,
                &message,
            )
            .await?;
        self.transcript.push(message);
        Ok(())
    }
}
