//! Gantry's desktop app: a thin Tauri shell over the engine.
//!
//! The engine (`gantry-engine`) owns everything that acts on the world and the app's state
//! behind every command, with no Tauri types, so it is tested without a window. This crate only
//! connects it to windows: the commands the webview calls ([`commands`], declared once in a
//! table), the sink that emits the engine's events to the windows that show their project, the
//! windows ([`windows`]: one project each, remembered with their size by [`window_layout`]) and
//! how they paint ([`compositing`]), the command line ([`args`]), the window side of the desktop
//! notifications the engine decides on ([`notifications`]: focus and clicks), and the TypeScript
//! contract generated from the types that cross ([`contract`]).
//!
//! Each window is locked down: a strict content security policy (no remote content, no inline
//! script), navigation that never leaves the app's own pages, no window opened by the page, and
//! capabilities that grant nothing but Gantry's own commands and its events (no file-system or
//! shell plugin: the engine owns the file system; the folder picker is opened from here).

pub mod args;
pub mod commands;
pub mod compositing;
pub mod contract;
pub mod notifications;
pub mod window_layout;
pub mod windows;

use std::path::PathBuf;
use std::sync::Arc;

use tauri::{AppHandle, Emitter, EventTarget, Manager, Url, WindowEvent};

use gantry_engine::events::EngineEvent;
use gantry_engine::{EventSink, Settings, Store, Windows};

pub use crate::windows::MAIN_WINDOW;

/// Sends the engine's events to the webviews: each serialised under its name to the window that
/// shows its project.
struct WindowSink(AppHandle);

impl EventSink for WindowSink {
    fn send(&self, event: EngineEvent) {
        let name = event.name();
        let payload = match event.payload() {
            Ok(payload) => payload,
            Err(error) => {
                tracing::error!(event = name, %error, "cannot serialise an event");
                return;
            }
        };
        let labels = self
            .0
            .try_state::<Windows>()
            .map(|windows| windows.showing(event.project_id()))
            .unwrap_or_default();
        let sent = self.0.emit_filter(name, payload, |target| match target {
            EventTarget::WebviewWindow { label }
            | EventTarget::Webview { label }
            | EventTarget::Window { label } => labels.contains(label),
            _ => false,
        });
        if let Err(error) = sent {
            tracing::warn!(event = name, %error, "cannot send an event to the webview");
        }
    }
}

/// True for the app's own pages (`tauri://localhost` on Linux and macOS,
/// `http(s)://tauri.localhost` on Windows); the webview may navigate nowhere else.
pub fn is_app_url(url: &Url) -> bool {
    match url.scheme() {
        "tauri" => url.host_str() == Some("localhost"),
        "http" | "https" => url.host_str() == Some("tauri.localhost"),
        _ => false,
    }
}

/// Runs the app: the windows of the last run (or one on the welcome screen), the main one showing
/// `folder` when given. Returns when the last window closed.
pub fn run(folder: Option<PathBuf>) -> tauri::Result<()> {
    let settings = Settings::from_env();
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(commands::handler())
        .setup(move |app| {
            let sink: Arc<dyn EventSink> = Arc::new(WindowSink(app.handle().clone()));
            let store = tauri::async_runtime::block_on(Store::open_default()).map_err(|error| {
                tracing::error!(%error, "cannot open Gantry's database");
                error
            })?;
            // The turn limit saved in Settings, unless `GANTRY_MAX_TURNS` set it.
            let settings = tauri::async_runtime::block_on(settings.with_stored(&store));
            let windows = Windows::new(sink, settings, store);
            windows.notify_on(Arc::new(notifications::Desk(app.handle().clone())));
            app.manage(windows);
            let windows = app.state::<Windows>();
            crate::windows::restore(app.handle(), &windows, folder)?;
            Ok(())
        })
        .on_window_event(|window, event| match event {
            WindowEvent::Resized(_) => crate::windows::remember(window.app_handle()),
            WindowEvent::Destroyed => crate::windows::closed(window.app_handle(), window.label()),
            _ => {}
        })
        .run(context())
}

/// The context the build script generated (configuration, embedded UI, resolved capabilities).
/// The generated code unwraps values it validated at build time.
#[allow(clippy::unwrap_used, clippy::expect_used)]
fn context() -> tauri::Context<tauri::Wry> {
    tauri::tauri_build_context!()
}

/// Logs to stderr; `RUST_LOG` overrides the default level (info for Gantry, warn otherwise).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,gantry_app=info,gantry=info"));
    // Colour codes only for a terminal: a log file or a journal gets plain text.
    let _ = tracing_subscriber::fmt()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_apps_own_pages_are_navigable() {
        for allowed in [
            "tauri://localhost/",
            "tauri://localhost/index.html",
            "http://tauri.localhost/",
        ] {
            assert!(is_app_url(&Url::parse(allowed).unwrap()), "{allowed}");
        }
        for blocked in [
            "https://example.com/",
            "http://localhost:1420/",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "tauri://evil/",
        ] {
            assert!(!is_app_url(&Url::parse(blocked).unwrap()), "{blocked}");
        }
    }
}
