//! Desktop notifications: their setting, and the language they are written in.

use std::sync::Arc;

use tauri::State;

use gantry_engine::CommandError;

use super::WindowState;
use crate::notifications::{NotificationSettings, Notifier, UiLanguageRequest};

/// Whether notifications are on.
#[tauri::command]
pub async fn notification_settings(
    notifier: State<'_, Arc<Notifier>>,
) -> Result<NotificationSettings, CommandError> {
    Ok(notifier.settings())
}

/// Turns notifications on or off (remembered across restarts).
#[tauri::command]
pub async fn save_notification_settings(
    state: WindowState,
    notifier: State<'_, Arc<Notifier>>,
    request: NotificationSettings,
) -> Result<NotificationSettings, CommandError> {
    notifier.save(state.app().store(), request).await
}

/// The language the webview shows, which notifications are written in.
#[tauri::command]
pub async fn set_ui_language(
    notifier: State<'_, Arc<Notifier>>,
    request: UiLanguageRequest,
) -> Result<(), CommandError> {
    notifier.set_language(&request.language)
}
