//! Local model servers: what kind a provider is, and the context window it really runs.
//!
//! A local server's OpenAI endpoint does not say how much context it keeps, and Ollama's
//! silently drops the start of a request longer than its server-side window, so the window
//! configured in Gantry may be a guess the server does not honour. Each server answers the
//! question on its own API, which [`discover_window`] asks:
//!
//! - **Ollama**: `GET /api/ps` lists the loaded models with the context they run with
//!   (`context_length`); `POST /api/show` gives the Modelfile's `num_ctx`, if any, and the model's
//!   trained maximum (`model_info["<arch>.context_length"]`). A model not loaded yet runs with
//!   `num_ctx`, else the server's default (`OLLAMA_CONTEXT_LENGTH`, 4096 when unset), which Gantry
//!   cannot see: the window is then *assumed* (not certain).
//! - **LM Studio**: `GET /api/v0/models` gives `loaded_context_length` for a loaded model and
//!   `max_context_length`; an unloaded one is loaded with LM Studio's default (4096), assumed.
//! - **llama.cpp** (`llama-server`): `GET /props` gives `n_ctx` (per slot), certain.
//! - **vLLM**: `GET /v1/models` gives `max_model_len`, certain.
//!
//! Every failure (an older server, another kind on that port) means "unknown": the configured
//! window applies.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::provider::ApiKey;

/// The context Ollama and LM Studio give a model they load without being told otherwise.
pub const LOCAL_DEFAULT_CONTEXT: u32 = 4_096;

/// What kind of server a provider is, where Gantry can ask it more than the OpenAI API says.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerKind {
    /// Any other OpenAI-compatible service (OpenAI, OpenRouter, DeepSeek, ...).
    #[default]
    Other,
    /// Ollama (`ollama serve`, port 11434).
    Ollama,
    /// LM Studio's local server (port 1234).
    LmStudio,
    /// llama.cpp's `llama-server` (port 8080).
    LlamaCpp,
    /// vLLM's OpenAI server (port 8000).
    Vllm,
    /// Anthropic's OpenAI-compatible endpoint (its model list wants Anthropic's headers).
    Anthropic,
}

impl ServerKind {
    /// The local servers the first run looks for, in order.
    pub const LOCAL: [ServerKind; 3] = [Self::Ollama, Self::LmStudio, Self::LlamaCpp];

    /// The kind a base URL suggests: a loopback host on a local server's usual port, or
    /// Anthropic's API host; [`ServerKind::Other`] otherwise.
    pub fn detect(base_url: &str) -> Self {
        let Ok(url) = reqwest::Url::parse(base_url) else {
            return Self::Other;
        };
        if url.host_str() == Some("api.anthropic.com") {
            return Self::Anthropic;
        }
        if !is_loopback(base_url) {
            return Self::Other;
        }
        match url.port_or_known_default() {
            Some(11434) => Self::Ollama,
            Some(1234) => Self::LmStudio,
            Some(8080) => Self::LlamaCpp,
            Some(8000) => Self::Vllm,
            _ => Self::Other,
        }
    }

    /// Whether it runs models on this machine (or one the user runs).
    pub fn is_local(self) -> bool {
        matches!(
            self,
            Self::Ollama | Self::LmStudio | Self::LlamaCpp | Self::Vllm
        )
    }

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Other => "the provider",
            Self::Ollama => "Ollama",
            Self::LmStudio => "LM Studio",
            Self::LlamaCpp => "llama.cpp",
            Self::Vllm => "vLLM",
            Self::Anthropic => "Anthropic",
        }
    }

    /// How to start it, for a message saying nothing listens where it should.
    pub fn start_hint(self) -> Option<&'static str> {
        match self {
            Self::Ollama => {
                Some("start Ollama (`ollama serve`, then `ollama pull qwen2.5-coder:7b`)")
            }
            Self::LmStudio => Some(
                "start LM Studio's server (Developer tab → Start server, or `lms server start`)",
            ),
            Self::LlamaCpp => Some("start `llama-server -m MODEL.gguf --port 8080`"),
            Self::Vllm => Some("start `vllm serve MODEL`"),
            Self::Other | Self::Anthropic => None,
        }
    }

    /// How to give a model a larger window on this server.
    pub fn window_fix(self, wanted: u32) -> String {
        let wanted = wanted.next_power_of_two().max(8_192);
        match self {
            Self::Ollama => format!(
                "restart Ollama with a larger window, e.g. `OLLAMA_CONTEXT_LENGTH={wanted} ollama \
                 serve` (or set `num_ctx` in a Modelfile)"
            ),
            Self::LmStudio => format!(
                "load the model with a larger context length (LM Studio: the model's load \
                 settings → Context Length, or `lms load MODEL --context-length {wanted}`)"
            ),
            Self::LlamaCpp => {
                format!("restart llama-server with a larger context, e.g. `-c {wanted}`")
            }
            Self::Vllm => format!("restart vLLM with a larger `--max-model-len` (e.g. {wanted})"),
            Self::Other | Self::Anthropic => {
                "choose a model with a larger context window".to_owned()
            }
        }
    }
}

/// Whether `url` points at this machine (`localhost`, `127.0.0.0/8`, `[::1]`).
pub fn is_loopback(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The context window a server runs a model with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerWindow {
    /// Tokens of context per request.
    pub tokens: u32,
    /// True when the server said so; false when Gantry assumes the server's default because
    /// the model is not loaded yet.
    pub certain: bool,
    /// The most the model supports, when the server says (what the window could be raised to).
    pub model_max: Option<u32>,
}

/// The server's root URL: the base URL without its trailing `/v1`.
pub fn server_root(base_url: &str) -> String {
    let trimmed = base_url.trim_end_matches('/');
    trimmed.strip_suffix("/v1").unwrap_or(trimmed).to_owned()
}

/// Asks a `kind` server at `base_url` for the window it runs `model` with; `None` when it
/// cannot say (see the module docs).
pub async fn discover_window(
    http: &reqwest::Client,
    kind: ServerKind,
    base_url: &str,
    model: &str,
    key: Option<&ApiKey>,
    timeout: Duration,
) -> Option<ServerWindow> {
    let asker = Asker {
        http,
        root: server_root(base_url),
        key,
        timeout,
    };
    let found = match kind {
        ServerKind::Ollama => ollama_window(&asker, model).await,
        ServerKind::LmStudio => lmstudio_window(&asker, model).await,
        ServerKind::LlamaCpp => llamacpp_window(&asker).await,
        ServerKind::Vllm => vllm_window(&asker, model).await,
        ServerKind::Other | ServerKind::Anthropic => None,
    };
    tracing::debug!(
        ?kind,
        model,
        ?found,
        "asked the server for its context window"
    );
    found
}

struct Asker<'a> {
    http: &'a reqwest::Client,
    root: String,
    key: Option<&'a ApiKey>,
    timeout: Duration,
}

impl Asker<'_> {
    async fn get(&self, path: &str) -> Option<Value> {
        self.send(self.http.get(format!("{}{path}", self.root)))
            .await
    }

    async fn post(&self, path: &str, body: &Value) -> Option<Value> {
        self.send(self.http.post(format!("{}{path}", self.root)).json(body))
            .await
    }

    async fn send(&self, builder: reqwest::RequestBuilder) -> Option<Value> {
        let mut builder = builder.timeout(self.timeout);
        if let Some(key) = self.key {
            builder = builder.bearer_auth(key.expose());
        }
        let response = builder.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        response.json::<Value>().await.ok()
    }
}

fn as_tokens(value: Option<&Value>) -> Option<u32> {
    value
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// `qwen2.5-coder` and `qwen2.5-coder:latest` are one model to Ollama.
fn same_ollama_model(a: &str, b: &str) -> bool {
    let strip = |name: &str| name.strip_suffix(":latest").unwrap_or(name).to_owned();
    strip(a) == strip(b)
}

async fn ollama_window(asker: &Asker<'_>, model: &str) -> Option<ServerWindow> {
    let shown = asker.post("/api/show", &json!({ "model": model })).await;
    let model_max = shown.as_ref().and_then(|shown| {
        let info = shown.get("model_info")?;
        let arch = info.get("general.architecture")?.as_str()?;
        as_tokens(info.get(format!("{arch}.context_length")))
    });
    let modelfile_ctx = shown
        .as_ref()
        .and_then(|shown| shown.get("parameters")?.as_str().map(str::to_owned))
        .and_then(|parameters| {
            parameters.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next()?.parse::<u32>().ok())
                    .flatten()
            })
        });
    let running = asker.get("/api/ps").await.and_then(|listed| {
        listed
            .get("models")?
            .as_array()?
            .iter()
            .find(|entry| {
                ["name", "model"].iter().any(|key| {
                    entry
                        .get(*key)
                        .and_then(Value::as_str)
                        .is_some_and(|name| same_ollama_model(name, model))
                })
            })
            .and_then(|entry| as_tokens(entry.get("context_length")))
    });
    if shown.is_none() && running.is_none() {
        return None;
    }
    Some(match (running, modelfile_ctx) {
        (Some(tokens), _) | (None, Some(tokens)) => ServerWindow {
            tokens,
            certain: true,
            model_max,
        },
        (None, None) => ServerWindow {
            tokens: model_max.map_or(LOCAL_DEFAULT_CONTEXT, |max| max.min(LOCAL_DEFAULT_CONTEXT)),
            certain: false,
            model_max,
        },
    })
}

async fn lmstudio_window(asker: &Asker<'_>, model: &str) -> Option<ServerWindow> {
    let listed = asker.get("/api/v0/models").await?;
    let entry = listed
        .get("data")?
        .as_array()?
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))?;
    let model_max = as_tokens(entry.get("max_context_length"));
    Some(match as_tokens(entry.get("loaded_context_length")) {
        Some(tokens) => ServerWindow {
            tokens,
            certain: true,
            model_max,
        },
        None => ServerWindow {
            tokens: model_max.map_or(LOCAL_DEFAULT_CONTEXT, |max| max.min(LOCAL_DEFAULT_CONTEXT)),
            certain: false,
            model_max,
        },
    })
}

async fn llamacpp_window(asker: &Asker<'_>) -> Option<ServerWindow> {
    let props = asker.get("/props").await?;
    let tokens = as_tokens(props.pointer("/default_generation_settings/n_ctx"))
        .or_else(|| as_tokens(props.get("n_ctx")))?;
    Some(ServerWindow {
        tokens,
        certain: true,
        model_max: None,
    })
}

async fn vllm_window(asker: &Asker<'_>, model: &str) -> Option<ServerWindow> {
    let listed = asker.get("/v1/models").await?;
    let models = listed.get("data")?.as_array()?;
    let entry = models
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| models.first())?;
    let tokens = as_tokens(entry.get("max_model_len"))?;
    Some(ServerWindow {
        tokens,
        certain: true,
        model_max: Some(tokens),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_detected_from_loopback_ports_and_known_hosts() {
        let cases = [
            ("http://localhost:11434/v1", ServerKind::Ollama),
            ("http://127.0.0.1:1234/v1", ServerKind::LmStudio),
            ("http://[::1]:8080/v1", ServerKind::LlamaCpp),
            ("http://localhost:8000/v1", ServerKind::Vllm),
            ("https://api.anthropic.com/v1", ServerKind::Anthropic),
            ("http://gpu-box:11434/v1", ServerKind::Other),
            ("https://api.openai.com/v1", ServerKind::Other),
            ("not a url", ServerKind::Other),
        ];
        for (url, kind) in cases {
            assert_eq!(ServerKind::detect(url), kind, "{url}");
        }
        assert_eq!(server_root("http://h:1/v1/"), "http://h:1");
        assert_eq!(server_root("http://h:1/api"), "http://h:1/api");
    }

    #[test]
    fn fixes_name_each_servers_setting() {
        assert!(
            ServerKind::Ollama
                .window_fix(10_000)
                .contains("OLLAMA_CONTEXT_LENGTH=16384")
        );
        assert!(ServerKind::LlamaCpp.window_fix(3_000).contains("-c 8192"));
        assert!(
            ServerKind::LmStudio
                .window_fix(3_000)
                .contains("Context Length")
        );
        assert!(
            ServerKind::Vllm
                .window_fix(3_000)
                .contains("--max-model-len")
        );
    }
}
