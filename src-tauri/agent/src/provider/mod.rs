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

use std::collections::BTreeSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::error::ProviderError;
use crate::local::{ServerKind, ServerWindow, discover_window, is_loopback, server_root};
use crate::presets::ProviderFlags;
use crate::request::ChatRequest;
use crate::stream::{AssembledReply, Chunk, Completion, Piece, ReplyAssembler};
use gantry_tools::text::excerpt;

/// How long to wait, after the finish reason, for the usage chunk and `[DONE]`.
const TRAILER_WAIT: Duration = Duration::from_secs(5);

/// A configured model provider: the fields the store keeps per provider.
///
/// `gantry_store::ProviderConfig` holds the same fields as the user saved them: the loop must not
/// depend on the store, and the store must not know the loop's presets and server kinds;
/// `gantry_engine::providers` converts one into the other.
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
    /// The model's context window in tokens; requests are fitted into it (a local server's
    /// own answer, when it gives one, takes its place: [`Provider::server_window`]).
    pub context_window: u32,
    /// Where its wire differs from OpenAI's.
    #[serde(default)]
    pub flags: ProviderFlags,
    /// What kind of server it is, for the questions only that kind answers (its context
    /// window) and the hints about it.
    #[serde(default)]
    pub server: ServerKind,
}

/// The name of the preset used when no provider is configured.
pub const DEFAULT_PROVIDER: &str = "ollama";

impl ProviderConfig {
    /// A provider with these fields, OpenAI's wire behaviour and no known server kind.
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
            flags: ProviderFlags::default(),
            server: ServerKind::Other,
        }
    }

    /// The shipped presets (see the `presets` module for each one's quirks): OpenAI,
    /// OpenRouter, DeepSeek, Mistral, Groq, Together, Gemini, Anthropic, Ollama, LM Studio,
    /// llama.cpp, vLLM.
    pub fn presets() -> Vec<Self> {
        crate::presets::shipped()
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
        Self::presets()
            .into_iter()
            .find(|preset| preset.name == DEFAULT_PROVIDER)
            .unwrap_or_else(|| {
                Self::new(
                    DEFAULT_PROVIDER,
                    "http://localhost:11434/v1",
                    "qwen2.5-coder:7b",
                    None,
                    DEFAULT_CONTEXT_WINDOW,
                )
            })
    }

    /// The same provider with `flags`.
    #[must_use]
    pub fn with_flags(mut self, flags: ProviderFlags) -> Self {
        self.flags = flags;
        self
    }

    /// The same provider, of server kind `server`.
    #[must_use]
    pub fn with_server(mut self, server: ServerKind) -> Self {
        self.server = server;
        self
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
    /// Ask for token usage in the stream (`stream_options.include_usage`) where the provider's
    /// [`ProviderFlags::stream_usage`] allows it.
    pub include_usage: bool,
    /// How long to wait for a local server's answer about its context window.
    pub probe_timeout: Duration,
}

impl Default for ProviderOptions {
    fn default() -> Self {
        Self {
            retry: RetryPolicy::default(),
            // Reasoning models and local servers loading a model can be silent for minutes.
            idle_timeout: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(15),
            include_usage: true,
            probe_timeout: Duration::from_secs(5),
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
    /// The provider refused part of the request, which was sent again without it (and will
    /// not be sent to it again); the sentence says what.
    Adapted(String),
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

/// Chat URLs that refused `stream_options` in this process.
static REFUSES_STREAM_OPTIONS: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// A provider ready to take requests. Clones share what it learns (a refused field, its
/// server's window).
#[derive(Clone)]
pub struct Provider {
    config: ProviderConfig,
    key: Option<ApiKey>,
    url: String,
    http: reqwest::Client,
    options: ProviderOptions,
    /// Set once the provider refused `stream_options`.
    refuses_stream_options: Arc<AtomicBool>,
    /// What its server said about the context window, once asked.
    window: Arc<OnceCell<Option<ServerWindow>>>,
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
        let refused = REFUSES_STREAM_OPTIONS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&url);
        Ok(Self {
            config,
            key,
            url,
            http,
            options,
            refuses_stream_options: Arc::new(AtomicBool::new(refused)),
            window: Arc::new(OnceCell::new()),
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

    /// The cap to put on a reply for which `reserve` tokens of the window are kept: `reserve`
    /// for local servers (which otherwise generate until their window is full), none for hosted
    /// ones (they cap replies themselves, and some refuse `max_tokens` for some models).
    pub fn reply_limit(&self, reserve: u32) -> Option<u32> {
        self.config.server.is_local().then_some(reserve.max(1))
    }

    /// The options.
    pub fn options(&self) -> &ProviderOptions {
        &self.options
    }

    /// The flags in force: the configured ones, less what the provider refused since.
    pub fn flags(&self) -> ProviderFlags {
        ProviderFlags {
            stream_usage: self.config.flags.stream_usage
                && !self.refuses_stream_options.load(Ordering::Relaxed),
            ..self.config.flags
        }
    }

    /// What the server says about the window it runs the model with (a local server of a
    /// known kind; `None` for others, or when it cannot say). Asked once per provider.
    pub async fn server_window(&self) -> Option<ServerWindow> {
        *self
            .window
            .get_or_init(|| {
                discover_window(
                    &self.http,
                    self.config.server,
                    &self.config.base_url,
                    &self.config.model,
                    self.key.as_ref(),
                    self.options.probe_timeout,
                )
            })
            .await
    }

    /// The window requests are fitted into: the server's, when it says, else the configured.
    pub async fn context_window(&self) -> u32 {
        self.server_window()
            .await
            .map_or(self.config.context_window, |window| window.tokens)
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
            if self.config.server == ServerKind::Anthropic {
                // Anthropic's own endpoints (the model list) authenticate this way.
                builder = builder
                    .header("x-api-key", key.expose())
                    .header("anthropic-version", "2023-06-01");
            }
        }
        let response = builder.send().await.map_err(|error| {
            if error.is_timeout() {
                ProviderError::Timeout(timeout)
            } else {
                self.connect_error(&url, &error)
            }
        })?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|error| self.connect_error(&url, &error))?;
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
    /// `"stream": true`, and with `stream_options.include_usage` where the options and the flags
    /// allow it: a provider that answers a 4xx naming `stream_options` is asked again at once
    /// without it ([`StreamSignal::Adapted`]) and never sent it again. With
    /// [`ProviderFlags::text_tool_calls`], tool calls the model writes as text are returned as
    /// calls.
    pub async fn stream_reply(
        &self,
        request: &ChatRequest,
        cancel: &CancellationToken,
        signal: &mut (dyn FnMut(StreamSignal) + Send),
    ) -> Result<AssembledReply, CallFailure> {
        let encode = |usage: bool| {
            request.streamed_bytes(usage).map_err(|error| {
                ProviderError::Config(format!("the request could not be encoded: {error}"))
            })
        };
        let failed = |error: ProviderError| CallFailure::Failed {
            error,
            partial: AssembledReply::default(),
        };
        let mut usage = self.options.include_usage && self.flags().stream_usage;
        let mut body = encode(usage).map_err(failed)?;
        let text_calls = self.config.flags.text_tool_calls && !request.tool_names().is_empty();
        let new_assembler = || {
            if text_calls {
                ReplyAssembler::with_text_calls(request.tool_names().to_vec())
            } else {
                ReplyAssembler::new()
            }
        };
        let retry = self.options.retry;
        let mut retries = 0;
        loop {
            let mut assembler = new_assembler();
            let error = match self.attempt(&body, cancel, &mut assembler, signal).await {
                Ok(()) => {
                    for piece in assembler.end_of_stream() {
                        signal(StreamSignal::Piece(piece));
                    }
                    return Ok(assembler.finish());
                }
                Err(AttemptEnd::Cancelled) => {
                    return Err(CallFailure::Cancelled {
                        partial: assembler.finish(),
                    });
                }
                Err(AttemptEnd::Failed(error)) => error,
            };
            if usage && refuses_stream_options(&error) {
                usage = false;
                body = encode(usage).map_err(failed)?;
                self.refuses_stream_options.store(true, Ordering::Relaxed);
                REFUSES_STREAM_OPTIONS
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(self.url.clone());
                tracing::info!(provider = %self.config.name, %error, "the provider refuses stream_options; asking again without");
                signal(StreamSignal::Adapted(format!(
                    "{} does not accept `stream_options`: asked again without it (no token \
                     counts from this provider)",
                    self.config.name
                )));
                continue;
            }
            if !error.is_retryable() || retries >= retry.max_retries {
                // The caller reports the error; a log line would say it twice on a terminal.
                tracing::debug!(provider = %self.config.name, retries, %error, "model call failed");
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
        self.connect_error(&self.url, error)
    }

    /// A failed connection to `url` in words: a refusal says nothing listens there (and how to
    /// start the server that should), others say what went wrong without the HTTP client's
    /// layers (`tcp connect error`, `os error 111`), which go to the debug log.
    fn connect_error(&self, url: &str, error: &reqwest::Error) -> ProviderError {
        tracing::debug!(provider = %self.config.name, url, error = %error_chain(error), "connection failed");
        match describe_transport(error) {
            Transport::Refused => {
                let local = is_loopback(url);
                ProviderError::NotListening {
                    url: server_root(&self.config.base_url),
                    local,
                    hint: self
                        .config
                        .server
                        .start_hint()
                        .map(|hint| format!("{hint}, or choose another provider")),
                }
            }
            Transport::Described(reason) => ProviderError::Connect {
                url: url.to_owned(),
                reason,
            },
        }
    }
}

/// An error with its sources, for the debug log.
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

/// What a transport failure means for the user.
#[derive(Debug, PartialEq, Eq)]
enum Transport {
    /// The connection was refused: nothing listens there.
    Refused,
    /// Anything else, in words.
    Described(String),
}

/// Reads a transport error's causes for what happened, in words.
fn describe_transport(error: &(dyn std::error::Error + 'static)) -> Transport {
    let mut deepest = error.to_string();
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut all = String::new();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind;
            match io.kind() {
                ErrorKind::ConnectionRefused => return Transport::Refused,
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                    return Transport::Described("the connection was reset".to_owned());
                }
                ErrorKind::TimedOut => {
                    return Transport::Described("the connection timed out".to_owned());
                }
                _ => {}
            }
        }
        let text = cause.to_string();
        all.push_str(&text.to_ascii_lowercase());
        all.push(' ');
        deepest = text;
        source = cause.source();
    }
    if all.contains("connection refused") {
        return Transport::Refused;
    }
    if all.contains("dns error") || all.contains("failed to lookup address") {
        return Transport::Described("the host name could not be resolved".to_owned());
    }
    let deepest = without_os_error(&deepest);
    if all.contains("certificate") || all.contains("tls") || all.contains("handshake") {
        return Transport::Described(format!("a secure connection could not be made ({deepest})"));
    }
    Transport::Described(format!("the connection failed ({deepest})"))
}

/// `text` without a trailing ` (os error N)`.
fn without_os_error(text: &str) -> String {
    match text.find(" (os error ") {
        Some(position) => text[..position].to_owned(),
        None => text.to_owned(),
    }
}

/// True for a client error (4xx other than auth, missing and rate limits) that names
/// `stream_options`: the provider does not accept the field.
fn refuses_stream_options(error: &ProviderError) -> bool {
    match error {
        ProviderError::Status {
            status, message, ..
        } => {
            (400..500).contains(status)
                && !matches!(status, 401 | 403 | 404 | 429)
                && message.to_ascii_lowercase().contains("stream_options")
        }
        _ => false,
    }
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
/// `{"error": {"message", "code"}}`, `{"error": "text"}`, `{"message": "text"}`, those wrapped in
/// an array (Gemini), a message that is itself a validation report (Mistral's and FastAPI's
/// `{"detail": [{"loc", "msg"}]}`), an HTML page (a proxy's: its title, or first line of text),
/// or plain text.
fn error_message(body: &str, status: reqwest::StatusCode) -> (String, Option<String>) {
    let fallback = || {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            status.canonical_reason().unwrap_or("no message").to_owned()
        } else if looks_like_html(trimmed) {
            html_summary(trimmed).unwrap_or_else(|| {
                status
                    .canonical_reason()
                    .unwrap_or("an HTML page")
                    .to_owned()
            })
        } else {
            excerpt(trimmed, 1_000)
        }
    };
    let Ok(value) = serde_json::from_str::<Value>(body) else {
        return (fallback(), None);
    };
    let value = match value {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
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
    message_text(error).unwrap_or_else(|| error.to_string())
}

/// The words of an error value: a string, an object's `message`, `detail`, `msg` (with its
/// `loc`) or `error`, or the items of a list joined.
fn message_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(message_text).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        Value::Object(object) => {
            if let Some(msg) = object.get("msg").and_then(Value::as_str) {
                let location: Vec<String> = object
                    .get("loc")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|part| match part {
                        Value::String(part) => part.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                return Some(if location.is_empty() {
                    msg.to_owned()
                } else {
                    format!("{}: {msg}", location.join("."))
                });
            }
            ["message", "detail", "error"]
                .iter()
                .find_map(|key| object.get(*key).and_then(message_text))
        }
        _ => None,
    }
}

fn looks_like_html(text: &str) -> bool {
    let start: String = text
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    start.starts_with('<')
        && (start.contains("<html")
            || start.contains("<!doctype")
            || start.contains("<head")
            || start.contains("<title")
            || start.contains("<body"))
}

/// An HTML page's `<title>`, else its first line of text.
fn html_summary(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    if let Some(start) = lower.find("<title") {
        let open_end = lower[start..].find('>').map(|offset| start + offset + 1)?;
        if let Some(close) = lower[open_end..].find("</title") {
            let title = collapse(&html[open_end..open_end + close]);
            if !title.is_empty() {
                return Some(excerpt(&title, 200));
            }
        }
    }
    let mut text = String::new();
    let mut in_tag = false;
    let mut skipping = false;
    for (index, ch) in html.char_indices() {
        match ch {
            '<' => {
                in_tag = true;
                let rest = &lower[index..];
                if rest.starts_with("<script") || rest.starts_with("<style") {
                    skipping = true;
                } else if rest.starts_with("</script") || rest.starts_with("</style") {
                    skipping = false;
                }
            }
            '>' if in_tag => {
                in_tag = false;
                text.push('\n');
            }
            _ if !in_tag && !skipping => text.push(ch),
            _ => {}
        }
    }
    text.lines()
        .map(collapse)
        .find(|line| !line.is_empty())
        .map(|line| excerpt(&line, 200))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
                "mistral",
                "groq",
                "together",
                "gemini",
                "anthropic",
                "ollama",
                "lmstudio",
                "llamacpp",
                "vllm"
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
        assert_eq!(error_message("", status).0, "Bad Request");
        assert_eq!(
            error_message("plain text\nsecond", status).0,
            "plain text\nsecond"
        );
    }

    #[test]
    fn html_pages_are_summarised_to_their_title_or_first_line() {
        let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n";
        let status = StatusCode::BAD_GATEWAY;
        assert_eq!(error_message(nginx, status).0, "502 Bad Gateway");
        let untitled = "<!DOCTYPE html><html><head><style>p{}</style></head><body>\n  <p>Upstream   timed out</p><p>more</p></body></html>";
        assert_eq!(error_message(untitled, status).0, "Upstream timed out");
        assert_eq!(
            error_message("<html><body></body></html>", status).0,
            "Bad Gateway"
        );
    }

    #[test]
    fn arrays_and_validation_reports_read_like_objects() {
        let status = StatusCode::BAD_REQUEST;
        let gemini = r#"[{"error": {"code": 400, "message": "Function call is missing a thought_signature", "status": "INVALID_ARGUMENT"}}]"#;
        assert_eq!(
            error_message(gemini, status),
            (
                "Function call is missing a thought_signature".to_owned(),
                Some("400".to_owned())
            )
        );
        let mistral = r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_message_error","param":null,"code":null}"#;
        assert_eq!(
            error_message(mistral, StatusCode::UNPROCESSABLE_ENTITY).0,
            "body.stream_options: Extra inputs are not permitted"
        );
        assert_eq!(
            error_message(r#"{"detail": "Not Found"}"#, status).0,
            "Not Found"
        );
    }

    #[test]
    fn a_refusal_of_stream_options_is_recognised_only_in_client_errors() {
        let status = |status: u16, message: &str| ProviderError::Status {
            provider: "p".into(),
            status,
            message: message.into(),
            code: None,
            retry_after: None,
        };
        assert!(refuses_stream_options(&status(
            422,
            "body.stream_options: Extra inputs are not permitted"
        )));
        assert!(refuses_stream_options(&status(
            400,
            "Unknown field: Stream_Options"
        )));
        assert!(!refuses_stream_options(&status(
            500,
            "stream_options broke"
        )));
        assert!(!refuses_stream_options(&status(401, "stream_options")));
        assert!(!refuses_stream_options(&status(400, "bad model")));
    }

    #[test]
    fn transport_failures_are_described_without_internals() {
        #[derive(Debug)]
        struct Layer(&'static str, std::io::Error);
        impl fmt::Display for Layer {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for Layer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.1)
            }
        }
        let refused = Layer(
            "tcp connect error",
            std::io::Error::from(std::io::ErrorKind::ConnectionRefused),
        );
        assert_eq!(describe_transport(&refused), Transport::Refused);
        let dns = Layer(
            "dns error",
            std::io::Error::other("failed to lookup address information"),
        );
        assert_eq!(
            describe_transport(&dns),
            Transport::Described("the host name could not be resolved".into())
        );
        let other = Layer(
            "client error (Connect)",
            std::io::Error::other("Network is unreachable (os error 101)"),
        );
        let Transport::Described(text) = describe_transport(&other) else {
            panic!("not described");
        };
        assert_eq!(text, "the connection failed (Network is unreachable)");
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
