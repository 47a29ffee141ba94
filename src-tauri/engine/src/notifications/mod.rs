//! Desktop notifications: a turn that finished or failed, an approval or a question waiting,
//! while the user looks elsewhere (the window unfocused, or another session shown).
//!
//! The app's [`Notifier`] sees every event the engine sends, typed, on its way to the front end
//! ([`Observing`] wraps the app's sink). It reads the few that matter ([`decide::read`]), asks
//! the front end's [`Screen`] whether the window that shows the project has the focus, decides
//! from what the user is looking at ([`decide::should_notify`]) whether to notify, writes the
//! notification in the UI's language ([`words`]) and shows it through the desktop's
//! notification service ([`desktop`]). A click on one goes back to the [`Screen`], which brings
//! the window forward and tells the webview ([`NotificationClicked`]); one about an approval or
//! a question is withdrawn once the call was answered. Without a screen (the command line, the
//! tests) nothing is shown.
//!
//! The setting ([`crate::settings::NOTIFICATIONS`], on unless turned off) is read on first
//! need and kept here; the Settings dialog changes both ([`service`]).

pub mod decide;
pub mod desktop;
pub mod service;
pub mod words;

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use serde::{Deserialize, Serialize};

use gantry_store::Store;

use self::decide::{Attention, Occurrence, Reading, read, should_notify};
use self::desktop::{Desktop, Target};
use self::words::{locale_for, text};
use crate::app::Window;
use crate::events::{EngineEvent, Event, EventSink};
use crate::settings::NOTIFICATIONS;
use crate::windows::{WindowMap, window_of_project};

/// The notification settings, as the Settings dialog shows and saves them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct NotificationSettings {
    /// Whether notifications are shown.
    pub enabled: bool,
}

/// The language the webview shows, as it tells the engine.
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

/// The front end's windows as notifications need them; the desktop shell implements it.
pub trait Screen: Send + Sync + 'static {
    /// Whether window `label` has the keyboard focus.
    fn is_focused(&self, label: &str) -> bool;

    /// The user clicked a notification: window `label` (the one that shows its project, if one
    /// still does) comes forward, and the webview is told `clicked`.
    fn clicked(&self, label: Option<&str>, clicked: NotificationClicked);
}

/// The longest language tag accepted from the webview.
const MAX_LANGUAGE_TAG: usize = 35;

/// What a notifier has once the front end gave it a screen.
struct Attached {
    screen: Arc<dyn Screen>,
    /// The app's windows, to find the one that shows a project.
    windows: Weak<WindowMap>,
    desktop: Desktop,
}

impl Attached {
    /// The label and state of the window that shows project `project_id`, if one does.
    fn window_showing(&self, project_id: u32) -> Option<(String, Arc<Window>)> {
        let windows = self.windows.upgrade()?;
        window_of_project(&windows, project_id)
    }
}

/// Decides about and shows the app's notifications.
pub struct Notifier {
    store: Store,
    /// The setting, once read.
    enabled: tokio::sync::OnceCell<AtomicBool>,
    /// The language the webview shows, once it said.
    language: Mutex<Option<String>>,
    attached: OnceLock<Attached>,
    /// Set once a notification could not be shown (later failures are logged quietly: a
    /// desktop without a notification service would otherwise warn at every turn).
    failed_once: AtomicBool,
}

impl Notifier {
    /// A notifier remembering its setting in `store`, showing nothing until
    /// [`Notifier::attach`].
    pub(crate) fn new(store: Store) -> Self {
        Self {
            store,
            enabled: tokio::sync::OnceCell::new(),
            language: Mutex::new(None),
            attached: OnceLock::new(),
            failed_once: AtomicBool::new(false),
        }
    }

    /// Shows notifications from now on, on `screen`, about the projects of `windows` (a second
    /// call is ignored).
    pub(crate) fn attach(&self, screen: Arc<dyn Screen>, windows: Weak<WindowMap>) {
        let (clicks, shown) = (Arc::clone(&screen), Weak::clone(&windows));
        let desktop = Desktop::new(move |target: Target| {
            let label = shown
                .upgrade()
                .and_then(|windows| window_of_project(&windows, target.project_id))
                .map(|(label, _)| label);
            let clicked = NotificationClicked {
                project_id: target.project_id,
                session_id: target.session_id,
            };
            clicks.clicked(label.as_deref(), clicked);
        });
        let attached = Attached {
            screen,
            windows,
            desktop,
        };
        if self.attached.set(attached).is_err() {
            tracing::warn!("notifications were attached to a screen already");
        }
    }

    /// Looks at `event` on its way to the front end; one that calls for a notification is
    /// considered on the async runtime, one that answers a call withdraws the notification
    /// about it.
    pub fn observe(self: &Arc<Self>, event: &EngineEvent) {
        if self.attached.get().is_none() {
            return;
        }
        let Some(reading) = read(event) else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!("an event to notify about was sent outside the async runtime");
            return;
        };
        let notifier = Arc::clone(self);
        runtime.spawn(async move {
            match reading {
                Reading::Notify(occurrence) => notifier.consider(occurrence).await,
                Reading::Answered { call_id } => notifier.withdraw(&call_id).await,
            }
        });
    }

    /// Whether notifications are on (the stored setting, read on first need).
    pub async fn enabled(&self) -> bool {
        self.setting().await.load(Ordering::Relaxed)
    }

    /// Saves whether notifications are on, and follows it from now on.
    pub(crate) async fn save(&self, enabled: bool) -> Result<bool, crate::CommandError> {
        let enabled = NOTIFICATIONS.save(&self.store, enabled).await?;
        self.setting().await.store(enabled, Ordering::Relaxed);
        Ok(enabled)
    }

    async fn setting(&self) -> &AtomicBool {
        self.enabled
            .get_or_init(|| async { AtomicBool::new(NOTIFICATIONS.load(&self.store).await) })
            .await
    }

    /// Notes the language the webview shows (notifications are written in it); `false` for
    /// what is not a language tag.
    pub(crate) fn set_language(&self, language: &str) -> bool {
        if !is_language_tag(language) {
            return false;
        }
        *self.language.lock().unwrap_or_else(PoisonError::into_inner) = Some(language.to_owned());
        true
    }

    /// Shows a notification about `occurrence` unless the user is looking at it.
    async fn consider(&self, occurrence: Occurrence) {
        let Some(attached) = self.attached.get() else {
            return;
        };
        // The window that shows the project; none when it was closed since.
        let Some((label, window)) = attached.window_showing(occurrence.project_id) else {
            return;
        };
        let project = window.current().ok();
        let attention = Attention {
            enabled: self.enabled().await,
            focused: attached.screen.is_focused(&label),
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
        let title = session_title(&self.store, &occurrence.session_id).await;
        let language = self
            .language
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let locale = match language {
            Some(language) => locale_for(&[language]),
            None => locale_for(&crate::project::service::system_languages()),
        };
        let words = text(locale, &project.info().name, &title, &occurrence.what);
        let target = Target {
            project_id: occurrence.project_id,
            session_id: occurrence.session_id,
        };
        let shown = attached
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

    /// Withdraws the notification about tool call `call_id`, if one is shown.
    async fn withdraw(&self, call_id: &str) {
        let Some(attached) = self.attached.get() else {
            return;
        };
        if let Err(error) = attached.desktop.withdraw(call_id).await {
            tracing::debug!(%error, "cannot withdraw a notification");
        }
    }
}

/// The app's sink, with the notifier looking at each event first.
pub(crate) struct Observing {
    sink: Arc<dyn EventSink>,
    notifier: Arc<Notifier>,
}

impl Observing {
    /// `sink`, watched by `notifier`.
    pub(crate) fn new(sink: Arc<dyn EventSink>, notifier: Arc<Notifier>) -> Self {
        Self { sink, notifier }
    }
}

impl EventSink for Observing {
    fn send(&self, event: EngineEvent) {
        self.notifier.observe(&event);
        self.sink.send(event);
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
        assert!(Notifier::new(store.clone()).enabled().await);
        for (stored, on) in [("false", false), ("true", true), ("off", true)] {
            store
                .settings()
                .set(NOTIFICATIONS.key, stored)
                .await
                .unwrap();
            assert_eq!(Notifier::new(store.clone()).enabled().await, on, "{stored}");
        }
        let notifier = Notifier::new(store.clone());
        assert!(!notifier.save(false).await.unwrap());
        assert!(!notifier.enabled().await);
        assert!(
            !Notifier::new(store).enabled().await,
            "kept for the next start"
        );
    }
}
