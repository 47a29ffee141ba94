//! The settings room's commands: the app's settings as the Settings dialog shows and changes
//! them (compaction, checkpoint limits, turns running at once), each applied at once and kept
//! for the next start.

use std::sync::Arc;

use crate::app::{App, Service, Window};
use crate::chat::CompactSettings;
use crate::chat::compaction::{load_compact_setting, save_compact_setting};
use crate::checkpoints::{CheckpointLimits, CheckpointSettings, SaveCheckpointSettingsRequest};
use crate::error::CommandError;
use crate::settings::turn_limit::{self, SaveTurnLimitRequest, TurnLimitSettings};
use crate::settings::ui::{
    MAX_TREE_HEIGHT, MIN_TREE_HEIGHT, SaveLanguageRequest, TREE_HEIGHT, TREE_OPEN, TreeLayout,
    UI_LANGUAGE, UiPreferences,
};

/// The settings room: the window whose project's checkpoints follow the limits, over what the
/// app shares.
pub struct SettingsService {
    window: Arc<Window>,
}

impl Service for SettingsService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            window: Arc::clone(window),
        })
    }
}

impl SettingsService {
    /// What every window shares.
    fn app(&self) -> &App {
        self.window.app()
    }

    /// The compaction threshold.
    pub async fn compact_settings(&self) -> Result<CompactSettings, CommandError> {
        Ok(load_compact_setting(self.app().store()).await)
    }

    /// Saves the compaction threshold (0: off, or 10 to 100 percent of the window); later turns
    /// of every session follow it.
    pub async fn save_compact_settings(
        &self,
        request: CompactSettings,
    ) -> Result<CompactSettings, CommandError> {
        save_compact_setting(self.app().store(), request).await
    }

    /// The checkpoint limits (size per project, age) and what the open project's checkpoints
    /// take.
    pub async fn checkpoint_settings(&self) -> Result<CheckpointSettings, CommandError> {
        let limits = CheckpointLimits::load(self.app().store()).await;
        let used_bytes = match self.window.current() {
            Ok(project) => Some(project.chat().checkpoints().used_bytes().await),
            Err(_) => None,
        };
        Ok(CheckpointSettings {
            max_mb: limits.max_mb,
            max_age_days: limits.max_age_days,
            used_bytes,
        })
    }

    /// Saves the checkpoint limits (for every project) and applies them to the open one.
    pub async fn save_checkpoint_settings(
        &self,
        request: SaveCheckpointSettingsRequest,
    ) -> Result<CheckpointSettings, CommandError> {
        let limits = request.limits()?;
        limits.save(self.app().store()).await?;
        if let Ok(project) = self.window.current() {
            let checkpoints = project.chat().checkpoints();
            checkpoints.set_limits(limits);
            checkpoints.collect_in_background();
        }
        self.checkpoint_settings().await
    }

    /// The most turns that run at once in the whole app, and how many run now.
    pub async fn turn_limit_settings(&self) -> Result<TurnLimitSettings, CommandError> {
        Ok(turn_limit::view(
            self.app().turn_limit(),
            self.app().settings().max_turns_from_env,
        ))
    }

    /// Changes the limit (1 to 16) at once for every window's projects, and remembers it
    /// (`GANTRY_MAX_TURNS`, when set, still wins at the next start).
    pub async fn save_turn_limit_settings(
        &self,
        request: SaveTurnLimitRequest,
    ) -> Result<TurnLimitSettings, CommandError> {
        turn_limit::save(
            self.app().store(),
            self.app().turn_limit(),
            self.app().settings().max_turns_from_env,
            request,
        )
        .await
    }

    /// The UI's preferences: the language chosen, the file tree's place in the sidebar.
    pub async fn ui_preferences(&self) -> Result<UiPreferences, CommandError> {
        let store = self.app().store();
        Ok(UiPreferences {
            language: UI_LANGUAGE.load(store).await,
            tree: TreeLayout {
                open: TREE_OPEN.load(store).await,
                height: TREE_HEIGHT.load(store).await,
            },
        })
    }

    /// Remembers the language chosen in Settings.
    pub async fn save_language(&self, request: SaveLanguageRequest) -> Result<(), CommandError> {
        UI_LANGUAGE
            .save(self.app().store(), request.language)
            .await?;
        Ok(())
    }

    /// Remembers the file tree's place in the sidebar (a height below the smallest is raised to
    /// it; the window bounds it further when shown).
    pub async fn save_tree_layout(&self, request: TreeLayout) -> Result<(), CommandError> {
        let store = self.app().store();
        TREE_OPEN.save(store, request.open).await?;
        let height = request.height.clamp(MIN_TREE_HEIGHT, MAX_TREE_HEIGHT);
        TREE_HEIGHT.save(store, height).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::RecordingSink;
    use crate::settings::Settings;
    use crate::settings::ui::LanguageChoice;

    #[tokio::test]
    async fn ui_preferences_are_kept_in_the_store_and_read_back() {
        let data = tempfile::tempdir().unwrap();
        let store = gantry_store::Store::open(data.path().join("gantry.db"))
            .await
            .unwrap();
        let window = Window::of_new_app(
            Arc::new(RecordingSink::default()),
            Settings::default(),
            store.clone(),
        );
        let service = SettingsService::of(&window).unwrap();
        let fresh = service.ui_preferences().await.unwrap();
        assert_eq!(fresh.language, LanguageChoice::System);
        assert_eq!(
            fresh.tree,
            TreeLayout {
                open: true,
                height: 340
            }
        );

        service
            .save_language(SaveLanguageRequest {
                language: LanguageChoice::ZhCn,
            })
            .await
            .unwrap();
        service
            .save_tree_layout(TreeLayout {
                open: false,
                height: 12,
            })
            .await
            .unwrap();
        assert_eq!(
            store
                .settings()
                .get("ui.language")
                .await
                .unwrap()
                .as_deref(),
            Some("zh-CN")
        );
        let saved = service.ui_preferences().await.unwrap();
        assert_eq!(saved.language, LanguageChoice::ZhCn);
        assert_eq!(
            saved.tree,
            TreeLayout {
                open: false,
                height: MIN_TREE_HEIGHT
            },
            "a height below the smallest is raised to it"
        );
        // A value written by hand that does not read is the default, not an error.
        store
            .settings()
            .set("ui.language", "klingon")
            .await
            .unwrap();
        assert_eq!(
            service.ui_preferences().await.unwrap().language,
            LanguageChoice::System
        );
    }
}
