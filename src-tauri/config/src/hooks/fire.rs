//! Firing an event: every matching trusted hook runs, in parallel (spec §1.1 "Locations":
//! "All matching hooks run in parallel"; an identical handler runs once), and their outcomes
//! are combined: a block from any hook wins, and PreToolUse's decisions rank deny > ask >
//! allow.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use super::outcome::{HookOutcome, Permission, interpret};
use super::run::{HookRun, RunEnv, run_hook};
use super::{Hook, HookEvent, HookSet};

/// One hook that ran for an event.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRan {
    /// The hook.
    pub hook: Hook,
    /// What the process did.
    pub run: HookRun,
    /// What that means.
    pub outcome: HookOutcome,
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_at_ms: i64,
}

/// Every hook that ran for one event, in configuration order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventOutcome {
    /// The hooks that ran (`async` hooks, which decide nothing, are not among them).
    pub ran: Vec<HookRan>,
}

impl EventOutcome {
    /// The first hook that blocks, with its reason.
    pub fn block(&self) -> Option<(&HookRan, &str)> {
        self.ran
            .iter()
            .find_map(|ran| ran.outcome.block.as_deref().map(|reason| (ran, reason)))
    }

    /// PreToolUse's combined decision (deny > ask > allow) and the hook that made it.
    pub fn permission(&self) -> Option<(Permission, &HookRan)> {
        self.ran
            .iter()
            .filter_map(|ran| ran.outcome.permission.map(|permission| (permission, ran)))
            .max_by_key(|(permission, _)| *permission)
    }

    /// The rewritten input, from the first hook that gave one (none when a hook denies).
    pub fn updated_input(&self) -> Option<(&Value, &HookRan)> {
        if matches!(self.permission(), Some((Permission::Deny, _))) {
            return None;
        }
        self.ran
            .iter()
            .find_map(|ran| ran.outcome.updated_input.as_ref().map(|input| (input, ran)))
    }

    /// Every context for the model, in order.
    pub fn context(&self) -> Vec<String> {
        self.ran
            .iter()
            .filter_map(|ran| ran.outcome.context.clone())
            .collect()
    }

    /// The first `continue: false`, with its reason.
    pub fn stop(&self) -> Option<&str> {
        self.ran.iter().find_map(|ran| ran.outcome.stop.as_deref())
    }

    /// What the user should see: system messages, stderr meant for them, and hook errors.
    pub fn user_messages(&self) -> Vec<String> {
        self.ran
            .iter()
            .flat_map(|ran| [ran.outcome.user_message.clone(), ran.outcome.error.clone()])
            .flatten()
            .collect()
    }
}

/// Runs the hooks of `set` that match `event` on `subject` (and, for tool events, whose `if`
/// accepts `tool_subject`), each with `input` plus `hook_event_name` on stdin, and waits for
/// them all. `async` hooks are started and left to finish on their own.
pub async fn fire(
    set: &HookSet,
    event: HookEvent,
    subject: Option<&str>,
    tool_subject: Option<&str>,
    mut input: Value,
    env: &RunEnv,
) -> EventOutcome {
    if let Value::Object(map) = &mut input {
        map.insert("hook_event_name".into(), event.as_str().into());
    }
    let (background, waited): (Vec<&Hook>, Vec<&Hook>) = set
        .matching(event, subject, tool_subject)
        .into_iter()
        .partition(|hook| hook.run_async);
    for hook in background {
        let (hook, input, env) = (hook.clone(), input.clone(), env.clone());
        tokio::spawn(async move {
            let run = run_hook(&hook, &input, &env).await;
            tracing::debug!(hook = %hook.describe(), code = ?run.exit_code, "async hook finished");
        });
    }
    let runs = waited.into_iter().map(|hook| {
        let input = &input;
        async move {
            let run = run_hook(hook, input, env).await;
            let outcome = interpret(event, &run);
            HookRan {
                hook: hook.clone(),
                run,
                outcome,
                finished_at_ms: now_ms(),
            }
        }
    });
    EventOutcome {
        ran: futures::future::join_all(runs).await,
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
