//! The audit trail: one record per dispatched call, whatever happened to it.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::gate::Decision;
use crate::observation::{ObservationKind, duration_millis};
use crate::permission::PermissionLevel;

/// How many characters of a result the audit log keeps.
pub const RESULT_EXCERPT_CHARS: usize = 2_000;

/// What happened to one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// The session the call belongs to, when there is one.
    pub session_id: Option<String>,
    /// The tool's name as called.
    pub tool: String,
    /// The tool's level; `None` when the tool is unknown.
    pub level: Option<PermissionLevel>,
    /// The arguments after coercion (or as received when they could not be read). Sinks that
    /// persist them redact secret-looking values.
    pub arguments: Value,
    /// How the gate decided and who decided.
    pub decision: Decision,
    /// How the call ended.
    pub outcome: ObservationKind,
    /// Wall time of the whole dispatch.
    #[serde(with = "duration_millis")]
    pub duration: Duration,
    /// The start of the result text, at most `RESULT_EXCERPT_CHARS` characters.
    pub result_excerpt: String,
    /// When the dispatch started, in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
}

/// Where audit records go: nowhere, memory, the store.
#[async_trait]
pub trait AuditSink: Send + Sync {
    /// Records one call. Implementations report their own failures (a failed audit write never
    /// turns a successful call into a failed one).
    async fn record(&self, record: AuditRecord);
}

/// Discards every record.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoAudit;

#[async_trait]
impl AuditSink for NoAudit {
    async fn record(&self, _record: AuditRecord) {}
}

/// Keeps every record in memory, in order (tests, short-lived CLI runs).
#[derive(Debug, Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAudit {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every record so far.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl AuditSink for MemoryAudit {
    async fn record(&self, record: AuditRecord) {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record);
    }
}
