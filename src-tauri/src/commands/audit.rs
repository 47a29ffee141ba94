//! The audit view: the open project's tool calls, and their export as JSON lines.

use tauri::{AppHandle, State, WebviewWindow};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use gantry_engine::CommandError;
use gantry_engine::audit_view::{AuditEntryView, AuditExport, AuditRequest};
use gantry_engine::state::AppState;

/// The open project's tool calls that pass the filter, newest first.
#[tauri::command]
pub async fn audit_log(
    state: State<'_, AppState>,
    request: AuditRequest,
) -> Result<Vec<AuditEntryView>, CommandError> {
    state.audit_log(&request).await
}

/// Asks where to save (the native save dialog) and writes the calls that pass the filter there
/// as JSON lines; `null` when the user cancelled.
#[tauri::command]
pub async fn export_audit(
    app: AppHandle,
    window: WebviewWindow,
    state: State<'_, AppState>,
    request: AuditRequest,
) -> Result<Option<AuditExport>, CommandError> {
    let project = state.current()?;
    let (tx, rx) = oneshot::channel();
    app.dialog()
        .file()
        .set_title("Export the audit log")
        .set_parent(&window)
        .set_directory(project.root().path())
        .set_file_name(format!("{}-audit.jsonl", project.info().name))
        .add_filter("JSON lines", &["jsonl"])
        .save_file(move |file| {
            let _ = tx.send(file);
        });
    let Some(file) = rx
        .await
        .map_err(|_| CommandError::internal("the save dialog went away"))?
    else {
        return Ok(None);
    };
    let path = file
        .into_path()
        .map_err(|error| CommandError::invalid(format!("not a local file: {error}")))?;
    state.export_audit(&request, path).await.map(Some)
}
