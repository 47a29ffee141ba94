//! The seam for the user's hooks around a tool call (Claude Code's PreToolUse, PostToolUse and
//! PostToolUseFailure): the [`ToolManager`](crate::ToolManager) holds one [`ToolHooks`], like
//! its approver and audit sink, and asks it at two points of a dispatch:
//!
//! - after the call's arguments were validated and before the gate ([`ToolHooks::pre_tool_use`]):
//!   a `deny` refuses the call (the model reads the reason); `ask` makes a call that would run
//!   on its own ask the user; `allow` spares the dialog only where the gate would ask for an
//!   ordinary reason — never past a disabled tool, a deny rule or a call that always asks (a
//!   file that makes programs run, a command with no sandbox); rewritten arguments are
//!   coerced, validated and gated again; context is added to what the model reads;
//! - after the tool ran ([`ToolHooks::post_tool_use`]): feedback and context are added to
//!   what the model reads.
//!
//! The hooks see Claude Code's tool names and field names ([`names`]); the implementation (the
//! engine's) maps both ways, and runs only the hooks the user trusted.

pub mod names;

use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;

use crate::observation::ObservationKind;

/// One tool call as hooks are asked about it.
#[derive(Debug, Clone, Copy)]
pub struct HookedCall<'a> {
    /// The session, when there is one.
    pub session_id: Option<&'a str>,
    /// The call's id (`tool_use_id`).
    pub call_id: &'a str,
    /// Gantry's tool name (`run_command`).
    pub tool: &'a str,
    /// The validated arguments, in Gantry's names.
    pub arguments: &'a Value,
    /// The project folder.
    pub root: &'a Path,
}

/// A PreToolUse decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPermission {
    /// Spare the dialog where the gate would ask for an ordinary reason.
    Allow,
    /// Ask the user even when the call would run on its own.
    Ask,
    /// Refuse the call.
    Deny,
}

/// What the PreToolUse hooks said about a call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolVerdict {
    /// Their combined decision (deny > ask > allow), when one decided.
    pub permission: Option<HookPermission>,
    /// Its reason (for a deny: what the model reads).
    pub reason: Option<String>,
    /// The hook's file that decided, as shown (`.claude/settings.json`): the audit row's
    /// `decided_by` is `hook:<file>`.
    pub decided_by: Option<String>,
    /// The rewritten arguments, in Gantry's names (validated and gated again).
    pub updated_arguments: Option<Value>,
    /// Context for the model, added to the call's result.
    pub context: Vec<String>,
}

/// A finished call as the PostToolUse hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct HookedResult<'a> {
    /// How it ended: `Ok` fires PostToolUse, `Error` PostToolUseFailure.
    pub kind: ObservationKind,
    /// What the model would read.
    pub text: &'a str,
    /// How long it ran.
    pub duration: Duration,
}

/// What the PostToolUse hooks said.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostToolVerdict {
    /// Feedback for the model (`decision: "block"` with its reason, or exit 2's stderr), with
    /// the hook's file.
    pub feedback: Vec<String>,
    /// Context for the model.
    pub context: Vec<String>,
}

/// The user's hooks around tool calls.
#[async_trait]
pub trait ToolHooks: Send + Sync {
    /// Before a validated call reaches the gate.
    async fn pre_tool_use(&self, call: &HookedCall<'_>) -> PreToolVerdict;

    /// After a call ran (successfully or with an error).
    async fn post_tool_use(
        &self,
        call: &HookedCall<'_>,
        result: &HookedResult<'_>,
    ) -> PostToolVerdict;
}
