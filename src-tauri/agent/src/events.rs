//! What a turn reports while it runs.
//!
//! Every consumer — the CLI's terminal view, its `--json` lines, the desktop app's webview —
//! reads the same stream of [`TurnEvent`]s. They serialise as JSON objects with a snake_case
//! `type` tag and camelCase fields, so the app can forward them to the webview unchanged:
//!
//! ```json
//! {"type":"text_delta","text":"Hel"}
//! {"type":"tool_call_started","id":"call_1","name":"read_file","arguments":"{\"path\":\"a\"}"}
//! {"type":"turn_finished","reason":"completed","steps":2,"message":null}
//! ```
//!
//! Tool calls carry the model's `tool_call_id` so a UI can pair `tool_call_started` with its
//! `tool_result` (results of concurrent calls may arrive out of order) and with an
//! `approval_requested` in between, whose request carries the same id (`request.callId`). A
//! `retrying` event means the current reply restarts: text and reasoning streamed since the last
//! tool result (or the turn's start) are void.
//!
//! The turn's [`EventSink`] is each call's [`CallObserver`]: the manager reports the approval
//! step of the call it dispatches to it, so no approver needs wrapping and nothing is routed
//! per turn.

use gantry_tools::{ApprovalRequest, CallObserver, Observation};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;

use crate::transcript::TokenUsage;

/// Why a turn ended.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndReason {
    /// The model answered without calling tools.
    Completed,
    /// The user cancelled the turn.
    Cancelled,
    /// The model kept calling tools until the step limit.
    StepLimit,
    /// The provider failed for good, or the transcript could not be saved.
    Error,
}

impl TurnEndReason {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
            Self::StepLimit => "step_limit",
            Self::Error => "error",
        }
    }
}

/// One thing that happened during a turn.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum TurnEvent {
    /// The turn began (always the first event of a turn).
    TurnStarted {
        /// The session's id.
        session_id: String,
    },
    /// A piece of the model's answer.
    TextDelta {
        /// The text to append.
        text: String,
    },
    /// A piece of the model's reasoning, for providers that stream it.
    ReasoningDelta {
        /// The text to append.
        text: String,
    },
    /// A tool call is being dispatched.
    ToolCallStarted {
        /// The model's `tool_call_id`.
        id: String,
        /// The tool's name as the model wrote it.
        name: String,
        /// The arguments as the model wrote them (JSON text, possibly invalid).
        arguments: String,
    },
    /// The approver is being asked about a call (`request.callId`).
    ApprovalRequested {
        /// What the approver is shown.
        request: ApprovalRequest,
    },
    /// The approver answered; an allowed call runs from now on (a denied one's result follows).
    ApprovalResolved {
        /// The call decided.
        tool_call_id: String,
        /// Whether the call may run.
        allowed: bool,
    },
    /// A tool call ended (however it ended).
    ToolResult {
        /// The model's `tool_call_id`.
        id: String,
        /// The tool's name.
        name: String,
        /// The result: text, kind, decision, duration, truncation, diff.
        observation: Observation,
    },
    /// Token counts of one model call, as the provider reported them.
    Usage {
        /// Tokens of the request.
        prompt_tokens: u32,
        /// Tokens of the reply.
        completion_tokens: u32,
        /// Their sum.
        total_tokens: u32,
    },
    /// A model call failed and will be retried; the reply restarts.
    Retrying {
        /// 1-based retry number.
        attempt: u32,
        /// The most retries that will be made.
        max_retries: u32,
        /// The wait before the retry, in milliseconds.
        delay_ms: u64,
        /// Why (`HTTP 429: ...`, `timed out waiting for the provider`).
        reason: String,
    },
    /// The request was fitted into the context window.
    ContextShortened {
        /// Tool observations shortened to an excerpt.
        shortened: usize,
        /// Old messages left out.
        dropped: usize,
        /// The estimated request size after fitting, in tokens.
        estimated_tokens: u32,
        /// What it had to fit, in tokens.
        budget_tokens: u32,
    },
    /// Something went wrong. `fatal` errors end the turn (a `turn_finished` with reason
    /// `error` follows); others (a malformed chunk, a reply cut at the token limit) don't.
    Error {
        /// What happened, in words.
        message: String,
        /// Whether the turn ends because of it.
        fatal: bool,
    },
    /// The turn ended.
    TurnFinished {
        /// Why.
        reason: TurnEndReason,
        /// Model calls made.
        steps: u32,
        /// A sentence for the user when the reason needs one (step limit, error).
        message: Option<String>,
    },
}

impl TurnEvent {
    /// The usage event for `usage`.
    pub fn usage(usage: TokenUsage) -> Self {
        Self::Usage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.total_tokens,
        }
    }
}

/// Where a turn's events go. Sending never blocks and never fails: events for a consumer that
/// went away are dropped.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    sender: Option<UnboundedSender<TurnEvent>>,
}

impl EventSink {
    /// Events go to `sender`.
    pub fn new(sender: UnboundedSender<TurnEvent>) -> Self {
        Self {
            sender: Some(sender),
        }
    }

    /// Events go nowhere.
    pub fn none() -> Self {
        Self::default()
    }

    /// Sends one event.
    pub fn emit(&self, event: TurnEvent) {
        if let Some(sender) = &self.sender {
            let _ = sender.send(event);
        }
    }
}

impl From<UnboundedSender<TurnEvent>> for EventSink {
    fn from(sender: UnboundedSender<TurnEvent>) -> Self {
        Self::new(sender)
    }
}

impl CallObserver for EventSink {
    fn approval_requested(&self, request: &ApprovalRequest) {
        self.emit(TurnEvent::ApprovalRequested {
            request: request.clone(),
        });
    }

    fn approval_resolved(&self, call_id: &str, allowed: bool) {
        self.emit(TurnEvent::ApprovalResolved {
            tool_call_id: call_id.to_owned(),
            allowed,
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gantry_tools::{Decider, Decision, DecisionKind, ObservationKind, PermissionLevel};
    use serde_json::json;

    use super::*;

    #[test]
    fn events_serialise_with_a_snake_case_type_and_camel_case_fields() {
        let cases = [
            (
                TurnEvent::TurnStarted {
                    session_id: "s1".into(),
                },
                json!({"type": "turn_started", "sessionId": "s1"}),
            ),
            (
                TurnEvent::Retrying {
                    attempt: 1,
                    max_retries: 4,
                    delay_ms: 250,
                    reason: "HTTP 429".into(),
                },
                json!({"type": "retrying", "attempt": 1, "maxRetries": 4, "delayMs": 250, "reason": "HTTP 429"}),
            ),
            (
                TurnEvent::TurnFinished {
                    reason: TurnEndReason::StepLimit,
                    steps: 50,
                    message: Some("stopped".into()),
                },
                json!({"type": "turn_finished", "reason": "step_limit", "steps": 50, "message": "stopped"}),
            ),
            (
                TurnEvent::ToolResult {
                    id: "c1".into(),
                    name: "read_file".into(),
                    observation: Observation {
                        tool: "read_file".into(),
                        text: "hi".into(),
                        kind: ObservationKind::Ok,
                        decision: Decision::new(DecisionKind::Auto, Decider::Policy),
                        duration: Duration::from_millis(3),
                        truncated: false,
                        diff: None,
                        sandbox: None,
                    },
                },
                json!({"type": "tool_result", "id": "c1", "name": "read_file", "observation": {
                    "tool": "read_file", "text": "hi", "kind": "ok",
                    "decision": {"kind": "auto", "by": "policy", "detail": null},
                    "duration": 3, "truncated": false, "diff": null}}),
            ),
            (
                TurnEvent::ApprovalRequested {
                    request: ApprovalRequest {
                        call_id: "c2".into(),
                        session_id: Some("s1".into()),
                        tool: "write_file".into(),
                        level: PermissionLevel::Sensitive,
                        description: "Write".into(),
                        arguments: json!({"path": "a"}),
                        preview: None,
                        session_scope: vec!["write_file".into()],
                        reason: gantry_tools::AskReason::Policy,
                    },
                },
                json!({"type": "approval_requested", "request": {
                    "callId": "c2", "sessionId": "s1", "tool": "write_file", "level": "sensitive", "description": "Write",
                    "arguments": {"path": "a"}, "preview": null, "sessionScope": ["write_file"],
                    "reason": {"kind": "policy"}}}),
            ),
        ];
        for (event, expected) in cases {
            let value = serde_json::to_value(&event).unwrap();
            assert_eq!(value, expected);
            assert_eq!(serde_json::from_value::<TurnEvent>(value).unwrap(), event);
        }
    }
}
