//! Model providers: configuration, presets, and the streaming request with retries.
//!
//! Gantry talks to any server that speaks OpenAI's Chat Completions API — OpenAI, OpenRouter,
//! DeepSeek, Ollama, LM Studio, llama.cpp's server, vLLM — so a provider is just a base URL, a
//! model name, an optional key and the model's context window ([`ProviderConfig`], the same
//! fields the store persists). With nothing configured Gantry uses the local Ollama preset, so it
//! runs without any account.
//!
//! # Why the HTTP path is Gantry's own
//!
//! Requests are built from async-openai's wire types (`CreateChatCompletionRequest` and its
//! messages and tools), but they are sent with reqwest and the SSE stream is parsed with
//! `eventsource-stream` (what async-openai uses inside), because async-openai 0.43's client
//! gets in the way of three things the loop must do:
//!
//! - **Retry with an event per retry, honouring `Retry-After`.** The default client retries by
//!   itself, silently, and its errors drop the response headers. Turning that off needs the
//!   `middleware` feature and still leaves the headers out of `OpenAIError::ApiError`.
//! - **Reasoning deltas.** Its typed chunk has no `reasoning_content`. The `byot` feature would
//!   allow a custom chunk type, but it also changes what the typed `create_stream` sends (it stops
//!   setting `"stream": true`), and Cargo's feature unification would impose that on every crate
//!   of the workspace using the typed API.
//! - **Knowing whether a stream completed.** It hides `[DONE]`, so a clean end before the reply is
//!   complete is indistinguishable from a complete one.
//!
//! [`Provider::stream_reply`] therefore runs one model call as attempts: each attempt sends the
//! request, waits for headers and then for every chunk under an idle timeout, and feeds chunks
//! to a [`ReplyAssembler`]. A retryable failure (429 unless the quota is gone, 408/409, 5xx,
//! connection failures, timeouts, a stream that breaks off or ends early) is retried after the
//! provider's `Retry-After`/`retry-after-ms`, or else an exponential backoff with jitter, at most
//! [`RetryPolicy::max_retries`] times, each announced to the caller first. A retry restarts the
//! reply: whatever the failed attempt streamed is discarded. A malformed chunk is reported and
//! skipped; the stream goes on. Cancellation drops the response at once, which closes the
//! connection.
//!
//! TLS uses reqwest's default rustls backend (aws-lc-rs as the crypto provider): no OpenSSL, but
//! aws-lc-rs does compile C with the system compiler. The alternative, `rustls-no-provider` with
//! ring, compiles C as well, and would make every `reqwest::Client::new()` elsewhere in the
//! workspace panic (feature unification) unless each installed a provider first.

use std::fmt;
use std::time::Duration;

use async_openai::types::chat::{ChatCompletionStreamOptions, CreateChatCompletionRequest};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::ProviderError;
use crate::stream::{AssembledReply, Chunk, Completion, Piece, ReplyAssembler};
use gantry_tools::text::excerpt;

/// How long to wait, after the finish reason, for the usage chunk and `[DONE]`.
const TRAILER_WAIT: Duration = Duration::from_secs(5);

/// A configured model provider: the fields the store keeps per provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// The name the user picks it by (`openai`, `ollama`, `work-vllm`).
    pub name: String,
    /// The API base, up to and including `/v1` (`http://localhost:11434/v1`).
    pub base_url: String,
    /// The model id sent in every request.
    pub model: String,
    /// The environment variable holding the API key, when the key is not in the keychain.
    /// `None` for servers that need no key.
    pub api_key_env: Option<String>,
    /// The model's context window in tokens; requests are fitted into it.
    pub context_window: u32,
}

/// The name of the preset used when no provider is configured.
pub const DEFAULT_PROVIDER: &str = "ollama";

impl ProviderConfig {
    /// A provider with these fields.
    pub fn new(
        name: impl Into<String>,
        base_url: impl Into<String>,
        model: impl Into<String>,
        api_key_env: Option<&str>,
        context_window: u32,
    ) -> Self {
        Self {
            name: name.into(),
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: api_key_env.map(str::to_owned),
            context_window,
        }
    }

    /// The shipped presets: OpenAI, OpenRouter, DeepSeek, Ollama, LM Studio, llama.cpp.
    ///
    /// Model names are starting points (change them per provider). The local presets assume a
    /// modest 8192-token window; Ollama's server-side context (`OLLAMA_CONTEXT_LENGTH`) must be
    /// at least that, or Ollama silently drops the start of long requests.
    pub fn presets() -> Vec<Self> {
        vec![
            Self::new(
                "openai",
                "https://api.openai.com/v1",
                "gpt-4.1-mini",
                Some("OPENAI_API_KEY"),
                1_047_576,
            ),
            Self::new(
                "openrouter",
                "https://openrouter.ai/api/v1",
                "openai/gpt-4.1-mini",
                Some("OPENROUTER_API_KEY"),
                1_047_576,
            ),
            Self::new(
                "deepseek",
                "https://api.deepseek.com/v1",
                "deepseek-chat",
                Some("DEEPSEEK_API_KEY"),
                65_536,
            ),
            Self::new(
                "ollama",
                "http://localhost:11434/v1",
                "qwen2.5-coder:7b",
                None,
                8_192,
            ),
            Self::new(
                "lmstudio",
                "http://localhost:1234/v1",
                "qwen2.5-coder-7b-instruct",
                None,
                8_192,
            ),
            Self::new(
                "llamacpp",
                "http://localhost:8080/v1",
                "default",
                None,
                8_192,
            ),
        ]
    }

    /// The preset called `name` (case, spaces, dots and dashes ignored: `LM Studio`, `llama.cpp`).
    pub fn preset(name: &str) -> Option<Self> {
        let wanted = normalise(name);
        Self::presets()
            .into_iter()
            .find(|preset| normalise(&preset.name) == wanted)
    }

    /// The provider used when none is configured: the local Ollama preset.
    pub fn default_local() -> Self {
        Self::new(
            DEFAULT_PROVIDER,
            "http://localhost:11434/v1",
            "qwen2.5-coder:7b",
            None,
            8_192,
        )
    }

    /// `{base_url}/chat/completions`.
    pub fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// Marks [`Self::api_key_env`] as a secret for the rest of the process, so that no command
    /// or MCP server Gantry starts receives it ([`gantry_tools::register_secret_env`]). Done
    /// whenever a provider is found, built or reads its key; calling it again is harmless.
    pub fn register_key_variable(&self) {
        if let Some(variable) = &self.api_key_env {
            gantry_tools::register_secret_env(variable);
        }
    }

    /// The key from [`Self::api_key_env`]: `Ok(None)` when the provider needs none, an error
    /// naming the variable when it is unset or empty.
    pub fn api_key_from_env(&self) -> Result<Option<ApiKey>, ProviderError> {
        self.register_key_variable();
        let Some(variable) = &self.api_key_env else {
            return Ok(None);
        };
        match gantry_tools::key_from_env(variable) {
            Some(value) => Ok(Some(ApiKey::new(value))),
            None => Err(ProviderError::Config(format!(
                "provider '{}' needs an API key: set the environment variable {variable}",
                self.name
            ))),
        }
    }
}

/// The context window assumed for a saved provider that names none and matches no preset:
/// small enough for a local server's default.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 8_192;

fn normalise(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// An API key. Its `Debug` and `Display` never show the value.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the `Authorization` header only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// How failed model calls are retried.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so at most `max_retries + 1` attempts).
    pub max_retries: u32,
    /// The wait before the first retry when the provider names none.
    pub initial_backoff: Duration,
    /// The longest computed backoff.
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured; a provider asking for more ends the turn.
    pub max_retry_after: Duration,
    /// Spread computed backoffs by ±25 % so clients don't retry in lockstep.
    pub jitter: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// The computed wait before retry number `retry` (1-based): `initial × 2^(retry-1)`, capped,
    /// with jitter.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        let base = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        if self.jitter {
            base.mul_f64(0.75 + fastrand::f64() * 0.5)
        } else {
            base
        }
    }
}

/// How a provider is talked to (timeouts, retries, usage reporting).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProviderOptions {
    /// Retries of failed calls.
    pub retry: RetryPolicy,
    /// The longest wait for the response headers and then between two chunks; a longer
    /// silence counts as a timeout (and is retried).
    pub idle_timeout: Duration,
    /// The longest wait for a connection.
    pub connect_timeout: Duration,
    /// Ask for token usage in the stream (`stream_options.include_usage`).
    pub include_usage: bool,
}

impl Default for ProviderOptions {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            // Reasoning models and local servers loading a model can be silent for minutes.
            idle_timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(15),
            include_usage: true,
        }
    }
}

/// What a model call reports while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamSignal {
    /// A piece of text or reasoning.
    Piece(Piece),
    /// The call failed and will be retried after `delay`; what was streamed so far is discarded.
    Retrying {
        /// 1-based retry number.
        attempt: u32,
        /// The configured maximum.
        max_retries: u32,
        /// The wait before the retry.
        delay: Duration,
        /// Why.
        reason: String,
    },
    /// A chunk could not be read and was skipped.
    Malformed(String),
}

/// How a model call ended without a reply.
#[derive(Debug)]
pub enum CallFailure {
    /// The turn was cancelled; `partial` is what the current attempt had streamed.
    Cancelled {
        /// The reply so far.
        partial: AssembledReply,
    },
    /// The call failed for good.
    Failed {
        /// Why.
        error: ProviderError,
        /// What the last attempt had streamed.
        partial: AssembledReply,
    },
}

enum AttemptEnd {
    Cancelled,
    Failed(ProviderError),
}

/// A provider ready to take requests.
#[derive(Clone)]
pub struct Provider {
    config: ProviderConfig,
    key: Option<ApiKey>,
    url: String,
    http: reqwest::Client,
    options: ProviderOptions,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("config", &self.config)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Provider {
    /// A provider for `config` authenticating with `key` (none for local servers).
    pub fn new(
        config: ProviderConfig,
        key: Option<ApiKey>,
        options: ProviderOptions,
    ) -> Result<Self, ProviderError> {
        config.register_key_variable();
        let url = config.chat_completions_url();
        let parsed = reqwest::Url::parse(&url).map_err(|error| {
            ProviderError::Config(format!(
                "provider '{}' has an invalid base URL '{}': {error}",
                config.name, config.base_url
            ))
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ProviderError::Config(format!(
                "provider '{}' needs an http or https base URL, not '{}'",
                config.name, config.base_url
            )));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|error| ProviderError::Config(format!("HTTP client: {error}")))?;
        Ok(Self {
            config,
            key,
            url,
            http,
            options,
        })
    }

    /// A provider for `config` with the key from its environment variable.
    pub fn from_env(
        config: ProviderConfig,
        options: ProviderOptions,
    ) -> Result<Self, ProviderError> {
        let key = config.api_key_from_env()?;
        Self::new(config, key, options)
    }

    /// The configuration.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// The options.
    pub fn options(&self) -> &ProviderOptions {
        &self.options
    }

    /// The model ids the provider lists at `{base_url}/models` (OpenAI's `{"data": [{"id"}]}`
    /// shape; Ollama, LM Studio, llama.cpp and vLLM answer it too), sorted. A quick way to test
    /// the connection and the key: a failure is the provider's own status and message.
    pub async fn list_models(&self, timeout: Duration) -> Result<Vec<String>, ProviderError> {
        let url = format!("{}/models", self.config.base_url.trim_end_matches('/'));
        let mut builder = self
            .http
            .get(&url)
            .header(ACCEPT, "application/json")
            .timeout(timeout);
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key.expose());
        }
        let response = builder.send().await.map_err(|error| {
            if error.is_timeout() {
                ProviderError::Timeout(timeout)
            } else {
                ProviderError::Connect {
                    url: url.clone(),
                    reason: error.to_string(),
                }
            }
        })?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|error| ProviderError::Connect {
                url: url.clone(),
                reason: error.to_string(),
            })?;
        if !status.is_success() {
            let (message, code) = error_message(&body, status);
            return Err(ProviderError::Status {
                provider: self.config.name.clone(),
                status: status.as_u16(),
                message,
                code,
                retry_after: None,
            });
        }
        let listed: Value = serde_json::from_str(&body).map_err(|error| {
            ProviderError::Unexpected(format!("{url} did not answer a model list: {error}"))
        })?;
        let mut ids: Vec<String> = listed
            .get("data")
            .or_else(|| listed.get("models"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|model| {
                model
                    .get("id")
                    .or_else(|| model.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    /// Runs one streamed model call with retries (see the module docs). `request` is sent with
    /// `"stream": true` (and `include_usage` as configured).
    pub async fn stream_reply(
        &self,
        request: &CreateChatCompletionRequest,
        cancel: &CancellationToken,
        signal: &mut (dyn FnMut(StreamSignal) + Send),
    ) -> Result<AssembledReply, CallFailure> {
        let mut request = request.clone();
        request.stream = Some(true);
        if self.options.include_usage {
            request.stream_options = Some(ChatCompletionStreamOptions {
                include_usage: Some(true),
                include_obfuscation: None,
            });
        }
        let body = match serde_json::to_vec(&request) {
            Ok(body) => body,
            Err(error) => {
                return Err(CallFailure::Failed {
                    error: ProviderError::Config(format!(
                        "the request could not be encoded: {error}"
                    )),
                    partial: AssembledReply::default(),
                });
            }
        };
        let retry = self.options.retry;
        let mut retries = 0;
        loop {
            let mut assembler = ReplyAssembler::new();
            let error = match self.attempt(&body, cancel, &mut assembler, signal).await {
                Ok(()) => return Ok(assembler.finish()),
                Err(AttemptEnd::Cancelled) => {
                    return Err(CallFailure::Cancelled {
                        partial: assembler.finish(),
                    });
                }
                Err(AttemptEnd::Failed(error)) => error,
            };
            if !error.is_retryable() || retries >= retry.max_retries {
                tracing::warn!(provider = %self.config.name, retries, %error, "model call failed");
                return Err(CallFailure::Failed {
                    error,
                    partial: assembler.finish(),
                });
            }
            let delay = match error.retry_after() {
                Some(wait) if wait > retry.max_retry_after => {
                    return Err(CallFailure::Failed {
                        error: ProviderError::WaitTooLong {
                            provider: self.config.name.clone(),
                            wait,
                            limit: retry.max_retry_after,
                        },
                        partial: assembler.finish(),
                    });
                }
                Some(wait) => wait,
                None => retry.backoff(retries + 1),
            };
            retries += 1;
            tracing::info!(provider = %self.config.name, retries, ?delay, %error, "retrying model call");
            signal(StreamSignal::Retrying {
                attempt: retries,
                max_retries: retry.max_retries,
                delay,
                reason: error.short_reason(),
            });
            tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    return Err(CallFailure::Cancelled { partial: AssembledReply::default() });
                }
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    /// One attempt: send, then read the stream into `assembler` until it completes.
    async fn attempt(
        &self,
        body: &[u8],
        cancel: &CancellationToken,
        assembler: &mut ReplyAssembler,
        signal: &mut (dyn FnMut(StreamSignal) + Send),
    ) -> Result<(), AttemptEnd> {
        let idle = self.options.idle_timeout;
        let mut builder = self
            .http
            .post(&self.url)
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "text/event-stream")
            .body(body.to_vec());
        if let Some(key) = &self.key {
            builder = builder.bearer_auth(key.expose());
        }
        tracing::debug!(provider = %self.config.name, url = %self.url, "sending chat completion request");
        let response = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
            sent = tokio::time::timeout(idle, builder.send()) => match sent {
                Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                Ok(Err(error)) => return Err(AttemptEnd::Failed(self.transport_error(&error))),
                Ok(Ok(response)) => response,
            },
        };

        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(response.headers());
            let text = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                text = tokio::time::timeout(idle, response.text()) => match text {
                    Ok(Ok(text)) => text,
                    _ => String::new(),
                },
            };
            let (message, code) = error_message(&text, status);
            return Err(AttemptEnd::Failed(ProviderError::Status {
                provider: self.config.name.clone(),
                status: status.as_u16(),
                message,
                code,
                retry_after,
            }));
        }

        let is_json = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.contains("json") && !value.contains("event-stream"));
        if is_json {
            // A server that ignored "stream": true: read the whole completion.
            let text = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                text = tokio::time::timeout(idle, response.text()) => match text {
                    Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                    Ok(Err(error)) => return Err(AttemptEnd::Failed(self.transport_error(&error))),
                    Ok(Ok(text)) => text,
                },
            };
            let completion: Completion = serde_json::from_str(&text).map_err(|error| {
                AttemptEnd::Failed(ProviderError::InStream(format!(
                    "the response could not be read ({error}): {}",
                    excerpt(&text, 200)
                )))
            })?;
            for piece in assembler.push(completion.into_chunk()) {
                signal(StreamSignal::Piece(piece));
            }
            return Ok(());
        }

        let events = response.bytes_stream().eventsource();
        let mut events = std::pin::pin!(events);
        loop {
            // After the finish reason only the usage chunk and [DONE] are left; don't wait the
            // whole idle timeout for a server that never sends them.
            let wait = if assembler.is_finished() {
                idle.min(TRAILER_WAIT)
            } else {
                idle
            };
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(AttemptEnd::Cancelled),
                next = tokio::time::timeout(wait, events.next()) => next,
            };
            let event = match next {
                // Silence after the finish reason: the usage chunk or [DONE] never came.
                Err(_) if assembler.is_finished() => return Ok(()),
                Err(_) => return Err(AttemptEnd::Failed(ProviderError::Timeout(idle))),
                Ok(None) if assembler.is_finished() => return Ok(()),
                Ok(None) => return Err(AttemptEnd::Failed(ProviderError::Incomplete)),
                Ok(Some(Err(_))) if assembler.is_finished() => return Ok(()),
                Ok(Some(Err(error))) => {
                    return Err(AttemptEnd::Failed(ProviderError::StreamBroken(
                        error.to_string(),
                    )));
                }
                Ok(Some(Ok(event))) => event,
            };
            let data = event.data.trim();
            if data == "[DONE]" {
                return Ok(());
            }
            if data.is_empty() {
                continue;
            }
            let chunk: Chunk = match serde_json::from_str(data) {
                Ok(chunk) => chunk,
                Err(error) => {
                    tracing::warn!(provider = %self.config.name, %error, "skipping a malformed stream chunk");
                    signal(StreamSignal::Malformed(format!(
                        "skipped a stream chunk that could not be read ({error}): {}",
                        excerpt(data, 200)
                    )));
                    continue;
                }
            };
            if let Some(error) = chunk.error.as_ref().filter(|error| !error.is_null()) {
                return Err(AttemptEnd::Failed(ProviderError::InStream(
                    error_value_message(error),
                )));
            }
            for piece in assembler.push(chunk) {
                signal(StreamSignal::Piece(piece));
            }
        }
    }

    fn transport_error(&self, error: &reqwest::Error) -> ProviderError {
        if error.is_builder() {
            return ProviderError::Config(error.to_string());
        }
        if error.is_timeout() {
            return ProviderError::Timeout(self.options.connect_timeout);
        }
        ProviderError::Connect {
            url: self.url.clone(),
            reason: error_chain(error),
        }
    }
}

/// An error with its sources, so "error sending request" says why (connection refused, ...).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `retry-after-ms` (milliseconds, OpenAI) or `Retry-After` (seconds). The HTTP-date form of
/// `Retry-After` is not read; the computed backoff applies then.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    if let Some(ms) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    number(RETRY_AFTER.as_str()).and_then(|secs| Duration::try_from_secs_f64(secs).ok())
}

/// The message and code of an error body in any of the shapes servers use:
/// `{"error": {"message", "code"}}`, `{"error": "text"}`, `{"message": "text"}`, or plain text.
fn error_message(body: &str, status: reqwest::StatusCode) -> (String, Option<String>) {
    let fallback = || {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            status.canonical_reason().unwrap_or("no message").to_owned()
        } else {
            excerpt(trimmed, 1_000)
        }
    };
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return (fallback(), None);
    };
    let error = value.get("error").unwrap_or(&value);
    let message = error_value_message(error);
    let code = error.get("code").and_then(|code| match code {
        Value::String(code) => Some(code.clone()),
        Value::Number(code) => Some(code.to_string()),
        _ => None,
    });
    if message.is_empty() {
        (fallback(), code)
    } else {
        (excerpt(&message, 1_000), code)
    }
}

fn error_value_message(error: &Value) -> String {
    match error {
        Value::String(text) => text.clone(),
        Value::Object(object) => object
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| error.to_string(), str::to_owned),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use reqwest::StatusCode;
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn presets_cover_the_documented_providers_and_default_to_ollama() {
        let names: Vec<String> = ProviderConfig::presets()
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(
            names,
            [
                "openai",
                "openrouter",
                "deepseek",
                "ollama",
                "lmstudio",
                "llamacpp"
            ]
        );
        let default = ProviderConfig::default_local();
        assert_eq!(default.base_url, "http://localhost:11434/v1");
        assert_eq!(default.api_key_env, None);
        assert_eq!(Some(default), ProviderConfig::preset("Ollama"));
        assert_eq!(
            ProviderConfig::preset("LM Studio").map(|p| p.base_url),
            Some("http://localhost:1234/v1".to_owned())
        );
        assert!(ProviderConfig::preset("llama.cpp").is_some());
        assert!(ProviderConfig::preset("nope").is_none());
        assert_eq!(
            ProviderConfig::preset("openai")
                .unwrap()
                .chat_completions_url(),
            "https://api.openai.com/v1/chat/completions"
        );
    }

    #[test]
    fn a_missing_key_names_the_variable_and_keys_never_print() {
        let config = ProviderConfig::new(
            "x",
            "http://h/v1",
            "m",
            Some("GANTRY_TEST_SURELY_UNSET_VAR"),
            10,
        );
        let error = config.api_key_from_env().unwrap_err();
        assert!(error.to_string().contains("GANTRY_TEST_SURELY_UNSET_VAR"));
        let key = ApiKey::new("sk-secret");
        assert_eq!(format!("{key:?} {key}"), "ApiKey(<redacted>) <redacted>");
        let provider = Provider::new(config, Some(key), ProviderOptions::default()).unwrap();
        assert!(!format!("{provider:?}").contains("sk-secret"));
    }

    #[test]
    fn a_providers_key_variable_is_scrubbed_from_children_once_known() {
        let variable = "CORP_LLM_BEARER_Q9";
        assert!(!gantry_tools::is_secret_env(variable));
        let config = ProviderConfig::new("corp", "https://llm.corp/v1", "m", Some(variable), 10);
        let _ = Provider::new(config, None, ProviderOptions::default()).unwrap();
        assert!(gantry_tools::is_secret_env(variable));
        let other = "CORP_OTHER_BEARER_Q9";
        let config = ProviderConfig::new("corp2", "https://llm.corp/v1", "m", Some(other), 10);
        let _ = config.api_key_from_env();
        assert!(gantry_tools::is_secret_env(other));
    }

    #[test]
    fn bad_base_urls_are_configuration_errors() {
        for url in ["not a url", "ftp://host/v1"] {
            let config = ProviderConfig::new("x", url, "m", None, 10);
            assert!(matches!(
                Provider::new(config, None, ProviderOptions::default()),
                Err(ProviderError::Config(_))
            ));
        }
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_with_bounded_jitter() {
        let policy = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            jitter: false,
            ..RetryPolicy::default()
        };
        let waits: Vec<u128> = (1..=4).map(|n| policy.backoff(n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 350, 350]);
        let jittered = RetryPolicy {
            jitter: true,
            ..policy
        };
        for _ in 0..100 {
            let wait = jittered.backoff(2).as_millis();
            assert!((150..=250).contains(&wait), "{wait}");
        }
    }

    #[test]
    fn retry_after_reads_milliseconds_and_seconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(150)));
        let mut dated = HeaderMap::new();
        dated.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&dated), None);
    }

    #[test]
    fn error_bodies_in_every_shape_give_a_message() {
        let status = StatusCode::BAD_REQUEST;
        assert_eq!(
            error_message(
                r#"{"error":{"message":"bad model","code":"model_not_found"}}"#,
                status
            ),
            ("bad model".to_owned(), Some("model_not_found".to_owned()))
        );
        assert_eq!(
            error_message(r#"{"error":{"message":"slow down","code":429}}"#, status),
            ("slow down".to_owned(), Some("429".to_owned()))
        );
        assert_eq!(error_message(r#"{"error":"plain"}"#, status).0, "plain");
        assert_eq!(error_message(r#"{"message":"top"}"#, status).0, "top");
        assert_eq!(
            error_message("<html>oops</html>", status).0,
            "<html>oops</html>"
        );
        assert_eq!(error_message("", status).0, "Bad Request");
    }

    #[test]
    fn retryable_errors_follow_the_status() {
        let status = |status: u16, code: Option<&str>| ProviderError::Status {
            provider: "p".into(),
            status,
            message: String::new(),
            code: code.map(str::to_owned),
            retry_after: None,
        };
        assert!(status(429, Some("rate_limit_exceeded")).is_retryable());
        assert!(!status(429, Some("insufficient_quota")).is_retryable());
        assert!(status(500, None).is_retryable());
        assert!(status(503, None).is_retryable());
        assert!(!status(400, None).is_retryable());
        assert!(!status(401, None).is_retryable());
        assert!(!status(404, None).is_retryable());
        assert!(ProviderError::Incomplete.is_retryable());
        assert!(!ProviderError::Config("x".into()).is_retryable());
    }
}
