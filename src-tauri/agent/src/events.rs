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

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use gantry_tools::{ApprovalRequest, CallObserver, CallProgress, Observation};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedSender;

use crate::batch::DeltaBatch;
use crate::gauge::ContextUsage;
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
    /// A tool call's arguments are arriving (sent at most once a frame, the latest count).
    ToolCallStreaming {
        /// The call's position in the reply.
        index: u32,
        /// The tool's name, once known (empty before).
        name: String,
        /// Bytes of arguments received so far.
        bytes: u64,
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
    /// The approver is being asked about a call; the card of the call waits for the answer.
    ApprovalRequested {
        /// The model's `tool_call_id` of the call that waits. What the user is asked reaches the
        /// front end once, through the approver (the app's dialog), not in the turn's events.
        tool_call_id: String,
    },
    /// The approver answered; an allowed call runs from now on (a denied one's result follows).
    ApprovalResolved {
        /// The call decided.
        tool_call_id: String,
        /// Whether the call may run.
        allowed: bool,
    },
    /// A running tool call reported progress (an MCP server's `notifications/progress`).
    ToolProgress {
        /// The model's `tool_call_id`.
        id: String,
        /// How far it is, with the tool's message.
        progress: CallProgress,
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
    /// How full the window is for the request about to be sent (or, between turns, the next).
    Context {
        /// The parts of the request against the window.
        usage: ContextUsage,
    },
    /// The model is asked for a summary of the conversation (compaction).
    CompactionStarted {
        /// True when the threshold started it, false when the user asked.
        automatic: bool,
    },
    /// The summary was saved; later requests continue from it.
    Compacted {
        /// The summary message's position in the transcript.
        ordinal: u32,
        /// Messages it stands in for (still stored, not sent).
        summarised: u32,
        /// The summary's text.
        summary: String,
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
/// went away are dropped. A batched sink ([`Self::batched`]) sends text and reasoning deltas at
/// most once per interval (see the `batch` module); every clone shares the batch, so events sent
/// from any of them keep their order.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    sender: Option<UnboundedSender<TurnEvent>>,
    batch: Option<Arc<Mutex<DeltaBatch>>>,
}

impl EventSink {
    /// Events go to `sender`, each as it happens.
    pub fn new(sender: UnboundedSender<TurnEvent>) -> Self {
        Self {
            sender: Some(sender),
            batch: None,
        }
    }

    /// Events go nowhere.
    pub fn none() -> Self {
        Self::default()
    }

    /// The same sink, batching deltas into at most one event per `interval`. Pair it with
    /// [`Self::spawn_ticker`], and [`Self::flush`] at the end.
    #[must_use]
    pub fn batched(mut self, interval: Duration) -> Self {
        self.batch = Some(Arc::new(Mutex::new(DeltaBatch::new(interval))));
        self
    }

    /// Sends one event (a batched sink may hold a delta back for up to its interval).
    pub fn emit(&self, event: TurnEvent) {
        let Some(sender) = &self.sender else {
            return;
        };
        match &self.batch {
            None => {
                let _ = sender.send(event);
            }
            Some(batch) => {
                // Sent while the batch is locked, so no other clone's event slips in between.
                let mut batch = batch.lock().unwrap_or_else(PoisonError::into_inner);
                for event in batch.accept(event, Instant::now()) {
                    let _ = sender.send(event);
                }
            }
        }
    }

    /// Sends the deltas that have waited their interval (what the ticker calls).
    fn send_due(&self) {
        self.send_waiting(|batch| batch.due(Instant::now()));
    }

    /// Sends whatever deltas wait, at once.
    pub fn flush(&self) {
        self.send_waiting(DeltaBatch::take);
    }

    fn send_waiting(&self, take: impl FnOnce(&mut DeltaBatch) -> Option<TurnEvent>) {
        if let (Some(sender), Some(batch)) = (&self.sender, &self.batch) {
            let mut batch = batch.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(event) = take(&mut batch) {
                let _ = sender.send(event);
            }
        }
    }

    /// For a batched sink, a task that sends waiting deltas once they are due, so a provider
    /// that pauses mid-reply does not hold text back; it stops when the returned guard drops.
    /// `None` for an unbatched sink. Needs a tokio runtime.
    pub fn spawn_ticker(&self, interval: Duration) -> Option<Ticker> {
        self.batch.as_ref()?;
        let sink = self.clone();
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                sink.send_due();
            }
        });
        Some(Ticker(task))
    }
}

/// Stops a batched sink's ticker when dropped.
#[derive(Debug)]
pub struct Ticker(tokio::task::JoinHandle<()>);

impl Drop for Ticker {
    fn drop(&mut self) {
        self.0.abort();
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
            tool_call_id: request.call_id.clone(),
        });
    }

    fn approval_resolved(&self, call_id: &str, allowed: bool) {
        self.emit(TurnEvent::ApprovalResolved {
            tool_call_id: call_id.to_owned(),
            allowed,
        });
    }

    fn progress(&self, call_id: &str, progress: &CallProgress) {
        self.emit(TurnEvent::ToolProgress {
            id: call_id.to_owned(),
            progress: progress.clone(),
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gantry_tools::{Decider, Decision, DecisionKind, ObservationKind};
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
                TurnEvent::ToolProgress {
                    id: "c3".into(),
                    progress: CallProgress {
                        progress: 2.0,
                        total: Some(5.0),
                        message: Some("indexing".into()),
                    },
                },
                json!({"type": "tool_progress", "id": "c3",
                    "progress": {"progress": 2.0, "total": 5.0, "message": "indexing"}}),
            ),
            (
                TurnEvent::ApprovalRequested {
                    tool_call_id: "c2".into(),
                },
                json!({"type": "approval_requested", "toolCallId": "c2"}),
            ),
        ];
        for (event, expected) in cases {
            let value = serde_json::to_value(&event).unwrap();
            assert_eq!(value, expected);
            assert_eq!(serde_json::from_value::<TurnEvent>(value).unwrap(), event);
        }
    }
}
