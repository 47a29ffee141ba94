//! What a provider is: its configured fields, the shipped presets, and its key.
//!
//! A [`ProviderConfig`] is plain data, the same fields the store persists, so the loop can be
//! pointed at any OpenAI-compatible server without a preset. Its key comes from the keychain
//! (through the engine) or from the environment variable it names; either way the key lives in
//! an [`ApiKey`], which never prints its value, and the variable is marked secret so that no
//! program Gantry starts inherits it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ProviderError;
use crate::local::ServerKind;
use crate::presets::ProviderFlags;

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
    /// own answer, when it gives one, takes its place:
    /// [`Provider::server_window`](super::Provider::server_window)).
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
