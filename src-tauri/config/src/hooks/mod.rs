//! Hooks: the user's programs that Claude Code and Codex run at points of a session, read from
//! their settings files as the documentation describes them (spec §1.1 "Config schema", §1.2).
//!
//! Five files can hold hooks: `~/.claude/settings.json`, `.claude/settings.json`,
//! `.claude/settings.local.json`, `~/.codex/hooks.json` and `.codex/hooks.json`, all in the
//! shape `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", ...}]}]}}`.
//! They add up (none replaces another), and an identical handler found in several files runs
//! once. Only `command` handlers run; `http`, `prompt`, `agent` and `mcp_tool` handlers, and
//! events outside the ten Gantry runs, are reported as not understood. A project's hooks run
//! only once the user trusted the file they are in, with its present content.
//!
//! - [`matcher`]: what a matcher and an `if` condition match.
//! - [`event`]: the ten events, their default timeouts.
//! - [`run`]: running one hook (stdin JSON, environment, timeout).
//! - [`outcome`]: what its exit code and output mean for its event.
//! - [`fire`]: running every matching hook of an event in parallel and combining them.
//! - [`HookListing`]: one hook with its last run, for the Tools panel and the CLI.

pub mod event;
pub mod fire;
mod listing;
pub mod matcher;
pub mod outcome;
mod parse;
pub mod run;

use std::time::Duration;

pub use event::HookEvent;
pub use fire::{EventOutcome, HookRan, fire};
pub use listing::{HookKey, HookListing};
pub use matcher::{IfRule, Matcher};
pub use outcome::{HookOutcome, Permission, interpret};
pub use parse::{load_hooks, parse_file};
pub use run::{HookRun, RunEnv, run_hook};

use crate::SourceFile;

/// The longest SessionEnd's hooks may ever run together.
pub const SESSION_END_MAX: Duration = Duration::from_secs(60);

/// One command hook as configured.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// When it runs.
    pub event: HookEvent,
    /// The matcher as written (empty when none).
    pub matcher_text: String,
    /// The matcher compiled.
    pub matcher: Matcher,
    /// The shell command (shell form), or the program (exec form, with `args`).
    pub command: String,
    /// The program's arguments: present means exec form, no shell.
    pub args: Option<Vec<String>>,
    /// Its own timeout (`timeout`, in seconds in the file), when set.
    pub timeout: Option<Duration>,
    /// `async: true`: runs in the background and decides nothing.
    pub run_async: bool,
    /// The `if` condition, when set (tool events only).
    pub condition: Option<IfRule>,
    /// The file it comes from.
    pub source: SourceFile,
    /// That file's content hash.
    pub sha256: String,
    /// True when it may run: a user file, or a project file trusted with this content.
    pub trusted: bool,
}

impl Hook {
    /// How long it may run: its own timeout, else the event's default (a SessionEnd hook's
    /// at most [`SESSION_END_MAX`]; their shared budget is [`HookSet::session_end_budget`]).
    pub fn effective_timeout(&self) -> Duration {
        let own = self.timeout.unwrap_or_else(|| self.event.default_timeout());
        if self.event == HookEvent::SessionEnd {
            own.min(SESSION_END_MAX)
        } else {
            own
        }
    }

    /// The command as listed: the command, then its arguments.
    pub fn shown_command(&self) -> String {
        match &self.args {
            Some(args) if !args.is_empty() => format!("{} {}", self.command, args.join(" ")),
            _ => self.command.clone(),
        }
    }

    /// `hook PreToolUse Bash: .claude/hooks/block-rm.sh`, as the report lists it.
    pub fn describe(&self) -> String {
        let matcher = if self.matcher_text.is_empty() {
            String::new()
        } else {
            format!(" {}", self.matcher_text)
        };
        format!("hook {}{matcher}: {}", self.event, self.shown_command())
    }

    /// Whether it runs for `event` on `subject` (the tool name, the source, the trigger); a
    /// tool event's `if` is checked against `tool_subject` (the command, the file path, ...).
    pub fn applies(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        tool_subject: Option<&str>,
    ) -> bool {
        if self.event != event {
            return false;
        }
        let matched = event.ignores_matcher()
            || match subject {
                Some(subject) => self.matcher.matches(subject),
                None => matches!(self.matcher, Matcher::All),
            };
        let condition = match &self.condition {
            None => true,
            Some(rule) => {
                event.is_tool_event()
                    && subject.is_some_and(|tool| rule.matches(tool, tool_subject))
            }
        };
        matched && condition
    }
}

/// Every hook found for a project, trusted or not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookSet {
    /// The hooks, in file order (user, project, local; Claude's files, then Codex's).
    pub hooks: Vec<Hook>,
    /// The file whose `"disableAllHooks": true` turned every hook off.
    pub disabled_by: Option<SourceFile>,
}

impl HookSet {
    /// The hooks that run for `event` on `subject`: trusted, matching, and each distinct
    /// handler (command and arguments) once. None when hooks are disabled.
    pub fn matching(
        &self,
        event: HookEvent,
        subject: Option<&str>,
        tool_subject: Option<&str>,
    ) -> Vec<&Hook> {
        if self.disabled_by.is_some() {
            return Vec::new();
        }
        let mut seen: Vec<(&str, Option<&Vec<String>>)> = Vec::new();
        let mut found = Vec::new();
        for hook in &self.hooks {
            if !hook.trusted || !hook.applies(event, subject, tool_subject) {
                continue;
            }
            let key = (hook.command.as_str(), hook.args.as_ref());
            if !seen.contains(&key) {
                seen.push(key);
                found.push(hook);
            }
        }
        found
    }

    /// How long SessionEnd's hooks may run together: a 1.5 s budget, raised to the largest
    /// `timeout` configured on a SessionEnd hook, at most 60 s (spec §1.1, `timeout`).
    pub fn session_end_budget(&self) -> Duration {
        let default = HookEvent::SessionEnd.default_timeout();
        self.hooks
            .iter()
            .filter(|hook| hook.trusted && hook.event == HookEvent::SessionEnd)
            .filter_map(|hook| hook.timeout)
            .fold(default, Duration::max)
            .min(SESSION_END_MAX)
    }

    /// True when some trusted hook is attached to `event` (a cheap check before building the
    /// input of an event).
    pub fn has(&self, event: HookEvent) -> bool {
        self.disabled_by.is_none()
            && self
                .hooks
                .iter()
                .any(|hook| hook.trusted && hook.event == event)
    }
}
