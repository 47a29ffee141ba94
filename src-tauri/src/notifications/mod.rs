//! Desktop notifications: a turn that finished or failed, an approval or a question waiting,
//! while the user looks elsewhere (the window unfocused, or another session shown).
//!
//! The notifier watches the engine's events as they are sent (the shell's sink hands each,
//! typed, to [`Notifier::observe`]); the engine reads the few that matter
//! ([`gantry_engine::notifications::decide::read`]) and decides from what the user is looking at
//! ([`gantry_engine::notifications::decide::should_notify`]) whether to show a
//! notification, in the UI's language ([`words`]), through the desktop's notification service
//! ([`desktop`], which says why it does not use `tauri-plugin-notification`). A click on one
//! focuses the window and sends [`NotificationClicked`], on which the webview opens the session;
//! one about an approval or a question is withdrawn once the call was answered.
//!
//! The setting ([`NOTIFICATIONS_SETTING`] in the store's settings table, on unless turned off)
//! is read once at start and kept here; the Settings dialog changes both.

pub mod desktop;
pub mod words;

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Emitter, Manager};

use gantry_engine::events::{EngineEvent, Event};
use gantry_engine::{CommandError, Store, Windows};

use self::desktop::{Desktop, Target};
use self::words::{locale_for, text};
use gantry_engine::notifications::decide::{Attention, Occurrence, Reading, read, should_notify};

/// The setting's name in the store: `"false"` turns notifications off.
pub const NOTIFICATIONS_SETTING: &str = "notifications.enabled";

/// The notification settings, as the Settings dialog shows and saves them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NotificationSettings {
    /// Whether notifications are shown.
    pub enabled: bool,
}

/// The argument of `set_ui_language`: the language the webview shows.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UiLanguageRequest {
    /// A language tag (`en`, `zh-CN`).
    pub language: String,
}

/// The user clicked a notification about a session: the webview shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NotificationClicked {
    /// The project (a click about a project since closed is ignored).
    pub project_id: u32,
    /// The session to show.
    pub session_id: String,
}

impl Event for NotificationClicked {
    const NAME: &'static str = "notification:clicked";
}

/// The longest language tag accepted from the webview.
const MAX_LANGUAGE_TAG: usize = 35;

/// Decides about and shows the app's notifications.
pub struct Notifier {
    app: AppHandle,
    enabled: AtomicBool,
    /// The language the webview shows, once it said.
    language: Mutex<Option<String>>,
    desktop: Desktop,
    /// Set once a notification could not be shown (later failures are logged quietly: a
    /// desktop without a notification service would otherwise warn at every turn).
    failed_once: AtomicBool,
}

impl Notifier {
    /// A notifier for `app`'s window, on or off as the setting says.
    pub fn new(app: AppHandle, enabled: bool) -> Self {
        let clicked = app.clone();
        Self {
            app,
            enabled: AtomicBool::new(enabled),
            language: Mutex::new(None),
            desktop: Desktop::new(move |target| show_session(&clicked, target)),
            failed_once: AtomicBool::new(false),
        }
    }

    /// Looks at `event` on its way to the webview; one that calls for a notification is
    /// considered on the async runtime, one that answers a call withdraws the notification
    /// about it.
    pub fn observe(self: &Arc<Self>, event: &EngineEvent) {
        let notifier = Arc::clone(self);
        match read(event) {
            Some(Reading::Notify(occurrence)) if self.enabled() => {
                tauri::async_runtime::spawn(async move { notifier.consider(occurrence).await });
            }
            Some(Reading::Answered { call_id }) => {
                tauri::async_runtime::spawn(async move {
                    if let Err(error) = notifier.desktop.withdraw(&call_id).await {
                        tracing::debug!(%error, "cannot withdraw a notification");
                    }
                });
            }
            _ => {}
        }
    }

    /// Whether notifications are on.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// The settings as they are now.
    pub fn settings(&self) -> NotificationSettings {
        NotificationSettings {
            enabled: self.enabled(),
        }
    }

    /// Saves `settings` to `store` and follows them from now on.
    pub async fn save(
        &self,
        store: &Store,
        settings: NotificationSettings,
    ) -> Result<NotificationSettings, CommandError> {
        let value = if settings.enabled { "true" } else { "false" };
        store
            .settings()
            .set(NOTIFICATIONS_SETTING, value)
            .await
            .map_err(CommandError::from)?;
        self.enabled.store(settings.enabled, Ordering::Relaxed);
        Ok(self.settings())
    }

    /// Notes the language the webview shows (notifications are written in it).
    pub fn set_language(&self, language: &str) -> Result<(), CommandError> {
        if !is_language_tag(language) {
            return Err(CommandError::invalid("not a language tag"));
        }
        *self.language.lock().unwrap_or_else(PoisonError::into_inner) = Some(language.to_owned());
        Ok(())
    }

    /// Shows a notification about `occurrence` unless the user is looking at it.
    async fn consider(&self, occurrence: Occurrence) {
        let Some(windows) = self.app.try_state::<Windows>() else {
            return;
        };
        // The window that shows the project; none when it was closed since.
        let Some(label) = windows.window_showing(occurrence.project_id) else {
            return;
        };
        let Ok(state) = windows.window(&label) else {
            return;
        };
        let project = state.current().ok();
        let focused = self
            .app
            .get_webview_window(&label)
            .and_then(|window| window.is_focused().ok())
            .unwrap_or(false);
        let attention = Attention {
            enabled: self.enabled(),
            focused,
            project_id: project.as_ref().map(|project| project.info().id),
            shown_session: project.as_ref().and_then(|project| {
                let session = project.chat().current()?;
                session.id().map(str::to_owned)
            }),
        };
        if !should_notify(&occurrence, &attention) {
            return;
        }
        let Some(project) = project else { return };
        let title = session_title(state.app().store(), &occurrence.session_id).await;
        let language = self
            .language
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let locale = match language {
            Some(language) => locale_for(&[language]),
            None => locale_for(&gantry_engine::project::service::system_languages()),
        };
        let words = text(locale, &project.info().name, &title, &occurrence.what);
        let target = Target {
            project_id: occurrence.project_id,
            session_id: occurrence.session_id,
        };
        let shown = self
            .desktop
            .show(&words, target, occurrence.waiting_call)
            .await;
        if let Err(error) = shown {
            if self.failed_once.swap(true, Ordering::Relaxed) {
                tracing::debug!(%error, "cannot show a desktop notification");
            } else {
                tracing::warn!(%error, "cannot show a desktop notification");
            }
        }
    }
}

/// Whether `text` can be a language tag (`en`, `zh-CN`, `zh_TW`): short, letters, digits,
/// `-` and `_` only.
fn is_language_tag(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_LANGUAGE_TAG
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The setting as stored (on unless turned off).
pub async fn stored_setting(store: &Store) -> bool {
    match store.settings().get(NOTIFICATIONS_SETTING).await {
        Ok(value) => value.as_deref() != Some("false"),
        Err(error) => {
            tracing::warn!(%error, "cannot read the notifications setting; they stay on");
            true
        }
    }
}

/// The title of session `id` (empty when it can't be read).
async fn session_title(store: &Store, id: &str) -> String {
    let Ok(id) = gantry_store::SessionId::from_str(id) else {
        return String::new();
    };
    match store.sessions().get(id).await {
        Ok(Some(session)) => session.title,
        _ => String::new(),
    }
}

/// A click on a notification: the window of its project comes forward and shows the session.
fn show_session(app: &AppHandle, target: Target) {
    let label = app
        .try_state::<Windows>()
        .and_then(|windows| windows.window_showing(target.project_id));
    if let Some(window) = label.and_then(|label| app.get_webview_window(&label)) {
        for result in [window.unminimize(), window.show(), window.set_focus()] {
            if let Err(error) = result {
                tracing::warn!(%error, "cannot bring the window forward");
            }
        }
    }
    let clicked = NotificationClicked {
        project_id: target.project_id,
        session_id: target.session_id,
    };
    if let Err(error) = app.emit(NotificationClicked::NAME, &clicked) {
        tracing::warn!(%error, "cannot tell the webview about a notification's click");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_language_tags_are_taken_from_the_webview() {
        for tag in ["en", "zh-CN", "zh_TW", "en-US"] {
            assert!(is_language_tag(tag), "{tag}");
        }
        let long = "x".repeat(MAX_LANGUAGE_TAG + 1);
        for text in ["", "en US", "zh-CN\n", "<b>", long.as_str()] {
            assert!(!is_language_tag(text), "{text:?}");
        }
    }

    #[tokio::test]
    async fn notifications_are_on_until_the_stored_setting_says_false() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("gantry.db")).await.unwrap();
        assert!(stored_setting(&store).await);
        store
            .settings()
            .set(NOTIFICATIONS_SETTING, "false")
            .await
            .unwrap();
        assert!(!stored_setting(&store).await);
        store
            .settings()
            .set(NOTIFICATIONS_SETTING, "true")
            .await
            .unwrap();
        assert!(stored_setting(&store).await);
    }
}
