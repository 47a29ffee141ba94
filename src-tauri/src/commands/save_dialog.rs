//! The native save dialog, as the exports use it.

use std::path::{Path, PathBuf};

use tauri::{AppHandle, WebviewWindow};
use tauri_plugin_dialog::DialogExt;
use tokio::sync::oneshot;

use gantry_engine::CommandError;

/// What the save dialog offers.
pub struct SaveAs<'a> {
    /// The dialog's title.
    pub title: &'a str,
    /// The folder it opens in.
    pub folder: &'a Path,
    /// The file name it suggests.
    pub file_name: String,
    /// The filter's name and its extension (`("JSON lines", "jsonl")`).
    pub filter: (&'a str, &'a str),
}

/// Asks where to save, over `window`; `None` when the user cancelled.
pub async fn ask_where(
    app: &AppHandle,
    window: &WebviewWindow,
    save_as: SaveAs<'_>,
) -> Result<Option<PathBuf>, CommandError> {
    let (tx, rx) = oneshot::channel();
    let (filter, extension) = save_as.filter;
    app.dialog()
        .file()
        .set_title(save_as.title)
        .set_parent(window)
        .set_directory(save_as.folder)
        .set_file_name(save_as.file_name)
        .add_filter(filter, &[extension])
        .save_file(move |file| {
            let _ = tx.send(file);
        });
    let Some(file) = rx
        .await
        .map_err(|_| CommandError::internal("the save dialog went away"))?
    else {
        return Ok(None);
    };
    file.into_path()
        .map(Some)
        .map_err(|error| CommandError::invalid(format!("not a local file: {error}")))
}
