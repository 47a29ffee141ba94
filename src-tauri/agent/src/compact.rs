//! Compaction: the model summarises the conversation, and requests continue from the summary.
//!
//! When the next request would pass a share of the window (the session's
//! [`crate::SessionOptions::compact_at_percent`], checked when a turn starts, before the user's
//! message is saved), or when the user asks ([`Session::compact`]), the model is sent the
//! conversation since the last summary (the previous summary in its system prompt, the
//! messages fitted into the window as any request) and asked for notes to continue from. The
//! reply is saved as a [`MessageKind::Summary`](crate::MessageKind) message; from then on
//! requests carry the summary in the system prompt and only the messages after it. Nothing is
//! deleted: the store keeps every message and the chat shows the replaced ones folded.
//!
//! Compaction only happens between turns (or as a turn starts): in the middle of a turn the
//! model needs the messages of that turn, and the request view's fitting (shortening old
//! observations, leaving out old exchanges) keeps each request in the window meanwhile.

use tokio_util::sync::CancellationToken;

use crate::events::{EventSink, TurnEvent};
use crate::gauge::ContextUsage;
use crate::provider::{CallFailure, StreamSignal};
use crate::request::{ChatRequest, wire_messages};
use crate::session::Session;
use crate::transcript::{ContextBudget, Message, estimate_tokens};

/// The system prompt of a summary request.
pub const COMPACT_SYSTEM: &str = "You write the working notes that let a coding session go on \
after its earlier messages are removed from the conversation. Be faithful and concrete: names, \
paths, commands, numbers and errors exactly as they appeared. Never invent anything.";

/// The last message of a summary request: what the summary must hold.
pub const COMPACT_REQUEST: &str = "Summarise the conversation so far, for yourself to continue \
from: the user's goals and requests (quote the important ones), what was decided and why, the \
files read or changed (with paths and what changed), commands run and the results that matter, \
problems still open, and the next steps. Write compact notes in Markdown, not a reply to the \
user, and call no tools.";

/// How the summary enters the system prompt of later requests.
pub fn system_with_summary(system: &str, summary: Option<&str>) -> String {
    match summary {
        Some(summary) => format!(
            "{system}\n\n## Summary of the conversation so far\n(Earlier messages of this session \
             were replaced by these notes, which you wrote.)\n\n{summary}\n"
        ),
        None => system.to_owned(),
    }
}

/// Why a compaction did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// Nothing was said since the last summary.
    #[error("there is nothing to compact yet")]
    Nothing,
    /// The user cancelled it.
    #[error("compaction was cancelled")]
    Cancelled,
    /// The model returned no text.
    #[error("the model returned an empty summary")]
    Empty,
    /// The provider failed, or the request could not be built.
    #[error("the summary could not be made: {0}")]
    Failed(String),
    /// The summary could not be saved.
    #[error("the summary could not be saved: {0}")]
    Save(String),
}

/// A compaction that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// The summary's position in the transcript.
    pub ordinal: usize,
    /// Messages it stands in for.
    pub summarised: usize,
    /// The summary's text.
    pub summary: String,
}

impl Session {
    /// Asks the model for a summary of the conversation since the last one and saves it, so
    /// later requests continue from it. `events` gets `compaction_started` and, when done,
    /// `compacted` (or a non-fatal `error` is up to the caller).
    pub async fn compact(
        &mut self,
        cancel: &CancellationToken,
        events: &EventSink,
        automatic: bool,
    ) -> Result<Compacted, CompactError> {
        if self.transcript.active().is_empty() {
            return Err(CompactError::Nothing);
        }
        events.emit(TurnEvent::CompactionStarted { automatic });
        let window = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(CompactError::Cancelled),
            server = self.provider.server_window() => server
                .map_or(self.provider.config().context_window, |server| server.tokens),
        };
        let request = self.summary_request(window)?;
        // The summary is not the answer: its pieces are not shown as they stream.
        let mut ignore = |_: StreamSignal| {};
        let reply = match self
            .provider
            .stream_reply(&request, cancel, &mut ignore)
            .await
        {
            Ok(reply) => reply,
            Err(CallFailure::Cancelled { .. }) => return Err(CompactError::Cancelled),
            Err(CallFailure::Failed { error, .. }) => {
                return Err(CompactError::Failed(error.to_string()));
            }
        };
        let summary = reply.text.trim().to_owned();
        if summary.is_empty() {
            return Err(CompactError::Empty);
        }
        let summarised = self.transcript.len();
        self.save(Message::summary(summary.clone()))
            .await
            .map_err(|error| CompactError::Save(error.to_string()))?;
        let ordinal = self.transcript.len() - 1;
        events.emit(TurnEvent::Compacted {
            ordinal: u32::try_from(ordinal).unwrap_or(u32::MAX),
            summarised: u32::try_from(summarised).unwrap_or(u32::MAX),
            summary: summary.clone(),
        });
        Ok(Compacted {
            ordinal,
            summarised,
            summary,
        })
    }

    /// The request asking for a summary: the messages since the last summary (fitted into
    /// `window`), the previous summary in the system prompt, the instruction last; no tools.
    fn summary_request(&self, window: u32) -> Result<ChatRequest, CompactError> {
        let system = system_with_summary(COMPACT_SYSTEM, self.transcript.summary());
        let instruction = Message::user(COMPACT_REQUEST);
        let budget = ContextBudget {
            window_tokens: window,
            reply_reserve_tokens: self.options.reply_reserve_tokens.min(window / 2),
        };
        let fixed = estimate_tokens(&system).saturating_add(estimate_tokens(COMPACT_REQUEST));
        let (mut messages, _) = self.transcript.request_view(budget, fixed);
        messages.push(instruction);
        let request = ChatRequest::new(
            &self.provider.config().model,
            wire_messages(&system, &messages, &self.provider.flags()),
            Vec::new(),
        )
        .map_err(|error| CompactError::Failed(error.to_string()))?;
        Ok(request.with_reply_limit(self.provider.reply_limit(budget.reply_reserve_tokens)))
    }

    /// True when a turn starting now with the message `next` would compact the session first
    /// (what a PreCompact hook with trigger `auto` is asked about before the turn).
    pub async fn would_compact(&self, next: &str) -> bool {
        let usage = self.measure_context().await;
        self.needs_compaction(&usage, next)
    }

    /// True when a request made of the transcript, `next` (the message about to be sent) and
    /// the fixed parts measured in `usage` would pass the compaction threshold, and there is
    /// something to compact.
    pub(crate) fn needs_compaction(&self, usage: &ContextUsage, next: &str) -> bool {
        usage.compact_at_tokens > 0
            && !self.transcript.active().is_empty()
            && usage.used_tokens().saturating_add(estimate_tokens(next)) > usage.compact_at_tokens
    }
}
