//! The windows' folders and sizes, remembered between runs (an app setting in the store).
//!
//! Saved when the window closes, in logical pixels (so a different scale factor next time keeps
//! the same apparent size), and applied when the window is created. A stored size outside sane
//! bounds (a corrupt value, a monitor since removed) is clamped, never trusted blindly.

use serde::{Deserialize, Serialize};

/// The setting that held the one window's layout before windows were remembered with their
/// folders (read when [`OPEN_WINDOWS`] is not there yet).
pub const WINDOW_LAYOUT: &str = "window.layout";

/// The setting that holds the open windows ([`RememberedWindow::list_to_setting`]).
pub const OPEN_WINDOWS: &str = "windows.open";

/// The most windows reopened at start (a corrupt or hostile setting cannot open hundreds).
const MAX_REMEMBERED: usize = 16;

/// The smallest window the layout allows (the configuration's minimum).
const MIN: (f64, f64) = (720.0, 480.0);
/// The largest accepted, in logical pixels.
const MAX: f64 = 16_384.0;

/// The remembered layout.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowLayout {
    /// Inner width, logical pixels.
    pub width: f64,
    /// Inner height, logical pixels.
    pub height: f64,
    /// Whether the window was maximised.
    pub maximized: bool,
}

impl WindowLayout {
    /// The layout in `text` (the stored setting), clamped to sane bounds; `None` when unreadable.
    pub fn parse(text: &str) -> Option<Self> {
        let layout: Self = serde_json::from_str(text).ok()?;
        if !(layout.width.is_finite() && layout.height.is_finite()) {
            return None;
        }
        Some(Self {
            width: layout.width.clamp(MIN.0, MAX),
            height: layout.height.clamp(MIN.1, MAX),
            maximized: layout.maximized,
        })
    }

    /// The setting's text.
    pub fn to_setting(self) -> String {
        serde_json::to_string(&self).unwrap_or_default()
    }
}

/// A window as remembered: the folder it showed (none: the welcome screen) and its size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RememberedWindow {
    /// The project's folder.
    pub folder: Option<std::path::PathBuf>,
    /// Its size.
    pub layout: Option<WindowLayout>,
}

impl RememberedWindow {
    /// The windows in `text` (the stored setting), each layout clamped, at most
    /// [`MAX_REMEMBERED`]; none when unreadable.
    pub fn parse_list(text: &str) -> Vec<Self> {
        let Ok(windows) = serde_json::from_str::<Vec<serde_json::Value>>(text) else {
            return Vec::new();
        };
        windows
            .into_iter()
            .take(MAX_REMEMBERED)
            .filter_map(|window| {
                let folder = window
                    .get("folder")
                    .and_then(serde_json::Value::as_str)
                    .map(std::path::PathBuf::from);
                let layout = window
                    .get("layout")
                    .and_then(|layout| WindowLayout::parse(&layout.to_string()));
                window.is_object().then_some(Self { folder, layout })
            })
            .collect()
    }

    /// The setting's text for `windows`.
    pub fn list_to_setting(windows: &[Self]) -> String {
        serde_json::to_string(windows).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_round_trips_and_bad_values_are_clamped_or_refused() {
        let layout = WindowLayout {
            width: 1000.5,
            height: 700.0,
            maximized: true,
        };
        assert_eq!(WindowLayout::parse(&layout.to_setting()), Some(layout));
        let tiny =
            WindowLayout::parse(r#"{"width": 10, "height": -5, "maximized": false}"#).unwrap();
        assert_eq!((tiny.width, tiny.height), (720.0, 480.0));
        let huge =
            WindowLayout::parse(r#"{"width": 1e9, "height": 900, "maximized": false}"#).unwrap();
        assert_eq!(huge.width, 16_384.0);
        assert_eq!(WindowLayout::parse("not json"), None);
        assert_eq!(WindowLayout::parse(r#"{"width": 800}"#), None);
    }

    #[test]
    fn the_open_windows_round_trip_and_a_bad_setting_opens_nothing_odd() {
        let windows = vec![
            RememberedWindow {
                folder: Some("/home/me/app".into()),
                layout: Some(WindowLayout {
                    width: 1000.0,
                    height: 640.0,
                    maximized: false,
                }),
            },
            RememberedWindow {
                folder: None,
                layout: None,
            },
        ];
        let text = RememberedWindow::list_to_setting(&windows);
        assert_eq!(RememberedWindow::parse_list(&text), windows);
        assert!(RememberedWindow::parse_list("not json").is_empty());
        let odd = RememberedWindow::parse_list(
            r#"[{"folder": 7, "layout": {"width": 5, "height": 5, "maximized": false}}, 3]"#,
        );
        assert_eq!(odd.len(), 1, "a non-object entry is dropped");
        assert_eq!(odd[0].folder, None);
        assert_eq!(odd[0].layout.map(|l| l.width), Some(720.0), "clamped");
        let many = format!("[{}]", vec!["{}"; 100].join(","));
        assert_eq!(RememberedWindow::parse_list(&many).len(), 16);
    }
}
