//! The model provider settings.

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::provider_settings::{
    ProbeProviderRequest, ProviderNameRequest, ProviderProbe, ProviderSettings, SaveProviderRequest,
};
use gantry_engine::state::LocalServers;

/// The active provider, whether its key is stored, and the presets.
#[tauri::command]
pub async fn provider_settings(state: WindowState) -> Result<ProviderSettings, CommandError> {
    state.provider_settings().await
}

/// Saves a provider (its key to the OS keychain) and makes it the active one.
#[tauri::command]
pub async fn save_provider(
    state: WindowState,
    request: SaveProviderRequest,
) -> Result<ProviderSettings, CommandError> {
    state.save_provider(request).await
}

/// Tests the connection: asks the provider in the form for its models.
#[tauri::command]
pub async fn probe_provider(
    state: WindowState,
    request: ProbeProviderRequest,
) -> Result<ProviderProbe, CommandError> {
    state.probe_provider(request).await
}

/// Removes a provider's key from the OS keychain.
#[tauri::command]
pub async fn delete_provider_key(
    state: WindowState,
    request: ProviderNameRequest,
) -> Result<ProviderSettings, CommandError> {
    state.delete_provider_key(&request.name).await
}

/// The local model servers that answer (Ollama, LM Studio, llama.cpp) with their models, and
/// whether a provider was chosen: what the first run offers.
#[tauri::command]
pub async fn local_servers(state: WindowState) -> Result<LocalServers, CommandError> {
    state.local_servers().await
}
