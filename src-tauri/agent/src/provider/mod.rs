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
//! to a [`ReplyAssembler`](crate::stream::ReplyAssembler). A retryable failure (429 unless the
//! quota is gone, 408/409, 5xx, connection failures, timeouts, a stream that breaks off or ends
//! early) is retried after the provider's `Retry-After`/`retry-after-ms`, or else an exponential
//! backoff with jitter, at most [`RetryPolicy::max_retries`] times, each announced to the caller
//! first. A retry restarts the reply: whatever the failed attempt streamed is discarded. A
//! malformed chunk is reported and skipped; the stream goes on. Cancellation drops the response
//! at once, which closes the connection.
//!
//! TLS uses reqwest's default rustls backend (aws-lc-rs as the crypto provider): no OpenSSL, but
//! aws-lc-rs does compile C with the system compiler. The alternative, `rustls-no-provider` with
//! ring, compiles C as well, and would make every `reqwest::Client::new()` elsewhere in the
//! workspace panic (feature unification) unless each installed a provider first.
//!
//! The parts, one job each: `config` says what a provider is and holds its key, `options` how it
//! is talked to (timeouts, retries); `call` runs a model call as attempts with retries, `attempt`
//! sends one request and reads its SSE stream; `models` lists the provider's models;
//! `transport` and `error_body` put connection failures and error responses in words.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::OnceCell;

use crate::error::ProviderError;
use crate::local::{ServerWindow, discover_window};
use crate::presets::ProviderFlags;

mod attempt;
mod call;
mod config;
mod error_body;
mod models;
mod options;
mod transport;

#[cfg(test)]
mod tests;

pub use call::{CallFailure, StreamSignal};
pub use config::{ApiKey, DEFAULT_CONTEXT_WINDOW, DEFAULT_PROVIDER, ProviderConfig};
pub use options::{ProviderOptions, RetryPolicy};

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
}
