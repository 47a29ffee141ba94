//! The read-only file preview.

use tauri::State;

use gantry_engine::CommandError;
use gantry_engine::preview::{FilePreview, PreviewRequest};
use gantry_engine::state::AppState;

/// A file of the open project, confined to it, as text or as "binary".
#[tauri::command]
pub async fn read_preview(
    state: State<'_, AppState>,
    request: PreviewRequest,
) -> Result<FilePreview, CommandError> {
    state.read_preview(request.path).await
}
