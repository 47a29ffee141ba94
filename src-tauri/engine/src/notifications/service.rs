//! The notifications room's commands: their setting, as the Settings dialog shows and changes
//! it, and the language the webview shows, which notifications are written in.

use std::sync::Arc;

use super::{NotificationSettings, Notifier, UiLanguageRequest};
use crate::app::{Service, Window};
use crate::error::CommandError;

/// The notifications room: the app's notifier.
pub struct NotificationsService {
    notifier: Arc<Notifier>,
}

impl Service for NotificationsService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            notifier: Arc::clone(window.app().notifier()),
        })
    }
}

impl NotificationsService {
    /// Whether notifications are on.
    pub async fn notification_settings(&self) -> Result<NotificationSettings, CommandError> {
        Ok(NotificationSettings {
            enabled: self.notifier.enabled().await,
        })
    }

    /// Turns notifications on or off (remembered across restarts).
    pub async fn save_notification_settings(
        &self,
        request: NotificationSettings,
    ) -> Result<NotificationSettings, CommandError> {
        let enabled = self.notifier.save(request.enabled).await?;
        Ok(NotificationSettings { enabled })
    }

    /// Notes the language the webview shows; later notifications are written in it.
    pub async fn set_ui_language(&self, request: UiLanguageRequest) -> Result<(), CommandError> {
        if self.notifier.set_language(&request.language) {
            Ok(())
        } else {
            Err(CommandError::invalid("not a language tag"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::events::RecordingSink;
    use crate::settings::{NOTIFICATIONS, Settings};

    #[tokio::test]
    async fn the_setting_is_saved_and_a_language_must_be_a_tag() {
        let data = tempfile::tempdir().unwrap();
        let store = gantry_store::Store::open(data.path().join("gantry.db"))
            .await
            .unwrap();
        let sink = Arc::new(RecordingSink::default());
        let window = Window::of_new_app(sink, Settings::default(), store.clone());
        let service = NotificationsService::of(&window).unwrap();
        let on = NotificationSettings { enabled: true };
        let off = NotificationSettings { enabled: false };
        assert_eq!(service.notification_settings().await.unwrap(), on);
        assert_eq!(service.save_notification_settings(off).await.unwrap(), off);
        assert_eq!(service.notification_settings().await.unwrap(), off);
        assert_eq!(
            store.settings().get(NOTIFICATIONS.key).await.unwrap(),
            Some("false".to_owned())
        );
        let tag = |language: &str| UiLanguageRequest {
            language: language.to_owned(),
        };
        assert!(service.set_ui_language(tag("zh-CN")).await.is_ok());
        let refused = service.set_ui_language(tag("zh CN")).await.unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);
    }
}
