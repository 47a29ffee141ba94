//! The commands written by hand because they need the window itself: opening and closing
//! projects (in this window, which takes the project's title, or in a new one; the native folder
//! picker) and the exports (the native save dialog over the window).

use std::path::PathBuf;

use tauri::{AppHandle, State, WebviewWindow};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use gantry_engine::project::ProjectInfo;
use gantry_engine::project::service::{OpenProjectRequest, OpenProjectWindowRequest};
use gantry_engine::sessions::export::{ExportFormat, ExportSessionRequest, SessionExport};
use gantry_engine::tools::audit::{AuditExport, AuditRequest};
use gantry_engine::{ChatService, CommandError, Opened, Service, ToolsService, Windows};

use super::WindowState;
use super::save_dialog::{SaveAs, ask_where};

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
    state.close_folder();
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
    match windows.open_folder(label, path).await? {
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

/// The environment variable naming a file that the export writes to instead of asking with the
/// native save dialog (end-to-end tests, which cannot drive the desktop's dialog).
const EXPORT_PATH_ENV: &str = "GANTRY_E2E_SAVE_PATH";

/// Asks where to save (the native save dialog) and writes the session there as Markdown or
/// JSON; `null` when the user cancelled.
#[tauri::command]
pub async fn export_session(
    app: AppHandle,
    window: WebviewWindow,
    state: WindowState,
    request: ExportSessionRequest,
) -> Result<Option<SessionExport>, CommandError> {
    let chat = ChatService::of(&state)?;
    let path = match std::env::var_os(EXPORT_PATH_ENV).filter(|_| cfg!(debug_assertions)) {
        Some(path) => PathBuf::from(path),
        None => {
            let filter = match request.format {
                ExportFormat::Markdown => ("Markdown", "md"),
                ExportFormat::Json => ("JSON", "json"),
            };
            let save_as = SaveAs {
                title: "Export the session",
                folder: chat.project().root().path(),
                file_name: format!("session-{}.{}", request.id, filter.1),
                filter,
            };
            let Some(path) = ask_where(&app, &window, save_as).await? else {
                return Ok(None);
            };
            path
        }
    };
    chat.write_export(request, path).await.map(Some)
}

/// Asks where to save (the native save dialog) and writes the calls that pass the filter there
/// as JSON lines; `null` when the user cancelled.
#[tauri::command]
pub async fn export_audit(
    app: AppHandle,
    window: WebviewWindow,
    state: WindowState,
    request: AuditRequest,
) -> Result<Option<AuditExport>, CommandError> {
    let tools = ToolsService::of(&state)?;
    let project = tools.project();
    let save_as = SaveAs {
        title: "Export the audit log",
        folder: project.root().path(),
        file_name: format!("{}-audit.jsonl", project.info().name),
        filter: ("JSON lines", "jsonl"),
    };
    let Some(path) = ask_where(&app, &window, save_as).await? else {
        return Ok(None);
    };
    tools.write_audit(request, path).await.map(Some)
}
