//! The app's limit on turns running at once, as the Settings dialog shows and changes it.

use gantry_engine::CommandError;
use gantry_engine::turn_limit::{SaveTurnLimitRequest, TurnLimitSettings};

use super::WindowState;

/// The most turns that run at once in the whole app, and how many run now.
#[tauri::command]
pub fn turn_limit_settings(state: WindowState) -> Result<TurnLimitSettings, CommandError> {
    Ok(state.turn_limit_settings())
}

/// Changes the limit (1 to 16) at once for every window's projects, and remembers it
/// (`GANTRY_MAX_TURNS`, when set, still wins at the next start).
#[tauri::command]
pub async fn save_turn_limit_settings(
    state: WindowState,
    request: SaveTurnLimitRequest,
) -> Result<TurnLimitSettings, CommandError> {
    state.save_turn_limit_settings(request).await
}
