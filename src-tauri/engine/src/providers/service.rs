//! The providers room's commands: the provider settings (saved providers, keys in the OS
//! keychain, the connection test), the local model servers found, and the model the current
//! session talks to (the chat header's model picker).

use std::sync::Arc;

use serde::Serialize;

use crate::app::{App, Service, Window};
use crate::error::CommandError;
use crate::providers::local::{self, LocalServer};
use crate::providers::model_choice::{self, ChooseModelRequest, ListModelsRequest, ModelChoices};
use crate::providers::settings::{
    self, ProbeProviderRequest, ProviderNameRequest, ProviderProbe, ProviderSettings,
    SaveProviderRequest,
};

/// The local model servers found, for the welcome screen and the empty chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalServers {
    /// Whether a provider was chosen already.
    pub configured: bool,
    /// The servers that answered, in probing order (Ollama, LM Studio, llama.cpp).
    pub servers: Vec<LocalServer>,
}

/// The providers room: the window whose session picks a model, over what the app shares.
pub struct ProvidersService {
    window: Arc<Window>,
}

impl Service for ProvidersService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            window: Arc::clone(window),
        })
    }
}

impl ProvidersService {
    /// What every window shares.
    fn app(&self) -> &App {
        self.window.app()
    }

    /// The active provider, whether its key is stored, and the presets.
    pub async fn provider_settings(&self) -> Result<ProviderSettings, CommandError> {
        settings::settings(self.app().store(), self.app().secrets()).await
    }

    /// Saves a provider (its key to the OS keychain) and makes it the active one.
    pub async fn save_provider(
        &self,
        request: SaveProviderRequest,
    ) -> Result<ProviderSettings, CommandError> {
        settings::save(self.app().store(), self.app().secrets(), request).await
    }

    /// Tests the connection: asks the provider in the form for its models.
    pub async fn probe_provider(
        &self,
        request: ProbeProviderRequest,
    ) -> Result<ProviderProbe, CommandError> {
        settings::probe(self.app().secrets(), request).await
    }

    /// Removes a provider's key from the OS keychain.
    pub async fn delete_provider_key(
        &self,
        request: ProviderNameRequest,
    ) -> Result<ProviderSettings, CommandError> {
        settings::delete_key(self.app().store(), self.app().secrets(), &request.name).await
    }

    /// The local model servers that answer (Ollama, LM Studio, llama.cpp) with their models,
    /// and whether a provider was chosen: what the first run offers.
    pub async fn local_servers(&self) -> Result<LocalServers, CommandError> {
        let (configured, servers) =
            tokio::join!(settings::configured(self.app().store()), local::detect());
        Ok(LocalServers {
            configured: configured?,
            servers,
        })
    }

    /// The models the current session's provider (or `request.provider`) lists, the context
    /// window and the providers to switch to: the chat header's model picker.
    pub async fn list_models(
        &self,
        request: ListModelsRequest,
    ) -> Result<ModelChoices, CommandError> {
        let project = self.window.current()?;
        model_choice::choices(
            self.app().store(),
            project.chat(),
            request.provider.as_deref(),
        )
        .await
    }

    /// Switches the current session to a provider and model (both absent: back to the active
    /// provider); the session remembers it.
    pub async fn choose_model(
        &self,
        request: ChooseModelRequest,
    ) -> Result<ModelChoices, CommandError> {
        let project = self.window.current()?;
        model_choice::choose(self.app().store(), project.chat(), request).await?;
        model_choice::choices(self.app().store(), project.chat(), None).await
    }
}
