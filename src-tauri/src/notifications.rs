//! Desktop notifications, the window side: the engine decides, writes and shows them
//! ([`gantry_engine::notifications`]); the shell only says whether a window has the focus and
//! routes a click on one.

use tauri::{AppHandle, Emitter, Manager};

use gantry_engine::Event;
use gantry_engine::notifications::{NotificationClicked, Screen};

/// The app's windows, as the engine's notifier asks about them.
pub struct Desk(pub AppHandle);

impl Screen for Desk {
    fn is_focused(&self, label: &str) -> bool {
        self.0
            .get_webview_window(label)
            .and_then(|window| window.is_focused().ok())
            .unwrap_or(false)
    }

    /// The window of the notification's project comes forward and shows the session.
    fn clicked(&self, label: Option<&str>, clicked: NotificationClicked) {
        if let Some(window) = label.and_then(|label| self.0.get_webview_window(label)) {
            for result in [window.unminimize(), window.show(), window.set_focus()] {
                if let Err(error) = result {
                    tracing::warn!(%error, "cannot bring the window forward");
                }
            }
        }
        if let Err(error) = self.0.emit(NotificationClicked::NAME, &clicked) {
            tracing::warn!(%error, "cannot tell the webview about a notification's click");
        }
    }
}
