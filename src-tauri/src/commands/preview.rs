//! The read-only file preview.

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::preview::{FilePreview, PreviewRequest};

/// A file of the open project, confined to it, as text or as "binary".
#[tauri::command]
pub async fn read_preview(
    state: WindowState,
    request: PreviewRequest,
) -> Result<FilePreview, CommandError> {
    state.read_preview(request.path).await
}
