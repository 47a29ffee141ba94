//! Opening and closing projects, in this window or a new one; the welcome screen's data.

use std::path::PathBuf;

use tauri::{AppHandle, State, WebviewWindow};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use gantry_engine::project::ProjectInfo;
use gantry_engine::state::{
    LaunchState, OpenProjectRequest, OpenProjectWindowRequest, RecentProject,
};
use gantry_engine::{CommandError, Opened, Windows};

use super::WindowState;

/// What to show on (re)load: the open project, or the welcome screen and a launch error.
#[tauri::command]
pub fn launch_state(state: WindowState) -> Result<LaunchState, CommandError> {
    Ok(state.launch_state())
}

/// The projects opened before, the most recently opened first.
#[tauri::command]
pub async fn recent_projects(state: WindowState) -> Result<Vec<RecentProject>, CommandError> {
    state.recent_projects().await
}

/// Opens the folder at `request.path` (absolute) in this window; `null` when another window
/// shows it already (that window comes to the front instead).
#[tauri::command]
pub async fn open_project(
    app: AppHandle,
    window: WebviewWindow,
    windows: State<'_, Windows>,
    request: OpenProjectRequest,
) -> Result<Option<ProjectInfo>, CommandError> {
    open_in(&app, &windows, window.label(), PathBuf::from(request.path)).await
}

/// Shows the native folder picker and opens the chosen folder in this window; `null` when the
/// user cancelled, or when another window shows that folder (it comes to the front).
#[tauri::command]
pub async fn pick_project_folder(
    app: AppHandle,
    window: WebviewWindow,
    windows: State<'_, Windows>,
) -> Result<Option<ProjectInfo>, CommandError> {
    let Some(path) = pick_folder(&app, &window).await? else {
        return Ok(None);
    };
    open_in(&app, &windows, window.label(), path).await
}

/// Opens `request.path`, or the folder the user picks in the native picker when it is `null`,
/// in a new window (or brings the window that shows it to the front).
#[tauri::command]
pub async fn open_project_window(
    app: AppHandle,
    window: WebviewWindow,
    windows: State<'_, Windows>,
    request: OpenProjectWindowRequest,
) -> Result<(), CommandError> {
    let path = match request.path {
        Some(path) => PathBuf::from(path),
        None => match pick_folder(&app, &window).await? {
            Some(path) => path,
            None => return Ok(()),
        },
    };
    crate::windows::open_in_new_window(&app, &windows, path).await
}

/// Closes the open project and returns to the welcome screen.
#[tauri::command]
pub fn close_project(
    app: AppHandle,
    window: WebviewWindow,
    state: WindowState,
) -> Result<(), CommandError> {
    state.close_project();
    crate::windows::set_title(&app, window.label(), None);
    crate::windows::remember(&app);
    Ok(())
}

/// Opens `path` in window `label`, or brings the window that shows it to the front.
async fn open_in(
    app: &AppHandle,
    windows: &Windows,
    label: &str,
    path: PathBuf,
) -> Result<Option<ProjectInfo>, CommandError> {
    match windows.open_project(label, path).await? {
        Opened::Here(info) => {
            crate::windows::set_title(app, label, Some(&info));
            crate::windows::remember(app);
            Ok(Some(info))
        }
        Opened::Elsewhere { window } => {
            crate::windows::focus(app, &window);
            Ok(None)
        }
    }
}

/// The folder the user picks in the native picker over `window`; `None` when cancelled.
async fn pick_folder(
    app: &AppHandle,
    window: &WebviewWindow,
) -> Result<Option<PathBuf>, CommandError> {
    let (tx, rx) = oneshot::channel();
    app.dialog()
        .file()
        .set_title("Open project folder")
        .set_parent(window)
        .pick_folder(move |folder| {
            let _ = tx.send(folder);
        });
    let Some(folder) = rx
        .await
        .map_err(|_| CommandError::internal("the folder picker went away"))?
    else {
        return Ok(None);
    };
    folder
        .into_path()
        .map(Some)
        .map_err(|error| CommandError::invalid(format!("not a local folder: {error}")))
}
