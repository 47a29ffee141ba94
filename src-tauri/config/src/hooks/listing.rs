//! One hook as the Tools panel and `gantry-cli hooks` list it.

use serde::{Deserialize, Serialize};

use super::{Hook, HookEvent};
use crate::SourceFile;

/// What identifies a hook across loads: its file, event, matcher and command.
pub type HookKey = (std::path::PathBuf, HookEvent, String, String);

/// A hook with its last run, for lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HookListing {
    /// When it runs.
    pub event: HookEvent,
    /// Its matcher as written (empty: every call, every source).
    pub matcher: String,
    /// The command (and its arguments in the exec form).
    pub command: String,
    /// The file it comes from.
    pub source: SourceFile,
    /// True when it may run (a user file, or a project file trusted with its content).
    pub trusted: bool,
    /// True when `disableAllHooks` turned it off.
    pub disabled: bool,
    /// When it last finished, in milliseconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub last_run_at_ms: Option<i64>,
    /// How it last ended: `exit 0`, `exit 2: blocked`, `timed out`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub last_result: Option<String>,
}

impl HookListing {
    /// `hook` as listed, not run yet.
    pub fn of(hook: &Hook, disabled: bool) -> Self {
        Self {
            event: hook.event,
            matcher: hook.matcher_text.clone(),
            command: hook.shown_command(),
            source: hook.source.clone(),
            trusted: hook.trusted,
            disabled,
            last_run_at_ms: None,
            last_result: None,
        }
    }

    /// What identifies the hook across loads (see [`HookKey`]).
    pub fn key(&self) -> HookKey {
        (
            self.source.path.clone(),
            self.event,
            self.matcher.clone(),
            self.command.clone(),
        )
    }
}
