//! The hook events around a session besides a turn's own (spec §1.1): PreCompact before a
//! compaction (trigger `manual` for the user's, `auto` for a turn's own; a block keeps the
//! conversation as it is and tells the user why), SessionStart with source `compact` after one
//! (its context goes to the model's next requests), SessionEnd when a session ends (side effects only,
//! within a shared budget), and Notification when Gantry asks the user something
//! (`permission_prompt`) or a turn finished (`idle_prompt`), side effects only.
//!
//! SubagentStop is parsed and listed but never fired: Gantry has no subagents yet (they come
//! with the "Ways of working" issue); it would fire where a subagent's turn ends, with
//! `stop_hook_active`, `agent_id`, `agent_type`, `agent_transcript_path` and
//! `last_assistant_message`, like [`super::hooks::after_turn`] does for Stop.

use gantry_agent::Session;
use gantry_config::hooks::HookEvent;
use serde_json::{Map, json};

use crate::chat::hooks::{fire_session_start, write_transcript};
use crate::config::hooks::ProjectHooks;

/// What triggers a compaction (PreCompact's matcher and `trigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactTrigger {
    /// The user asked (`/compact`, Compact now).
    Manual,
    /// A turn compacts by itself as the window fills.
    Auto,
}

impl CompactTrigger {
    /// The name hooks read.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Auto => "auto",
        }
    }
}

/// Runs the PreCompact hooks before `session` is compacted: `Err(reason)` when one blocks
/// (exit 2 or `decision: "block"`), the reason for the user.
pub async fn pre_compact(
    hooks: &ProjectHooks,
    session: &Session,
    trigger: CompactTrigger,
) -> Result<(), String> {
    if !hooks.wants(HookEvent::PreCompact).await {
        return Ok(());
    }
    write_transcript(hooks, session);
    let mut input = Map::new();
    input.insert("trigger".into(), json!(trigger.as_str()));
    input.insert("custom_instructions".into(), json!(""));
    let outcome = hooks
        .fire(
            HookEvent::PreCompact,
            Some(session.id()),
            Some(trigger.as_str()),
            None,
            input,
        )
        .await;
    match outcome.block() {
        Some((ran, reason)) => Err(format!(
            "A PreCompact hook ({}) blocked the compaction: {reason}",
            ran.hook.source.shown
        )),
        None => Ok(()),
    }
}

/// Runs the SessionStart hooks with source `compact` after `session` was compacted; their
/// context goes to the model in the session's next requests.
pub async fn after_compact(hooks: &ProjectHooks, session: &mut Session) {
    if !hooks.wants(HookEvent::SessionStart).await {
        return;
    }
    write_transcript(hooks, session);
    for context in fire_session_start(hooks, session.id(), "compact").await {
        session.add_hook_context("SessionStart", &context);
    }
}

/// Why a session ended (SessionEnd's matcher and `reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The session was cleared or deleted.
    Clear,
    /// The user left the prompt (`gantry-cli chat` ending after its turn).
    PromptInputExit,
    /// Anything else (a cancelled or failed CLI run, the app closing the project).
    Other,
}

impl EndReason {
    /// The name hooks read.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Clear => "clear",
            Self::PromptInputExit => "prompt_input_exit",
            Self::Other => "other",
        }
    }
}

/// Runs the SessionEnd hooks of session `session` for `reason`, all within their shared
/// budget ([`gantry_config::hooks::HookSet::session_end_budget`]); the ones still running then
/// are killed. Side effects only.
pub async fn session_end(hooks: &ProjectHooks, session: &str, reason: EndReason) {
    let (set, _) = hooks.load().await;
    if !set.has(HookEvent::SessionEnd) {
        return;
    }
    let mut input = Map::new();
    input.insert("reason".into(), json!(reason.as_str()));
    let fired = hooks.fire(
        HookEvent::SessionEnd,
        Some(session),
        Some(reason.as_str()),
        None,
        input,
    );
    if tokio::time::timeout(set.session_end_budget(), fired)
        .await
        .is_err()
    {
        tracing::info!(
            session,
            "SessionEnd hooks ran out of their budget and were stopped"
        );
    }
}

/// What Gantry tells the user, as Notification hooks read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotificationType {
    /// A tool call waits for the user's approval.
    PermissionPrompt,
    /// A turn finished: Gantry waits for the next prompt.
    IdlePrompt,
}

impl NotificationType {
    /// The name hooks read (`notification_type`, the matcher).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::PermissionPrompt => "permission_prompt",
            Self::IdlePrompt => "idle_prompt",
        }
    }

    /// The notification's `message` and `title`.
    const fn words(self) -> (&'static str, &'static str) {
        match self {
            Self::PermissionPrompt => ("Gantry needs your permission to use a tool", "Gantry"),
            Self::IdlePrompt => ("Gantry is waiting for your input", "Gantry"),
        }
    }
}

/// Runs the Notification hooks of `session` for `kind`. Side effects only.
pub async fn notification(hooks: &ProjectHooks, session: &str, kind: NotificationType) {
    if !hooks.wants(HookEvent::Notification).await {
        return;
    }
    let (message, title) = kind.words();
    let mut input = Map::new();
    input.insert("notification_type".into(), json!(kind.as_str()));
    input.insert("message".into(), json!(message));
    input.insert("title".into(), json!(title));
    hooks
        .fire(
            HookEvent::Notification,
            Some(session),
            Some(kind.as_str()),
            None,
            input,
        )
        .await;
}
