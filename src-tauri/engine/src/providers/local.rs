//! The first run: which local model servers answer on this machine, and what to do when none
//! does and no provider was chosen.
//!
//! Gantry's default is the local Ollama, but a fresh install may have LM Studio or llama.cpp
//! instead, or nothing. [`detect`] asks each local server's usual address for its models (all
//! at once, a short timeout each, a refused connection answering at once), so the welcome
//! screen, the empty chat and `gantry-cli chat` can offer what is there. [`default_provider`]
//! is what a front end uses when no provider is set: the first local server found with a model,
//! or [`NoProvider`], which says in one sentence how to get one.
//!
//! The addresses probed come from `GANTRY_LOCAL_SERVERS` when it is set
//! (`ollama=http://127.0.0.1:5000/v1,llamacpp=http://127.0.0.1:5001/v1`; empty or `none`: probe
//! nothing), so tests never depend on what listens on this machine's real ports.

use std::time::Duration;

use gantry_agent::{Provider, ProviderConfig, ProviderOptions, ServerKind};
use serde::Serialize;

/// The variable naming the local addresses to probe instead of the usual ports.
pub const LOCAL_SERVERS_VAR: &str = "GANTRY_LOCAL_SERVERS";

/// How long one server may take to list its models.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// A local server that answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalServer {
    /// The preset it matches (`ollama`, `lmstudio`, `llamacpp`).
    pub preset: String,
    /// Its name for people (`LM Studio`).
    pub label: String,
    /// The API base it answered at.
    pub base_url: String,
    /// The models it lists, sorted (empty: running, but nothing to chat with yet).
    pub models: Vec<String>,
    /// The model to offer first: the preset's when listed, else the first listed.
    pub suggested_model: Option<String>,
}

/// The local addresses to probe: `GANTRY_LOCAL_SERVERS`, else each local preset's URL.
pub fn local_addresses() -> Vec<(ServerKind, String)> {
    match std::env::var(LOCAL_SERVERS_VAR) {
        Ok(value) => parse_addresses(&value),
        Err(_) => ServerKind::LOCAL
            .iter()
            .filter_map(|kind| preset_of(*kind).map(|preset| (*kind, preset.base_url)))
            .collect(),
    }
}

/// `ollama=URL,lmstudio=URL,llamacpp=URL` (any subset, in that order or another).
fn parse_addresses(value: &str) -> Vec<(ServerKind, String)> {
    value
        .split(',')
        .filter_map(|entry| {
            let (name, url) = entry.split_once('=')?;
            let kind = ServerKind::LOCAL
                .into_iter()
                .find(|kind| preset_of(*kind).is_some_and(|p| p.name == name.trim()))?;
            Some((kind, url.trim().to_owned()))
        })
        .collect()
}

/// The preset for a kind of local server.
pub fn preset_of(kind: ServerKind) -> Option<ProviderConfig> {
    ProviderConfig::presets()
        .into_iter()
        .find(|preset| preset.server == kind)
}

/// The local servers that answer at [`local_addresses`], in probing order.
pub async fn detect() -> Vec<LocalServer> {
    detect_at(&local_addresses()).await
}

/// The local servers that answer at `addresses`, in their order.
pub async fn detect_at(addresses: &[(ServerKind, String)]) -> Vec<LocalServer> {
    let probes = addresses
        .iter()
        .map(|(kind, base_url)| probe(*kind, base_url.clone()));
    futures::future::join_all(probes)
        .await
        .into_iter()
        .flatten()
        .collect()
}

async fn probe(kind: ServerKind, base_url: String) -> Option<LocalServer> {
    let preset = preset_of(kind)?;
    let config = ProviderConfig {
        base_url: base_url.clone(),
        ..preset.clone()
    };
    let options = ProviderOptions {
        connect_timeout: PROBE_TIMEOUT,
        ..ProviderOptions::default()
    };
    let provider = Provider::new(config, None, options).ok()?;
    match provider.fetch_models(PROBE_TIMEOUT).await {
        Ok(models) => {
            let suggested_model = models
                .iter()
                .find(|model| **model == preset.model)
                .or_else(|| models.first())
                .cloned();
            Some(LocalServer {
                preset: preset.name,
                label: kind.label().to_owned(),
                base_url,
                models,
                suggested_model,
            })
        }
        Err(error) => {
            tracing::debug!(%base_url, %error, "no local server here");
            None
        }
    }
}

/// No provider is set and no local server can be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoProvider {
    /// Nothing answered at the local addresses.
    #[error(
        "no model provider is set and no local model server answers ({probed}): start one \
         (Ollama: `ollama serve`, then `ollama pull qwen2.5-coder:7b`; or LM Studio's or \
         llama.cpp's server)"
    )]
    NothingListening {
        /// The addresses asked, for people (`Ollama at localhost:11434, ...`).
        probed: String,
    },
    /// A server answers but lists no model.
    #[error("{label} is running at {base_url} but has no model yet: {fix}")]
    NoModels {
        /// The server's name.
        label: String,
        /// Where.
        base_url: String,
        /// How to get one.
        fix: String,
    },
}

impl NoProvider {
    /// The sentence and what the CLI user can do instead.
    pub fn for_cli(&self) -> String {
        format!(
            "{self}, or use a hosted provider: `gantry-cli provider set NAME --base-url URL \
             --model M` and `gantry-cli provider key NAME`, then `--provider NAME` (presets: {})",
            preset_names()
        )
    }

    /// The sentence and what the app user can do instead.
    pub fn for_app(&self) -> String {
        format!("{self}, or choose a hosted provider and paste its key in Settings")
    }
}

fn preset_names() -> String {
    ProviderConfig::presets()
        .into_iter()
        .map(|preset| preset.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The provider to use when none is set: the first local server found at
/// [`local_addresses`] that lists a model (Ollama first), with the model its preset names when
/// listed.
pub async fn default_provider() -> Result<ProviderConfig, NoProvider> {
    default_provider_at(&local_addresses()).await
}

/// [`default_provider`] probing `addresses`.
pub async fn default_provider_at(
    addresses: &[(ServerKind, String)],
) -> Result<ProviderConfig, NoProvider> {
    let found = detect_at(addresses).await;
    if let Some(server) = found.iter().find(|server| server.suggested_model.is_some()) {
        let kind = ServerKind::LOCAL
            .into_iter()
            .find(|kind| preset_of(*kind).is_some_and(|preset| preset.name == server.preset));
        if let Some(preset) = kind.and_then(preset_of) {
            return Ok(ProviderConfig {
                base_url: server.base_url.clone(),
                model: server
                    .suggested_model
                    .clone()
                    .unwrap_or(preset.model.clone()),
                ..preset
            });
        }
    }
    if let Some(server) = found.first() {
        let fix = match server.preset.as_str() {
            "ollama" => "`ollama pull qwen2.5-coder:7b`".to_owned(),
            "lmstudio" => "download and load a model in LM Studio".to_owned(),
            _ => "start it with a model (`llama-server -m MODEL.gguf`)".to_owned(),
        };
        return Err(NoProvider::NoModels {
            label: server.label.clone(),
            base_url: server.base_url.clone(),
            fix,
        });
    }
    let probed = addresses
        .iter()
        .map(|(kind, url)| format!("{} at {}", kind.label(), short_address(url)))
        .collect::<Vec<_>>()
        .join(", ");
    Err(NoProvider::NothingListening {
        probed: if probed.is_empty() {
            "none probed".to_owned()
        } else {
            probed
        },
    })
}

/// `localhost:11434` for `http://localhost:11434/v1`.
fn short_address(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_come_from_the_variable_when_set() {
        assert_eq!(
            parse_addresses("ollama=http://127.0.0.1:9/v1, llamacpp = http://[::1]:7/v1,bogus=x"),
            [
                (ServerKind::Ollama, "http://127.0.0.1:9/v1".to_owned()),
                (ServerKind::LlamaCpp, "http://[::1]:7/v1".to_owned()),
            ]
        );
        assert!(parse_addresses("").is_empty());
        assert!(parse_addresses("none").is_empty());
        assert_eq!(
            short_address("http://localhost:11434/v1"),
            "localhost:11434"
        );
    }

    fn dead_port() -> String {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        format!("http://127.0.0.1:{port}/v1")
    }

    #[tokio::test]
    async fn servers_that_answer_are_offered_with_their_models() {
        use gantry_scripted_provider::{Script, ScriptedProvider};
        let studio = ScriptedProvider::start(
            Script::default().models(["zeta", "qwen2.5-coder-7b-instruct"]),
        )
        .await
        .unwrap();
        let addresses = [
            (ServerKind::Ollama, dead_port()),
            (ServerKind::LmStudio, studio.base_url()),
        ];
        let started = std::time::Instant::now();
        let found = detect_at(&addresses).await;
        assert!(
            started.elapsed() < PROBE_TIMEOUT,
            "a refused port answers at once"
        );
        assert_eq!(
            found,
            [LocalServer {
                preset: "lmstudio".into(),
                label: "LM Studio".into(),
                base_url: studio.base_url(),
                models: vec!["qwen2.5-coder-7b-instruct".into(), "zeta".into()],
                suggested_model: Some("qwen2.5-coder-7b-instruct".into()),
            }]
        );
        let chosen = default_provider_at(&addresses).await.unwrap();
        assert_eq!(chosen.name, "lmstudio");
        assert_eq!(chosen.base_url, studio.base_url());
        assert_eq!(chosen.server, ServerKind::LmStudio);
        assert!(chosen.flags.text_tool_calls);
    }

    #[tokio::test]
    async fn nothing_there_or_no_model_says_what_to_do() {
        use gantry_scripted_provider::{Script, ScriptedProvider};
        let addresses = [
            (ServerKind::Ollama, dead_port()),
            (ServerKind::LlamaCpp, dead_port()),
        ];
        let none = default_provider_at(&addresses).await.unwrap_err();
        assert!(
            matches!(none, NoProvider::NothingListening { .. }),
            "{none}"
        );
        let text = none.to_string();
        assert!(
            text.contains("Ollama at 127.0.0.1:") && text.contains("llama.cpp at"),
            "{text}"
        );
        let empty = ScriptedProvider::start(Script::default().models(Vec::<String>::new()))
            .await
            .unwrap();
        let bare = default_provider_at(&[(ServerKind::Ollama, empty.base_url())])
            .await
            .unwrap_err();
        assert!(bare.to_string().contains("ollama pull"), "{bare}");
    }

    #[test]
    fn the_sentences_say_what_to_do_without_transport_words() {
        let none = NoProvider::NothingListening {
            probed: "Ollama at localhost:11434".into(),
        };
        let cli = none.for_cli();
        assert!(
            cli.contains("ollama serve") && cli.contains("gantry-cli provider set"),
            "{cli}"
        );
        assert!(!cli.contains('\n'));
        assert!(none.for_app().contains("Settings"));
    }
}
