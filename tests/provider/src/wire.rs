//! OpenAI's wire format: SSE chunks, completion bodies, error bodies, the model list.
//!
//! Everything here is pure: a scripted [`Completion`] plus the request's context goes in, and
//! bytes (with the pauses and faults between them) come out. Field order is fixed by structs
//! rather than left to `serde_json`'s map ordering, so the bytes do not change with features
//! other crates turn on.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::body::Bytes;
use serde::Serialize;

use crate::script::{Completion, ErrorReply, Event, FinishReason, ToolCallDelta, Usage};

/// The last SSE event of a completed stream.
pub const DONE: &str = "data: [DONE]\n\n";

/// `owned_by` of every listed model.
const OWNER: &str = "gantry-scripted";

/// What a response is built against: taken from the request and the turn.
#[derive(Debug, Clone)]
pub struct Context {
    /// Completion id shared by every chunk.
    pub id: String,
    /// Unix seconds shared by every chunk.
    pub created: u32,
    /// The model echoed back (the request's).
    pub model: String,
    /// Whether the request asked `stream_options.include_usage`.
    pub include_usage: bool,
    /// Size of the request body, for the usage estimate.
    pub request_bytes: usize,
}

/// One step of sending a response body.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Wait before the next step.
    Pause(Duration),
    /// Send these bytes.
    Send(Bytes),
    /// Break the connection (the body ends with an error).
    Cut,
    /// Send nothing more until the client or the provider gives up.
    Hang,
}

/// Frames one SSE event: `data: {payload}\n\n`.
pub fn sse_event(payload: &str) -> Bytes {
    Bytes::from(format!("data: {payload}\n\n"))
}

/// The steps of a streamed (`"stream": true`) answer: one chunk per content event, the role on
/// the first delta, a finish chunk, a usage chunk when asked, then `data: [DONE]`.
pub fn stream_steps(completion: &Completion, context: &Context) -> Vec<Step> {
    let mut steps = Vec::new();
    let chunk_pause = Duration::from_millis(completion.chunk_delay_ms);
    let send_chunk = |steps: &mut Vec<Step>, bytes: Bytes| {
        if !chunk_pause.is_zero() {
            steps.push(Step::Pause(chunk_pause));
        }
        steps.push(Step::Send(bytes));
    };
    let mut role_sent = false;
    let mut finished = false;
    for event in &completion.events {
        let mut delta = Delta::default();
        let mut finish_reason = None;
        match event {
            Event::Text(text) => delta.content = Some(text),
            Event::Reasoning(text) => delta.reasoning_content = Some(text),
            Event::ToolCall(call) => delta.tool_calls = Some(vec![ToolCallChunk::from(call)]),
            Event::Finish(reason) => {
                finish_reason = Some(*reason);
                finished = true;
            }
            Event::DelayMs(ms) => {
                steps.push(Step::Pause(Duration::from_millis(*ms)));
                continue;
            }
            Event::Malformed(raw) => {
                send_chunk(&mut steps, sse_event(raw));
                continue;
            }
            Event::Raw(raw) => {
                steps.push(Step::Send(Bytes::from(raw.clone())));
                continue;
            }
            Event::Cut => {
                steps.push(Step::Cut);
                return steps;
            }
            Event::Eof => return steps,
            Event::Hang => {
                steps.push(Step::Hang);
                return steps;
            }
        }
        if !role_sent {
            delta.role = Some("assistant");
            role_sent = true;
        }
        send_chunk(&mut steps, chunk(context, delta, finish_reason));
    }
    if !finished {
        let delta = Delta {
            role: (!role_sent).then_some("assistant"),
            ..Delta::default()
        };
        send_chunk(
            &mut steps,
            chunk(context, delta, Some(completion.finish_reason())),
        );
    }
    if context.include_usage {
        let usage = usage_of(completion, context);
        let body = StreamChunk {
            id: &context.id,
            object: "chat.completion.chunk",
            created: context.created,
            model: &context.model,
            choices: Vec::new(),
            usage: Some(Some(usage)),
        };
        send_chunk(&mut steps, sse_event(&to_json(&body)));
    }
    send_chunk(&mut steps, Bytes::from_static(DONE.as_bytes()));
    steps
}

/// A non-streamed answer: how long to wait before the headers, then the body steps. The pause
/// adds up every scripted delay; `cut`/`eof` send half the body then break or end it; `hang`
/// sends nothing; a `malformed` event replaces the body with its text.
pub fn completion_steps(completion: &Completion, context: &Context) -> (Duration, Vec<Step>) {
    let chunks = completion.events.iter().filter(|e| e.is_chunk()).count();
    let delays: u64 = completion
        .events
        .iter()
        .map(|event| match event {
            Event::DelayMs(ms) => *ms,
            _ => 0,
        })
        .sum();
    let chunk_delays = completion
        .chunk_delay_ms
        .saturating_mul(u64::try_from(chunks).unwrap_or(u64::MAX));
    let pause = Duration::from_millis(delays.saturating_add(chunk_delays));

    let malformed = completion.events.iter().find_map(|event| match event {
        Event::Malformed(raw) => Some(raw.clone()),
        _ => None,
    });
    let body = match malformed {
        Some(raw) => Bytes::from(raw),
        None => Bytes::from(to_json(&completion_body(completion, context))),
    };
    let half = || Step::Send(body.slice(..body.len() / 2));
    let steps = match completion.events.last() {
        Some(Event::Cut) => vec![half(), Step::Cut],
        Some(Event::Eof) => vec![half()],
        Some(Event::Hang) => vec![Step::Hang],
        _ => vec![Step::Send(body.clone())],
    };
    (pause, steps)
}

/// The `chat.completion` object for a non-streamed request.
fn completion_body<'a>(completion: &'a Completion, context: &'a Context) -> CompletionBody<'a> {
    let content: String = completion
        .events
        .iter()
        .filter_map(|event| match event {
            Event::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let reasoning: String = completion
        .events
        .iter()
        .filter_map(|event| match event {
            Event::Reasoning(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let mut calls: BTreeMap<u32, AssembledCall> = BTreeMap::new();
    for event in &completion.events {
        if let Event::ToolCall(delta) = event {
            let call = calls.entry(delta.index).or_default();
            if let Some(id) = &delta.id {
                call.id.clone_from(id);
            }
            if let Some(name) = &delta.name {
                call.function.name.clone_from(name);
            }
            if let Some(arguments) = &delta.arguments {
                call.function.arguments.push_str(arguments);
            }
            if let Some(extra) = &delta.extra {
                call.extra.extend(extra.clone());
            }
        }
    }
    CompletionBody {
        id: &context.id,
        object: "chat.completion",
        created: context.created,
        model: &context.model,
        choices: vec![CompletionChoice {
            index: 0,
            message: Message {
                role: "assistant",
                content: (!content.is_empty() || calls.is_empty()).then_some(content),
                reasoning_content: (!reasoning.is_empty()).then_some(reasoning),
                tool_calls: calls.into_values().collect(),
                refusal: None,
            },
            logprobs: None,
            finish_reason: completion.finish_reason(),
        }],
        usage: usage_of(completion, context),
    }
}

/// The body of an error answer: the scripted raw body, or OpenAI's error object.
pub fn error_body(error: &ErrorReply) -> String {
    if let Some(body) = &error.body {
        return body.clone();
    }
    to_json(&ErrorEnvelope {
        error: ErrorObject {
            message: &error.message,
            r#type: error.effective_type(),
            param: None,
            code: error.code.as_deref(),
        },
    })
}

/// An OpenAI-shaped error body for the provider's own complaints.
pub fn provider_error_body(message: &str, error_type: &str, code: &str) -> String {
    to_json(&ErrorEnvelope {
        error: ErrorObject {
            message,
            r#type: error_type.to_owned(),
            param: None,
            code: Some(code),
        },
    })
}

/// The body of `GET /v1/models`.
pub fn models_body(models: &[String], created: u32) -> String {
    to_json(&ModelList {
        object: "list",
        data: models.iter().map(|id| model_object(id, created)).collect(),
    })
}

/// The body of `GET /v1/models/{id}`.
pub fn model_body(id: &str, created: u32) -> String {
    to_json(&model_object(id, created))
}

fn model_object(id: &str, created: u32) -> ModelObject<'_> {
    ModelObject {
        id,
        object: "model",
        created,
        owned_by: OWNER,
    }
}

fn chunk(context: &Context, delta: Delta<'_>, finish_reason: Option<FinishReason>) -> Bytes {
    let body = StreamChunk {
        id: &context.id,
        object: "chat.completion.chunk",
        created: context.created,
        model: &context.model,
        choices: vec![ChunkChoice {
            index: 0,
            delta,
            logprobs: None,
            finish_reason,
        }],
        usage: context.include_usage.then_some(None),
    };
    sse_event(&to_json(&body))
}

/// The scripted usage, or an estimate of about four characters a token.
fn usage_of(completion: &Completion, context: &Context) -> UsageObject {
    let usage = completion.usage.unwrap_or_else(|| {
        let chars: usize = completion
            .events
            .iter()
            .map(|event| match event {
                Event::Text(text) | Event::Reasoning(text) => text.chars().count(),
                Event::ToolCall(delta) => delta
                    .arguments
                    .as_deref()
                    .map_or(0, |arguments| arguments.chars().count()),
                _ => 0,
            })
            .sum();
        Usage {
            prompt_tokens: tokens(context.request_bytes),
            completion_tokens: tokens(chars).max(1),
        }
    });
    UsageObject {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        total_tokens: usage.prompt_tokens.saturating_add(usage.completion_tokens),
    }
}

fn tokens(chars: usize) -> u32 {
    u32::try_from(chars.div_ceil(4)).unwrap_or(u32::MAX)
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Serialising these plain structs (string keys, no maps with non-string keys) cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

#[derive(Serialize)]
struct StreamChunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u32,
    model: &'a str,
    choices: Vec<ChunkChoice<'a>>,
    /// Absent unless usage was asked for; then `null` on every chunk but the usage chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Option<UsageObject>>,
}

#[derive(Serialize)]
struct ChunkChoice<'a> {
    index: u32,
    delta: Delta<'a>,
    logprobs: Option<()>,
    finish_reason: Option<FinishReason>,
}

#[derive(Serialize, Default)]
struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ToolCallChunk<'a>>>,
}

#[derive(Serialize)]
struct ToolCallChunk<'a> {
    index: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    r#type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function: Option<FunctionChunk<'a>>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    extra: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

impl<'a> From<&'a ToolCallDelta> for ToolCallChunk<'a> {
    fn from(delta: &'a ToolCallDelta) -> Self {
        let starts_call = delta.id.is_some() || delta.name.is_some();
        let function = (delta.name.is_some() || delta.arguments.is_some()).then(|| FunctionChunk {
            name: delta.name.as_deref(),
            // OpenAI sends `"arguments": ""` with the name; keep that when the script omits it.
            arguments: delta
                .arguments
                .as_deref()
                .or(delta.name.as_ref().map(|_| "")),
        });
        Self {
            index: delta.index,
            id: delta.id.as_deref(),
            r#type: starts_call.then_some("function"),
            function,
            extra: delta.extra.as_ref(),
        }
    }
}

#[derive(Serialize)]
struct FunctionChunk<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a str>,
}

#[derive(Serialize)]
struct CompletionBody<'a> {
    id: &'a str,
    object: &'static str,
    created: u32,
    model: &'a str,
    choices: Vec<CompletionChoice>,
    usage: UsageObject,
}

#[derive(Serialize)]
struct CompletionChoice {
    index: u32,
    message: Message,
    logprobs: Option<()>,
    finish_reason: FinishReason,
}

#[derive(Serialize)]
struct Message {
    role: &'static str,
    content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<AssembledCall>,
    refusal: Option<String>,
}

#[derive(Serialize)]
struct AssembledCall {
    id: String,
    r#type: &'static str,
    function: AssembledFunction,
    #[serde(flatten)]
    extra: serde_json::Map<String, serde_json::Value>,
}

impl Default for AssembledCall {
    fn default() -> Self {
        Self {
            id: String::new(),
            r#type: "function",
            function: AssembledFunction::default(),
            extra: serde_json::Map::new(),
        }
    }
}

#[derive(Serialize, Default)]
struct AssembledFunction {
    name: String,
    arguments: String,
}

#[derive(Serialize)]
struct UsageObject {
    prompt_tokens: u32,
    completion_tokens: u32,
    total_tokens: u32,
}

#[derive(Serialize)]
struct ErrorEnvelope<'a> {
    error: ErrorObject<'a>,
}

#[derive(Serialize)]
struct ErrorObject<'a> {
    message: &'a str,
    r#type: String,
    param: Option<&'a str>,
    code: Option<&'a str>,
}

#[derive(Serialize)]
struct ModelList<'a> {
    object: &'static str,
    data: Vec<ModelObject<'a>>,
}

#[derive(Serialize)]
struct ModelObject<'a> {
    id: &'a str,
    object: &'static str,
    created: u32,
    owned_by: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::ToolCall;
    use serde_json::{Value, json};

    fn context(include_usage: bool) -> Context {
        Context {
            id: "chatcmpl-scripted-0".into(),
            created: 1_700_000_000,
            model: "m".into(),
            include_usage,
            request_bytes: 40,
        }
    }

    fn sent(steps: &[Step]) -> Vec<String> {
        steps
            .iter()
            .filter_map(|step| match step {
                Step::Send(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
                _ => None,
            })
            .collect()
    }

    fn data(event: &str) -> Value {
        let payload = event
            .strip_prefix("data: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap();
        serde_json::from_str(payload).unwrap()
    }

    #[test]
    fn first_chunk_has_exact_openai_bytes() {
        let completion = Completion::new().event(Event::Text("Hi".into()));
        let events = sent(&stream_steps(&completion, &context(false)));
        assert_eq!(
            events[0],
            "data: {\"id\":\"chatcmpl-scripted-0\",\"object\":\"chat.completion.chunk\",\
             \"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":\
             {\"role\":\"assistant\",\"content\":\"Hi\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
        );
        assert_eq!(
            data(&events[1])["choices"][0],
            json!({"index": 0, "delta": {}, "logprobs": null, "finish_reason": "stop"})
        );
        assert_eq!(events[2], DONE);
        assert_eq!(events.len(), 3);
    }

    #[test]
    fn usage_chunk_comes_last_with_no_choices_and_null_usage_before() {
        let completion = Completion::new().text("hello").usage(7, 2);
        let events = sent(&stream_steps(&completion, &context(true)));
        let usage = data(&events[events.len() - 2]);
        assert_eq!(usage["choices"], json!([]));
        assert_eq!(
            usage["usage"],
            json!({"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9})
        );
        assert_eq!(data(&events[0])["usage"], Value::Null);
        assert!(data(&events[0]).as_object().unwrap().contains_key("usage"));
    }

    #[test]
    fn tool_call_chunks_carry_id_type_name_first_then_only_arguments() {
        let completion =
            Completion::new().tool_calls(vec![ToolCall::new("call_1", "ls", json!({"d": "."}))]);
        let events = sent(&stream_steps(&completion, &context(false)));
        assert_eq!(
            data(&events[0])["choices"][0]["delta"],
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                   "function": {"name": "ls", "arguments": ""}}]})
        );
        assert_eq!(
            data(&events[1])["choices"][0]["delta"],
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"d\":\"."}}]})
        );
        let finish = data(&events[events.len() - 2]);
        assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    }

    #[test]
    fn endings_stop_the_stream_without_done() {
        let cut = stream_steps(
            &Completion::new().text("a b c").cut_after(1),
            &context(true),
        );
        assert_eq!(cut.last(), Some(&Step::Cut));
        assert_eq!(sent(&cut).len(), 1);
        let hang = stream_steps(&Completion::new().event(Event::Hang), &context(false));
        assert_eq!(hang, vec![Step::Hang]);
        let eof = stream_steps(&Completion::new().text("a b").eof_after(2), &context(false));
        assert!(!sent(&eof).iter().any(|event| event == DONE));
    }

    #[test]
    fn chunk_delay_precedes_every_chunk() {
        let completion = Completion::new()
            .event(Event::Text("x".into()))
            .chunk_delay(Duration::from_millis(30));
        let steps = stream_steps(&completion, &context(false));
        let pauses = steps.iter().filter(|s| matches!(s, Step::Pause(_))).count();
        assert_eq!(pauses, 3, "text, finish, done: {steps:?}");
    }

    #[test]
    fn non_streamed_body_assembles_the_same_events() {
        let completion = Completion::new()
            .reasoning("think")
            .text("Let me look.")
            .tool_calls_interleaved(vec![
                ToolCall::new("call_a", "read", json!({"p": "aaaaaaaaaa"})),
                ToolCall::new("call_b", "list", json!({"d": "bbbbbbbbbb"})),
            ])
            .delay(Duration::from_millis(5));
        let (pause, steps) = completion_steps(&completion, &context(false));
        assert_eq!(pause, Duration::from_millis(5));
        let body: Value = serde_json::from_str(&sent(&steps)[0]).unwrap();
        assert_eq!(body["object"], "chat.completion");
        let message = &body["choices"][0]["message"];
        assert_eq!(message["content"], "Let me look.");
        assert_eq!(message["reasoning_content"], "think");
        assert_eq!(
            message["tool_calls"][1],
            json!({"id": "call_b", "type": "function",
                   "function": {"name": "list", "arguments": "{\"d\":\"bbbbbbbbbb\"}"}})
        );
        assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
        assert!(body["usage"]["total_tokens"].as_u64().unwrap() > 0);
    }

    #[test]
    fn error_body_has_openai_shape() {
        let body: Value = serde_json::from_str(&error_body(
            &ErrorReply::rate_limited(1).error_type("requests"),
        ))
        .unwrap();
        assert_eq!(
            body,
            json!({"error": {"message": "Rate limit reached for requests (scripted)",
                   "type": "requests", "param": null, "code": "rate_limit_exceeded"}})
        );
    }
}
