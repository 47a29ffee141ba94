//! How full the model's context window is: what the chat's gauge shows.
//!
//! A request is the system prompt (with the session's summary, once compacted), the tool
//! schemas, the transcript since the latest summary and, later, what the user attaches to a
//! message. [`ContextUsage`] gives each part's *estimate* (the transcript module's four
//! characters a token) beside the window it has to fit, and, when the provider reported token
//! counts for the latest reply, the size the provider itself counted (its prompt and reply plus
//! the estimate of what came after), which the gauge prefers: estimates are rough, the provider's
//! count is exact for the tokenizer it runs.

use serde::{Deserialize, Serialize};

use crate::instructions::InstructionUsage;
use crate::transcript::{Transcript, estimate_message_tokens};

/// The parts of the next request, in tokens, against the model's window.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// The model's context window (the server's own when it tells it).
    pub window_tokens: u32,
    /// The system prompt (Gantry's instructions and the instruction files), estimated.
    pub system_tokens: u32,
    /// The instruction files in the system prompt (`CLAUDE.md`, `AGENTS.md`, imports), in
    /// order, each estimated: a breakdown of `system_tokens`, not more on top of it.
    #[serde(default)]
    pub instructions: Vec<InstructionUsage>,
    /// The session's summary, sent in the system prompt once compacted, estimated.
    pub summary_tokens: u32,
    /// The schemas of the tools offered, estimated.
    pub tool_tokens: u32,
    /// The messages since the latest summary, estimated.
    pub transcript_tokens: u32,
    /// What the message being written attaches (files, images), estimated. The hook for
    /// attachments: 0 until a message carries them.
    pub attachment_tokens: u32,
    /// The request's size as the provider counted it, when it reported usage for the latest
    /// reply (its prompt and reply, plus the estimate of the messages after it).
    pub reported_tokens: Option<u32>,
    /// Tokens kept free for the reply.
    pub reply_reserve_tokens: u32,
    /// Where compaction starts (0: automatic compaction is off).
    pub compact_at_tokens: u32,
    /// Messages a summary stands in for (stored, shown folded, not sent).
    pub summarised_messages: u32,
}

impl ContextUsage {
    /// The estimated total of the parts.
    pub fn estimated_tokens(&self) -> u32 {
        self.system_tokens
            .saturating_add(self.summary_tokens)
            .saturating_add(self.tool_tokens)
            .saturating_add(self.transcript_tokens)
            .saturating_add(self.attachment_tokens)
    }

    /// The same usage with `instructions` as the system prompt's instruction parts.
    #[must_use]
    pub fn with_instructions(mut self, instructions: Vec<InstructionUsage>) -> Self {
        self.instructions = instructions;
        self
    }

    /// The size the gauge shows: the provider's count when given, the estimate otherwise.
    pub fn used_tokens(&self) -> u32 {
        self.reported_tokens.map_or_else(
            || self.estimated_tokens(),
            |reported| reported.saturating_add(self.attachment_tokens),
        )
    }
}

/// The fixed parts of a request and the window, as the loop knows them when it builds one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestShape {
    /// The model's window.
    pub window_tokens: u32,
    /// The system prompt without the summary.
    pub system_tokens: u32,
    /// The tool schemas.
    pub tool_tokens: u32,
    /// Tokens kept free for the reply.
    pub reply_reserve_tokens: u32,
    /// Percent of the window at which compaction starts (0: never by itself).
    pub compact_at_percent: u8,
}

impl RequestShape {
    /// The token count at which compaction starts (0 when off).
    pub fn compact_at_tokens(&self) -> u32 {
        let percent = u64::from(self.compact_at_percent.min(100));
        u32::try_from(u64::from(self.window_tokens) * percent / 100).unwrap_or(u32::MAX)
    }
}

/// The usage of the next request made of `transcript` in `shape`.
pub fn measure(transcript: &Transcript, shape: RequestShape) -> ContextUsage {
    let active = transcript.active();
    let transcript_tokens = transcript.estimated_active_tokens();
    // The latest reply the provider counted, after the summary: its prompt and reply are exact;
    // only what came after it (tool results, a new message) is estimated.
    let reported_tokens = active
        .iter()
        .rposition(|message| message.usage.is_some_and(|usage| usage.prompt_tokens > 0))
        .and_then(|index| {
            let usage = active[index].usage?;
            let after: u32 = active[index + 1..]
                .iter()
                .map(estimate_message_tokens)
                .fold(0, u32::saturating_add);
            Some(
                usage
                    .prompt_tokens
                    .saturating_add(usage.completion_tokens)
                    .saturating_add(after),
            )
        });
    ContextUsage {
        window_tokens: shape.window_tokens,
        system_tokens: shape.system_tokens,
        instructions: Vec::new(),
        summary_tokens: transcript
            .summary()
            .map_or(0, crate::transcript::estimate_tokens),
        tool_tokens: shape.tool_tokens,
        transcript_tokens,
        attachment_tokens: 0,
        reported_tokens,
        reply_reserve_tokens: shape.reply_reserve_tokens,
        compact_at_tokens: shape.compact_at_tokens(),
        summarised_messages: u32::try_from(transcript.summarised()).unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Message, TokenUsage};

    fn shape() -> RequestShape {
        RequestShape {
            window_tokens: 10_000,
            system_tokens: 500,
            tool_tokens: 1_000,
            reply_reserve_tokens: 1_000,
            compact_at_percent: 80,
        }
    }

    #[test]
    fn the_estimate_adds_the_parts_and_the_threshold_is_a_share_of_the_window() {
        let transcript = Transcript::from_messages(vec![Message::user("x".repeat(400))]);
        let usage = measure(&transcript, shape());
        assert_eq!(usage.transcript_tokens, 104);
        assert_eq!(usage.estimated_tokens(), 1_604);
        assert_eq!(
            usage.used_tokens(),
            1_604,
            "no usage reported: the estimate"
        );
        assert_eq!(usage.compact_at_tokens, 8_000);
        assert_eq!(usage.reported_tokens, None);
    }

    #[test]
    fn the_providers_count_wins_and_only_what_followed_is_estimated() {
        let transcript = Transcript::from_messages(vec![
            Message::user("hi"),
            Message::assistant("hello", vec![]).with_usage(Some(TokenUsage {
                prompt_tokens: 2_000,
                completion_tokens: 30,
                total_tokens: 2_030,
            })),
            Message::user("x".repeat(40)),
        ]);
        let usage = measure(&transcript, shape());
        assert_eq!(usage.reported_tokens, Some(2_030 + 14));
        assert_eq!(usage.used_tokens(), 2_044);
    }

    #[test]
    fn a_summary_replaces_what_came_before_it() {
        let transcript = Transcript::from_messages(vec![
            Message::user("x".repeat(4_000)),
            Message::assistant("y", vec![]).with_usage(Some(TokenUsage {
                prompt_tokens: 9_000,
                completion_tokens: 1,
                total_tokens: 9_001,
            })),
            Message::summary("s".repeat(40)),
            Message::user("next"),
        ]);
        let usage = measure(&transcript, shape());
        assert_eq!(usage.summary_tokens, 10);
        assert_eq!(usage.transcript_tokens, 5);
        assert_eq!(usage.summarised_messages, 3);
        assert_eq!(
            usage.reported_tokens, None,
            "the count before the summary is void"
        );
    }
}
