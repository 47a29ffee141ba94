//! A scripted OpenAI-compatible Chat Completions server on loopback: Gantry's one test double.
//!
//! Gantry's agent talks to any OpenAI-compatible provider over HTTP. To test that path for real
//! (the client library, the SSE parser, retries, cancellation) without a network, this crate
//! serves the genuine wire format from a script: each `POST /v1/chat/completions` consumes the
//! next **turn** and gets its answer, streamed as `text/event-stream` chunks when the request
//! says `"stream": true` and as one `chat.completion` JSON body otherwise. Every request is
//! recorded for assertions. `GET /v1/models` lists the script's model ids.
//!
//! # Library
//!
//! ```no_run
//! use gantry_scripted_provider::{Expect, Script, ScriptedProvider, ToolCall, Turn};
//! use serde_json::json;
//!
//! # async fn demo() -> Result<(), gantry_scripted_provider::Error> {
//! let provider = ScriptedProvider::start(Script::new([
//!     Turn::tool_calls(vec![ToolCall::new("call_1", "read_file", json!({"path": "a.txt"}))])
//!         .expect(Expect::new().last_role("user").tool_offered("read_file")),
//!     Turn::text("The file says hello.").expect(Expect::new().last_tool_call_id("call_1")),
//! ]))
//! .await?;
//! let base_url = provider.base_url(); // http://127.0.0.1:PORT/v1
//! // ... point the client at base_url, run the code under test ...
//! assert_eq!(provider.chat_requests().len(), 2);
//! provider.verify()?; // no failures, no unplayed turns
//! # Ok(()) }
//! ```
//!
//! Turns can be appended while the provider runs ([`Handle::push_turn`]), and tests can wait
//! for requests or response outcomes ([`Handle::wait_until`]). Dropping the [`Handle`] shuts
//! the server down.
//!
//! # Binary
//!
//! `gantry-scripted-provider --script FILE.json [--port N] [--record FILE]` prints its base URL
//! on the first stdout line and serves until killed; `--record` appends each received request
//! as a JSON line ([`RecordedRequest`]). While it runs, `GET /__scripted/state` returns the
//! recorded requests, failures and turn counts, and `POST /__scripted/turns` appends a turn or
//! a list of turns (these admin requests are not recorded).
//!
//! # Script format
//!
//! This is `example-script.json`, beside the crate's `Cargo.toml` (a test plays it):
//!
#![doc = concat!("```json\n", include_str!("../example-script.json"), "```\n")]
//!
//! - `models` (default `["scripted-model"]`): ids listed by `GET /v1/models`.
//! - `routes` (optional): other endpoints a kind of server answers, `{"GET /props": {...},
//!   "POST /api/show": {...}}`, each answered `200` with that JSON (Ollama's `/api/show` and
//!   `/api/ps`, LM Studio's `/api/v0/models`, llama.cpp's `/props`, or a `GET /v1/models` in
//!   vLLM's shape).
//! - `created` (default: now): the timestamp in every completion and chunk.
//! - `turns[].expect` (optional, see [`Expect`]): `model`, `stream`, `last_role`,
//!   `last_contains`, `last_tool_call_id`, `any_contains`, `message_count`, `tools_include`,
//!   `tools_exclude`, `pointers` (`{"/messages/0/role": "system"}`), `absent`
//!   (`["/stream_options"]`). A request failing a check
//!   is answered `500` with an OpenAI error body naming the mismatch (code
//!   `expectation_failed`), recorded in [`Handle::failures`], and the turn stays queued.
//! - `turns[].reply` with `"type": "completion"` ([`Completion`]): `events` in order, `usage`
//!   (estimated when absent) and `chunk_delay_ms` (a pause before every chunk: a slow stream).
//!   Events ([`Event`]): `text` (a `delta.content`), `reasoning` (a
//!   `delta.reasoning_content`), `tool_call` (`index`, and on a call's first fragment `id` and
//!   `name`; `arguments` is a string fragment, or any JSON value sent as its text; `extra`, an
//!   object whose fields are sent beside them, like Gemini's `extra_content`), `finish`
//!   (`stop` / `tool_calls` / `length` / `content_filter`), `delay_ms`, `malformed` (a
//!   `data:` line with that text, meant to be invalid JSON), `raw` (bytes verbatim), and the
//!   endings `"cut"` (connection broken, no `[DONE]`), `"eof"` (body ends cleanly without a
//!   finish chunk or `[DONE]`) and `"hang"` (headers sent, then nothing until the client gives
//!   up). Without a `finish` event a final chunk with `tool_calls` (if any tool call was sent)
//!   or `stop` is added.
//! - `turns[].reply` with `"type": "error"` ([`ErrorReply`]): `status` (400..=599), `message`,
//!   optional `error_type` (derived from the status when absent), `code`, `headers`, and `body`
//!   (a raw body instead of the `{"error": {...}}` object).
//!
//! # Wire format
//!
//! Streamed answers are `Content-Type: text/event-stream`, each event `data: {json}\n\n`, the
//! last `data: [DONE]\n\n`. Chunks are
//! `{"id","object":"chat.completion.chunk","created","model","choices":[{"index":0,"delta":{...},"logprobs":null,"finish_reason":null}]}`;
//! the first delta carries `"role":"assistant"`; a tool call's first delta carries `id`,
//! `"type":"function"`, `function.name` and `function.arguments: ""`, later ones only `index`
//! and an arguments fragment. When the request sets `stream_options.include_usage`, every chunk
//! has `"usage": null` and a last chunk with `"choices": []` carries the usage. Non-streamed
//! answers assemble the same events into one `chat.completion` (content, `reasoning_content`,
//! `tool_calls` by index, `finish_reason`, `usage`), after the sum of the scripted delays; `cut`
//! and `eof` send half the body, `hang` sends none, a `malformed` event replaces the body.
//! Script exhaustion is a `500` with code `script_exhausted`; a body that is not a JSON object
//! a `400`; an unknown path a `404`; all recorded as failures.

mod error;
mod expect;
mod record;
mod routes;
mod script;
mod server;
mod state;
mod wire;

pub use error::Error;
pub use expect::Expect;
pub use record::{Delivery, Failure, RecordedRequest};
pub use script::{
    Completion, DEFAULT_MODEL, ErrorReply, Event, FinishReason, Reply, Script, ToolCall,
    ToolCallDelta, Turn, Usage,
};
pub use server::{Handle, ScriptedProvider};
