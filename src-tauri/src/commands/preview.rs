//! The read-only file preview.

use tauri::State;

use crate::error::CommandError;
use crate::preview::{FilePreview, PreviewRequest};
use crate::state::AppState;

/// A file of the open project, confined to it, as text or as "binary".
#[tauri::command]
pub async fn read_preview(
    state: State<'_, AppState>,
    request: PreviewRequest,
) -> Result<FilePreview, CommandError> {
    state.read_preview(request.path).await
}
