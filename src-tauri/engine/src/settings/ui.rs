//! The UI's own preferences kept with the app's settings: the language chosen and the file
//! tree's place in the sidebar (open or folded, its height).
//!
//! They used to live in the webview's storage, which WebKit writes to disk when it pleases: a
//! choice made just before quitting could be lost, and nothing outside the webview could tell
//! when it was kept. In the settings table they are saved when the call returns, like every
//! other setting. The webview still keeps a copy in its storage to show the right language on
//! its first frame; the stored value here wins as soon as it is read.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::settings::Setting;

/// The language the user chose in Settings.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
pub enum LanguageChoice {
    /// Whatever the system uses.
    #[serde(rename = "system")]
    System,
    /// English.
    #[serde(rename = "en")]
    En,
    /// Simplified Chinese.
    #[serde(rename = "zh-CN")]
    ZhCn,
}

impl LanguageChoice {
    /// The name stored and sent (`system`, `en`, `zh-CN`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::En => "en",
            Self::ZhCn => "zh-CN",
        }
    }
}

impl fmt::Display for LanguageChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LanguageChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "system" => Ok(Self::System),
            "en" => Ok(Self::En),
            "zh-CN" => Ok(Self::ZhCn),
            other => Err(format!("unknown language choice '{other}'")),
        }
    }
}

/// The language chosen in Settings (the system's until one is chosen).
pub const UI_LANGUAGE: Setting<LanguageChoice> = Setting {
    key: "ui.language",
    default: LanguageChoice::System,
    allowed: &[],
    refusal: "",
    clamp_stored: false,
};

/// Whether the sidebar's file tree is open (not folded).
pub const TREE_OPEN: Setting<bool> = Setting {
    key: "ui.tree.open",
    default: true,
    allowed: &[],
    refusal: "",
    clamp_stored: false,
};

/// The file tree's smallest height, in pixels (the UI's `MIN_TREE_HEIGHT`).
pub const MIN_TREE_HEIGHT: u32 = 96;

/// The file tree's largest stored height, in pixels.
pub const MAX_TREE_HEIGHT: u32 = 20_000;

/// The file tree's height when open, in pixels (the window bounds it further when shown).
pub const TREE_HEIGHT: Setting<u32> = Setting {
    key: "ui.tree.height",
    default: 340,
    allowed: &[MIN_TREE_HEIGHT..=MAX_TREE_HEIGHT],
    refusal: "the tree's height is 96 to 20000 pixels",
    clamp_stored: true,
};

/// The UI's preferences as the webview reads them at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct UiPreferences {
    /// The language chosen.
    pub language: LanguageChoice,
    /// The file tree's place in the sidebar.
    pub tree: TreeLayout,
}

/// The file tree's place in the sidebar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TreeLayout {
    /// Open (true) or folded.
    pub open: bool,
    /// Its height when open, in pixels.
    pub height: u32,
}

/// A language to remember.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveLanguageRequest {
    /// The choice.
    pub language: LanguageChoice,
}
