//! The window's size, remembered between runs (an app setting in the store).
//!
//! Saved when the window closes, in logical pixels (so a different scale factor next time keeps
//! the same apparent size), and applied when the window is created. A stored size outside sane
//! bounds (a corrupt value, a monitor since removed) is clamped, never trusted blindly.

use serde::{Deserialize, Serialize};

/// The setting that holds the layout.
pub const WINDOW_LAYOUT: &str = "window.layout";

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
}
