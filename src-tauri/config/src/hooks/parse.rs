//! Reading hook definitions out of the settings files (spec §1.1 "Config schema": event →
//! matcher group → handlers), with a report line for everything found.

use std::time::Duration;

use serde_json::{Map, Value};

use super::{Hook, HookEvent, HookSet, IfRule, Matcher};
use crate::report::FileReport;
use crate::settings::{SettingsFile, claude_settings, codex_hooks};
use crate::{ConfigReport, Locations, TrustedFiles};

/// Events Claude Code or Codex know that Gantry does not run (reported by name).
const OTHER_EVENTS: [&str; 24] = [
    "Setup",
    "UserPromptExpansion",
    "PermissionRequest",
    "PermissionDenied",
    "PostToolBatch",
    "MessageDisplay",
    "SubagentStart",
    "TaskCreated",
    "TaskCompleted",
    "StopFailure",
    "TeammateIdle",
    "InstructionsLoaded",
    "ConfigChange",
    "CwdChanged",
    "DirectoryAdded",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "Interrupt",
    "TaskCreate",
    "PostToolUseFailed",
];

/// Every hook of the five files (Claude Code's three settings files, Codex's two `hooks.json`),
/// with the report of what each file gave: each hook under `read` when it may run, under
/// `waits_for_trust` when its project file is not trusted with its present content.
pub fn load_hooks(at: &Locations, trusted: &TrustedFiles) -> (HookSet, ConfigReport) {
    let mut set = HookSet::default();
    let mut report = ConfigReport::default();
    let files = claude_settings(at)
        .into_iter()
        .map(|file| (file, "settings"))
        .chain(codex_hooks(at).into_iter().map(|file| (file, "hooks")));
    for (file, kind) in files {
        let entry = report.file_mut(&file.source, kind);
        let (hooks, disables) = parse_file(&file, trusted, entry);
        set.hooks.extend(hooks);
        if disables && set.disabled_by.is_none() {
            set.disabled_by = Some(file.source.clone());
        }
    }
    (set, report)
}

/// The hooks of one settings file, filling its report entry; the flag is its
/// `"disableAllHooks": true` (which only turns hooks off, so it applies untrusted).
pub fn parse_file(
    file: &SettingsFile,
    trusted: &TrustedFiles,
    entry: &mut FileReport,
) -> (Vec<Hook>, bool) {
    entry.sha256.clone_from(&file.sha256);
    if let Some(problem) = &file.problem {
        entry.problem = Some(problem.clone());
        return (Vec::new(), false);
    }
    let is_trusted = trusted.covers(&file.source, &file.sha256);
    entry.trusted |= is_trusted;
    let disables = file.json.get("disableAllHooks") == Some(&Value::Bool(true));
    if disables {
        entry.read.push("disableAllHooks: every hook is off".into());
    }
    let mut hooks = Vec::new();
    match file.json.get("hooks") {
        None => {}
        Some(Value::Object(events)) => {
            for (name, groups) in events {
                let Some(event) = HookEvent::parse(name) else {
                    let why = if OTHER_EVENTS.contains(&name.as_str()) {
                        "Gantry does not run this event"
                    } else {
                        "not an event Gantry knows"
                    };
                    entry
                        .not_understood
                        .push(format!("hooks of event {name}: {why}"));
                    continue;
                };
                read_groups(event, groups, file, &mut hooks, entry);
            }
        }
        Some(_) => entry
            .not_understood
            .push("\"hooks\" is not an object of events".into()),
    }
    for hook in &mut hooks {
        hook.trusted = is_trusted;
        if is_trusted {
            entry.read.push(hook.describe());
        } else {
            entry.waits_for_trust.push(hook.describe());
        }
    }
    (hooks, disables)
}

/// The matcher groups of one event.
fn read_groups(
    event: HookEvent,
    groups: &Value,
    file: &SettingsFile,
    hooks: &mut Vec<Hook>,
    entry: &mut FileReport,
) {
    let Some(groups) = groups.as_array() else {
        entry.not_understood.push(format!(
            "hooks of event {event}: not a list of matcher groups"
        ));
        return;
    };
    for group in groups {
        let Some(group) = group.as_object() else {
            entry
                .not_understood
                .push(format!("a {event} matcher group that is not an object"));
            continue;
        };
        let matcher_text = match group.get("matcher") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => {
                entry
                    .not_understood
                    .push(format!("a {event} matcher that is not a string: {other}"));
                continue;
            }
        };
        let matcher = Matcher::compile(Some(&matcher_text));
        if let Some(problem) = matcher.problem() {
            entry
                .not_understood
                .push(format!("{event} hooks: {problem}; they never run"));
            continue;
        }
        let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
            entry
                .not_understood
                .push(format!("a {event} matcher group without a \"hooks\" list"));
            continue;
        };
        for handler in handlers {
            match read_handler(event, &matcher_text, &matcher, handler, file) {
                Ok(hook) => hooks.push(hook),
                Err(why) => entry.not_understood.push(why),
            }
        }
    }
}

/// One handler; the error is its report line.
fn read_handler(
    event: HookEvent,
    matcher_text: &str,
    matcher: &Matcher,
    handler: &Value,
    file: &SettingsFile,
) -> Result<Hook, String> {
    let at = if matcher_text.is_empty() {
        format!("{event} hook")
    } else {
        format!("{event} hook ({matcher_text})")
    };
    let Some(handler) = handler.as_object() else {
        return Err(format!("a {at} that is not an object"));
    };
    let kind = handler.get("type").and_then(Value::as_str).unwrap_or("");
    if kind != "command" {
        let kind = if kind.is_empty() {
            "without a type"
        } else {
            kind
        };
        return Err(format!(
            "{at} of type {kind}: only command hooks run in Gantry"
        ));
    }
    let Some(command) = handler
        .get("command")
        .and_then(Value::as_str)
        .filter(|command| !command.trim().is_empty())
    else {
        return Err(format!("{at} without a command"));
    };
    if let Some(shell) = handler.get("shell").and_then(Value::as_str)
        && shell != "bash"
        && shell != "sh"
    {
        return Err(format!("{at} {command}: shell {shell} is not supported"));
    }
    let args = read_args(handler).map_err(|why| format!("{at} {command}: {why}"))?;
    let timeout = read_timeout(handler).map_err(|why| format!("{at} {command}: {why}"))?;
    let condition =
        match handler.get("if").and_then(Value::as_str) {
            None => None,
            Some(_) if !event.is_tool_event() => {
                return Err(format!(
                    "{at} {command}: \"if\" is only for tool events, so this hook never runs"
                ));
            }
            Some(text) => Some(IfRule::parse(text).ok_or_else(|| {
                format!("{at} {command}: \"if\" {text:?} is not a permission rule")
            })?),
        };
    Ok(Hook {
        event,
        matcher_text: matcher_text.to_owned(),
        matcher: matcher.clone(),
        command: command.to_owned(),
        args,
        timeout,
        run_async: handler.get("async") == Some(&Value::Bool(true)),
        condition,
        source: file.source.clone(),
        sha256: file.sha256.clone(),
        trusted: false,
    })
}

fn read_args(handler: &Map<String, Value>) -> Result<Option<Vec<String>>, String> {
    match handler.get("args") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| "\"args\" must be a list of strings".to_owned()),
        Some(_) => Err("\"args\" must be a list of strings".into()),
    }
}

fn read_timeout(handler: &Map<String, Value>) -> Result<Option<Duration>, String> {
    match handler.get("timeout") {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .filter(|seconds| seconds.is_finite() && *seconds > 0.0 && *seconds <= 86_400.0)
            .map(|seconds| Some(Duration::from_secs_f64(seconds)))
            .ok_or_else(|| format!("\"timeout\" {value} is not a number of seconds")),
    }
}

#[cfg(test)]
mod tests;
