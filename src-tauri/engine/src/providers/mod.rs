//! Which provider a session talks to, and its key: saved providers from the store with their
//! keys from the OS keychain, presets with keys from their variables.
//!
//! The agent's [`ProviderConfig`] (what a request is made with: a window is always known) and the
//! store's [`SavedProvider`] (a row: the window may be left to the preset) stay two types on
//! purpose; [`from_saved`] and [`to_saved`] are the one conversion each way.

pub mod local;
pub mod model_choice;
pub mod service;
pub mod settings;

use gantry_agent::{
    ApiKey, DEFAULT_CONTEXT_WINDOW, Provider, ProviderConfig, ProviderError, ProviderFlags,
    ServerKind,
};
use gantry_store::{FlagSettings, ProviderConfig as SavedProvider, SecretError, Secrets, Store};

/// A saved provider as requests use it. What the row leaves unset comes from the same-named
/// preset (its window, kind of server and flags), else from what its URL suggests (a local
/// server's kind and flags) and [`DEFAULT_CONTEXT_WINDOW`].
pub fn from_saved(saved: &SavedProvider) -> ProviderConfig {
    let preset = ProviderConfig::preset(&saved.name);
    let context_window = saved.context_window.unwrap_or_else(|| {
        preset
            .as_ref()
            .map_or(DEFAULT_CONTEXT_WINDOW, |preset| preset.context_window)
    });
    let server = match &preset {
        Some(preset) => preset.server,
        None => ServerKind::detect(&saved.base_url),
    };
    let base = preset
        .as_ref()
        .map_or_else(|| ProviderFlags::for_server(server), |preset| preset.flags);
    let flags = ProviderFlags {
        stream_usage: saved.flags.stream_usage.unwrap_or(base.stream_usage),
        replay_reasoning: saved
            .flags
            .replay_reasoning
            .unwrap_or(base.replay_reasoning),
        text_tool_calls: saved.flags.text_tool_calls.unwrap_or(base.text_tool_calls),
        images: saved.flags.images.unwrap_or(base.images),
    };
    ProviderConfig {
        name: saved.name.clone(),
        base_url: saved.base_url.clone(),
        model: saved.model.clone(),
        api_key_env: saved.api_key_env.clone(),
        context_window,
        flags,
        server,
    }
}

/// A provider as the store saves it (every flag set).
pub fn to_saved(config: &ProviderConfig) -> SavedProvider {
    SavedProvider {
        name: config.name.clone(),
        base_url: config.base_url.clone(),
        model: config.model.clone(),
        api_key_env: config.api_key_env.clone(),
        context_window: Some(config.context_window),
        flags: FlagSettings {
            stream_usage: Some(config.flags.stream_usage),
            replay_reasoning: Some(config.flags.replay_reasoning),
            text_tool_calls: Some(config.flags.text_tool_calls),
            images: Some(config.flags.images),
        },
    }
}

/// Keeps what `provider` learned in a turn where the store can keep it: a saved provider that
/// refused `stream_options` is not asked for usage again, in this run or the next.
pub async fn remember_what_it_learned(store: &Store, provider: &Provider) {
    if provider.config().flags.stream_usage && !provider.flags().stream_usage {
        match store
            .providers()
            .refuse_stream_usage(&provider.config().name)
            .await
        {
            Ok(true) => {
                tracing::info!(provider = %provider.config().name, "saved: the provider refuses stream_options");
            }
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(provider = %provider.config().name, %error, "could not save that the provider refuses stream_options");
            }
        }
    }
}

/// Where a provider's configuration came from, which decides where its key is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderSource {
    /// Saved in the store (`provider set`): key from the keychain, else its variable.
    Saved,
    /// A preset, or a configuration given by hand: key from its variable only.
    Preset,
}

/// The provider called `name`: a provider saved in the store first, then a preset; no name
/// means the local Ollama preset.
pub async fn find_provider(
    store: Option<&Store>,
    name: Option<&str>,
) -> Result<(ProviderConfig, ProviderSource), ProviderError> {
    let Some(name) = name else {
        return Ok((ProviderConfig::default_local(), ProviderSource::Preset));
    };
    if let Some(store) = store {
        let saved =
            store.providers().get(name).await.map_err(|error| {
                ProviderError::Config(format!("reading saved providers: {error}"))
            })?;
        if let Some(saved) = saved {
            let config = from_saved(&saved.config);
            config.register_key_variable();
            return Ok((config, ProviderSource::Saved));
        }
    }
    match ProviderConfig::preset(name) {
        Some(config) => Ok((config, ProviderSource::Preset)),
        None => {
            let presets: Vec<String> = ProviderConfig::presets()
                .into_iter()
                .map(|preset| preset.name)
                .collect();
            Err(ProviderError::Config(format!(
                "unknown provider '{name}': save it with `gantry-cli provider set` or use a \
                 preset ({})",
                presets.join(", ")
            )))
        }
    }
}

/// The key for `config`.
///
/// A saved provider's key comes from the OS keychain, else from its environment variable; when
/// neither has one (or the keychain is unavailable and the variable unset) it is used without a
/// key, and a provider that needs one will say so. A preset's key comes from its variable, and
/// a missing one is an error naming it.
pub async fn provider_key(
    config: &ProviderConfig,
    source: ProviderSource,
) -> Result<Option<ApiKey>, ProviderError> {
    match source {
        ProviderSource::Preset => config.api_key_from_env(),
        ProviderSource::Saved => {
            let saved = to_saved(config);
            match Secrets::new().api_key_for(&saved).await {
                Ok(key) => Ok(key.map(|secret| ApiKey::new(secret.expose()))),
                Err(SecretError::Unavailable { reason, .. }) => {
                    tracing::warn!(provider = %config.name, %reason, "no API key: the keychain is unavailable and no variable is set");
                    Ok(None)
                }
                Err(error) => Err(ProviderError::Config(error.to_string())),
            }
        }
    }
}

/// [`find_provider`] and then [`provider_key`].
pub async fn resolve_provider(
    store: Option<&Store>,
    name: Option<&str>,
) -> Result<(ProviderConfig, Option<ApiKey>), ProviderError> {
    let (config, source) = find_provider(store, name).await?;
    let key = provider_key(&config, source).await?;
    Ok((config, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_configs_map_one_to_one() {
        let saved = SavedProvider {
            name: "work".into(),
            base_url: "http://vllm:8000/v1".into(),
            model: "qwen".into(),
            api_key_env: Some("WORK_API_KEY".into()),
            context_window: None,
            flags: FlagSettings::default(),
        };
        let config = from_saved(&saved);
        assert_eq!(config.context_window, DEFAULT_CONTEXT_WINDOW);
        assert_eq!(config.server, ServerKind::Other);
        assert_eq!(config.flags, ProviderFlags::default());
        assert_eq!(
            to_saved(&config),
            SavedProvider {
                context_window: Some(DEFAULT_CONTEXT_WINDOW),
                flags: FlagSettings {
                    stream_usage: Some(true),
                    replay_reasoning: Some(false),
                    text_tool_calls: Some(false),
                    images: Some(true),
                },
                ..saved.clone()
            }
        );
        assert_eq!(from_saved(&to_saved(&config)), config);
        let openai = SavedProvider {
            name: "openai".into(),
            ..saved.clone()
        };
        assert_eq!(from_saved(&openai).context_window, 1_047_576);
    }

    #[test]
    fn unset_flags_follow_the_preset_or_the_kind_of_server() {
        let saved = |name: &str, base_url: &str, flags: FlagSettings| SavedProvider {
            name: name.into(),
            base_url: base_url.into(),
            model: "m".into(),
            api_key_env: None,
            context_window: None,
            flags,
        };
        let mistral = from_saved(&saved(
            "mistral",
            "https://eu.mistral/v1",
            FlagSettings::default(),
        ));
        assert!(!mistral.flags.stream_usage);
        let deepseek = from_saved(&saved("deepseek", "https://x/v1", FlagSettings::default()));
        assert!(deepseek.flags.replay_reasoning);
        let local = from_saved(&saved(
            "my-ollama",
            "http://127.0.0.1:11434/v1",
            FlagSettings::default(),
        ));
        assert_eq!(local.server, ServerKind::Ollama);
        assert!(local.flags.text_tool_calls);
        let off = from_saved(&saved(
            "my-ollama",
            "http://127.0.0.1:11434/v1",
            FlagSettings {
                text_tool_calls: Some(false),
                stream_usage: Some(false),
                ..FlagSettings::default()
            },
        ));
        assert!(!off.flags.text_tool_calls && !off.flags.stream_usage);
    }

    #[tokio::test]
    async fn providers_resolve_to_presets_and_the_local_default() {
        let (config, key) = resolve_provider(None, None).await.unwrap();
        assert_eq!(config, ProviderConfig::default_local());
        assert_eq!(key, None);
        let (config, _) = resolve_provider(None, Some("LM Studio")).await.unwrap();
        assert_eq!(config.name, "lmstudio");
        let error = resolve_provider(None, Some("nope")).await.unwrap_err();
        assert!(
            error.to_string().contains("unknown provider 'nope'"),
            "{error}"
        );
    }
}

#[cfg(test)]
mod learning {
    use gantry_agent::{ChatRequest, ProviderOptions};
    use gantry_scripted_provider::{ErrorReply, Expect, Script, ScriptedProvider, Turn};
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    use super::*;

    #[tokio::test]
    async fn a_saved_provider_that_refused_stream_options_is_saved_that_way() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("gantry.db")).await.unwrap();
        let server = ScriptedProvider::start(Script::new([
            Turn::from(ErrorReply::new(
                400,
                "Unrecognized request argument supplied: stream_options",
            )),
            Turn::text("ok").expect(Expect::new().absent("/stream_options")),
        ]))
        .await
        .unwrap();
        let saved = SavedProvider {
            name: "picky".into(),
            base_url: server.base_url(),
            model: "m".into(),
            api_key_env: None,
            context_window: None,
            flags: FlagSettings::default(),
        };
        store.providers().set(&saved).await.unwrap();
        let provider = Provider::new(from_saved(&saved), None, ProviderOptions::default()).unwrap();
        let request = ChatRequest::new(
            "m",
            vec![json!({"role": "user", "content": "hi"})],
            Vec::new(),
        )
        .unwrap();
        let reply = provider
            .stream_reply(&request, &CancellationToken::new(), &mut |_| {})
            .await
            .unwrap();
        assert_eq!(reply.text, "ok");
        remember_what_it_learned(&store, &provider).await;
        let row = store.providers().get("picky").await.unwrap().unwrap();
        assert_eq!(row.config.flags.stream_usage, Some(false));
        assert!(!from_saved(&row.config).flags.stream_usage);
        server.verify().unwrap();
    }
}
