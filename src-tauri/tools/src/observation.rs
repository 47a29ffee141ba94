//! What a tool call gives back: text for the model, metadata for people.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::gate::Decision;
use crate::sandboxing::SandboxState;

/// How a call ended, as the UI and the audit log classify it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ObservationKind {
    /// The tool ran and did what was asked.
    Ok,
    /// The tool ran (or was about to) and failed; the text says why.
    Error,
    /// The user (or the absence of one) refused the call.
    Denied,
    /// The project's policy disables the tool.
    Disabled,
    /// The arguments did not fit the tool's schema; the tool did not run.
    BadArguments,
    /// The turn was cancelled while the call was pending or running.
    Cancelled,
}

impl ObservationKind {
    /// The snake_case name used in the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Denied => "denied",
            Self::Disabled => "disabled",
            Self::BadArguments => "bad_arguments",
            Self::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for ObservationKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The result of one dispatched call. Dispatch always produces one, whatever happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Observation {
    /// The tool's name as the model called it.
    pub tool: String,
    /// What the model reads.
    pub text: String,
    /// How the call ended.
    pub kind: ObservationKind,
    /// How the permission check decided.
    pub decision: Decision,
    /// Wall time from dispatch to result, approval wait included.
    #[serde(with = "duration_millis")]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub duration: Duration,
    /// True when the tool cut its output to keep the model's context small.
    pub truncated: bool,
    /// A unified diff of what the call changed, for tools that change files.
    pub diff: Option<String>,
    /// How a command ran (run_command): in the OS sandbox, with the network or not, or without
    /// a sandbox. `None` for other tools and for calls that did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub sandbox: Option<SandboxState>,
}

impl Observation {
    /// True when the call ran and succeeded.
    pub fn is_ok(&self) -> bool {
        self.kind == ObservationKind::Ok
    }
}

/// Serialises a [`Duration`] as whole milliseconds (what the UI and the audit log show).
pub mod duration_millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the duration as milliseconds.
    pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    /// Reads milliseconds into a duration.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        u64::deserialize(deserializer).map(Duration::from_millis)
    }
}
