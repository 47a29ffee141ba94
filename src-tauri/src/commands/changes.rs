//! Checkpoints: the Changes panel, reverts, and rewinding the conversation.

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::chat::{
    AcceptChangesRequest, BranchView, ResendOutcome, ResendRequest, RetryRequest, RevertOutcome,
    SwitchBranchOutcome, SwitchBranchRequest,
};
use gantry_engine::checkpoints::{
    ChangesView, CheckpointSettings, RevertRequest, SaveCheckpointSettingsRequest,
};

/// What the current session changed in the project's files, as the Changes panel shows it.
#[tauri::command]
pub async fn changes_view(state: WindowState) -> Result<ChangesView, CommandError> {
    state.changes_view().await
}

/// Reverts a file, a hunk, a turn, the session, or undoes a restore.
#[tauri::command]
pub async fn revert_changes(
    state: WindowState,
    request: RevertRequest,
) -> Result<RevertOutcome, CommandError> {
    state.revert_changes(&request).await
}

/// Keeps the changes of a file (or of every file) and forgets their checkpoints.
#[tauri::command]
pub async fn accept_changes(
    state: WindowState,
    request: AcceptChangesRequest,
) -> Result<ChangesView, CommandError> {
    state.accept_changes(request.path.as_deref()).await
}

/// "Edit and resend from here": rewinds the files and the conversation, then sends.
#[tauri::command]
pub async fn resend_message(
    state: WindowState,
    request: ResendRequest,
) -> Result<ResendOutcome, CommandError> {
    state.resend_message(&request).await
}

/// "Retry": undoes the last turn and sends its message again.
#[tauri::command]
pub async fn retry_turn(
    state: WindowState,
    request: RetryRequest,
) -> Result<ResendOutcome, CommandError> {
    state.retry_turn(&request).await
}

/// The current session's set-aside versions.
#[tauri::command]
pub async fn chat_branches(state: WindowState) -> Result<Vec<BranchView>, CommandError> {
    state.chat_branches().await
}

/// Returns to a set-aside version of the conversation (its files and messages).
#[tauri::command]
pub async fn switch_branch(
    state: WindowState,
    request: SwitchBranchRequest,
) -> Result<SwitchBranchOutcome, CommandError> {
    state.switch_branch(&request).await
}

/// The checkpoint limits (size per project, age) and what the open project's take.
#[tauri::command]
pub async fn checkpoint_settings(state: WindowState) -> Result<CheckpointSettings, CommandError> {
    state.checkpoint_settings().await
}

/// Saves the checkpoint limits.
#[tauri::command]
pub async fn save_checkpoint_settings(
    state: WindowState,
    request: SaveCheckpointSettingsRequest,
) -> Result<CheckpointSettings, CommandError> {
    state.save_checkpoint_settings(&request).await
}
