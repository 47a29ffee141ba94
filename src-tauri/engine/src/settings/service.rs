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
}
