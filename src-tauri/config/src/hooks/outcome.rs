//! What a hook's exit code and output mean for its event (spec §1.1 "Exit codes", "JSON
//! output"):
//!
//! - exit 0: stdout is JSON when its first non-blank character is `{`, else plain text, which
//!   becomes context for the model only on UserPromptSubmit and SessionStart;
//! - exit 2: a block on the events that can block (the reason is the JSON's, else stderr),
//!   even when the JSON says `allow`; after a tool ran (PostToolUse, PostToolUseFailure) it is
//!   feedback for the model; on SessionStart and SessionEnd stderr is for the user; on
//!   Notification it is ignored;
//! - any other code: a non-blocking error, reported with the first line of stderr — unless
//!   stdout is valid JSON, which then decides;
//! - a timeout: output dropped, no decision (a timed-out PreToolUse hook does not block).
//!
//! Output strings are capped at 10,000 characters.

use serde_json::{Map, Value};

use super::HookEvent;
use super::run::HookRun;

/// The most characters of any text a hook returns.
pub const MAX_TEXT_CHARS: usize = 10_000;

/// A PreToolUse hook's permission decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    /// Spare the dialog (only where Gantry would ask for an ordinary reason).
    Allow,
    /// Ask the user even where the call would run on its own.
    Ask,
    /// Refuse the call; the reason goes to the model.
    Deny,
}

/// What one hook run means.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// It blocks (exit 2, `decision: "block"`, a PreToolUse `deny`): the reason. After a tool
    /// ran, this is feedback added to what the model reads.
    pub block: Option<String>,
    /// PreToolUse's `permissionDecision` (a block is [`Permission::Deny`]).
    pub permission: Option<Permission>,
    /// Its `permissionDecisionReason` (for allow and ask: shown to the user).
    pub permission_reason: Option<String>,
    /// PreToolUse's `updatedInput` (the whole input, in the tool's documented field names).
    pub updated_input: Option<Value>,
    /// Context for the model (`additionalContext`, or plain stdout where that counts).
    pub context: Option<String>,
    /// `continue: false`: the session stops, with this reason for the user.
    pub stop: Option<String>,
    /// `systemMessage`, or stderr meant for the user: shown to the user.
    pub user_message: Option<String>,
    /// A non-blocking error to report (a failed, timed-out or misbehaving hook).
    pub error: Option<String>,
    /// One line for the hooks list: `exit 0`, `exit 2: blocked`, `timed out after 5s`.
    pub summary: String,
}

/// The meaning of `run` for `event`.
pub fn interpret(event: HookEvent, run: &HookRun) -> HookOutcome {
    let mut outcome = HookOutcome::default();
    if let Some(error) = &run.start_error {
        outcome.error = Some(format!("{event} hook could not start: {error}"));
        outcome.summary = "could not start".into();
        return outcome;
    }
    if run.timed_out {
        outcome.error = Some(format!("{event} hook timed out; its output was dropped"));
        outcome.summary = "timed out".into();
        return outcome;
    }
    let json = parse_json(&run.stdout);
    let code = run.exit_code;
    outcome.summary = match code {
        Some(code) => format!("exit {code}"),
        None => "killed by a signal".into(),
    };
    match (code, &json) {
        (Some(0), Some(json)) => read_json(event, json, &mut outcome),
        (Some(0), None) => {
            let text = run.stdout.trim();
            if !text.is_empty()
                && matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            {
                outcome.context = Some(cap(text));
            }
        }
        (Some(2), _) => {
            if let Some(json) = &json {
                read_json(event, json, &mut outcome);
            }
            let reason = outcome
                .block
                .take()
                .or_else(|| outcome.permission_reason.clone())
                .filter(|reason| !reason.trim().is_empty())
                .unwrap_or_else(|| cap(run.stderr.trim()));
            exit_two(event, reason, &mut outcome);
        }
        (_, Some(json)) => read_json(event, json, &mut outcome),
        (_, None) => {
            let first = run.stderr.lines().find(|line| !line.trim().is_empty());
            outcome.error = Some(match first {
                Some(line) => format!("{event} hook error: {}", cap(line.trim())),
                None => format!("{event} hook error ({})", outcome.summary),
            });
        }
    }
    if outcome.block.is_some() {
        outcome.summary.push_str(": blocked");
    }
    outcome
}

/// Exit code 2's effect on each event.
fn exit_two(event: HookEvent, reason: String, outcome: &mut HookOutcome) {
    match event {
        HookEvent::PreToolUse => {
            outcome.permission = Some(Permission::Deny);
            outcome.updated_input = None;
            outcome.block = Some(reason);
        }
        HookEvent::UserPromptSubmit
        | HookEvent::Stop
        | HookEvent::SubagentStop
        | HookEvent::PreCompact
        | HookEvent::PostToolUse
        | HookEvent::PostToolUseFailure => outcome.block = Some(reason),
        HookEvent::SessionStart | HookEvent::SessionEnd => {
            if !reason.is_empty() {
                outcome.user_message = Some(reason);
            }
        }
        HookEvent::Notification => {}
    }
}

fn parse_json(stdout: &str) -> Option<Map<String, Value>> {
    let text = stdout.trim_start();
    if !text.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(text.trim_end()) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

fn text(json: &Map<String, Value>, key: &str) -> Option<String> {
    json.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(cap)
}

/// The JSON fields, universal and per event.
fn read_json(event: HookEvent, json: &Map<String, Value>, outcome: &mut HookOutcome) {
    if json.get("continue") == Some(&Value::Bool(false)) {
        outcome.stop = Some(
            text(json, "stopReason")
                .unwrap_or_else(|| format!("a {event} hook stopped the session")),
        );
    }
    outcome.user_message = text(json, "systemMessage");
    let reason = text(json, "reason");
    match json.get("decision").and_then(Value::as_str) {
        Some("block") if event != HookEvent::SessionStart && event != HookEvent::Notification => {
            outcome.block = Some(
                reason
                    .clone()
                    .unwrap_or_else(|| format!("blocked by a {event} hook")),
            );
            if event == HookEvent::PreToolUse {
                outcome.permission = Some(Permission::Deny);
            }
        }
        Some("approve") if event == HookEvent::PreToolUse => {
            outcome.permission = Some(Permission::Allow);
            outcome.permission_reason = reason;
        }
        _ => {}
    }
    let Some(specific) = json.get("hookSpecificOutput").and_then(Value::as_object) else {
        return;
    };
    if let Some(name) = specific.get("hookEventName").and_then(Value::as_str)
        && name != event.as_str()
    {
        outcome.error = Some(format!(
            "{event} hook answered for event {name}; its hookSpecificOutput is ignored"
        ));
        return;
    }
    outcome.context = text(specific, "additionalContext");
    if event != HookEvent::PreToolUse {
        return;
    }
    let permission = match specific.get("permissionDecision").and_then(Value::as_str) {
        Some("allow") => Some(Permission::Allow),
        Some("ask") => Some(Permission::Ask),
        Some("deny") => Some(Permission::Deny),
        _ => None,
    };
    if permission.is_some() {
        outcome.permission = permission;
        outcome.permission_reason = text(specific, "permissionDecisionReason");
    }
    if permission == Some(Permission::Deny) {
        outcome.block = Some(
            outcome
                .permission_reason
                .clone()
                .unwrap_or_else(|| "denied by a PreToolUse hook".into()),
        );
    }
    if permission != Some(Permission::Deny)
        && let Some(input @ Value::Object(_)) = specific.get("updatedInput")
    {
        outcome.updated_input = Some(input.clone());
    }
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters, saying so.
pub fn cap(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}… [cut at {MAX_TEXT_CHARS} characters]", &text[..end]),
    }
}

#[cfg(test)]
mod tests;
