//! The script: what the provider answers, turn by turn.
//!
//! These types are the JSON format of `--script FILE.json` and, with their builders, the Rust
//! API of the library. They describe *what* a reply contains (text, reasoning, tool-call deltas,
//! faults); the `wire` module decides *how* it looks on the wire (SSE chunks or one JSON body),
//! based on the request that consumes the turn.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, StatusCode};
use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Error;
use crate::expect::Expect;

/// The model ids `GET /v1/models` lists when a script names none.
pub const DEFAULT_MODEL: &str = "scripted-model";

/// Longest text delta [`Completion::text`] produces, in characters.
const TEXT_PIECE_CHARS: usize = 4;
/// Longest argument fragment [`Completion::tool_calls`] produces, in characters.
const ARGUMENT_PIECE_CHARS: usize = 7;

/// A whole script: the models to list and the ordered turns to play.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Model ids listed by `GET /v1/models`.
    #[serde(default = "default_models")]
    pub models: Vec<String>,
    /// The `created` timestamp put in every completion and chunk; the current time when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u32>,
    /// The turns, consumed one per `POST /v1/chat/completions`, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// Other endpoints a server of some kind answers, by `"METHOD /path"` (`"GET /props"`,
    /// `"POST /api/show"`), each with the JSON body it answers (status 200). A route can also
    /// replace `GET /v1/models` (vLLM's list carries `max_model_len`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub routes: BTreeMap<String, serde_json::Value>,
}

fn default_models() -> Vec<String> {
    vec![DEFAULT_MODEL.to_owned()]
}

impl Default for Script {
    fn default() -> Self {
        Self {
            models: default_models(),
            created: None,
            turns: Vec::new(),
            routes: BTreeMap::new(),
        }
    }
}

impl Script {
    /// A script playing `turns` in order, listing the default model.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        Self {
            turns: turns.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Parses and validates a script written in the JSON format.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let script: Self = serde_json::from_str(text).map_err(Error::ScriptJson)?;
        script.validate()?;
        Ok(script)
    }

    /// Appends one turn.
    pub fn turn(mut self, turn: impl Into<Turn>) -> Self {
        self.turns.push(turn.into());
        self
    }

    /// Replaces the model ids listed by `GET /v1/models`.
    pub fn models(mut self, models: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.models = models.into_iter().map(Into::into).collect();
        self
    }

    /// Answers `method_and_path` (`"GET /props"`) with `body`.
    pub fn route(mut self, method_and_path: impl Into<String>, body: serde_json::Value) -> Self {
        self.routes.insert(method_and_path.into(), body);
        self
    }

    /// Fixes the `created` timestamp of every completion and chunk (for byte-exact tests).
    pub fn created(mut self, created: u32) -> Self {
        self.created = Some(created);
        self
    }

    /// Checks every turn; see [`Turn::validate`].
    pub fn validate(&self) -> Result<(), Error> {
        self.turns.iter().enumerate().try_for_each(|(index, turn)| {
            turn.validate()
                .map_err(|problem| Error::InvalidScript(format!("turn {index}: {problem}")))
        })
    }
}

/// One scripted answer to one chat-completion request, with optional checks on that request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Checks on the request that consumes this turn. A failed check is answered with a 500
    /// naming the mismatch, recorded, and leaves the turn in place.
    #[serde(default, skip_serializing_if = "Expect::is_empty")]
    pub expect: Expect,
    /// What to answer.
    pub reply: Reply,
}

/// What a turn answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Reply {
    /// A model answer: streamed as SSE chunks when the request says `"stream": true`, one JSON
    /// `chat.completion` body otherwise.
    Completion(Completion),
    /// An HTTP error status with a body in OpenAI's error shape.
    Error(ErrorReply),
}

impl Turn {
    /// A turn answering with `reply`, checking nothing.
    pub fn new(reply: Reply) -> Self {
        Self {
            expect: Expect::default(),
            reply,
        }
    }

    /// A completion whose text is `text`, split into several small deltas, finishing with `stop`.
    pub fn text(text: &str) -> Self {
        Completion::new().text(text).into()
    }

    /// A completion calling `calls` (indices 0, 1, ... in order), each streamed as a first chunk
    /// (id, type, name, empty arguments) followed by argument fragments, finishing with
    /// `tool_calls`.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Completion::new().tool_calls(calls).into()
    }

    /// A completion calling `calls` as Ollama streams parallel calls: each call whole in one
    /// chunk, every one of them with `index: 0`.
    pub fn tool_calls_at_index_zero(calls: Vec<ToolCall>) -> Self {
        Completion::new().tool_calls_at_index_zero(calls).into()
    }

    /// Like [`Turn::tool_calls`], but the calls' chunks alternate by index.
    pub fn tool_calls_interleaved(calls: Vec<ToolCall>) -> Self {
        Completion::new().tool_calls_interleaved(calls).into()
    }

    /// An HTTP error with `status` and `message` (type derived from the status).
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        ErrorReply::new(status, message).into()
    }

    /// A 429 rate-limit error carrying `Retry-After: retry_after_secs`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        ErrorReply::rate_limited(retry_after_secs).into()
    }

    /// Sends the response headers, then nothing until the client gives up (or the provider
    /// shuts down).
    pub fn hang() -> Self {
        Completion::new().event(Event::Hang).into()
    }

    /// Sets the checks on the request that consumes this turn.
    pub fn expect(mut self, expect: Expect) -> Self {
        self.expect = expect;
        self
    }

    /// Checks that the turn can be played: stream endings (`cut`, `eof`, `hang`) only last,
    /// error statuses in 400..=599 with valid header names and values.
    pub fn validate(&self) -> Result<(), String> {
        match &self.reply {
            Reply::Completion(completion) => completion.validate(),
            Reply::Error(error) => error.validate(),
        }
    }
}

impl From<Completion> for Turn {
    fn from(completion: Completion) -> Self {
        Self::new(Reply::Completion(completion))
    }
}

impl From<ErrorReply> for Turn {
    fn from(error: ErrorReply) -> Self {
        Self::new(Reply::Error(error))
    }
}

/// A model answer as an ordered list of events; each content event becomes one SSE chunk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Completion {
    /// The events, in order. Without a `finish` event (and unless the stream ends with `cut`,
    /// `eof` or `hang`) a final chunk with finish reason `tool_calls` (if any tool call was
    /// sent) or `stop` is added.
    #[serde(default)]
    pub events: Vec<Event>,
    /// Token usage: sent as a last chunk with `"choices": []` when the request asks
    /// `stream_options.include_usage`, and in every non-streamed body. Estimated (about four
    /// characters a token) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A pause before every chunk (and before `data: [DONE]`), in milliseconds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chunk_delay_ms: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Completion {
    /// An empty completion (it still finishes with `stop`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `text` as several small content deltas.
    pub fn text(mut self, text: &str) -> Self {
        self.events
            .extend(split_text(text).into_iter().map(Event::Text));
        self
    }

    /// Appends `text` as several small `reasoning_content` deltas.
    pub fn reasoning(mut self, text: &str) -> Self {
        self.events
            .extend(split_text(text).into_iter().map(Event::Reasoning));
        self
    }

    /// Appends `calls` one after the other; indices continue after any call already present.
    pub fn tool_calls(mut self, calls: Vec<ToolCall>) -> Self {
        let first = self.next_tool_index();
        for (offset, call) in (0u32..).zip(calls) {
            self.events.extend(call.deltas(first + offset));
        }
        self
    }

    /// Appends `calls` each whole in one chunk, all with `index: 0` (Ollama's way).
    pub fn tool_calls_at_index_zero(mut self, calls: Vec<ToolCall>) -> Self {
        for call in calls {
            self.events.push(Event::ToolCall(ToolCallDelta {
                index: 0,
                id: Some(call.id),
                name: Some(call.name),
                arguments: Some(call.arguments),
                extra: call.extra,
            }));
        }
        self
    }

    /// Appends `calls` with their chunks alternating by index (first chunks in order, then
    /// one argument fragment of each call in turn), as a provider streaming parallel calls may.
    pub fn tool_calls_interleaved(mut self, calls: Vec<ToolCall>) -> Self {
        let first = self.next_tool_index();
        let mut per_call: Vec<std::vec::IntoIter<Event>> = (0u32..)
            .zip(calls)
            .map(|(offset, call)| call.deltas(first + offset).into_iter())
            .collect();
        loop {
            let mut progressed = false;
            for deltas in &mut per_call {
                if let Some(event) = deltas.next() {
                    self.events.push(event);
                    progressed = true;
                }
            }
            if !progressed {
                break;
            }
        }
        self
    }

    /// Appends one event as it is.
    pub fn event(mut self, event: Event) -> Self {
        self.events.push(event);
        self
    }

    /// Appends an explicit finish chunk.
    pub fn finish(self, reason: FinishReason) -> Self {
        self.event(Event::Finish(reason))
    }

    /// Sets the reported token usage.
    pub fn usage(mut self, prompt_tokens: u32, completion_tokens: u32) -> Self {
        self.usage = Some(Usage {
            prompt_tokens,
            completion_tokens,
        });
        self
    }

    /// Pauses `delay` before every chunk: a slow stream.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay_ms = duration_ms(delay);
        self
    }

    /// Appends a one-off pause.
    pub fn delay(self, delay: Duration) -> Self {
        self.event(Event::DelayMs(duration_ms(delay)))
    }

    /// Keeps the first `chunks` chunks, then breaks the connection (no `[DONE]`).
    pub fn cut_after(self, chunks: usize) -> Self {
        self.truncate_then(chunks, Event::Cut)
    }

    /// Keeps the first `chunks` chunks, then ends the body cleanly without `[DONE]`.
    pub fn eof_after(self, chunks: usize) -> Self {
        self.truncate_then(chunks, Event::Eof)
    }

    /// Keeps the first `chunks` chunks, then sends nothing more until the client gives up.
    pub fn hang_after(self, chunks: usize) -> Self {
        self.truncate_then(chunks, Event::Hang)
    }

    /// Inserts a `data:` line carrying `raw` (meant to be invalid JSON) after the first
    /// `chunks` chunks; the rest of the stream follows as scripted.
    pub fn malformed_after(mut self, chunks: usize, raw: impl Into<String>) -> Self {
        let at = self.position_after_chunks(chunks);
        self.events.insert(at, Event::Malformed(raw.into()));
        self
    }

    fn truncate_then(mut self, chunks: usize, ending: Event) -> Self {
        let at = self.position_after_chunks(chunks);
        self.events.truncate(at);
        self.events.push(ending);
        self
    }

    /// Index in `events` just after the `chunks`-th chunk-producing event.
    fn position_after_chunks(&self, chunks: usize) -> usize {
        if chunks == 0 {
            return 0;
        }
        let mut seen = 0;
        for (index, event) in self.events.iter().enumerate() {
            if event.is_chunk() {
                seen += 1;
                if seen == chunks {
                    return index + 1;
                }
            }
        }
        self.events.len()
    }

    fn next_tool_index(&self) -> u32 {
        self.events
            .iter()
            .filter_map(|event| match event {
                Event::ToolCall(delta) => Some(delta.index + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    fn validate(&self) -> Result<(), String> {
        let last = self.events.len().saturating_sub(1);
        match self
            .events
            .iter()
            .enumerate()
            .find(|(index, event)| event.is_ending() && *index != last)
        {
            Some((index, event)) => Err(format!(
                "event {index} ({}) ends the stream but is not the last event",
                event.kind()
            )),
            None => Ok(()),
        }
    }

    /// The finish reason the reply ends with: the explicit one, else inferred.
    pub fn finish_reason(&self) -> FinishReason {
        self.events
            .iter()
            .rev()
            .find_map(|event| match event {
                Event::Finish(reason) => Some(*reason),
                _ => None,
            })
            .unwrap_or_else(|| {
                if self.events.iter().any(|e| matches!(e, Event::ToolCall(_))) {
                    FinishReason::ToolCalls
                } else {
                    FinishReason::Stop
                }
            })
    }
}

fn duration_ms(delay: Duration) -> u64 {
    u64::try_from(delay.as_millis()).unwrap_or(u64::MAX)
}

/// One step of a completion.
///
/// In JSON each event is an object with one key (`{"text": "Hel"}`,
/// `{"tool_call": {"index": 0, "arguments": "{\"pa"}}`, `{"delay_ms": 50}`), or one of the
/// strings `"cut"`, `"eof"`, `"hang"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A content delta (`delta.content`).
    Text(String),
    /// A reasoning delta (`delta.reasoning_content`, as DeepSeek and others send).
    Reasoning(String),
    /// A tool-call delta (`delta.tool_calls[0]`).
    ToolCall(ToolCallDelta),
    /// A chunk with an empty delta and this `finish_reason`.
    Finish(FinishReason),
    /// A pause, in milliseconds.
    DelayMs(u64),
    /// A `data:` line carrying this text verbatim (meant to be invalid JSON).
    Malformed(String),
    /// Bytes written to the stream verbatim (an SSE comment, an `event:` line, ...).
    Raw(String),
    /// Breaks the connection here: the body ends with an error, no `[DONE]`.
    Cut,
    /// Ends the body cleanly here, without a finish chunk or `[DONE]`.
    Eof,
    /// Sends nothing more; the response stays open until the client gives up.
    Hang,
}

impl Event {
    /// Whether the event is sent as one SSE `data:` line (what `cut_after` counts).
    pub fn is_chunk(&self) -> bool {
        matches!(
            self,
            Self::Text(_)
                | Self::Reasoning(_)
                | Self::ToolCall(_)
                | Self::Finish(_)
                | Self::Malformed(_)
        )
    }

    /// Whether the event ends the response.
    pub fn is_ending(&self) -> bool {
        matches!(self, Self::Cut | Self::Eof | Self::Hang)
    }

    fn kind(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Reasoning(_) => "reasoning",
            Self::ToolCall(_) => "tool_call",
            Self::Finish(_) => "finish",
            Self::DelayMs(_) => "delay_ms",
            Self::Malformed(_) => "malformed",
            Self::Raw(_) => "raw",
            Self::Cut => "cut",
            Self::Eof => "eof",
            Self::Hang => "hang",
        }
    }
}

/// One streamed fragment of a tool call, addressed by `index` as OpenAI does.
///
/// The first fragment of a call carries `id` and `name` (and is sent with `"type": "function"`
/// and `arguments` defaulting to `""`); later ones carry only `index` and an `arguments` piece.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallDelta {
    /// Which call of the message this fragment belongs to.
    pub index: u32,
    /// The call id; present on a call's first fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function name; present on a call's first fragment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A piece of the arguments text. In JSON scripts a non-string value is accepted and sent
    /// as its compact JSON text.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "string_or_json"
    )]
    pub arguments: Option<String>,
    /// More fields of the call object, sent beside `index`, `id`, `type` and `function`
    /// (Gemini's `{"extra_content": {"google": {"thought_signature": "…"}}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Map<String, serde_json::Value>>,
}

fn string_or_json<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match serde_json::Value::deserialize(deserializer)? {
        serde_json::Value::Null => None,
        serde_json::Value::String(text) => Some(text),
        other => Some(other.to_string()),
    })
}

/// A whole tool call, for the builders that split it into deltas.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call id (`call_1`).
    pub id: String,
    /// The function name.
    pub name: String,
    /// The complete arguments text.
    pub arguments: String,
    /// More fields of the call object, sent with its first chunk (see [`ToolCallDelta::extra`]).
    pub extra: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ToolCall {
    /// A call whose arguments are `arguments` as compact JSON.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: serde_json::Value,
    ) -> Self {
        Self::raw(id, name, arguments.to_string())
    }

    /// A call whose arguments are `arguments` verbatim (which need not be valid JSON).
    pub fn raw(
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

    /// The same call carrying `extra` fields (a JSON object) beside the standard ones.
    pub fn with_extra(mut self, extra: serde_json::Value) -> Self {
        self.extra = match extra {
            serde_json::Value::Object(fields) => Some(fields),
            _ => None,
        };
        self
    }

    /// The call as OpenAI streams it: a first delta with id, name and empty arguments, then
    /// argument fragments carrying only the index.
    pub fn deltas(&self, index: u32) -> Vec<Event> {
        let head = Event::ToolCall(ToolCallDelta {
            index,
            id: Some(self.id.clone()),
            name: Some(self.name.clone()),
            arguments: Some(String::new()),
            extra: self.extra.clone(),
        });
        std::iter::once(head)
            .chain(
                split_chars(&self.arguments, ARGUMENT_PIECE_CHARS)
                    .into_iter()
                    .map(|piece| {
                        Event::ToolCall(ToolCallDelta {
                            index,
                            id: None,
                            name: None,
                            arguments: Some(piece),
                            extra: None,
                        })
                    }),
            )
            .collect()
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The model called tools.
    ToolCalls,
    /// The token limit was reached.
    Length,
    /// Content was withheld by a filter.
    ContentFilter,
}

/// Token usage of one completion; `total_tokens` is their sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Tokens of the request.
    pub prompt_tokens: u32,
    /// Tokens of the answer.
    pub completion_tokens: u32,
}

/// An HTTP error answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorReply {
    /// The status code, 400..=599.
    pub status: u16,
    /// Extra response headers (`{"Retry-After": "1"}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// `error.message`.
    pub message: String,
    /// `error.type`; derived from the status when absent (`rate_limit_error` for 429, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// `error.code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// A raw body sent instead of the JSON error object (e.g. an HTML page from a proxy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

impl ErrorReply {
    /// An error with `status` and `message`.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            headers: BTreeMap::new(),
            message: message.into(),
            error_type: None,
            code: None,
            body: None,
        }
    }

    /// A 429 `rate_limit_exceeded` error with `Retry-After: retry_after_secs`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::new(429, "Rate limit reached for requests (scripted)")
            .code("rate_limit_exceeded")
            .header("Retry-After", retry_after_secs.to_string())
    }

    /// Adds a response header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Sets `error.type`.
    pub fn error_type(mut self, error_type: impl Into<String>) -> Self {
        self.error_type = Some(error_type.into());
        self
    }

    /// Sets `error.code`.
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Sends `body` verbatim instead of the JSON error object.
    pub fn raw_body(mut self, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self
    }

    /// `error.type`: the scripted one, else one derived from the status.
    pub fn effective_type(&self) -> String {
        if let Some(error_type) = &self.error_type {
            return error_type.clone();
        }
        match self.status {
            401 => "authentication_error",
            403 => "permission_error",
            404 => "not_found_error",
            429 => "rate_limit_error",
            500..=599 => "server_error",
            _ => "invalid_request_error",
        }
        .to_owned()
    }

    fn validate(&self) -> Result<(), String> {
        if !(400..=599).contains(&self.status) || StatusCode::from_u16(self.status).is_err() {
            return Err(format!("error status {} is not in 400..=599", self.status));
        }
        for (name, value) in &self.headers {
            HeaderName::try_from(name.as_str())
                .map_err(|_| format!("invalid header name {name:?}"))?;
            HeaderValue::try_from(value.as_str())
                .map_err(|_| format!("invalid value for header {name:?}"))?;
        }
        Ok(())
    }
}

/// Splits text into small pieces: a new piece starts at each whitespace run after a word, and
/// long words are cut every few characters, so "hello world" streams as several deltas.
fn split_text(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut current_chars = 0;
    let mut previous_was_space = false;
    for ch in text.chars() {
        let starts_word_gap = ch.is_whitespace() && !previous_was_space && current_chars > 0;
        if starts_word_gap || current_chars == TEXT_PIECE_CHARS {
            pieces.push(std::mem::take(&mut current));
            current_chars = 0;
        }
        current.push(ch);
        current_chars += 1;
        previous_was_space = ch.is_whitespace();
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Splits text every `size` characters (never inside a UTF-8 sequence).
fn split_chars(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|piece| piece.iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_split_into_several_deltas_that_reassemble() {
        let pieces = split_text("hello wonderful world");
        assert!(pieces.len() > 3, "{pieces:?}");
        assert_eq!(pieces.concat(), "hello wonderful world");
        assert_eq!(split_text("héllo").concat(), "héllo");
        assert!(split_text("").is_empty());
    }

    #[test]
    fn tool_call_deltas_follow_openai_shape() {
        let deltas = ToolCall::new("call_1", "read_file", json!({"path": "src/main.rs"})).deltas(2);
        let Event::ToolCall(head) = &deltas[0] else {
            panic!("first delta is not a tool call: {deltas:?}");
        };
        assert_eq!(head.index, 2);
        assert_eq!(head.id.as_deref(), Some("call_1"));
        assert_eq!(head.name.as_deref(), Some("read_file"));
        assert_eq!(head.arguments.as_deref(), Some(""));
        let mut arguments = String::new();
        for delta in &deltas[1..] {
            let Event::ToolCall(delta) = delta else {
                panic!("not a tool call delta: {delta:?}");
            };
            assert_eq!((delta.index, &delta.id, &delta.name), (2, &None, &None));
            arguments.push_str(delta.arguments.as_deref().unwrap_or_default());
        }
        assert!(deltas.len() > 2);
        assert_eq!(arguments, r#"{"path":"src/main.rs"}"#);
    }

    #[test]
    fn interleaving_alternates_indices_and_keeps_each_call_whole() {
        let completion = Completion::new().tool_calls_interleaved(vec![
            ToolCall::new("a", "one", json!({"x": "aaaaaaaaaaaaaaaa"})),
            ToolCall::new("b", "two", json!({"y": "bbbbbbbbbbbbbbbb"})),
        ]);
        let indices: Vec<u32> = completion
            .events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall(d) => Some(d.index),
                _ => None,
            })
            .collect();
        assert_eq!(&indices[..4], &[0, 1, 0, 1]);
        assert_eq!(completion.finish_reason(), FinishReason::ToolCalls);
    }

    #[test]
    fn later_tool_calls_continue_the_indices() {
        let completion = Completion::new()
            .tool_calls(vec![ToolCall::new("a", "one", json!({}))])
            .tool_calls(vec![ToolCall::new("b", "two", json!({}))]);
        assert_eq!(completion.next_tool_index(), 2);
    }

    #[test]
    fn cut_after_counts_chunks_and_ends_the_stream() {
        let completion = Completion::new()
            .text("one two three four")
            .delay(Duration::from_millis(5))
            .cut_after(2);
        assert_eq!(completion.events.iter().filter(|e| e.is_chunk()).count(), 2);
        assert_eq!(completion.events.last(), Some(&Event::Cut));
        assert!(completion.validate().is_ok());
    }

    #[test]
    fn malformed_after_inserts_without_truncating() {
        let text = Completion::new().text("one two three");
        let before = text.events.len();
        let completion = text.malformed_after(1, "{oops");
        assert_eq!(completion.events[1], Event::Malformed("{oops".into()));
        assert_eq!(completion.events.len(), before + 1);
    }

    #[test]
    fn endings_must_be_last() {
        let completion = Completion::new().event(Event::Hang).text("late");
        let problem = Turn::from(completion).validate();
        assert!(problem.is_err_and(|p| p.contains("hang")));
    }

    #[test]
    fn error_status_and_headers_are_validated() {
        assert!(Turn::error(200, "no").validate().is_err());
        assert!(Turn::error(503, "busy").validate().is_ok());
        let bad_header = ErrorReply::new(429, "x").header("Bad Header", "1");
        assert!(Turn::from(bad_header).validate().is_err());
    }

    #[test]
    fn json_format_round_trips_and_accepts_shorthands() {
        let text = r#"{
            "models": ["m1", "m2"],
            "turns": [
                {"expect": {"last_role": "user", "tools_include": ["read_file"]},
                 "reply": {"type": "completion", "events": [
                    {"reasoning": "Look first."},
                    {"tool_call": {"index": 0, "id": "call_1", "name": "read_file"}},
                    {"tool_call": {"index": 0, "arguments": {"path": "a.txt"}}},
                    {"delay_ms": 10},
                    "cut"
                 ], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}},
                {"reply": {"type": "error", "status": 429, "message": "slow down",
                           "headers": {"Retry-After": "1"}}}
            ]
        }"#;
        let script = Script::from_json(text).unwrap();
        assert_eq!(script.models, ["m1", "m2"]);
        let Reply::Completion(completion) = &script.turns[0].reply else {
            panic!("first turn is not a completion");
        };
        assert_eq!(
            completion.events[2],
            Event::ToolCall(ToolCallDelta {
                index: 0,
                id: None,
                name: None,
                arguments: Some(r#"{"path":"a.txt"}"#.into()),
                extra: None,
            })
        );
        assert_eq!(completion.events[4], Event::Cut);
        let again: Script = serde_json::from_str(&serde_json::to_string(&script).unwrap()).unwrap();
        assert_eq!(again, script);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let typo = r#"{"turns": [{"reply": {"type": "completion", "event": []}}]}"#;
        assert!(Script::from_json(typo).is_err());
        let typo =
            r#"{"turns": [{"expect": {"last_rol": "user"}, "reply": {"type": "completion"}}]}"#;
        assert!(Script::from_json(typo).is_err());
    }
}
