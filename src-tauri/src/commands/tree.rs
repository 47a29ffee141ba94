//! The project tree, one directory at a time.

use gantry_watch::TreeEntry;
use tauri::State;

use gantry_engine::CommandError;
use gantry_engine::events::TreeStatus;
use gantry_engine::state::{AppState, ListDirRequest};

/// The visible children of a directory of the open project (ignored and vendor entries left
/// out), directories first.
#[tauri::command]
pub async fn list_dir(
    state: State<'_, AppState>,
    request: ListDirRequest,
) -> Result<Vec<TreeEntry>, CommandError> {
    state.list_dir(request.path).await
}

/// Whether the open project's tree is kept current (for a page that loaded after the
/// `tree:status` event).
#[tauri::command]
pub fn tree_status(state: State<'_, AppState>) -> Result<TreeStatus, CommandError> {
    state.tree_status()
}
