//! The model a session talks to, and switching it from the chat header.
//!
//! A session follows the active provider (Settings) until the user switches it to another
//! model, of the same provider or another one (saved or a preset): the session row then keeps
//! the provider's name and the model ([`crate::chat::ProjectChat::set_model`]), so reopening
//! the session, or the app, talks to the same model. The header lists what the provider's server
//! lists ([`choices`]), with the context window requests are fitted into: the server's own
//! answer for a local server, else the configured one.

use std::time::Duration;

use gantry_agent::{Provider, ProviderConfig, ProviderOptions};
use gantry_store::Store;
use serde::{Deserialize, Serialize};

use crate::chat::{ModelChoice, ProjectChat};
use crate::error::{CommandError, ErrorKind};
use crate::providers::settings::{active_config, active_provider};
use crate::providers::{find_provider, provider_key};

/// How long the header waits for a provider's model list.
const LIST_TIMEOUT: Duration = Duration::from_secs(8);

/// A provider one can switch to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderOption {
    /// Its name.
    pub name: String,
    /// Its API base.
    pub base_url: String,
    /// Whether it is saved (otherwise a preset as shipped).
    pub saved: bool,
    /// Whether it runs on this machine (a local server's preset or address).
    pub local: bool,
}

/// What the chat header shows and offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoices {
    /// The provider the listing is for (the session's, unless another was asked).
    pub provider: String,
    /// Its API base.
    pub base_url: String,
    /// The model the session talks to (for another provider: that provider's default).
    pub model: String,
    /// Whether the session was switched to it (otherwise it follows the active provider).
    pub chosen: bool,
    /// The window requests are fitted into, in tokens.
    pub context_window: u32,
    /// Whether that is what the server said it runs (a local server), not a configured value.
    pub window_from_server: bool,
    /// The models the provider lists, sorted (empty when it could not be asked: see `error`).
    pub models: Vec<String>,
    /// Why the list could not be had, in words.
    pub error: Option<String>,
    /// The providers one can switch to: saved ones, then presets not saved.
    pub providers: Vec<ProviderOption>,
}

/// Whose models the picker lists.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsRequest {
    /// Another provider to list the models of; the session's when absent.
    #[ts(optional)]
    pub provider: Option<String>,
}

/// The model to switch the current session to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ChooseModelRequest {
    /// The provider (saved or preset); absent: follow the active provider again.
    #[ts(optional)]
    pub provider: Option<String>,
    /// The model.
    #[ts(optional)]
    pub model: Option<String>,
}

/// The configuration the current session's next turn uses, and whether it was chosen for the
/// session: its switched-to provider and model, else the active provider. With no provider set
/// at all, the first local server found; none is an error saying how to get one.
pub async fn session_config(
    store: &Store,
    chat: &ProjectChat,
) -> Result<(ProviderConfig, crate::providers::ProviderSource, bool), CommandError> {
    if let Some(choice) = chat.model_choice().await? {
        let (mut config, source) = find_provider(Some(store), Some(&choice.provider)).await?;
        config.model = choice.model;
        return Ok((config, source, true));
    }
    let (config, source) = active_config(store).await?;
    Ok((config, source, false))
}

/// The provider for the current session's next turn (see [`session_config`]).
pub async fn session_provider(store: &Store, chat: &ProjectChat) -> Result<Provider, CommandError> {
    let (config, source, chosen) = session_config(store, chat).await?;
    if !chosen {
        return active_provider(store).await;
    }
    let key = provider_key(&config, source).await?;
    Ok(Provider::new(config, key, ProviderOptions::default())?)
}

/// What the header offers: the models of the session's provider (or of `other`), the window,
/// and the providers to switch to.
pub async fn choices(
    store: &Store,
    chat: &ProjectChat,
    other: Option<&str>,
) -> Result<ModelChoices, CommandError> {
    let (session, session_source, chosen) = session_config(store, chat).await?;
    let (config, source) = match other {
        Some(name) if name != session.name => find_provider(Some(store), Some(name)).await?,
        _ => (session.clone(), session_source),
    };
    let is_session = config.name == session.name;
    let (models, error, window, from_server) = match provider_key(&config, source).await {
        Err(error) => (
            Vec::new(),
            Some(error.to_string()),
            config.context_window,
            false,
        ),
        Ok(key) => match Provider::new(config.clone(), key, ProviderOptions::default()) {
            Err(error) => (
                Vec::new(),
                Some(error.to_string()),
                config.context_window,
                false,
            ),
            Ok(provider) => {
                let (listed, window) = tokio::join!(
                    provider.fetch_models(LIST_TIMEOUT),
                    provider.server_window()
                );
                let (models, error) = match listed {
                    Ok(models) => (models, None),
                    Err(error) => (Vec::new(), Some(error.to_string())),
                };
                match window {
                    Some(window) => (models, error, window.tokens, true),
                    None => (models, error, config.context_window, false),
                }
            }
        },
    };
    Ok(ModelChoices {
        provider: config.name.clone(),
        base_url: config.base_url.clone(),
        model: config.model.clone(),
        chosen: chosen && is_session,
        context_window: window,
        window_from_server: from_server,
        models,
        error,
        providers: provider_options(store).await?,
    })
}

/// Saved providers, then the presets not saved under their name.
async fn provider_options(store: &Store) -> Result<Vec<ProviderOption>, CommandError> {
    let saved = store.providers().list().await?;
    let mut options: Vec<ProviderOption> = saved
        .into_iter()
        .map(|saved| {
            let config = crate::providers::from_saved(&saved.config);
            ProviderOption {
                local: config.server.is_local(),
                name: config.name,
                base_url: config.base_url,
                saved: true,
            }
        })
        .collect();
    for preset in ProviderConfig::presets() {
        if !options.iter().any(|option| option.name == preset.name) {
            options.push(ProviderOption {
                local: preset.server.is_local(),
                name: preset.name,
                base_url: preset.base_url,
                saved: false,
            });
        }
    }
    Ok(options)
}

/// Switches the current session (see [`ProjectChat::set_model`]); a provider that does not
/// exist is refused.
pub async fn choose(
    store: &Store,
    chat: &ProjectChat,
    request: ChooseModelRequest,
) -> Result<(), CommandError> {
    let choice = match (request.provider, request.model) {
        (Some(provider), Some(model)) => {
            let provider = provider.trim().to_owned();
            let model = model.trim().to_owned();
            if model.is_empty() || model.len() > 256 || model.chars().any(char::is_control) {
                return Err(CommandError::invalid(
                    "the model name must be one line of 1 to 256 bytes",
                ));
            }
            // A provider that does not exist is the caller's choice to fix, not the provider
            // failing: the provider's sentence, as invalid input.
            find_provider(Some(store), Some(&provider))
                .await
                .map_err(|error| CommandError {
                    kind: ErrorKind::InvalidInput,
                    ..error.into()
                })?;
            Some(ModelChoice { provider, model })
        }
        (None, None) => None,
        _ => {
            return Err(CommandError::invalid(
                "choose a provider and a model, or neither (to follow the active provider)",
            ));
        }
    };
    chat.set_model(choice).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use gantry_scripted_provider::{Expect, Handle, Script, ScriptedProvider, Turn};

    use super::*;
    use crate::chat::ChatEvent;
    use crate::events::{Event, RecordingSink};
    use crate::project::open::{People, open_tools};

    async fn save(store: &Store, name: &str, server: &Handle, model: &str) {
        store
            .providers()
            .set(&gantry_store::ProviderConfig {
                name: name.into(),
                base_url: server.base_url(),
                model: model.into(),
                api_key_env: None,
                context_window: Some(32_000),
                flags: gantry_store::FlagSettings::default(),
            })
            .await
            .unwrap();
    }

    async fn finished(sink: &RecordingSink, turns: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while sink
            .named(ChatEvent::NAME)
            .iter()
            .filter(|event| event["event"]["type"] == "turn_finished")
            .count()
            < turns
        {
            assert!(Instant::now() < deadline);
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_switched_to_another_model_keeps_it() {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let active = ScriptedProvider::start(Script::new([Turn::text("from active")]))
            .await
            .unwrap();
        let other = ScriptedProvider::start(
            Script::new([
                Turn::text("from b").expect(Expect::new().model("b")),
                Turn::text("b again").expect(Expect::new().model("b")),
            ])
            .models(["a", "b"]),
        )
        .await
        .unwrap();
        save(&store, "main", &active, "m").await;
        save(&store, "other", &other, "a").await;
        store
            .settings()
            .set(crate::providers::settings::ACTIVE_PROVIDER, "main")
            .await
            .unwrap();
        let opened = open_tools(store.clone(), project.path(), People::default())
            .await
            .unwrap();
        let tools = Arc::new(opened.manager);
        let sink = Arc::new(RecordingSink::default());
        let chat = ProjectChat::open(
            1,
            opened.project.id,
            store.clone(),
            Arc::clone(&tools),
            opened.checkpoints.clone(),
            sink.clone(),
        )
        .await
        .unwrap();

        // The header lists the active provider's models until the chat is switched.
        let shown = choices(&store, &chat, None).await.unwrap();
        assert_eq!((shown.provider.as_str(), shown.chosen), ("main", false));
        let listed = choices(&store, &chat, Some("other")).await.unwrap();
        assert_eq!(listed.models, ["a", "b"]);
        assert_eq!(listed.context_window, 32_000);
        assert!(!listed.window_from_server);
        assert!(
            listed
                .providers
                .iter()
                .any(|p| p.name == "other" && p.saved)
        );
        assert!(
            listed
                .providers
                .iter()
                .any(|p| p.name == "gemini" && !p.saved)
        );

        // A fresh chat switched before its first message: the session it creates keeps it.
        let refused = choose(
            &store,
            &chat,
            ChooseModelRequest {
                provider: Some("nope".into()),
                model: Some("x".into()),
            },
        )
        .await
        .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);
        choose(
            &store,
            &chat,
            ChooseModelRequest {
                provider: Some("other".into()),
                model: Some("b".into()),
            },
        )
        .await
        .unwrap();
        let provider = session_provider(&store, &chat).await.unwrap();
        assert_eq!(provider.config().model, "b");
        let id = chat.send("hi", provider).await.unwrap();
        finished(&sink, 1).await;
        let row = store
            .sessions()
            .get(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (row.provider.as_deref(), row.model.as_deref()),
            (Some("other"), Some("b"))
        );
        let shown = choices(&store, &chat, None).await.unwrap();
        assert_eq!(
            (shown.provider.as_str(), shown.model.as_str(), shown.chosen),
            ("other", "b", true)
        );

        // Reopened (the app restarted), the session still talks to it.
        drop(chat);
        let chat = ProjectChat::open(
            1,
            opened.project.id,
            store.clone(),
            tools,
            opened.checkpoints,
            sink.clone(),
        )
        .await
        .unwrap();
        let provider = session_provider(&store, &chat).await.unwrap();
        assert_eq!(
            (
                provider.config().name.as_str(),
                provider.config().model.as_str()
            ),
            ("other", "b")
        );
        chat.send("again", provider).await.unwrap();
        finished(&sink, 2).await;
        other.verify().unwrap();
        assert!(active.chat_requests().is_empty());

        // Back to following the active provider.
        choose(
            &store,
            &chat,
            ChooseModelRequest {
                provider: None,
                model: None,
            },
        )
        .await
        .unwrap();
        let provider = session_provider(&store, &chat).await.unwrap();
        assert_eq!(provider.config().name, "main");
    }
}
