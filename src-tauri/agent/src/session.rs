//! A session: one project's tools, one provider, one transcript.
//!
//! A [`Session`] owns the project's [`ToolManager`] (shared, so the app can change policies and
//! grants while it runs), the [`Provider`] it talks to, the store its messages go to and the
//! transcript so far. Turns run one at a time (`&mut self`); see the `turn` module for the loop.
//!
//! The manager is built by the caller (tools, prompter, audit sink, policies, MCP servers) and
//! shared; its approver should be wrapped by the session's [`ApprovalEvents`] so that approval
//! requests are reported to the running turn as events.

use std::sync::Arc;

use gantry_tools::{Approver, ToolManager};

use crate::error::{AgentError, PersistError};
use crate::events::{ApprovalEvents, EventSink};
use crate::persist::TranscriptStore;
use crate::provider::Provider;
use crate::transcript::{Message, Transcript, cancelled_result};

/// How turns run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionOptions {
    /// The most model calls in one turn; reaching it ends the turn with `step_limit`.
    pub max_steps: u32,
    /// The most SAFE, auto-approved calls of one reply run at the same time.
    pub max_parallel_tools: usize,
    /// Tokens kept free for the reply when fitting the context (at most half the window).
    pub reply_reserve_tokens: u32,
    /// Add the project's `AGENTS.md` to the system prompt.
    pub project_instructions: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            max_steps: 50,
            max_parallel_tools: 4,
            reply_reserve_tokens: 4_096,
            project_instructions: true,
        }
    }
}

/// Everything a session is made of.
pub struct SessionParts {
    /// The project's tools, fully set up (prompter, audit sink, policies, approver wrapped by
    /// `approvals`), shared with whoever else needs them (an MCP hub, the app's settings).
    pub tools: Arc<ToolManager>,
    /// Reports the approver's requests as events of the running turn.
    pub approvals: ApprovalEvents,
    /// The model provider.
    pub provider: Provider,
    /// Where messages are saved.
    pub store: Arc<dyn TranscriptStore>,
    /// How turns run.
    pub options: SessionOptions,
}

impl SessionParts {
    /// The parts for `tools` with `approver` installed (observed) in it.
    pub fn new(
        tools: ToolManager,
        approver: Option<Arc<dyn Approver>>,
        provider: Provider,
        store: Arc<dyn TranscriptStore>,
    ) -> Self {
        let approvals = ApprovalEvents::new();
        let tools = match approver {
            Some(approver) => tools.with_approver(approvals.observe(approver)),
            None => tools,
        };
        Self {
            tools: Arc::new(tools),
            approvals,
            provider,
            store,
            options: SessionOptions::default(),
        }
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
    pub(crate) id: String,
    pub(crate) tools: Arc<ToolManager>,
    pub(crate) approvals: ApprovalEvents,
    pub(crate) provider: Provider,
    pub(crate) store: Arc<dyn TranscriptStore>,
    pub(crate) transcript: Transcript,
    pub(crate) options: SessionOptions,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
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
        Ok(Self::assemble(parts, id, Transcript::new()))
    }

    /// Reopens session `id` with its saved messages. Tool calls a crash left without a result
    /// are answered with a saved `[cancelled]` message, so the transcript is valid again.
    pub async fn resume(parts: SessionParts, id: &str) -> Result<Self, AgentError> {
        let messages = parts.store.load_messages(id, parts.tools.root()).await?;
        let mut session = Self::assemble(parts, id.to_owned(), Transcript::from_messages(messages));
        for call in session.transcript.unanswered_calls() {
            session.save(cancelled_result(&call)).await?;
        }
        Ok(session)
    }

    fn assemble(parts: SessionParts, id: String, transcript: Transcript) -> Self {
        parts.tools.start_session(Some(id.clone()));
        Self {
            id,
            tools: parts.tools,
            approvals: parts.approvals,
            provider: parts.provider,
            store: parts.store,
            transcript,
            options: parts.options,
        }
    }

    /// The session's id in the store.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The project's tools (change policies and grants here).
    pub fn tools(&self) -> &Arc<ToolManager> {
        &self.tools
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

    /// Saves a message, then adds it to the transcript (so both always agree).
    pub(crate) async fn save(&mut self, message: Message) -> Result<(), PersistError> {
        let ordinal = self.transcript.len();
        self.store
            .append_message(&self.id, ordinal, &message)
            .await?;
        self.transcript.push(message);
        Ok(())
    }

    /// Points approval events at `sink` (the running turn's) or nowhere.
    pub(crate) fn route_approval_events(&self, sink: EventSink) {
        self.approvals.route(sink);
    }
}
