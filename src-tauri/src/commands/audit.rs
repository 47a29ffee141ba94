//! The audit view: the open project's tool calls, and their export as JSON lines.

use tauri::{AppHandle, WebviewWindow};

use gantry_engine::CommandError;
use gantry_engine::audit_view::{AuditEntryView, AuditExport, AuditRequest};

use super::WindowState;
use super::save_dialog::{SaveAs, ask_where};

/// The open project's tool calls that pass the filter, newest first.
#[tauri::command]
pub async fn audit_log(
    state: WindowState,
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
    state: WindowState,
    request: AuditRequest,
) -> Result<Option<AuditExport>, CommandError> {
    let project = state.current()?;
    let save_as = SaveAs {
        title: "Export the audit log",
        folder: project.root().path(),
        file_name: format!("{}-audit.jsonl", project.info().name),
        filter: ("JSON lines", "jsonl"),
    };
    let Some(path) = ask_where(&app, &window, save_as).await? else {
        return Ok(None);
    };
    state.export_audit(&request, path).await.map(Some)
}
