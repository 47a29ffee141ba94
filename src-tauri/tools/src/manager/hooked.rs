//! Dispatch with the user's hooks around the gate and the run (see [`crate::hooks`]).

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use super::{Outcome, ToolManager, ValidCall, prepare_call};
use crate::call::CallContext;
use crate::gate::{Decider, Decision, DecisionKind};
use crate::hooks::{HookPermission, HookedCall, HookedResult, PreToolVerdict};
use crate::observation::ObservationKind;
use crate::permission::Policy;
use crate::tool::ToolOutput;

impl ToolManager {
    /// PreToolUse, the gate and the run, PostToolUse. Without hooks, or for a disabled tool
    /// (whose calls never run), only the gate and the run.
    pub(super) async fn hooked_gate_and_run(
        &self,
        valid: ValidCall,
        call: &CallContext,
    ) -> Outcome {
        let policy = self
            .policies
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .effective(valid.tool.name(), valid.tool.level());
        let Some(hooks) = self.hooks.clone().filter(|_| policy != Policy::Disabled) else {
            return self.gate_and_run(valid, call, None).await;
        };
        let name = valid.tool.name().to_owned();
        let level = valid.tool.level();
        let pre = {
            let hooked = HookedCall {
                session_id: call.session().id(),
                call_id: call.call_id(),
                tool: &name,
                arguments: valid.prepared.arguments(),
                root: self.root(),
            };
            tokio::select! {
                biased;
                () = call.cancel_token().cancelled() => {
                    let arguments = valid.prepared.arguments().clone();
                    return Outcome::cancelled(arguments, Decision::not_evaluated()).at(level);
                }
                pre = hooks.pre_tool_use(&hooked) => pre,
            }
        };
        let file = pre.decided_by.clone().unwrap_or_else(|| "a hook".into());
        if pre.permission == Some(HookPermission::Deny) {
            return refused_by_hook(&name, valid, &pre, file);
        }
        let valid = match pre.updated_arguments.clone() {
            None => valid,
            Some(updated) => match prepare_call(Arc::clone(&valid.tool), updated) {
                Ok(updated) => updated,
                Err(mut outcome) => {
                    outcome.output.text = format!(
                        "[error] the arguments a PreToolUse hook ({file}) rewrote are not valid:\n{}",
                        outcome.output.text
                    );
                    return *outcome;
                }
            },
        };
        let said = pre
            .permission
            .map(|permission| (permission, file, pre.reason.clone()));
        let started = Instant::now();
        let mut outcome = self.gate_and_run(valid, call, said).await;
        if matches!(outcome.kind, ObservationKind::Ok | ObservationKind::Error) {
            let hooked = HookedCall {
                session_id: call.session().id(),
                call_id: call.call_id(),
                tool: &name,
                arguments: &outcome.arguments,
                root: self.root(),
            };
            let result = HookedResult {
                kind: outcome.kind,
                text: &outcome.output.text,
                duration: started.elapsed(),
            };
            let post = hooks.post_tool_use(&hooked, &result).await;
            for feedback in post.feedback {
                append(&mut outcome.output, "hook feedback", &feedback);
            }
            for context in post.context {
                append(&mut outcome.output, "hook context", &context);
            }
        }
        for context in &pre.context {
            append(&mut outcome.output, "hook context", context);
        }
        outcome
    }
}

/// The outcome of a call a PreToolUse hook denied: the model reads the reason.
fn refused_by_hook(name: &str, valid: ValidCall, pre: &PreToolVerdict, file: String) -> Outcome {
    let reason = pre
        .reason
        .as_deref()
        .filter(|reason| !reason.trim().is_empty())
        .unwrap_or("no reason given");
    let mut output = ToolOutput::text(format!(
        "[denied] a PreToolUse hook ({file}) refused this call of '{name}': {reason}"
    ));
    for context in &pre.context {
        append(&mut output, "hook context", context);
    }
    Outcome {
        level: Some(valid.tool.level()),
        arguments: valid.prepared.arguments().clone(),
        decision: Decision {
            kind: DecisionKind::Denied,
            by: Decider::Hook,
            detail: Some(file),
            rule: None,
            source: None,
        },
        kind: ObservationKind::Denied,
        output,
    }
}

/// Adds `[label] text` to what the model reads.
fn append(output: &mut ToolOutput, label: &str, text: &str) {
    if !output.text.is_empty() {
        output.text.push_str("\n\n");
    }
    output.text.push('[');
    output.text.push_str(label);
    output.text.push_str("] ");
    output.text.push_str(text);
}
