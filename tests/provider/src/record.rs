//! What the provider saw: every request, what it answered, and what went wrong.
//!
//! Tests assert on these records instead of on the provider's internals; the binary writes the
//! same records as JSON lines (`--record`) and serves them at `GET /__scripted/state`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One received HTTP request (admin requests under `/__scripted/` are not recorded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// Position among all recorded requests, from 0.
    pub seq: usize,
    /// Milliseconds between the provider's start and the request's arrival.
    pub received_ms: u64,
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path and query, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers with lower-case names; repeated headers joined with `, `.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON; `None` when empty or not JSON.
    pub body: Option<Value>,
    /// The body as text (lossy UTF-8).
    pub raw_body: String,
    /// Index of the turn this request consumed (counting every turn ever queued, from 0).
    pub turn: Option<usize>,
    /// Status code answered.
    pub status: u16,
    /// Why the request was not answered as scripted (exhausted script, failed expectation,
    /// unknown path, body that is not JSON).
    pub failure: Option<String>,
    /// How far the response body got.
    pub delivery: Delivery,
    /// When the response body ended (however it ended), in milliseconds since the Unix epoch:
    /// a wall clock a page in another process can compare its own times with. `None` while
    /// [`Delivery::Pending`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_at_unix_ms: Option<u64>,
}

impl RecordedRequest {
    /// A header's value by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    /// Whether this is a `POST /v1/chat/completions`.
    pub fn is_chat_completion(&self) -> bool {
        self.method == "POST" && self.path_only() == "/v1/chat/completions"
    }

    /// The last message of a chat-completion body.
    pub fn last_message(&self) -> Option<&Value> {
        self.body
            .as_ref()
            .and_then(|body| body.get("messages"))
            .and_then(Value::as_array)
            .and_then(|messages| messages.last())
    }

    fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }
}

/// How far a response body got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Still being sent (streaming, pausing or hanging).
    Pending,
    /// Sent as scripted (including a scripted `eof`).
    Complete,
    /// Broken off on purpose by a scripted `cut`.
    Cut,
    /// The client went away before the response was complete.
    ClientClosed,
    /// The provider shut down before the response was complete.
    ShutDown,
}

/// A request that was not answered as scripted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The request's [`RecordedRequest::seq`].
    pub seq: usize,
    /// What went wrong.
    pub message: String,
}
