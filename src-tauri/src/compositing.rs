//! How the webview composites its page.
//!
//! WebKitGTK composites the page through OpenGL. On a machine without a GPU that GL is Mesa's
//! software rasteriser, and compositing every frame in software is what a streamed answer paid
//! for most: in a virtual display on 2 cores, a 13 KB answer arriving as 2,000 deltas showed
//! 10-15 frames/s composited against 50-62 without compositing, at half the CPU. So without a
//! GPU (no render node under `/dev/dri`) the webview paints without compositing; with one,
//! WebKit keeps its own choice. `GANTRY_COMPOSITING=on` or `off` overrides either way.
//!
//! "Without compositing" is WebKit's own switch, `WEBKIT_DISABLE_COMPOSITING_MODE`, set in the
//! app's environment before WebKit starts ([`startup_environment`]): the web process reads it
//! when it starts, and its children inherit it. The per-view setting ([`apply`]) alone came too
//! late: the web process had already started its GL compositor for the first page, and kept it,
//! with two software-GL (llvmpipe) threads in each process, and about 7 MiB more in the web
//! process (see `scripts/bench-memory`).
//!
//! One thing behaves differently without compositing: WebKitWebDriver's page snapshot never
//! returns, so the e2e suite takes its pictures from the X server (what a user sees).

use std::path::Path;

/// The environment variable that overrides the choice (`on` or `off`).
pub const OVERRIDE_VAR: &str = "GANTRY_COMPOSITING";

/// Whether the webview composites through OpenGL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositing {
    /// WebKit's default (composited through the GPU).
    WebKitDefault,
    /// Painted without compositing.
    Off,
}

/// The choice given the override's value and whether the machine has a GPU: `on` or `off`
/// when asked, otherwise composited only with a GPU.
pub fn choose(override_value: Option<&str>, gpu: bool) -> Compositing {
    match override_value.map(str::trim) {
        Some("off") => Compositing::Off,
        Some("on") => Compositing::WebKitDefault,
        _ if gpu => Compositing::WebKitDefault,
        _ => Compositing::Off,
    }
}

/// Whether `dri` (normally `/dev/dri`) holds a render node, the device a GPU's GL draws through.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// The choice for this environment.
pub fn for_this_machine() -> Compositing {
    choose(
        std::env::var(OVERRIDE_VAR).ok().as_deref(),
        has_render_node(Path::new("/dev/dri")),
    )
}

/// WebKitGTK's switch that makes its processes paint without compositing, from their start.
pub const WEBKIT_DISABLE_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// The variable to set in the app's environment, before WebKit starts, for `choice`: WebKit's
/// switch when painting without compositing, nothing otherwise.
pub fn startup_environment(choice: Compositing) -> Option<(&'static str, &'static str)> {
    match choice {
        Compositing::Off => Some((WEBKIT_DISABLE_VAR, "1")),
        Compositing::WebKitDefault => None,
    }
}

/// Applies `choice` to `window`'s webview as its own setting. Without compositing, WebKit's
/// switch set at start ([`startup_environment`], in `main`) already keeps the web process from
/// compositing; this setting agrees with it, and holds for a webview made without that start.
#[cfg(target_os = "linux")]
pub fn apply(window: &tauri::WebviewWindow, choice: Compositing) {
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
    if choice == Compositing::WebKitDefault {
        return;
    }
    let applied = window.with_webview(|platform| {
        if let Some(settings) = platform.inner().settings() {
            settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
        }
    });
    match applied {
        Ok(()) => {
            tracing::info!("the webview paints without compositing (no GPU, or {OVERRIDE_VAR}=off)")
        }
        Err(error) => tracing::warn!(%error, "cannot turn the webview's compositing off"),
    }
}

/// Other platforms composite as their webview chooses.
#[cfg(not(target_os = "linux"))]
pub fn apply(_window: &tauri::WebviewWindow, _choice: Compositing) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_follows_the_gpu_unless_overridden() {
        assert_eq!(choose(None, true), Compositing::WebKitDefault);
        assert_eq!(choose(None, false), Compositing::Off);
        assert_eq!(choose(Some("on"), false), Compositing::WebKitDefault);
        assert_eq!(choose(Some("off"), true), Compositing::Off);
        assert_eq!(choose(Some(" off\n"), true), Compositing::Off);
        assert_eq!(choose(Some("maybe"), true), Compositing::WebKitDefault);
        assert_eq!(choose(Some("maybe"), false), Compositing::Off);
    }

    #[test]
    fn only_painting_without_compositing_sets_webkits_switch() {
        assert_eq!(
            startup_environment(Compositing::Off),
            Some(("WEBKIT_DISABLE_COMPOSITING_MODE", "1"))
        );
        assert_eq!(startup_environment(Compositing::WebKitDefault), None);
    }

    #[test]
    fn a_render_node_is_found_by_its_name() {
        let dri = tempfile::tempdir().unwrap();
        assert!(!has_render_node(dri.path()));
        std::fs::write(dri.path().join("card0"), b"").unwrap();
        assert!(!has_render_node(dri.path()));
        std::fs::write(dri.path().join("renderD128"), b"").unwrap();
        assert!(has_render_node(dri.path()));
        assert!(!has_render_node(&dri.path().join("missing")));
    }
}
