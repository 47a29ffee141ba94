//! The loop: one user message in, model calls and tool calls until the model answers.
//!
//! A turn saves the user's message, then repeats a **step**: send the system prompt, the
//! transcript (fitted into the context window) and the enabled tools' schemas; stream the reply,
//! reporting text and reasoning as they arrive; save the assistant message; dispatch its tool
//! calls through the [`gantry_tools::ToolManager`] (so policies, approvals and the audit log
//! apply) and save each result as a `tool` message. The turn ends when a reply calls no tools,
//! at the step limit, on cancellation, or when the provider fails for good.
//!
//! **Concurrency.** Calls of one reply whose tool is SAFE *and* whose policy is Auto cannot ask
//! the user or change anything, so consecutive runs of them are dispatched together (bounded by
//! [`crate::SessionOptions::max_parallel_tools`]); every other call runs alone, in order, so a
//! read after a write sees the write and approvals come one at a time. Results are saved in call
//! order whatever order they finish in; `tool_result` events are sent as they finish.
//!
//! **Cancellation.** The turn's token stops the stream (the connection is dropped) and any
//! running call (the manager withdraws a pending approval or drops the tool, and run_command
//! kills its process group). What was said is kept: partial text is saved with status
//! `cancelled`, and every call of the last reply gets a result, synthesised `[cancelled]` where
//! needed, so the transcript is valid for the next turn.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_openai::types::chat::ChatCompletionTools;
use futures::StreamExt;
use gantry_tools::{
    CallContext, Decision, Observation, ObservationKind, PermissionLevel, Policy, ToolManager,
};
use tokio_util::sync::CancellationToken;

use crate::batch::BATCH_INTERVAL;
use crate::compact::{CompactError, system_with_summary};
use crate::error::PersistError;
use crate::events::{EventSink, TurnEndReason, TurnEvent};
use crate::gauge::{ContextUsage, RequestShape, measure};
use crate::hook_context::with_hook_context;
use crate::instructions::InstructionUsage;
use crate::local::ServerWindow;
use crate::prompt::{PromptContext, system_prompt};
use crate::provider::{CallFailure, StreamSignal};
use crate::request::{ChatRequest, wire_messages};
use crate::session::Session;
use crate::stream::{AssembledReply, FinishReason, Piece};
use crate::transcript::{
    ContextBudget, Message, MessageStatus, TokenUsage, ToolCall, ToolOutcome, cancelled_result,
    estimate_tokens,
};

/// Tokens of one file read whole (about 200 lines), which a window must leave room for.
const FILE_ALLOWANCE_TOKENS: u32 = 2_500;
/// The least room a reply needs; a window without it cannot be used at all.
const MIN_REPLY_TOKENS: u32 = 512;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnOutcome {
    /// Why it ended.
    pub reason: TurnEndReason,
    /// Model calls made.
    pub steps: u32,
    /// The provider's token counts, summed over the turn's model calls.
    pub usage: TokenUsage,
    /// A sentence for the user when the reason needs one (step limit, error).
    pub message: Option<String>,
}

struct End {
    reason: TurnEndReason,
    message: Option<String>,
}

impl End {
    fn new(reason: TurnEndReason) -> Self {
        Self {
            reason,
            message: None,
        }
    }

    fn error(message: String) -> Self {
        Self {
            reason: TurnEndReason::Error,
            message: Some(message),
        }
    }
}

impl From<PersistError> for End {
    fn from(error: PersistError) -> Self {
        End::error(format!("the transcript could not be saved: {error}"))
    }
}

impl Session {
    /// Runs one turn for the user's `text`. Events go to `events` as they happen; the last one is
    /// always `turn_finished`. Cancelling `cancel` ends the turn promptly with reason
    /// `cancelled`. Never panics and never returns early without a `turn_finished`.
    pub async fn run_turn(
        &mut self,
        text: &str,
        cancel: &CancellationToken,
        events: impl Into<EventSink>,
    ) -> TurnOutcome {
        self.run_turn_with(Message::user(text), cancel, events)
            .await
    }

    /// Runs one turn for the user's `message` (its text and its attachments), as
    /// [`Session::run_turn`] does.
    pub async fn run_turn_with(
        &mut self,
        message: Message,
        cancel: &CancellationToken,
        events: impl Into<EventSink>,
    ) -> TurnOutcome {
        // Deltas reach the consumer at most once a frame; everything else in order, at once.
        let events = events.into().batched(BATCH_INTERVAL);
        let _ticker = events.spawn_ticker(BATCH_INTERVAL);
        events.emit(TurnEvent::TurnStarted {
            session_id: self.id().to_owned(),
        });
        let mut steps = 0;
        let mut usage = TokenUsage::default();
        let end = match self
            .turn_steps(message, cancel, &events, &mut steps, &mut usage)
            .await
        {
            Ok(end) | Err(end) => end,
        };
        if let (TurnEndReason::Error, Some(message)) = (end.reason, &end.message) {
            events.emit(TurnEvent::Error {
                message: message.clone(),
                fatal: true,
            });
        }
        events.emit(TurnEvent::TurnFinished {
            reason: end.reason,
            steps,
            message: end.message.clone(),
        });
        TurnOutcome {
            reason: end.reason,
            steps,
            usage,
            message: end.message,
        }
    }

    async fn turn_steps(
        &mut self,
        message: Message,
        cancel: &CancellationToken,
        events: &EventSink,
        steps: &mut u32,
        usage: &mut TokenUsage,
    ) -> Result<End, End> {
        // The user's message is saved whatever happens while the turn gets ready, but after a
        // compaction the threshold asked for, so the summary comes before it.
        let prepared = self.prepare_turn(&message.content, cancel, events).await;
        self.save(message).await?;
        let (mut system, window) = prepared?;

        for step in 1..=self.options.max_steps {
            if cancel.is_cancelled() {
                return Ok(End::new(TurnEndReason::Cancelled));
            }
            *steps = step;
            let request = self.build_request(&system, window, events)?;
            let mut on_signal = |signal: StreamSignal| {
                events.emit(match signal {
                    StreamSignal::Piece(Piece::Text(text)) => TurnEvent::TextDelta { text },
                    StreamSignal::Piece(Piece::Reasoning(text)) => {
                        TurnEvent::ReasoningDelta { text }
                    }
                    StreamSignal::Piece(Piece::CallProgress { index, name, bytes }) => {
                        TurnEvent::ToolCallStreaming {
                            index,
                            name,
                            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
                        }
                    }
                    StreamSignal::Retrying {
                        attempt,
                        max_retries,
                        delay,
                        reason,
                    } => TurnEvent::Retrying {
                        attempt,
                        max_retries,
                        delay_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                        reason,
                    },
                    StreamSignal::Malformed(message) | StreamSignal::Adapted(message) => {
                        TurnEvent::Error {
                            message,
                            fatal: false,
                        }
                    }
                });
            };
            let reply = match self
                .provider
                .stream_reply(&request, cancel, &mut on_signal)
                .await
            {
                Ok(reply) => reply,
                Err(CallFailure::Cancelled { partial }) => {
                    self.save_partial(partial, MessageStatus::Cancelled).await?;
                    return Ok(End::new(TurnEndReason::Cancelled));
                }
                Err(CallFailure::Failed { error, partial }) => {
                    self.save_partial(partial, MessageStatus::Error).await?;
                    return Ok(End::error(error.to_string()));
                }
            };

            if let Some(reply_usage) = reply.usage {
                usage.add(reply_usage);
                events.emit(TurnEvent::usage(reply_usage));
            }
            let calls = self.name_calls(reply.tool_calls);
            if calls.is_empty() && reply.finish_reason == Some(FinishReason::Length) {
                let message = match request.reply_limit() {
                    Some(limit) => format!(
                        "the reply was cut off at {limit} tokens, the most Gantry asks a local \
                         server for in one reply (the room it keeps for a reply in the window)"
                    ),
                    None => "the reply was cut off at the model's output token limit".to_owned(),
                };
                events.emit(TurnEvent::Error {
                    message,
                    fatal: false,
                });
            }
            let message = Message::assistant(reply.text, calls.clone())
                .with_reasoning(reply.reasoning)
                .with_usage(reply.usage);
            self.save(message).await?;
            if calls.is_empty() {
                return Ok(End::new(TurnEndReason::Completed));
            }
            let (finished, instructions_changed) = self.run_calls(&calls, cancel, events).await?;
            if !finished {
                return Ok(End::new(TurnEndReason::Cancelled));
            }
            if instructions_changed {
                // A folder's own instructions joined: the next request carries them.
                system = self.current_system(window).await;
            }
        }
        Ok(End {
            reason: TurnEndReason::StepLimit,
            message: Some(format!(
                "Stopped after {} model calls without a final answer (the step limit). Send \
                 another message to let the model continue.",
                self.options.max_steps
            )),
        })
    }

    /// The system prompt and the window for a turn about to send `text`, after compacting the
    /// session when the request would pass the threshold. Saves nothing but a summary.
    async fn prepare_turn(
        &mut self,
        text: &str,
        cancel: &CancellationToken,
        events: &EventSink,
    ) -> Result<(SystemPrompt, u32), End> {
        let server = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(End::new(TurnEndReason::Cancelled)),
            server = self.provider.server_window() => server,
        };
        let window = server.map_or(self.provider.config().context_window, |server| {
            server.tokens
        });
        let system = self.current_system(window).await;
        if let Some(server) = server {
            self.check_window(server, &system.text, events)?;
        }
        let usage = measure(&self.transcript, self.request_shape(&system.text, window));
        if self.needs_compaction(&usage, text) {
            match self.compact(cancel, events, true).await {
                Ok(_) => {}
                Err(CompactError::Cancelled) => return Err(End::new(TurnEndReason::Cancelled)),
                Err(error) => events.emit(TurnEvent::Error {
                    message: format!(
                        "{error}; the conversation goes on without a summary (old messages are \
                         shortened or left out to fit)"
                    ),
                    fatal: false,
                }),
            }
        }
        Ok((system, window))
    }

    /// The fixed parts of a request with `system` in `window`.
    fn request_shape(&self, system: &str, window: u32) -> RequestShape {
        let (_, tool_tokens) = self.offered_tools();
        RequestShape {
            window_tokens: window,
            system_tokens: estimate_tokens(system),
            tool_tokens,
            reply_reserve_tokens: self.options.reply_reserve_tokens.min(window / 2),
            compact_at_percent: self.options.compact_at_percent,
        }
    }

    /// The system prompt now (the instruction files read again, the skills' catalog for a
    /// window of `window` tokens), with its instruction parts' sizes.
    async fn current_system(&self, window: u32) -> SystemPrompt {
        let parts = if self.options.project_instructions {
            self.instructions.parts().await
        } else {
            Vec::new()
        };
        let instructions = parts.iter().map(InstructionUsage::of).collect();
        let mut context = PromptContext::gather(self.tools.root(), parts);
        context.skills = self.skill_catalog(window).await;
        SystemPrompt {
            text: with_hook_context(system_prompt(&context), &self.hook_context),
            instructions,
        }
    }

    /// How full the window would be with the next request (for a gauge between turns).
    pub async fn measure_context(&self) -> ContextUsage {
        let window = self
            .provider
            .server_window()
            .await
            .map_or(self.provider.config().context_window, |server| {
                server.tokens
            });
        let system = self.current_system(window).await;
        measure(&self.transcript, self.request_shape(&system.text, window))
            .with_instructions(system.instructions)
    }

    /// The catalog of the project's skills for a window of `window` tokens, when the `skill`
    /// tool is there to load them (not disabled); read again each turn.
    async fn skill_catalog(&self, window: u32) -> Option<String> {
        if !self
            .tools
            .callable_tool_names()
            .iter()
            .any(|name| name == "skill")
        {
            return None;
        }
        let shelf = Arc::clone(self.tools.skills());
        let skills = tokio::task::spawn_blocking(move || shelf.catalog())
            .await
            .ok()?;
        gantry_tools::skills::catalog_text(&skills, window)
    }

    /// The tool schemas offered now, and their estimated size in tokens.
    fn offered_tools(&self) -> (Vec<ChatCompletionTools>, u32) {
        let schemas = self.tools.enabled_openai_schemas();
        let schema_tokens = schemas
            .iter()
            .map(|schema| estimate_tokens(&schema.to_string()))
            .fold(0, u32::saturating_add);
        let tools = schemas
            .into_iter()
            .filter_map(|schema| match serde_json::from_value(schema) {
                Ok(tool) => Some(tool),
                Err(error) => {
                    tracing::warn!(%error, "a tool schema is not a Chat Completions tool; left out");
                    None
                }
            })
            .collect();
        (tools, schema_tokens)
    }

    /// Says, before anything is sent, when the server's window is smaller than a turn needs
    /// (the system prompt, the tool schemas, a file and a reply), with the fix; a window that
    /// cannot even hold the system prompt and the schemas ends the turn, since the server would
    /// silently cut them.
    fn check_window(
        &self,
        server: ServerWindow,
        system: &str,
        events: &EventSink,
    ) -> Result<(), End> {
        let (_, schema_tokens) = self.offered_tools();
        let fixed = estimate_tokens(system).saturating_add(schema_tokens);
        let needed = fixed
            .saturating_add(FILE_ALLOWANCE_TOKENS)
            .saturating_add(self.options.reply_reserve_tokens.min(4_096));
        if server.tokens >= needed {
            return Ok(());
        }
        let config = self.provider.config();
        let kind = config.server;
        let runs = if server.certain {
            format!(
                "{} runs {} with a {}-token context window",
                kind.label(),
                config.model,
                server.tokens
            )
        } else {
            format!(
                "{} will run {} with a {}-token context window (its default, unless the server \
                 is configured otherwise)",
                kind.label(),
                config.model,
                server.tokens
            )
        };
        let fix = kind.window_fix(needed);
        if server.certain && server.tokens < fixed.saturating_add(MIN_REPLY_TOKENS) {
            return Err(End::error(format!(
                "{runs}, but Gantry's instructions and tool descriptions alone take about {fixed} \
                 tokens, so nothing was sent (the server would cut them). Fix: {fix}."
            )));
        }
        events.emit(TurnEvent::Error {
            message: format!(
                "{runs}; Gantry needs about {needed} (instructions and tool descriptions {fixed}, \
                 one file, the reply), so long requests will be cut. Fix: {fix}."
            ),
            fatal: false,
        });
        Ok(())
    }

    /// The request for the next step: system prompt, fitted transcript, enabled tools.
    fn build_request(
        &self,
        system: &SystemPrompt,
        window: u32,
        events: &EventSink,
    ) -> Result<ChatRequest, End> {
        let (tools, schema_tokens) = self.offered_tools();
        let budget = ContextBudget {
            window_tokens: window,
            reply_reserve_tokens: self.options.reply_reserve_tokens.min(window / 2),
        };
        let summary = self.transcript.summary();
        let fixed = estimate_tokens(&system.text)
            .saturating_add(summary.map_or(0, estimate_tokens))
            .saturating_add(schema_tokens);
        let (messages, fit) = self.transcript.request_view(budget, fixed);
        let shape = RequestShape {
            window_tokens: window,
            system_tokens: estimate_tokens(&system.text),
            tool_tokens: schema_tokens,
            reply_reserve_tokens: budget.reply_reserve_tokens,
            compact_at_percent: self.options.compact_at_percent,
        };
        events.emit(TurnEvent::Context {
            usage: measure(&self.transcript, shape).with_instructions(system.instructions.clone()),
        });
        let system = system_with_summary(&system.text, summary);
        if fit.changed() {
            events.emit(TurnEvent::ContextShortened {
                shortened: fit.shortened,
                dropped: fit.dropped,
                estimated_tokens: fit.estimated_tokens,
                budget_tokens: fit.budget_tokens,
            });
        }
        let system = if fit.dropped > 0 {
            format!(
                "{system}\n({} earlier messages of this session were left out to fit the context \
                 window.)\n",
                fit.dropped
            )
        } else {
            system
        };
        let flags = self.provider.flags();
        let request = ChatRequest::new(
            &self.provider.config().model,
            wire_messages(&system, &messages, &flags),
            tools,
        )
        .map_err(|error| End::error(format!("the request could not be built: {error}")))?;
        Ok(request.with_reply_limit(self.provider.reply_limit(budget.reply_reserve_tokens)))
    }

    /// Gives every call an id unique in the session: some servers send none, and some number
    /// the calls of every reply from zero, which would make results ambiguous for a UI.
    fn name_calls(&self, calls: Vec<ToolCall>) -> Vec<ToolCall> {
        let ordinal = self.transcript.len();
        let mut seen: HashSet<String> = self
            .transcript
            .messages()
            .iter()
            .flat_map(|message| &message.tool_calls)
            .map(|call| call.id.clone())
            .collect();
        calls
            .into_iter()
            .enumerate()
            .map(|(index, mut call)| {
                if call.id.is_empty() || seen.contains(&call.id) {
                    call.id = format!("gantry_call_{ordinal}_{index}");
                }
                seen.insert(call.id.clone());
                call
            })
            .collect()
    }

    /// Keeps what a failed or cancelled reply had said (its text and reasoning; tool calls whose
    /// arguments may be incomplete are left out).
    async fn save_partial(
        &mut self,
        partial: AssembledReply,
        status: MessageStatus,
    ) -> Result<(), PersistError> {
        if partial.text.is_empty() && partial.reasoning.is_empty() {
            return Ok(());
        }
        let message = Message::assistant(partial.text, Vec::new())
            .with_reasoning(partial.reasoning)
            .with_status(status);
        self.save(message).await
    }

    /// Dispatches the calls of one reply and saves their results in call order. Returns false
    /// when the turn was cancelled (every call still has a saved result).
    async fn run_calls(
        &mut self,
        calls: &[ToolCall],
        cancel: &CancellationToken,
        events: &EventSink,
    ) -> Result<(bool, bool), PersistError> {
        let mut instructions_changed = false;
        let limit = self.options.max_parallel_tools.max(1);
        let mut index = 0;
        while index < calls.len() {
            if cancel.is_cancelled() {
                for call in &calls[index..] {
                    let message = cancelled_result(call);
                    let observation = never_ran(call, &message.content);
                    let level = self.tools.get(&call.name).map(|tool| tool.level());
                    let message = message.with_outcome(ToolOutcome::of(&observation, level));
                    events.emit(TurnEvent::ToolResult {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        observation,
                    });
                    self.save(message).await?;
                }
                return Ok((false, instructions_changed));
            }
            let end = if may_run_concurrently(&self.tools, &calls[index]) {
                index
                    + calls[index..]
                        .iter()
                        .take_while(|call| may_run_concurrently(&self.tools, call))
                        .count()
            } else {
                index + 1
            };
            // Each dispatch owns what it uses, so the stream's futures borrow nothing from the
            // closure (a borrowing closure makes the turn's future not `Send` for every
            // lifetime, and then it cannot be spawned).
            let tools = Arc::clone(&self.tools);
            let session = Arc::clone(&self.tool_session);
            let mut results = futures::stream::iter(calls[index..end].iter().cloned())
                .map(move |call| {
                    let context = CallContext::new(call.id.clone(), Arc::clone(&session))
                        .with_observer(Arc::new(events.clone()))
                        .with_cancel(cancel.clone());
                    dispatch(Arc::clone(&tools), call, context, events.clone())
                })
                .buffered(limit);
            while let Some((call, observation)) = results.next().await {
                let status = if observation.kind == ObservationKind::Cancelled {
                    MessageStatus::Cancelled
                } else {
                    MessageStatus::Complete
                };
                instructions_changed |= self.instructions.observed(&call, observation.kind);
                let level = self.tools.get(&call.name).map(|tool| tool.level());
                let outcome = ToolOutcome::of(&observation, level);
                self.save(
                    Message::tool(call.id.clone(), observation.text)
                        .with_status(status)
                        .with_outcome(outcome),
                )
                .await?;
            }
            index = end;
        }
        Ok((!cancel.is_cancelled(), instructions_changed))
    }
}

/// The system prompt of a request and the sizes of its instruction parts (for the gauge).
struct SystemPrompt {
    text: String,
    instructions: Vec<InstructionUsage>,
}

/// True when a call can neither ask the user nor change anything: a SAFE tool whose policy here
/// is Auto, and which does not talk to the user ([`gantry_tools::Tool::interactive`]).
fn may_run_concurrently(tools: &ToolManager, call: &ToolCall) -> bool {
    tools
        .get(&call.name)
        .is_some_and(|tool| tool.level() == PermissionLevel::Safe && !tool.interactive())
        && tools.policy(&call.name) == Ok(Policy::Auto)
}

/// Dispatches one call, reporting its start and its result.
async fn dispatch(
    tools: Arc<ToolManager>,
    call: ToolCall,
    context: CallContext,
    events: EventSink,
) -> (ToolCall, Observation) {
    events.emit(TurnEvent::ToolCallStarted {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
    });
    let observation = tools
        .dispatch(&call.name, call.arguments.as_str(), &context)
        .await;
    events.emit(TurnEvent::ToolResult {
        id: call.id.clone(),
        name: call.name.clone(),
        observation: observation.clone(),
    });
    (call, observation)
}

/// The observation reported for a call the turn was cancelled before dispatching.
fn never_ran(call: &ToolCall, text: &str) -> Observation {
    Observation {
        tool: call.name.clone(),
        text: text.to_owned(),
        kind: ObservationKind::Cancelled,
        decision: Decision::not_evaluated(),
        duration: Duration::ZERO,
        truncated: false,
        diff: None,
        sandbox: None,
    }
}
