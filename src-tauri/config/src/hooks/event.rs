//! The ten hook events Gantry runs (spec §1.1 "Events": the classic ones Claude Code and Codex
//! share, with PostToolUseFailure in place of PermissionRequest, which Gantry's own dialog
//! replaces).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// An event a hook can be attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum HookEvent {
    /// Before a tool call runs (after its arguments were validated): may block, allow, ask or
    /// rewrite it.
    PreToolUse,
    /// After a tool call succeeded.
    PostToolUse,
    /// After a tool call failed.
    PostToolUseFailure,
    /// Before the user's prompt is sent: may block it or add context.
    UserPromptSubmit,
    /// When a turn ends: may make it continue.
    Stop,
    /// When a subagent ends.
    SubagentStop,
    /// When a session starts, resumes or was compacted.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// Before the conversation is compacted: may block it.
    PreCompact,
    /// When Gantry notifies the user (a permission prompt, waiting for input).
    Notification,
}

impl HookEvent {
    /// Every event, in the documentation's order.
    pub const ALL: [HookEvent; 10] = [
        Self::PreToolUse,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SubagentStop,
        Self::SessionStart,
        Self::SessionEnd,
        Self::PreCompact,
        Self::Notification,
    ];

    /// The name in settings files and in `hook_event_name`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
        }
    }

    /// The event named `name` (exact case), when Gantry runs it.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name)
    }

    /// True for the events about one tool call (their matcher tests the tool's name, and only
    /// they honour a handler's `if`).
    pub const fn is_tool_event(self) -> bool {
        matches!(
            self,
            Self::PreToolUse | Self::PostToolUse | Self::PostToolUseFailure
        )
    }

    /// True when the event's matcher is ignored (UserPromptSubmit, Stop).
    pub const fn ignores_matcher(self) -> bool {
        matches!(self, Self::UserPromptSubmit | Self::Stop)
    }

    /// How long a command hook may run when its `timeout` is not set: 600 s, 30 s for
    /// UserPromptSubmit, and SessionEnd's shared 1.5 s budget (spec §1.1, `timeout`).
    pub const fn default_timeout(self) -> Duration {
        match self {
            Self::UserPromptSubmit => Duration::from_secs(30),
            Self::SessionEnd => Duration::from_millis(1_500),
            _ => Duration::from_secs(600),
        }
    }

    /// True when exit code 2 (or a blocking decision) stops something on this event.
    pub const fn can_block(self) -> bool {
        matches!(
            self,
            Self::PreToolUse
                | Self::UserPromptSubmit
                | Self::Stop
                | Self::SubagentStop
                | Self::PreCompact
        )
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
