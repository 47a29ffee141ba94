//! The instructions a session's system prompt carries: the user's and the project's files
//! (`CLAUDE.md`, `AGENTS.md`, what they import), one labelled part each.
//!
//! The loop does not find or read these files itself: that is the embedding's job (Gantry's
//! engine reads them with gantry-config, which knows the other agents' formats and confines
//! every read). The loop asks its [`InstructionSource`] for the parts when a turn starts, tells
//! it about each call that ended (a folder's own `CLAUDE.md` joins once the model read or
//! changed a file there) and asks again before the next request when it says something
//! changed. Each part is measured on its own for the context gauge.

use async_trait::async_trait;
use gantry_tools::ObservationKind;
use serde::{Deserialize, Serialize};

use crate::transcript::{Message, Role, ToolCall, estimate_tokens};

/// One instruction file's share of the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionPart {
    /// The file as the user sees it (`CLAUDE.md`, `~/.claude/CLAUDE.md`).
    pub file: String,
    /// What the model reads of it (already cut, with a note, when it was too long).
    pub text: String,
    /// True when the file was cut.
    pub truncated: bool,
    /// The file that imports this one (as shown), when it is an import.
    pub imported_by: Option<String>,
}

/// One instruction part's size, for the context gauge.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstructionUsage {
    /// The file as the user sees it.
    pub file: String,
    /// Its text in the system prompt, estimated.
    pub tokens: u32,
    /// True when the file was cut (at 32 KiB).
    pub truncated: bool,
    /// The file that imports this one, when it is an import.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub imported_by: Option<String>,
}

impl InstructionUsage {
    /// The size of `part`.
    pub fn of(part: &InstructionPart) -> Self {
        Self {
            file: part.file.clone(),
            tokens: estimate_tokens(&part.text),
            truncated: part.truncated,
            imported_by: part.imported_by.clone(),
        }
    }
}

/// Where a session's instructions come from; one per session (it may keep what the session's
/// calls taught it, such as the folders the model worked in).
#[async_trait]
pub trait InstructionSource: Send + Sync {
    /// The parts for the next request, in order (read again each time, so edits apply).
    async fn parts(&self) -> Vec<InstructionPart>;

    /// A call of the session ended as `kind` (called in call order, for the calls of a resumed
    /// session's transcript too). True when the parts may have changed, so the loop asks again
    /// before its next request.
    fn observed(&self, call: &ToolCall, kind: ObservationKind) -> bool {
        let _ = (call, kind);
        false
    }
}

/// Instructions given once, read by the embedding itself (or none at all).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixedInstructions(pub Vec<InstructionPart>);

#[async_trait]
impl InstructionSource for FixedInstructions {
    async fn parts(&self) -> Vec<InstructionPart> {
        self.0.clone()
    }
}

/// Tells `source` about every call of `messages` that has a result (a resumed session), in
/// order; true when any changed the parts.
pub fn replay(source: &dyn InstructionSource, messages: &[Message]) -> bool {
    let mut changed = false;
    for message in messages
        .iter()
        .filter(|message| message.role == Role::Assistant)
    {
        for call in &message.tool_calls {
            let kind = messages
                .iter()
                .find(|result| result.tool_call_id.as_deref() == Some(call.id.as_str()))
                .and_then(|result| result.outcome.as_ref())
                .map(|outcome| outcome.kind);
            if let Some(kind) = kind {
                changed |= source.observed(call, kind);
            }
        }
    }
    changed
}
