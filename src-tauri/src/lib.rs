//! Gantry's desktop app: a thin Tauri shell over the engine.
//!
//! The engine (`gantry-engine`) owns everything that acts on the world and the app's state
//! behind every command, with no Tauri types, so it is tested without a window. This crate only
//! connects it to a window: the commands the webview calls ([`commands`], declared once in a
//! table), the sink that emits the engine's events to the window, the window's size
//! ([`window_layout`]) and how it paints ([`compositing`]), the command line ([`args`]), the
//! desktop notifications about what the engine's events tell ([`notifications`]), and the
//! TypeScript contract generated from the types that cross ([`contract`]).
//!
//! The window is locked down: a strict content security policy (no remote content, no inline
//! script), navigation that never leaves the app's own pages, no new windows, and capabilities
//! that grant nothing but Gantry's own commands and its events (no file-system or shell plugin:
//! the engine owns the file system; the folder picker is opened from here).

pub mod args;
pub mod commands;
pub mod compositing;
pub mod contract;
pub mod notifications;
pub mod window_layout;

use std::path::PathBuf;
use std::sync::Arc;

use tauri::webview::NewWindowResponse;
use tauri::{AppHandle, Emitter, Manager, Url, WebviewWindowBuilder, WindowEvent};

use gantry_engine::{AppState, EventSink, Settings, Store};

use crate::notifications::Notifier;
use crate::window_layout::{WINDOW_LAYOUT, WindowLayout};

/// The label of the one window.
pub const MAIN_WINDOW: &str = "main";

/// Sends events to the webview (and shows the notifier each one).
struct WindowSink(AppHandle);

impl EventSink for WindowSink {
    fn send(&self, name: &'static str, payload: serde_json::Value) {
        if let Some(notifier) = self.0.try_state::<Arc<Notifier>>() {
            notifier.observe(name, &payload);
        }
        if let Err(error) = self.0.emit(name, payload) {
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

/// Runs the app with `folder` open, or on the welcome screen. Returns when the window closed.
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
            let notify = tauri::async_runtime::block_on(notifications::stored_setting(&store));
            app.manage(Arc::new(Notifier::new(app.handle().clone(), notify)));
            let state = AppState::new(sink, settings, store);
            if let Some(folder) = folder {
                let opened = tauri::async_runtime::block_on(state.open_project(folder.clone()));
                if let Err(error) = opened {
                    tracing::warn!(folder = %folder.display(), %error, "cannot open the project");
                    state.set_launch_error(&folder, &error);
                }
            }
            app.manage(state);
            create_window(app.handle())?;
            Ok(())
        })
        .on_window_event(|window, event| {
            if matches!(event, WindowEvent::Resized(_)) {
                track_layout(window);
            }
            if matches!(event, WindowEvent::Destroyed)
                && let Some(state) = window.try_state::<AppState>()
            {
                state.dialogs().window_closed();
                state.close_project();
            }
        })
        .run(context())
}

/// The context the build script generated (configuration, embedded UI, resolved capabilities).
/// The generated code unwraps values it validated at build time.
#[allow(clippy::unwrap_used, clippy::expect_used)]
fn context() -> tauri::Context<tauri::Wry> {
    tauri::tauri_build_context!()
}

/// Notes the window's size as it changes (saved once it settles).
fn track_layout(window: &tauri::Window) {
    let (Ok(size), Ok(scale), Ok(maximized)) = (
        window.inner_size(),
        window.scale_factor(),
        window.is_maximized(),
    ) else {
        return;
    };
    if size.width == 0 || size.height == 0 {
        return;
    }
    let logical = size.to_logical::<f64>(scale);
    let layout = WindowLayout {
        width: logical.width,
        height: logical.height,
        maximized,
    };
    // Window events come on the main thread; the saving waits on the async runtime.
    let app = window.app_handle().clone();
    tauri::async_runtime::spawn(async move {
        if let Some(state) = app.try_state::<AppState>() {
            state.save_setting_when_settled(WINDOW_LAYOUT, layout.to_setting());
        }
    });
}

/// The window size remembered from the last run, if any.
fn remembered_layout(app: &AppHandle) -> Option<WindowLayout> {
    let state = app.try_state::<AppState>()?;
    let store = state.store().clone();
    let text =
        tauri::async_runtime::block_on(async move { store.settings().get(WINDOW_LAYOUT).await })
            .ok()??;
    WindowLayout::parse(&text)
}

/// Creates the main window from its configuration (at the size remembered from the last run),
/// with navigation locked to the app.
fn create_window(app: &AppHandle) -> tauri::Result<()> {
    let mut config = app
        .config()
        .app
        .windows
        .iter()
        .find(|window| window.label == MAIN_WINDOW)
        .cloned()
        .unwrap_or_default();
    if let Some(layout) = remembered_layout(app) {
        config.width = layout.width;
        config.height = layout.height;
        config.maximized = layout.maximized;
    }
    let window = WebviewWindowBuilder::from_config(app, &config)?
        .on_navigation(|url| {
            let allowed = is_app_url(url);
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
    Ok(())
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
