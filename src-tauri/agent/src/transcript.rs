//! The transcript: what was said in a session, as stored and as sent.
//!
//! A session's transcript is the list of [`Message`]s the store persists (user, assistant with
//! its tool calls, tool results). The system prompt is not part of it: it is rebuilt for every
//! request, so a changed `AGENTS.md` or date applies to old sessions too.
//!
//! Two rules keep the transcript usable after anything — a cancelled turn, a crash, a provider
//! error:
//!
//! - **Validity.** Chat Completions rejects an assistant tool call without a matching `tool`
//!   message. [`Transcript::unanswered_calls`] finds the calls of the last assistant message that
//!   have no result, and the loop answers them with a synthesised `[cancelled]` message (persisted
//!   like any other), so every stored transcript can be sent as is. The request view is defensive
//!   as well: it synthesises missing results and skips orphan tool messages anywhere.
//! - **Context.** [`Transcript::request_view`] fits the messages into the model's window: token
//!   counts are *estimated* (about four characters a token, plus a few tokens per message — good
//!   enough to stay clear of the limit without a tokenizer per model), and when the estimate
//!   exceeds the window minus the reply reserve, the oldest tool observations are shortened first
//!   to a head-and-tail excerpt with a note saying so. If that is not enough, the oldest whole
//!   exchanges before the latest user message are left out (and the request says how many). The
//!   latest user message and everything after it are never dropped, and the stored transcript is
//!   never changed: shortening only affects what is sent.

use serde::{Deserialize, Serialize};

use gantry_tools::text::head_tail;
use gantry_tools::{Decision, Observation, ObservationKind, PermissionLevel, SandboxState};

use crate::attachment::{Attachment, IMAGE_TOKENS};

/// Who wrote a message.
///
/// The store keeps its own `gantry_store::Role` (with `System`): the loop must not depend on the
/// store, nor the store on the loop; `gantry_engine::sessions::transcripts` converts between the two.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result, answering one assistant tool call.
    Tool,
}

impl Role {
    /// The wire and database name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

/// Whether a message was finished.
///
/// Mirrored by `gantry_store::MessageStatus` for the reason given on [`Role`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Said in full.
    #[default]
    Complete,
    /// Cut short because the user cancelled the turn (partial text, or a synthesised result).
    Cancelled,
    /// Cut short by an error (a provider failure mid-stream).
    Error,
}

impl MessageStatus {
    /// The database name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Cancelled => "cancelled",
            Self::Error => "error",
        }
    }
}

/// What a message is for.
///
/// Mirrored by `gantry_store::MessageKind` for the reason given on [`Role`].
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A message of the conversation.
    #[default]
    Normal,
    /// A summary of everything before it (see the `compact` module): requests send it, in the
    /// system prompt, instead of the messages it replaces, which stay stored.
    Summary,
}

impl MessageKind {
    /// The database name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Summary => "summary",
        }
    }

    /// True for [`Self::Normal`] (left out of the JSON).
    pub fn is_normal(&self) -> bool {
        *self == Self::Normal
    }
}

/// One tool call the model made.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The model's `tool_call_id` (synthesised when a provider sends none).
    pub id: String,
    /// The tool's name as the model wrote it.
    pub name: String,
    /// The arguments as the model wrote them (JSON text, not necessarily valid).
    pub arguments: String,
    /// Fields the provider put on the call beyond `id`, `type` and `function` (Gemini's
    /// `extra_content` with its thought signature), sent back unchanged with the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Record<string, unknown>"))]
    pub extra: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ToolCall {
    /// A call with no provider fields beyond the standard ones.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            extra: None,
        }
    }
}

/// Token counts of one model call, as the provider reported them.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Tokens of the request.
    pub prompt_tokens: u32,
    /// Tokens of the reply.
    pub completion_tokens: u32,
    /// Their sum (as reported).
    pub total_tokens: u32,
}

impl TokenUsage {
    /// Adds another call's counts.
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
    }
}

/// One message of a session, as the store keeps it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The text (for a tool message: the observation text the model reads).
    pub content: String,
    /// The model's reasoning, when the provider streamed one (sent back only to providers that
    /// need it, on messages with tool calls: [`crate::ProviderFlags::replay_reasoning`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The tool calls of an assistant message, in the model's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Whether it was finished.
    #[serde(default)]
    pub status: MessageStatus,
    /// The provider's token counts for the call that produced an assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<TokenUsage>,
    /// For a tool message: how the call ended, as its card showed it live (kept with the
    /// message so a restored card is the same). `None` for other messages and for tool messages
    /// saved before it was kept. Never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub outcome: Option<ToolOutcome>,
    /// What the message is for (a summary replaces what came before it in requests).
    #[serde(default, skip_serializing_if = "MessageKind::is_normal")]
    #[cfg_attr(feature = "ts", ts(as = "Option<MessageKind>", optional))]
    pub kind: MessageKind,
    /// What a user message carries beyond its text (mentioned files and folders, images).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// What a tool call's card shows besides the text the model read: the observation's metadata.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutcome {
    /// How the call ended.
    pub kind: ObservationKind,
    /// How the permission check decided, and who decided (rule or grant included).
    pub decision: Decision,
    /// Wall time from dispatch to result, in milliseconds.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub duration_ms: u64,
    /// Whether the tool cut its output.
    #[serde(default)]
    pub truncated: bool,
    /// A unified diff of what the call changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub diff: Option<String>,
    /// How a command ran (run_command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub sandbox: Option<SandboxState>,
    /// The tool's permission level when it ran (`None`: an unknown tool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub level: Option<PermissionLevel>,
}

impl ToolOutcome {
    /// The metadata of `observation`, for a tool of `level`.
    pub fn of(observation: &Observation, level: Option<PermissionLevel>) -> Self {
        Self {
            kind: observation.kind,
            decision: observation.decision.clone(),
            duration_ms: u64::try_from(observation.duration.as_millis()).unwrap_or(u64::MAX),
            truncated: observation.truncated,
            diff: observation.diff.clone(),
            sandbox: observation.sandbox.clone(),
            level,
        }
    }
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: text.into(),
            reasoning: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            status: MessageStatus::Complete,
            usage: None,
            outcome: None,
            kind: MessageKind::Normal,
            attachments: Vec::new(),
        }
    }

    /// The same message with `attachments`.
    #[must_use]
    pub fn with_attachments(mut self, attachments: Vec<Attachment>) -> Self {
        self.attachments = attachments;
        self
    }

    /// A summary of the conversation before it, written by the model.
    pub fn summary(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            kind: MessageKind::Summary,
            ..Self::user(text)
        }
    }

    /// True for a summary message.
    pub fn is_summary(&self) -> bool {
        self.kind == MessageKind::Summary
    }

    /// An assistant message.
    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            role: Role::Assistant,
            tool_calls,
            ..Self::user(text)
        }
    }

    /// A tool result answering `tool_call_id`.
    pub fn tool(tool_call_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            tool_call_id: Some(tool_call_id.into()),
            ..Self::user(text)
        }
    }

    /// The same message with `status`.
    #[must_use]
    pub fn with_status(mut self, status: MessageStatus) -> Self {
        self.status = status;
        self
    }

    /// The same message with the model's reasoning (empty text means none).
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> Self {
        let reasoning = reasoning.into();
        self.reasoning = (!reasoning.is_empty()).then_some(reasoning);
        self
    }

    /// The same message with its call's outcome (tool messages).
    #[must_use]
    pub fn with_outcome(mut self, outcome: ToolOutcome) -> Self {
        self.outcome = Some(outcome);
        self
    }

    /// The same message with the provider's token counts.
    #[must_use]
    pub fn with_usage(mut self, usage: Option<TokenUsage>) -> Self {
        self.usage = usage;
        self
    }
}

/// The synthesised result of a call that never ran or never finished.
pub fn cancelled_result(call: &ToolCall) -> Message {
    Message::tool(
        call.id.clone(),
        format!(
            "[cancelled] the turn was cancelled before tool '{}' returned; it may not have run",
            call.name
        ),
    )
    .with_status(MessageStatus::Cancelled)
}

/// A session's messages, in order. The index of a message is its ordinal in the store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    messages: Vec<Message>,
}

/// How [`Transcript::request_view`] fitted the messages into the context window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextFit {
    /// Tool observations shortened to an excerpt.
    pub shortened: usize,
    /// Messages of old exchanges left out entirely.
    pub dropped: usize,
    /// The estimated size of the request, in tokens, after fitting.
    pub estimated_tokens: u32,
    /// The budget it had to fit: the window minus the reply reserve.
    pub budget_tokens: u32,
}

impl ContextFit {
    /// True when anything was shortened or left out.
    pub fn changed(&self) -> bool {
        self.shortened > 0 || self.dropped > 0
    }
}

/// The room a request has: the model's window and what to keep free for the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextBudget {
    /// The model's context window, in tokens.
    pub window_tokens: u32,
    /// Tokens kept free for the reply.
    pub reply_reserve_tokens: u32,
}

impl ContextBudget {
    /// Tokens the request may use.
    pub fn request_tokens(&self) -> u32 {
        self.window_tokens
            .saturating_sub(self.reply_reserve_tokens)
            .max(1)
    }
}

/// Characters of a shortened observation kept from its start.
pub const SHORTENED_HEAD_CHARS: usize = 800;
/// Characters of a shortened observation kept from its end.
pub const SHORTENED_TAIL_CHARS: usize = 400;

/// Estimated tokens of a text: one per four characters, rounded up. A deliberate rough
/// estimate (no tokenizer per model); English prose and code average 3.5–4.5 characters a token.
pub fn estimate_tokens(text: &str) -> u32 {
    u32::try_from(text.chars().count().div_ceil(4)).unwrap_or(u32::MAX)
}

/// Fixed cost of a message's envelope (role, separators), in tokens.
const MESSAGE_OVERHEAD_TOKENS: u32 = 4;

/// Estimated tokens of one message as sent.
pub fn estimate_message_tokens(message: &Message) -> u32 {
    let calls: u32 = message
        .tool_calls
        .iter()
        .map(|call| {
            estimate_tokens(&call.name)
                .saturating_add(estimate_tokens(&call.arguments))
                .saturating_add(MESSAGE_OVERHEAD_TOKENS)
        })
        .fold(0, u32::saturating_add);
    let attached: u32 = message
        .attachments
        .iter()
        .map(|attachment| match attachment.text_block() {
            Some(text) => estimate_tokens(&text),
            None => IMAGE_TOKENS,
        })
        .fold(0, u32::saturating_add);
    MESSAGE_OVERHEAD_TOKENS
        .saturating_add(estimate_tokens(&message.content))
        .saturating_add(calls)
        .saturating_add(attached)
}

impl Transcript {
    /// An empty transcript.
    pub fn new() -> Self {
        Self::default()
    }

    /// A transcript of stored messages, in ordinal order.
    pub fn from_messages(messages: Vec<Message>) -> Self {
        Self { messages }
    }

    /// Every message, in order.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The number of messages (also the ordinal the next one gets).
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// True when nothing was said yet.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Appends a message, returning its ordinal.
    pub fn push(&mut self, message: Message) -> usize {
        self.messages.push(message);
        self.messages.len() - 1
    }

    /// The calls of the last assistant message that have no tool message after it (what a
    /// crash or a cancellation can leave behind).
    pub fn unanswered_calls(&self) -> Vec<ToolCall> {
        let Some(position) = self
            .messages
            .iter()
            .rposition(|message| message.role == Role::Assistant)
        else {
            return Vec::new();
        };
        let answered: Vec<&str> = self.messages[position + 1..]
            .iter()
            .filter(|message| message.role == Role::Tool)
            .filter_map(|message| message.tool_call_id.as_deref())
            .collect();
        self.messages[position]
            .tool_calls
            .iter()
            .filter(|call| !answered.contains(&call.id.as_str()))
            .cloned()
            .collect()
    }

    /// The position of the latest summary message, if the session was compacted.
    pub fn last_summary(&self) -> Option<usize> {
        self.messages.iter().rposition(Message::is_summary)
    }

    /// The latest summary's text, which requests send instead of the messages before it.
    pub fn summary(&self) -> Option<&str> {
        self.last_summary()
            .map(|index| self.messages[index].content.as_str())
    }

    /// The messages requests are made of: those after the latest summary (all of them when the
    /// session was never compacted).
    pub fn active(&self) -> &[Message] {
        match self.last_summary() {
            Some(index) => &self.messages[index + 1..],
            None => &self.messages,
        }
    }

    /// Messages a summary stands in for (kept in the store, not sent).
    pub fn summarised(&self) -> usize {
        self.last_summary().map_or(0, |index| index + 1)
    }

    /// The estimated tokens of the messages requests are made of (after the latest summary).
    pub fn estimated_active_tokens(&self) -> u32 {
        valid_sequence(self.active())
            .iter()
            .map(estimate_message_tokens)
            .fold(0, u32::saturating_add)
    }

    /// The messages to send, made valid and fitted into `budget` (with `fixed_tokens` already
    /// taken by the system prompt and the tool schemas). See the module docs.
    pub fn request_view(
        &self,
        budget: ContextBudget,
        fixed_tokens: u32,
    ) -> (Vec<Message>, ContextFit) {
        let mut messages = valid_sequence(self.active());
        let limit = budget.request_tokens();
        let mut fit = ContextFit {
            budget_tokens: limit,
            ..ContextFit::default()
        };
        let total = |messages: &[Message]| {
            messages
                .iter()
                .map(estimate_message_tokens)
                .fold(fixed_tokens, u32::saturating_add)
        };

        // 1. Shorten the oldest tool observations first.
        let mut estimated = total(&messages);
        for message in &mut messages {
            if estimated <= limit {
                break;
            }
            if message.role != Role::Tool {
                continue;
            }
            let original = message.content.chars().count();
            let note =
                format!("[observation shortened from {original} characters to save context]");
            if let Some(short) = head_tail(
                &message.content,
                SHORTENED_HEAD_CHARS,
                SHORTENED_TAIL_CHARS,
                &note,
            ) {
                let before = estimate_message_tokens(message);
                message.content = short;
                let after = estimate_message_tokens(message);
                estimated = estimated.saturating_sub(before.saturating_sub(after));
                fit.shortened += 1;
            }
        }

        // 2. Leave out whole exchanges before the latest user message, oldest first.
        if estimated > limit {
            let latest_user = messages
                .iter()
                .rposition(|message| message.role == Role::User)
                .unwrap_or(0);
            let mut cut = 0;
            while estimated > limit && cut < latest_user {
                // An exchange runs from a user message to the next one.
                let next_user = messages[cut + 1..]
                    .iter()
                    .position(|message| message.role == Role::User)
                    .map_or(latest_user, |offset| cut + 1 + offset)
                    .min(latest_user);
                let removed: u32 = messages[cut..next_user]
                    .iter()
                    .map(estimate_message_tokens)
                    .fold(0, u32::saturating_add);
                estimated = estimated.saturating_sub(removed);
                cut = next_user;
            }
            if cut > 0 {
                messages.drain(..cut);
                fit.dropped = cut;
            }
        }

        fit.estimated_tokens = estimated;
        (messages, fit)
    }
}

/// `messages` with a result for every call and no orphan tool messages.
fn valid_sequence(messages: &[Message]) -> Vec<Message> {
    let mut out = Vec::with_capacity(messages.len());
    let mut index = 0;
    while index < messages.len() {
        let message = &messages[index];
        index += 1;
        match message.role {
            Role::Tool => {} // an orphan: its call is not in the preceding assistant message
            Role::User => out.push(message.clone()),
            Role::Assistant => {
                out.push(message.clone());
                let mut results = Vec::new();
                while index < messages.len() && messages[index].role == Role::Tool {
                    results.push(&messages[index]);
                    index += 1;
                }
                for call in &message.tool_calls {
                    match results
                        .iter()
                        .find(|result| result.tool_call_id.as_deref() == Some(call.id.as_str()))
                    {
                        Some(result) => out.push((*result).clone()),
                        None => out.push(cancelled_result(call)),
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall::new(id, name, "{}")
    }

    fn big(chars: usize) -> String {
        "x".repeat(chars)
    }

    #[test]
    fn unanswered_calls_are_those_of_the_last_assistant_message_without_result() {
        let mut transcript = Transcript::new();
        transcript.push(Message::user("go"));
        transcript.push(Message::assistant("", vec![call("a", "t"), call("b", "t")]));
        transcript.push(Message::tool("a", "done"));
        assert_eq!(transcript.unanswered_calls(), vec![call("b", "t")]);
        transcript.push(cancelled_result(&call("b", "t")));
        assert!(transcript.unanswered_calls().is_empty());
    }

    #[test]
    fn the_request_view_answers_missing_calls_and_skips_orphans() {
        let transcript = Transcript::from_messages(vec![
            Message::tool("zzz", "orphan"),
            Message::user("go"),
            Message::assistant("", vec![call("a", "read"), call("b", "read")]),
            Message::tool("b", "b result"),
            Message::user("again"),
        ]);
        let budget = ContextBudget {
            window_tokens: 100_000,
            reply_reserve_tokens: 1_000,
        };
        let (view, fit) = transcript.request_view(budget, 0);
        assert!(!fit.changed());
        let roles: Vec<(Role, Option<&str>)> = view
            .iter()
            .map(|m| (m.role, m.tool_call_id.as_deref()))
            .collect();
        assert_eq!(
            roles,
            vec![
                (Role::User, None),
                (Role::Assistant, None),
                (Role::Tool, Some("a")),
                (Role::Tool, Some("b")),
                (Role::User, None),
            ]
        );
        assert!(view[2].content.starts_with("[cancelled]"));
        assert_eq!(view[2].status, MessageStatus::Cancelled);
    }

    #[test]
    fn the_oldest_observations_are_shortened_first_and_only_as_needed() {
        let transcript = Transcript::from_messages(vec![
            Message::user("go"),
            Message::assistant("", vec![call("a", "read")]),
            Message::tool("a", big(8_000)),
            Message::assistant("", vec![call("b", "read")]),
            Message::tool("b", big(8_000)),
            Message::assistant("", vec![call("c", "read")]),
            Message::tool("c", big(8_000)),
        ]);
        // ~6000 tokens of observations; allow 3000: shortening one is not enough, two are.
        let budget = ContextBudget {
            window_tokens: 4_000,
            reply_reserve_tokens: 1_000,
        };
        let (view, fit) = transcript.request_view(budget, 0);
        assert_eq!(fit.shortened, 2);
        assert_eq!(fit.dropped, 0);
        assert!(fit.estimated_tokens <= fit.budget_tokens, "{fit:?}");
        assert!(
            view[2]
                .content
                .contains("[observation shortened from 8000 characters to save context]")
        );
        assert!(view[4].content.contains("[observation shortened from 8000"));
        assert_eq!(view[6].content, big(8_000), "the newest stays whole");
        assert_eq!(
            view[2].content.chars().count(),
            SHORTENED_HEAD_CHARS
                + SHORTENED_TAIL_CHARS
                + 2
                + "[observation shortened from 8000 characters to save context]".len()
        );
        // The stored transcript is untouched.
        assert_eq!(transcript.messages()[2].content, big(8_000));
    }

    #[test]
    fn old_exchanges_are_dropped_but_never_the_latest_user_message() {
        let transcript = Transcript::from_messages(vec![
            Message::user(big(4_000)),
            Message::assistant(big(4_000), vec![]),
            Message::user(big(400)),
            Message::assistant("ok", vec![]),
            Message::user(big(8_000)),
        ]);
        let budget = ContextBudget {
            window_tokens: 2_500,
            reply_reserve_tokens: 500,
        };
        let (view, fit) = transcript.request_view(budget, 10);
        assert_eq!(fit.shortened, 0);
        assert_eq!(fit.dropped, 4);
        assert_eq!(view.len(), 1);
        assert_eq!(
            view[0].content,
            big(8_000),
            "the latest user message is kept whole"
        );
        assert!(
            fit.estimated_tokens > fit.budget_tokens,
            "still too big, sent anyway"
        );
    }

    #[test]
    fn messages_round_trip_through_json() {
        let message = Message::assistant("t", vec![call("a", "read")])
            .with_reasoning("why")
            .with_usage(Some(TokenUsage {
                prompt_tokens: 1,
                completion_tokens: 2,
                total_tokens: 3,
            }));
        let json = serde_json::to_value(&message).unwrap();
        assert_eq!(json["toolCalls"][0]["id"], "a");
        assert_eq!(json["status"], "complete");
        assert_eq!(serde_json::from_value::<Message>(json).unwrap(), message);
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
