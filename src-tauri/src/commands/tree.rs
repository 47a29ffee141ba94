//! The project tree, one directory at a time.

use gantry_watch::TreeEntry;

use gantry_engine::CommandError;

use super::WindowState;
use gantry_engine::events::TreeStatus;
use gantry_engine::state::ListDirRequest;

/// The visible children of a directory of the open project (ignored and vendor entries left
/// out), directories first.
#[tauri::command]
pub async fn list_dir(
    state: WindowState,
    request: ListDirRequest,
) -> Result<Vec<TreeEntry>, CommandError> {
    state.list_dir(request.path).await
}

/// Whether the open project's tree is kept current (for a page that loaded after the
/// `tree:status` event).
#[tauri::command]
pub fn tree_status(state: WindowState) -> Result<TreeStatus, CommandError> {
    state.tree_status()
}
