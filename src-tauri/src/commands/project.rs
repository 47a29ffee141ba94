//! Opening and closing projects; the welcome screen's data.

use std::path::PathBuf;

use tauri::{AppHandle, State, WebviewWindow};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use gantry_engine::CommandError;
use gantry_engine::project::ProjectInfo;
use gantry_engine::state::{AppState, LaunchState, OpenProjectRequest, RecentProject};

/// What to show on (re)load: the open project, or the welcome screen and a launch error.
#[tauri::command]
pub fn launch_state(state: State<'_, AppState>) -> Result<LaunchState, CommandError> {
    Ok(state.launch_state())
}

/// The projects opened before, the most recently opened first.
#[tauri::command]
pub async fn recent_projects(
    state: State<'_, AppState>,
) -> Result<Vec<RecentProject>, CommandError> {
    state.recent_projects().await
}

/// Opens the folder at `request.path` (absolute).
#[tauri::command]
pub async fn open_project(
    state: State<'_, AppState>,
    request: OpenProjectRequest,
) -> Result<ProjectInfo, CommandError> {
    state.open_project(PathBuf::from(request.path)).await
}

/// Shows the native folder picker and opens the chosen folder; `null` when the user cancelled.
#[tauri::command]
pub async fn pick_project_folder(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
) -> Result<Option<ProjectInfo>, CommandError> {
    let (tx, rx) = oneshot::channel();
    app.dialog()
        .file()
        .set_title("Open project folder")
        .set_parent(&window)
        .pick_folder(move |folder| {
            let _ = tx.send(folder);
        });
    let Some(folder) = rx
        .await
        .map_err(|_| CommandError::internal("the folder picker went away"))?
    else {
        return Ok(None);
    };
    let path = folder
        .into_path()
        .map_err(|error| CommandError::invalid(format!("not a local folder: {error}")))?;
    state.open_project(path).await.map(Some)
}

/// Closes the open project and returns to the welcome screen.
#[tauri::command]
pub fn close_project(state: State<'_, AppState>) -> Result<(), CommandError> {
    state.close_project();
    Ok(())
}
