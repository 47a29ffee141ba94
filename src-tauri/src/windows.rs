//! The app's windows: made from the one window configuration, each showing one project (the
//! engine's [`Windows`]), remembered with their folder and size across runs.
//!
//! The first window is `main`; "Open project in new window" makes `project-<n>`. What is
//! remembered (the setting [`OPEN_WINDOWS`]) is rewritten when a window opens or closes a
//! project, is resized, or closes while others stay open; closing the last window (quitting)
//! leaves it as it was, so the next run opens the same windows.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use tauri::webview::NewWindowResponse;
use tauri::{AppHandle, Manager, WebviewWindow, WebviewWindowBuilder};

use gantry_engine::project::ProjectInfo;
use gantry_engine::{CommandError, Opened, Windows};

use crate::compositing;
use crate::window_layout::{OPEN_WINDOWS, RememberedWindow, WINDOW_LAYOUT, WindowLayout};

/// The label of the first window.
pub const MAIN_WINDOW: &str = "main";

/// The prefix of the other windows' labels (the capability grants `project-*`).
const PROJECT_WINDOW_PREFIX: &str = "project-";

/// The number in the next new window's label.
static NEXT_WINDOW: AtomicU32 = AtomicU32::new(2);

/// Creates window `label` from the configuration, at `layout` when given, with navigation
/// locked to the app.
pub fn create(
    app: &AppHandle,
    label: &str,
    layout: Option<WindowLayout>,
) -> tauri::Result<WebviewWindow> {
    let mut config = app
        .config()
        .app
        .windows
        .iter()
        .find(|window| window.label == MAIN_WINDOW)
        .cloned()
        .unwrap_or_default();
    config.label = label.to_owned();
    if let Some(layout) = layout {
        config.width = layout.width;
        config.height = layout.height;
        config.maximized = layout.maximized;
    }
    let window = WebviewWindowBuilder::from_config(app, &config)?
        .on_navigation(|url| {
            let allowed = crate::is_app_url(url);
            if !allowed {
                tracing::warn!(%url, "blocked navigation away from the app");
            }
            allowed
        })
        .on_new_window(|url, _features| {
            tracing::warn!(%url, "blocked a new window");
            NewWindowResponse::Deny
        })
        .build()?;
    compositing::apply(&window, compositing::for_this_machine());
    Ok(window)
}

/// Opens the folder at `path` in a new window, or brings the window that shows it to the front.
pub async fn open_in_new_window(
    app: &AppHandle,
    windows: &Windows,
    path: PathBuf,
) -> Result<(), CommandError> {
    let label = next_label();
    windows.window_opened(&label);
    let opened = match windows.open_folder(&label, path).await {
        Ok(opened) => opened,
        Err(error) => {
            windows.window_closed(&label);
            return Err(error);
        }
    };
    match opened {
        Opened::Here(project) => {
            if let Err(error) = create(app, &label, None) {
                windows.window_closed(&label);
                return Err(CommandError::internal(format!(
                    "cannot open a new window: {error}"
                )));
            }
            set_title(app, &label, Some(&project));
            remember(app);
        }
        Opened::Elsewhere { window } => {
            windows.window_closed(&label);
            focus(app, &window);
        }
    }
    Ok(())
}

fn next_label() -> String {
    format!(
        "{PROJECT_WINDOW_PREFIX}{}",
        NEXT_WINDOW.fetch_add(1, Ordering::Relaxed)
    )
}

/// Names window `label` after its project ("name — Gantry"), or "Gantry" on the welcome screen,
/// so windows can be told apart in the task bar and the window switcher.
pub fn set_title(app: &AppHandle, label: &str, project: Option<&ProjectInfo>) {
    let title = match project {
        Some(project) => format!("{} — Gantry", project.name),
        None => "Gantry".to_owned(),
    };
    if let Some(window) = app.get_webview_window(label)
        && let Err(error) = window.set_title(&title)
    {
        tracing::warn!(%error, label, "cannot set the window's title");
    }
}

/// Brings window `label` to the front.
pub fn focus(app: &AppHandle, label: &str) {
    if let Some(window) = app.get_webview_window(label) {
        let _ = window.unminimize();
        let _ = window.show();
        if let Err(error) = window.set_focus() {
            tracing::warn!(%error, label, "cannot focus the window");
        }
    }
}

/// Opens the windows of the last run: the first in `main` (which shows `folder` instead when
/// one was named on the command line), the others in new windows. A remembered folder that can
/// no longer be opened leaves its window out (or `main` on the welcome screen).
pub fn restore(app: &AppHandle, windows: &Windows, folder: Option<PathBuf>) -> tauri::Result<()> {
    let mut remembered = remembered_windows(windows);
    let first = if remembered.is_empty() {
        RememberedWindow {
            folder: None,
            layout: legacy_layout(windows),
        }
    } else {
        remembered.remove(0)
    };
    let main_folder = folder.clone().or(first.folder);
    let main = windows.window_opened(MAIN_WINDOW);
    if let Some(path) = main_folder {
        let opened = tauri::async_runtime::block_on(windows.open_folder(MAIN_WINDOW, path.clone()));
        if let Err(error) = opened {
            tracing::warn!(folder = %path.display(), %error, "cannot open the project");
            if folder.is_some() {
                main.set_launch_error(&path, &error);
            }
        }
    }
    create(app, MAIN_WINDOW, first.layout)?;
    let shown = main.current().ok();
    set_title(
        app,
        MAIN_WINDOW,
        shown.as_ref().map(|project| project.info()),
    );
    for window in remembered {
        let Some(path) = window.folder else {
            continue;
        };
        let label = next_label();
        windows.window_opened(&label);
        match tauri::async_runtime::block_on(windows.open_folder(&label, path.clone())) {
            Ok(Opened::Here(project)) => {
                create(app, &label, window.layout)?;
                set_title(app, &label, Some(&project));
            }
            Ok(Opened::Elsewhere { .. }) => windows.window_closed(&label),
            Err(error) => {
                windows.window_closed(&label);
                tracing::warn!(folder = %path.display(), %error, "cannot reopen a window's project");
            }
        }
    }
    Ok(())
}

fn remembered_windows(windows: &Windows) -> Vec<RememberedWindow> {
    read_setting(windows, OPEN_WINDOWS)
        .map(|text| RememberedWindow::parse_list(&text))
        .unwrap_or_default()
}

/// The main window's size as runs before windows were remembered saved it.
fn legacy_layout(windows: &Windows) -> Option<WindowLayout> {
    WindowLayout::parse(&read_setting(windows, WINDOW_LAYOUT)?)
}

/// The app setting `name`, read before the first window opens (blocking); `None` when unset or
/// unreadable (logged: the windows then open as on a first run).
fn read_setting(windows: &Windows, name: &str) -> Option<String> {
    let store = windows.store().clone();
    let read = tauri::async_runtime::block_on(async move { store.settings().get(name).await });
    read.unwrap_or_else(|error| {
        tracing::warn!(%error, setting = name, "cannot read a window setting");
        None
    })
}

/// Saves the open windows (their folders and sizes, `main` first) once they settle.
pub fn remember(app: &AppHandle) {
    let Some(windows) = app.try_state::<Windows>() else {
        return;
    };
    let mut list: Vec<(bool, RememberedWindow)> = windows
        .folders()
        .into_iter()
        .filter_map(|(label, folder)| {
            let window = app.get_webview_window(&label)?;
            Some((
                label != MAIN_WINDOW,
                RememberedWindow {
                    folder,
                    layout: layout_of(&window),
                },
            ))
        })
        .collect();
    // `main` first; the others in label order (the order they were opened in, near enough).
    list.sort_by_key(|(other, _)| *other);
    let list: Vec<RememberedWindow> = list.into_iter().map(|(_, window)| window).collect();
    let setting = RememberedWindow::list_to_setting(&list);
    // Called from window events on the main thread too: the saving waits on the async runtime.
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        if let Some(windows) = app.try_state::<Windows>() {
            windows.save_setting_when_settled(OPEN_WINDOWS, setting);
        }
    });
}

/// A window's size now, in logical pixels.
fn layout_of(window: &WebviewWindow) -> Option<WindowLayout> {
    let (size, scale, maximized) = (
        window.inner_size().ok()?,
        window.scale_factor().ok()?,
        window.is_maximized().ok()?,
    );
    if size.width == 0 || size.height == 0 {
        return None;
    }
    let logical = size.to_logical::<f64>(scale);
    Some(WindowLayout {
        width: logical.width,
        height: logical.height,
        maximized,
    })
}

/// Window `label` closed: its project closes, and the windows left are remembered (the last
/// window's closing is the app quitting: what was open stays remembered).
pub fn closed(app: &AppHandle, label: &str) {
    let Some(windows) = app.try_state::<Windows>() else {
        return;
    };
    windows.window_closed(label);
    let others_open = app
        .webview_windows()
        .keys()
        .any(|other| other.as_str() != label);
    if others_open {
        remember(app);
    }
}
