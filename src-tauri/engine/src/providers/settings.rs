//! Which model provider the chat talks to, and the minimal settings to change it.
//!
//! The provider configurations are the agent's ([`ProviderConfig`]: presets, or saved in the
//! store), the key lives in the OS keychain ([`Secrets`]), and the name of the active one is an
//! app setting ([`ACTIVE_PROVIDER`]). With nothing chosen the chat uses the local Ollama preset,
//! so the app works without an account. The key itself never crosses back to the webview: the
//! view says only whether one is stored.

use gantry_agent::{ApiKey, Provider, ProviderConfig, ProviderFlags, ProviderOptions, ServerKind};
use gantry_store::{FlagSettings, Secret, SecretError, Secrets, Store};
use serde::{Deserialize, Serialize};

use crate::error::{CommandError, ErrorKind};
use crate::providers::{ProviderSource, find_provider, provider_key};

/// The setting that names the active provider (a saved provider or a preset).
pub const ACTIVE_PROVIDER: &str = "provider.active";

/// The longest API key accepted, in bytes.
const MAX_KEY_BYTES: usize = 4096;

/// A provider as the settings panel shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView {
    /// Its name (a preset's, or the user's).
    pub name: String,
    /// The API base URL, up to `/v1`.
    pub base_url: String,
    /// The model asked.
    pub model: String,
    /// The environment variable read for the key when the keychain has none.
    pub api_key_env: Option<String>,
    /// The context window in tokens.
    pub context_window: u32,
    /// Whether it is saved in the store (otherwise it is a preset as shipped).
    pub saved: bool,
    /// Where its wire differs from OpenAI's.
    pub flags: ProviderFlags,
    /// What kind of server it is.
    pub server: ServerKind,
    /// Whether it needs an API key (hosted services do; local servers don't).
    pub needs_key: bool,
}

/// Whether the active provider has a key in the keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum KeyState {
    /// A key is stored.
    Stored,
    /// No key is stored (the provider may need none).
    Missing,
    /// The keychain cannot be reached; the message says how to use the variable instead.
    Unavailable {
        /// What happened and what to do.
        message: String,
    },
}

/// What the settings panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSettings {
    /// The provider the chat uses (with none chosen: the Ollama preset, or the first local
    /// server found when a message is sent).
    pub active: ProviderView,
    /// Whether a provider was chosen (false on a fresh install: the first run's guidance).
    pub configured: bool,
    /// Whether it has a stored key.
    pub key: KeyState,
    /// The shipped presets, to start from.
    pub presets: Vec<ProviderView>,
}

/// A provider to save and make the active one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveProviderRequest {
    /// Its name: 1 to 64 letters, digits, `.`, `_` or `-` (a preset's name keeps its defaults).
    pub name: String,
    /// The API base URL (`http://` or `https://`).
    pub base_url: String,
    /// The model to ask.
    pub model: String,
    /// The context window in tokens; the preset's (or 8192) when absent.
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// A new API key to store in the keychain; absent or empty keeps the stored one.
    #[ts(optional)]
    pub api_key: Option<String>,
    /// The wire flags; absent keeps the saved ones (or the preset's).
    #[ts(optional)]
    pub flags: Option<ProviderFlags>,
}

impl std::fmt::Display for SaveProviderRequest {
    /// Never shows the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {})", self.name, self.base_url, self.model)
    }
}

/// A provider to try: as the form shows it, before saving.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProbeProviderRequest {
    /// Its name (whose stored key is used when no key is typed).
    pub name: String,
    /// The API base URL.
    pub base_url: String,
    /// A key typed in the form, not saved yet.
    #[ts(optional)]
    pub api_key: Option<String>,
}

/// What trying a provider found: it answered and listed these models.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderProbe {
    /// The model ids it lists, sorted.
    pub models: Vec<String>,
    /// How long the answer took, in milliseconds.
    pub elapsed_ms: u32,
}

/// A provider, by name (whose stored key is deleted).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderNameRequest {
    /// The provider's name.
    pub name: String,
}

/// How long a connection test waits for the provider.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(15);

fn view(config: &ProviderConfig, saved: bool) -> ProviderView {
    ProviderView {
        name: config.name.clone(),
        base_url: config.base_url.clone(),
        model: config.model.clone(),
        api_key_env: config.api_key_env.clone(),
        context_window: config.context_window,
        saved,
        flags: config.flags,
        server: config.server,
        needs_key: !config.server.is_local() && config.api_key_env.is_some(),
    }
}

/// Whether a provider was chosen (the active-provider setting is set).
pub async fn configured(store: &Store) -> Result<bool, CommandError> {
    Ok(store.settings().get(ACTIVE_PROVIDER).await?.is_some())
}

/// The environment variable that holds provider `name`'s key when the keychain has none: the
/// preset's (`OPENAI_API_KEY`), else `NAME_API_KEY`.
fn key_variable(name: &str) -> String {
    ProviderConfig::preset(name)
        .and_then(|preset| preset.api_key_env)
        .unwrap_or_else(|| gantry_store::ProviderConfig::default_api_key_env(name))
}

/// The active provider's configuration and where it came from.
pub async fn active_config(
    store: &Store,
) -> Result<(ProviderConfig, ProviderSource), CommandError> {
    let name = store.settings().get(ACTIVE_PROVIDER).await?;
    Ok(find_provider(Some(store), name.as_deref()).await?)
}

/// The provider for the next turn: the active configuration with its key. With none chosen,
/// the first local server found (the Ollama preset first); none found is a
/// [`ErrorKind::Provider`] error saying how to get one.
pub async fn active_provider(store: &Store) -> Result<Provider, CommandError> {
    let (mut config, source) = active_config(store).await?;
    if !configured(store).await? {
        config = crate::providers::local::default_provider()
            .await
            .map_err(|none| CommandError::new(ErrorKind::Provider, none.for_app()))?;
    }
    let key: Option<ApiKey> = provider_key(&config, source).await?;
    Ok(Provider::new(config, key, ProviderOptions::default())?)
}

/// What the settings panel shows; `secrets` is asked whether a key is stored.
pub async fn settings(store: &Store, secrets: &Secrets) -> Result<ProviderSettings, CommandError> {
    let (config, source) = active_config(store).await?;
    let key = match secrets.get(&config.name).await {
        Ok(Some(_)) => KeyState::Stored,
        Ok(None) => KeyState::Missing,
        Err(error @ SecretError::Unavailable { .. }) => KeyState::Unavailable {
            message: error
                .with_fallback(config.api_key_env.as_deref())
                .to_string(),
        },
        Err(error) => KeyState::Unavailable {
            message: error.to_string(),
        },
    };
    Ok(ProviderSettings {
        active: view(&config, source == ProviderSource::Saved),
        configured: configured(store).await?,
        key,
        presets: ProviderConfig::presets()
            .iter()
            .map(|preset| view(preset, false))
            .collect(),
    })
}

/// Saves `request` as a provider (its key, when given, to the keychain first) and makes it the
/// active one.
pub async fn save(
    store: &Store,
    secrets: &Secrets,
    request: SaveProviderRequest,
) -> Result<ProviderSettings, CommandError> {
    let name = request.name.trim();
    let preset = ProviderConfig::preset(name);
    let flags = match request.flags {
        Some(flags) => FlagSettings {
            stream_usage: Some(flags.stream_usage),
            replay_reasoning: Some(flags.replay_reasoning),
            text_tool_calls: Some(flags.text_tool_calls),
            images: Some(flags.images),
        },
        None => store
            .providers()
            .get(name)
            .await?
            .map(|saved| saved.config.flags)
            .unwrap_or_default(),
    };
    let config = gantry_store::ProviderConfig {
        name: name.to_owned(),
        base_url: request.base_url.trim().to_owned(),
        model: request.model.trim().to_owned(),
        api_key_env: Some(key_variable(name)),
        context_window: request
            .context_window
            .or_else(|| preset.as_ref().map(|preset| preset.context_window)),
        flags,
    };
    config.validate()?;
    if let Some(key) = request
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|key| !key.is_empty())
    {
        if key.len() > MAX_KEY_BYTES || key.chars().any(char::is_control) {
            return Err(CommandError::invalid(
                "the API key must be one line of at most 4096 bytes",
            ));
        }
        secrets
            .set(&config.name, Secret::new(key))
            .await
            .map_err(|error| error.with_fallback(config.api_key_env.as_deref()))?;
    }
    store.providers().set(&config).await?;
    store.settings().set(ACTIVE_PROVIDER, &config.name).await?;
    tracing::info!(provider = %request, "provider saved and made active");
    settings(store, secrets).await
}

/// Asks the provider in `request` for its models (the Test connection button), with the typed
/// key, else the stored one, else its variable's. The error is the provider's own answer.
pub async fn probe(
    secrets: &Secrets,
    request: ProbeProviderRequest,
) -> Result<ProviderProbe, CommandError> {
    let name = request.name.trim();
    gantry_store::providers::validate_name(name)?;
    let typed = request
        .api_key
        .as_deref()
        .map(str::trim)
        .filter(|key| !key.is_empty())
        .map(ApiKey::new);
    let key = match typed {
        Some(key) => Some(key),
        None => {
            let saved = gantry_store::ProviderConfig {
                name: name.to_owned(),
                base_url: request.base_url.clone(),
                model: String::new(),
                api_key_env: Some(key_variable(name)),
                context_window: None,
                flags: FlagSettings::default(),
            };
            match secrets.api_key_for(&saved).await {
                Ok(key) => key.map(|secret| ApiKey::new(secret.expose())),
                // Without a keychain or a variable the probe goes without a key; a server that
                // needs one says so, which is what the user needs to read.
                Err(_) => None,
            }
        }
    };
    let base_url = request.base_url.trim();
    let config = ProviderConfig::new(name, base_url, "-", None, 8_192).with_server(
        ProviderConfig::preset(name).map_or_else(|| ServerKind::detect(base_url), |p| p.server),
    );
    let provider = Provider::new(config, key, ProviderOptions::default())?;
    let started = std::time::Instant::now();
    let models = provider.fetch_models(PROBE_TIMEOUT).await?;
    Ok(ProviderProbe {
        models,
        elapsed_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
    })
}

/// Removes provider `name`'s key from the keychain.
pub async fn delete_key(
    store: &Store,
    secrets: &Secrets,
    name: &str,
) -> Result<ProviderSettings, CommandError> {
    secrets
        .delete(name.trim())
        .await
        .map_err(|error| error.with_fallback(None))?;
    settings(store, secrets).await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("gantry.db")).await.unwrap();
        (dir, store)
    }

    #[tokio::test]
    async fn with_nothing_chosen_the_local_preset_is_shown() {
        let (_dir, store) = store().await;
        let (config, source) = active_config(&store).await.unwrap();
        assert_eq!(config.name, "ollama");
        assert_eq!(source, ProviderSource::Preset);
        assert!(!configured(&store).await.unwrap());
        let shown = settings(&store, &Secrets::new()).await.unwrap();
        assert!(!shown.configured);
        assert_eq!(shown.active.base_url, "http://localhost:11434/v1");
        let mistral = shown.presets.iter().find(|p| p.name == "mistral").unwrap();
        assert!(!mistral.flags.stream_usage && mistral.needs_key);
        let ollama = shown.presets.iter().find(|p| p.name == "ollama").unwrap();
        assert!(ollama.flags.text_tool_calls && !ollama.needs_key);
    }

    #[tokio::test]
    async fn a_saved_provider_becomes_active_without_a_key_in_the_database() {
        let (_dir, store) = store().await;
        // No key given: the keychain is not touched, so this runs without a Secret Service.
        let secrets = Secrets::new();
        let saved = save(
            &store,
            &secrets,
            SaveProviderRequest {
                name: "local-vllm".into(),
                base_url: " http://127.0.0.1:8000/v1 ".into(),
                model: "qwen".into(),
                context_window: Some(32_000),
                api_key: None,
                flags: None,
            },
        )
        .await
        .unwrap();
        assert_eq!(saved.active.name, "local-vllm");
        assert_eq!(saved.active.base_url, "http://127.0.0.1:8000/v1");
        assert_eq!(
            saved.active.api_key_env.as_deref(),
            Some("LOCAL_VLLM_API_KEY")
        );
        assert!(saved.active.saved);
        assert_eq!(saved.presets.len(), ProviderConfig::presets().len());
        let (config, source) = active_config(&store).await.unwrap();
        assert_eq!(
            (config.model.as_str(), source),
            ("qwen", ProviderSource::Saved)
        );
        assert_eq!(config.context_window, 32_000);
    }

    #[tokio::test]
    async fn bad_settings_are_refused_with_the_field_named() {
        let (_dir, store) = store().await;
        let secrets = Secrets::new();
        let refused = save(
            &store,
            &secrets,
            SaveProviderRequest {
                name: "x".into(),
                base_url: "ftp://nope".into(),
                model: "m".into(),
                context_window: None,
                api_key: None,
                flags: None,
            },
        )
        .await
        .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);
        assert!(refused.message.contains("base URL"), "{refused}");
        let key = save(
            &store,
            &secrets,
            SaveProviderRequest {
                name: "x".into(),
                base_url: "http://127.0.0.1:1/v1".into(),
                model: "m".into(),
                context_window: None,
                api_key: Some("sk-secret\nbreak".into()),
                flags: None,
            },
        )
        .await
        .unwrap_err();
        assert_eq!(key.kind, ErrorKind::InvalidInput);
        assert!(
            !key.message.contains("sk-secret"),
            "the key is never echoed"
        );
        // Nothing was saved or activated.
        assert_eq!(active_config(&store).await.unwrap().0.name, "ollama");
    }

    #[tokio::test]
    async fn the_connection_test_reports_the_models_or_the_providers_answer() {
        use gantry_scripted_provider::{Script, ScriptedProvider};
        let server = ScriptedProvider::start(Script::new([]).models(["m-1", "m-0"]))
            .await
            .unwrap();
        let secrets = Secrets::new();
        let probe = super::probe(
            &secrets,
            ProbeProviderRequest {
                name: "probe-test".into(),
                base_url: server.base_url(),
                api_key: Some("sk-typed".into()),
            },
        )
        .await
        .unwrap();
        assert_eq!(probe.models, ["m-0", "m-1"]);
        assert_eq!(
            server.requests().pop().unwrap().header("authorization"),
            Some("Bearer sk-typed")
        );
        let failed = super::probe(
            &secrets,
            ProbeProviderRequest {
                name: "probe-test".into(),
                base_url: format!("{}/missing", server.base_url()),
                api_key: Some("sk-typed".into()),
            },
        )
        .await
        .unwrap_err();
        assert_eq!(failed.kind, ErrorKind::Provider);
        assert!(failed.message.contains("404"), "{failed}");
        assert!(!failed.message.contains("sk-typed"));
    }
}
