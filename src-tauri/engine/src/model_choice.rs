//! The model a session talks to, and switching it from the chat header.
//!
//! A session follows the active provider (Settings) until the user switches it to another
//! model, of the same provider or another one (saved or a preset): the session row then keeps
//! the provider's name and the model ([`crate::chat::ProjectChat::choose_model`]), so reopening
//! the session, or the app, talks to the same model. The header lists what the provider's server
//! lists ([`choices`]), with the context window requests are fitted into: the server's own
//! answer for a local server, else the configured one.

use std::time::Duration;

use gantry_agent::{Provider, ProviderConfig, ProviderOptions};
use gantry_store::Store;
use serde::{Deserialize, Serialize};

use crate::chat::{ModelChoice, ProjectChat};
use crate::error::{CommandError, ErrorKind};
use crate::provider_settings::{active_config, active_provider};
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

/// The argument of `list_models`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsRequest {
    /// Another provider to list the models of; the session's when absent.
    #[ts(optional)]
    pub provider: Option<String>,
}

/// The argument of `choose_model`.
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

fn provider_error(error: impl std::fmt::Display) -> CommandError {
    CommandError::new(ErrorKind::Provider, error.to_string())
}

/// The configuration the current session's next turn uses, and whether it was chosen for the
/// session: its switched-to provider and model, else the active provider. With no provider set
/// at all, the first local server found; none is an error saying how to get one.
pub async fn session_config(
    store: &Store,
    chat: &ProjectChat,
) -> Result<(ProviderConfig, crate::providers::ProviderSource, bool), CommandError> {
    if let Some(choice) = chat.model_choice().await? {
        let (mut config, source) = find_provider(Some(store), Some(&choice.provider))
            .await
            .map_err(provider_error)?;
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
    let key = provider_key(&config, source)
        .await
        .map_err(provider_error)?;
    Provider::new(config, key, ProviderOptions::default()).map_err(provider_error)
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
        Some(name) if name != session.name => find_provider(Some(store), Some(name))
            .await
            .map_err(provider_error)?,
        _ => (session.clone(), session_source),
    };
    let is_session = config.name == session.name;
    let (models, error, window, from_server) = match provider_key(&config, source).await {
        Err(error) => (Vec::new(), Some(error.to_string()), config.context_window, false),
        Ok(key) => match Provider::new(config.clone(), key, ProviderOptions::default()) {
            Err(error) => (Vec::new(), Some(error.to_string()), config.context_window, false),
            Ok(provider) => {
                let (listed, window) = tokio::join!(
                    provider.list_models(LIST_TIMEOUT),
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
    let saved = store
        .providers()
        .list()
        .await
        .map_err(|error| CommandError::internal(error.to_string()))?;
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

/// Switches the current session (see [`ProjectChat::choose_model`]); a provider that does not
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
                return Err(CommandError::invalid("the model name must be one line of 1 to 256 bytes"));
            }
            find_provider(Some(store), Some(&provider))
                .await
                .map_err(|error| CommandError::invalid(error.to_string()))?;
            Some(ModelChoice { provider, model })
        }
        (None, None) => None,
        _ => {
            return Err(CommandError::invalid(
                "choose a provider and a model, or neither (to follow the active provider)",
            ));
        }
    };
    chat.choose_model(choice).await
}
