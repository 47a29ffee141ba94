//! Assembling a streamed reply from its chunks.
//!
//! A streamed Chat Completions reply arrives as `chat.completion.chunk` objects whose deltas
//! carry pieces of the text, of the reasoning (`reasoning_content` from DeepSeek, vLLM and
//! llama.cpp; `reasoning` from OpenRouter and Ollama) and of the tool calls. Tool-call pieces are
//! addressed by `index`: a call's first piece carries its id and name, later ones only argument
//! fragments, and pieces of parallel calls may interleave. [`ReplyAssembler`] puts them back
//! together by index — except that a piece bringing a *new* id to an index that already holds a
//! call starts another call: Ollama streams parallel calls all with `index: 0`, each with its own
//! id, and merging them would make one call with invalid arguments. Fields of a call that are not
//! `index`, `id`, `type` or `function` (Gemini's `extra_content` with its thought signature) are
//! kept with the call, to be sent back unchanged.
//!
//! The chunk types are Gantry's own rather than async-openai's `CreateChatCompletionStreamResponse`
//! because that type has no reasoning field and rejects chunks that local servers send in looser
//! shapes (a missing `index`, unknown finish reasons, arguments sent as an object). Everything is
//! optional here; what matters is assembled, the rest ignored.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::text_calls::TextCallFilter;
use crate::transcript::{TokenUsage, ToolCall};

/// One `chat.completion.chunk` (only what the loop uses).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Chunk {
    /// The choices; Gantry asks for one and reads index 0.
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<ChunkChoice>,
    /// Token usage, on the last chunk when `stream_options.include_usage` is set.
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// An error the provider reports inside the stream (OpenRouter does).
    #[serde(default)]
    pub error: Option<Value>,
    /// Groq's extras, whose `usage` stands in for the standard one.
    #[serde(default)]
    pub x_groq: Option<GroqExtras>,
}

/// The `x_groq` object of Groq's last chunk.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct GroqExtras {
    /// Token usage of the completion.
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// One choice of a chunk.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChunkChoice {
    /// The choice's index.
    #[serde(default)]
    pub index: u32,
    /// What this chunk adds.
    #[serde(default, deserialize_with = "null_as_default")]
    pub delta: ChunkDelta,
    /// Set on the choice's last chunk.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// What one chunk adds to the reply.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ChunkDelta {
    /// A piece of the text.
    #[serde(default)]
    pub content: Option<String>,
    /// A piece of the reasoning (DeepSeek, vLLM, llama.cpp).
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// A piece of the reasoning (OpenRouter, Ollama).
    #[serde(default)]
    pub reasoning: Option<String>,
    /// A refusal, shown as text.
    #[serde(default)]
    pub refusal: Option<String>,
    /// Pieces of tool calls.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tool_calls: Vec<ToolCallPiece>,
}

/// A piece of one tool call.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ToolCallPiece {
    /// Which call of the reply this piece belongs to (some servers omit it).
    #[serde(default)]
    pub index: Option<u32>,
    /// The call id, on a call's first piece.
    #[serde(default)]
    pub id: Option<String>,
    /// `"function"` (read so that it is not kept as a provider field).
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The function name and an arguments fragment.
    #[serde(default)]
    pub function: Option<FunctionPiece>,
    /// Any other field the provider put on the call (`extra_content`), kept as sent.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// The function part of a tool-call piece.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FunctionPiece {
    /// The function name, on a call's first piece.
    #[serde(default)]
    pub name: Option<String>,
    /// An arguments fragment: a string, or (from some servers) a whole JSON value.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// Token usage as sent on the wire (every field optional).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct WireUsage {
    /// Tokens of the request.
    #[serde(default)]
    pub prompt_tokens: u32,
    /// Tokens of the reply.
    #[serde(default)]
    pub completion_tokens: u32,
    /// Their sum.
    #[serde(default)]
    pub total_tokens: Option<u32>,
}

impl From<WireUsage> for TokenUsage {
    fn from(usage: WireUsage) -> Self {
        Self {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage
                .total_tokens
                .unwrap_or_else(|| usage.prompt_tokens.saturating_add(usage.completion_tokens)),
        }
    }
}

fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The model called tools.
    ToolCalls,
    /// The output token limit was reached.
    Length,
    /// Content was withheld by a filter.
    ContentFilter,
    /// Anything else a server sends (`eos`, `function_call`, ...), as sent.
    Other(String),
}

impl FinishReason {
    fn parse(reason: &str) -> Self {
        match reason {
            "stop" => Self::Stop,
            "tool_calls" => Self::ToolCalls,
            "length" => Self::Length,
            "content_filter" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// A piece of the reply to show as it arrives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text for the user.
    Text(String),
    /// Reasoning, where the provider streams it.
    Reasoning(String),
    /// A tool call's arguments are arriving: how many bytes so far (a large write_file can take
    /// a while, and its JSON is not worth showing before it is whole).
    CallProgress {
        /// The call's position in the reply.
        index: u32,
        /// The tool's name, once known.
        name: String,
        /// Bytes of arguments received so far.
        bytes: usize,
    },
}

/// A reply put back together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssembledReply {
    /// The text.
    pub text: String,
    /// The reasoning (empty when none was sent).
    pub reasoning: String,
    /// The tool calls in index order. Ids may be empty when the server sent none.
    pub tool_calls: Vec<ToolCall>,
    /// The finish reason, when one arrived.
    pub finish_reason: Option<FinishReason>,
    /// Token usage, when reported.
    pub usage: Option<TokenUsage>,
}

#[derive(Debug, Default)]
struct PartialCall {
    /// The wire index it arrived under.
    index: u32,
    id: String,
    name: String,
    arguments: String,
    extra: serde_json::Map<String, Value>,
}

/// Collects chunks into a reply.
#[derive(Debug, Default)]
pub struct ReplyAssembler {
    text: String,
    reasoning: String,
    /// Calls in the order they started.
    calls: Vec<PartialCall>,
    /// The call each wire index currently continues (a position in `calls`).
    open: BTreeMap<u32, usize>,
    last_index: Option<u32>,
    finish_reason: Option<FinishReason>,
    usage: Option<TokenUsage>,
    /// Separates tool calls written as text from the answer, when asked.
    text_calls: Option<TextCallFilter>,
    /// Whether calls were found in the text.
    calls_from_text: bool,
}

impl ReplyAssembler {
    /// Nothing received yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Nothing received yet; tool calls to `tools` written in the text are recognised as calls
    /// and kept out of the text (see [`TextCallFilter`]).
    pub fn with_text_calls(tools: Vec<String>) -> Self {
        Self {
            text_calls: Some(TextCallFilter::new(tools)),
            ..Self::default()
        }
    }

    /// Adds one chunk; returns the text and reasoning pieces it carried, to show them.
    pub fn push(&mut self, chunk: Chunk) -> Vec<Piece> {
        if let Some(usage) = chunk
            .usage
            .or_else(|| chunk.x_groq.and_then(|extras| extras.usage))
        {
            self.usage = Some(usage.into());
        }
        let mut pieces = Vec::new();
        for choice in chunk.choices.into_iter().filter(|choice| choice.index == 0) {
            let delta = choice.delta;
            for reasoning in [delta.reasoning_content, delta.reasoning]
                .into_iter()
                .flatten()
            {
                if !reasoning.is_empty() {
                    self.reasoning.push_str(&reasoning);
                    pieces.push(Piece::Reasoning(reasoning));
                }
            }
            for text in [delta.content, delta.refusal].into_iter().flatten() {
                let shown = match &mut self.text_calls {
                    Some(filter) => filter.push(&text),
                    None => text,
                };
                if !shown.is_empty() {
                    self.text.push_str(&shown);
                    pieces.push(Piece::Text(shown));
                }
            }
            for piece in delta.tool_calls {
                let Some(position) = self.push_call_piece(piece) else {
                    continue;
                };
                if let Some(call) = self.calls.get(position) {
                    pieces.push(Piece::CallProgress {
                        index: u32::try_from(position).unwrap_or(u32::MAX),
                        name: call.name.clone(),
                        bytes: call.arguments.len(),
                    });
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_reason = Some(FinishReason::parse(&reason));
            }
        }
        pieces
    }

    /// Adds a piece to its call; returns the call's position in the reply.
    fn push_call_piece(&mut self, piece: ToolCallPiece) -> Option<usize> {
        let new_id = piece.id.as_deref().filter(|id| !id.is_empty());
        let open_id = |index: u32| {
            self.open
                .get(&index)
                .map(|&position| self.calls[position].id.as_str())
        };
        let index = match piece.index {
            Some(index) => index,
            // No index: a new id starts a new call; otherwise it continues the last one.
            None => match (new_id, self.last_index) {
                (Some(id), Some(last)) if open_id(last).is_some_and(|open| open != id) => last + 1,
                (_, Some(last)) => last,
                (_, None) => 0,
            },
        };
        self.last_index = Some(index);
        // A different id at an index that holds a call starts another call (Ollama numbers
        // every parallel call 0); the same id again, or none, continues it.
        let starts_new = match (open_id(index), new_id) {
            (None, _) => true,
            (Some(open), Some(id)) => !open.is_empty() && open != id,
            (Some(_), None) => false,
        };
        if starts_new {
            self.calls.push(PartialCall {
                index,
                ..PartialCall::default()
            });
            self.open.insert(index, self.calls.len() - 1);
        }
        let call = self
            .open
            .get(&index)
            .and_then(|&position| self.calls.get_mut(position))?;
        if let Some(id) = new_id {
            id.clone_into(&mut call.id);
        }
        call.extra.extend(piece.extra);
        if let Some(function) = piece.function {
            // Names normally come whole on the first piece; some servers repeat them on every
            // piece, a few stream them in fragments.
            if let Some(name) = function
                .name
                .filter(|name| !name.is_empty() && *name != call.name)
            {
                call.name.push_str(&name);
            }
            match function.arguments {
                Some(Value::String(fragment)) => call.arguments.push_str(&fragment),
                Some(Value::Null) | None => {}
                Some(whole) => call.arguments.push_str(&whole.to_string()),
            }
        }
        self.open.get(&index).copied()
    }

    /// The stream ended well: text held back as a possible call is released, or becomes the
    /// calls it wrote. Returns the text to show now.
    pub fn end_of_stream(&mut self) -> Vec<Piece> {
        let Some(filter) = &mut self.text_calls else {
            return Vec::new();
        };
        let rest = filter.end();
        let calls = filter.take_calls();
        let mut pieces = Vec::new();
        if !rest.is_empty() {
            self.text.push_str(&rest);
            pieces.push(Piece::Text(rest));
        }
        if !calls.is_empty() {
            self.calls_from_text = true;
            let first = self
                .calls
                .iter()
                .map(|call| call.index + 1)
                .max()
                .unwrap_or(0);
            for (index, call) in (first..).zip(calls) {
                tracing::debug!(tool = %call.name, "a tool call written as text");
                self.calls.push(PartialCall {
                    index,
                    id: call.id,
                    name: call.name,
                    arguments: call.arguments,
                    extra: serde_json::Map::new(),
                });
            }
            if matches!(self.finish_reason, None | Some(FinishReason::Stop)) {
                self.finish_reason = Some(FinishReason::ToolCalls);
            }
        }
        pieces
    }

    /// True once a finish reason arrived.
    pub fn is_finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// True when any tool-call piece arrived.
    pub fn has_tool_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The reasoning so far.
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// The reply as assembled so far (text held back as a possible call counts as text).
    pub fn finish(mut self) -> AssembledReply {
        if let Some(filter) = &self.text_calls {
            self.text.push_str(filter.held());
        }
        if self.calls_from_text {
            // What surrounded the calls was blank lines between them.
            self.text = self.text.trim().to_owned();
        }
        AssembledReply {
            text: self.text,
            reasoning: self.reasoning,
            tool_calls: {
                // Index order; calls sharing an index (Ollama) in the order they came.
                let mut calls = self.calls;
                calls.sort_by_key(|call| call.index);
                calls
                    .into_iter()
                    .map(|call| ToolCall {
                        id: call.id,
                        name: call.name,
                        arguments: call.arguments,
                        extra: (!call.extra.is_empty()).then_some(call.extra),
                    })
                    .collect()
            },
            finish_reason: self.finish_reason,
            usage: self.usage,
        }
    }
}

/// A whole (non-streamed) `chat.completion`, for servers that ignore `"stream": true`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Completion {
    /// The choices.
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<CompletionChoice>,
    /// Token usage.
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// One choice of a whole completion.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CompletionChoice {
    /// The message; read as a delta carrying everything at once.
    #[serde(default, deserialize_with = "null_as_default")]
    pub message: ChunkDelta,
    /// Why it stopped.
    #[serde(default)]
    pub finish_reason: Option<String>,
}

impl Completion {
    /// The completion as one chunk, so the assembler can read it.
    pub fn into_chunk(self) -> Chunk {
        Chunk {
            choices: self
                .choices
                .into_iter()
                .take(1)
                .map(|choice| ChunkChoice {
                    index: 0,
                    delta: ChunkDelta {
                        tool_calls: choice
                            .message
                            .tool_calls
                            .into_iter()
                            .enumerate()
                            .map(|(index, mut piece)| {
                                piece.index = u32::try_from(index).ok();
                                piece
                            })
                            .collect(),
                        ..choice.message
                    },
                    finish_reason: choice.finish_reason,
                })
                .collect(),
            usage: self.usage,
            error: None,
            x_groq: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn chunk(value: Value) -> Chunk {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_and_reasoning_pieces_are_collected_and_returned() {
        let mut assembler = ReplyAssembler::new();
        let pieces = assembler.push(chunk(json!({"choices": [{"index": 0, "delta": {"role": "assistant", "reasoning_content": "hm"}, "finish_reason": null}]})));
        assert_eq!(pieces, vec![Piece::Reasoning("hm".into())]);
        assembler.push(chunk(json!({"choices": [{"delta": {"reasoning": " ok"}}]})));
        assembler.push(chunk(json!({"choices": [{"delta": {"content": "Hel"}}]})));
        assembler.push(chunk(
            json!({"choices": [{"delta": {"content": "lo"}, "finish_reason": "stop"}]}),
        ));
        assembler.push(chunk(
            json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}),
        ));
        assert!(assembler.is_finished());
        let reply = assembler.finish();
        assert_eq!(reply.text, "Hello");
        assert_eq!(reply.reasoning, "hm ok");
        assert_eq!(reply.finish_reason, Some(FinishReason::Stop));
        assert_eq!(
            reply.usage,
            Some(TokenUsage {
                prompt_tokens: 3,
                completion_tokens: 2,
                total_tokens: 5
            })
        );
    }

    #[test]
    fn interleaved_tool_call_pieces_are_assembled_by_index() {
        let mut assembler = ReplyAssembler::new();
        let pieces = [
            json!({"index": 0, "id": "call_a", "type": "function", "function": {"name": "read", "arguments": ""}}),
            json!({"index": 1, "id": "call_b", "type": "function", "function": {"name": "grep", "arguments": ""}}),
            json!({"index": 0, "function": {"arguments": "{\"pa"}}),
            json!({"index": 1, "function": {"arguments": "{\"q\":"}}),
            json!({"index": 0, "function": {"arguments": "th\":1}"}}),
            json!({"index": 1, "function": {"arguments": "2}"}}),
        ];
        for piece in pieces {
            assembler.push(chunk(
                json!({"choices": [{"delta": {"tool_calls": [piece]}}]}),
            ));
        }
        assembler.push(chunk(
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
        ));
        let reply = assembler.finish();
        assert_eq!(
            reply.tool_calls,
            vec![
                ToolCall::new("call_a", "read", "{\"path\":1}"),
                ToolCall::new("call_b", "grep", "{\"q\":2}"),
            ]
        );
        assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn loose_shapes_from_local_servers_are_accepted() {
        let mut assembler = ReplyAssembler::new();
        // No index, arguments as an object, a null delta and an unknown finish reason.
        assembler.push(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"id": "x", "function": {"name": "read", "arguments": {"path": "a"}}},
            {"id": "y", "function": {"name": "list", "arguments": "{}"}}
        ]}}]})));
        assembler.push(chunk(
            json!({"choices": [{"delta": null, "finish_reason": "eos"}], "usage": null}),
        ));
        let reply = assembler.finish();
        assert_eq!(reply.tool_calls.len(), 2);
        assert_eq!(reply.tool_calls[0].arguments, r#"{"path":"a"}"#);
        assert_eq!(reply.tool_calls[1].id, "y");
        assert_eq!(reply.finish_reason, Some(FinishReason::Other("eos".into())));
    }

    #[test]
    fn a_new_id_on_an_index_in_use_starts_another_call() {
        // Ollama: every parallel call arrives whole under index 0, each with its own id.
        let mut assembler = ReplyAssembler::new();
        for (id, path) in [("call_x", "a.txt"), ("call_y", "b.txt")] {
            assembler.push(chunk(json!({"choices": [{"delta": {"tool_calls": [
                {"index": 0, "id": id, "type": "function",
                 "function": {"name": "read", "arguments": format!("{{\"path\":\"{path}\"}}")}}
            ]}}]})));
        }
        // The same id again continues its call.
        assembler.push(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "call_y", "function": {"arguments": ""}}
        ]}, "finish_reason": "tool_calls"}]})));
        let reply = assembler.finish();
        assert_eq!(
            reply.tool_calls,
            vec![
                ToolCall::new("call_x", "read", r#"{"path":"a.txt"}"#),
                ToolCall::new("call_y", "read", r#"{"path":"b.txt"}"#),
            ]
        );
    }

    #[test]
    fn provider_fields_of_a_call_are_kept_as_sent() {
        let mut assembler = ReplyAssembler::new();
        assembler.push(chunk(json!({"choices": [{"delta": {"tool_calls": [
            {"index": 0, "id": "c1", "type": "function",
             "function": {"name": "read", "arguments": "{}"},
             "extra_content": {"google": {"thought_signature": "sig=="}}}
        ]}}]})));
        let reply = assembler.finish();
        let extra = reply.tool_calls[0].extra.clone().unwrap();
        assert_eq!(
            Value::Object(extra),
            json!({"extra_content": {"google": {"thought_signature": "sig=="}}})
        );
    }

    #[test]
    fn a_whole_completion_reads_like_one_chunk() {
        let completion: Completion = serde_json::from_value(json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        }))
        .unwrap();
        let mut assembler = ReplyAssembler::new();
        assembler.push(completion.into_chunk());
        let reply = assembler.finish();
        assert_eq!(reply.text, "hi");
        assert_eq!(reply.tool_calls[0].id, "c1");
        assert_eq!(reply.finish_reason, Some(FinishReason::ToolCalls));
    }
}
