//! The audit log: one row per dispatched tool call, and the [`AuditSink`] that writes it.
//!
//! Rows are redacted before they are written ([`gantry_tools::redact_value`] and
//! [`gantry_tools::redact_text`]): arguments, the decision's detail and the result excerpt. A
//! failed write is logged and never fails the call it records; the log is evidence, not a gate.

use std::time::Duration;

use async_trait::async_trait;
use gantry_tools::{
    AuditRecord, AuditSink, Decider, Decision, DecisionKind, ObservationKind, PermissionLevel,
    redact_text, redact_value,
};
use serde::Serialize;
use serde_json::Value;
use sqlx::sqlite::{SqlitePool, SqliteRow};
use sqlx::{QueryBuilder, Row, Sqlite};

use crate::codec::{parse_json, parse_name};
use crate::error::{Result, StoreError};
use crate::ids::{AuditId, ProjectId, SessionId};
use crate::store::Store;
use crate::time::Timestamp;

/// A stored audit row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Its id (ids grow with insertion).
    pub id: AuditId,
    /// The project the call ran in.
    pub project_id: ProjectId,
    /// The session, when the call belonged to one.
    pub session_id: Option<SessionId>,
    /// The tool's name as called.
    pub tool: String,
    /// The tool's level; absent for unknown tools.
    pub level: Option<PermissionLevel>,
    /// The arguments, redacted.
    pub arguments: Value,
    /// How the gate decided, and who decided.
    pub decision: Decision,
    /// How the call ended.
    pub outcome: ObservationKind,
    /// Wall time of the dispatch.
    #[serde(rename = "durationMs", with = "gantry_tools::duration_millis")]
    pub duration: Duration,
    /// The start of the result, redacted.
    pub result_excerpt: String,
    /// When the call started.
    pub started_at: Timestamp,
}

/// Which rows [`AuditLog::list`] returns. Every field narrows; the default is everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only this session's calls.
    pub session: Option<SessionId>,
    /// Only calls of this tool.
    pub tool: Option<String>,
    /// Only calls decided this way.
    pub decision: Option<DecisionKind>,
    /// Only calls that ended this way.
    pub outcome: Option<ObservationKind>,
    /// At most this many rows (the newest).
    pub limit: Option<u32>,
}

const COLUMNS: &str = "id, project_id, session_id, tool, level, arguments, decision, decided_by, \
                       decision_detail, outcome, duration_ms, result_excerpt, started_at";

fn from_row(row: &SqliteRow) -> Result<AuditEntry> {
    let level: Option<String> = row.try_get("level")?;
    let session: Option<i64> = row.try_get("session_id")?;
    let duration_ms: i64 = row.try_get("duration_ms")?;
    Ok(AuditEntry {
        id: AuditId(row.try_get("id")?),
        project_id: ProjectId(row.try_get("project_id")?),
        session_id: session.map(SessionId),
        tool: row.try_get("tool")?,
        level: level
            .map(|name| parse_name("permission level", &name))
            .transpose()?,
        arguments: parse_json("audit arguments", row.try_get("arguments")?)?,
        decision: decision_from(
            row.try_get("decision")?,
            row.try_get("decided_by")?,
            row.try_get("decision_detail")?,
        )?,
        outcome: parse_name("outcome", row.try_get("outcome")?)?,
        duration: Duration::from_millis(u64::try_from(duration_ms).unwrap_or_default()),
        result_excerpt: row.try_get("result_excerpt")?,
        started_at: Timestamp(row.try_get("started_at")?),
    })
}

/// A decision as stored: `decided_by` is a decider's name, `rule:<id>`,
/// `claude-rule:<settings file>` or `hook:<file>` (the file is a hook decision's detail).
fn decision_from(kind: &str, decided_by: &str, detail: Option<String>) -> Result<Decision> {
    if let Some(file) = decided_by.strip_prefix("claude-rule:") {
        return Ok(Decision {
            kind: parse_name("decision", kind)?,
            by: Decider::ExternalRule,
            detail,
            rule: None,
            source: Some(file.to_owned()),
        });
    }
    if let Some(file) = decided_by.strip_prefix("hook:") {
        return Ok(Decision {
            kind: parse_name("decision", kind)?,
            by: Decider::Hook,
            detail: Some(file.to_owned()),
            rule: None,
            source: None,
        });
    }
    let (by, rule) = match decided_by.strip_prefix("rule:") {
        Some(id) => {
            let id = id.parse::<i64>().map_err(|_| StoreError::Corrupt {
                what: "decider",
                reason: format!("unknown rule id in '{decided_by}'"),
            })?;
            (Decider::Rule, Some(id))
        }
        None => (parse_name::<Decider>("decider", decided_by)?, None),
    };
    Ok(Decision {
        kind: parse_name("decision", kind)?,
        by,
        detail,
        rule,
        source: None,
    })
}

/// The audit_log table. Get one from [`crate::Store::audit`].
#[derive(Debug, Clone, Copy)]
pub struct AuditLog<'s> {
    pool: &'s SqlitePool,
}

impl<'s> AuditLog<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Writes one record, redacted, and returns its id once committed. A session id that is
    /// not one of this store's ids is dropped (with a warning) rather than losing the row.
    pub async fn record(&self, project: ProjectId, record: &AuditRecord) -> Result<AuditId> {
        let session = record.session_id.as_deref().and_then(|text| {
            let parsed = text.parse::<SessionId>().ok();
            if parsed.is_none() {
                tracing::warn!(session = text, "audit record with a foreign session id");
            }
            parsed
        });
        let arguments = redact_value(&record.arguments).to_string();
        let detail = record
            .decision
            .detail
            .as_deref()
            .map(|detail| redact_text(detail).into_owned());
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO audit_log (project_id, session_id, tool, level, arguments, decision,
                                    decided_by, decision_detail, outcome, duration_ms,
                                    result_excerpt, started_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id",
        )
        .bind(project.0)
        .bind(session.map(|s| s.0))
        .bind(&record.tool)
        .bind(record.level.map(PermissionLevel::as_str))
        .bind(arguments)
        .bind(record.decision.kind.as_str())
        .bind(record.decision.decided_by())
        .bind(detail)
        .bind(record.outcome.as_str())
        .bind(i64::try_from(record.duration.as_millis()).unwrap_or(i64::MAX))
        .bind(redact_text(&record.result_excerpt).as_ref())
        .bind(record.started_at_ms)
        .fetch_one(self.pool)
        .await
        .map_err(|error| StoreError::missing_parent(error, "project or session", project))?;
        Ok(AuditId(id))
    }

    /// A project's rows that pass `filter`, newest first.
    pub async fn list(&self, project: ProjectId, filter: &AuditFilter) -> Result<Vec<AuditEntry>> {
        let mut query = QueryBuilder::<Sqlite>::new(format!(
            "SELECT {COLUMNS} FROM audit_log WHERE project_id = "
        ));
        query.push_bind(project.0);
        if let Some(session) = filter.session {
            query.push(" AND session_id = ").push_bind(session.0);
        }
        if let Some(tool) = &filter.tool {
            query.push(" AND tool = ").push_bind(tool.clone());
        }
        if let Some(decision) = filter.decision {
            query.push(" AND decision = ").push_bind(decision.as_str());
        }
        if let Some(outcome) = filter.outcome {
            query.push(" AND outcome = ").push_bind(outcome.as_str());
        }
        query.push(" ORDER BY started_at DESC, id DESC");
        if let Some(limit) = filter.limit {
            query.push(" LIMIT ").push_bind(i64::from(limit));
        }
        let rows = query.build().fetch_all(self.pool).await?;
        rows.iter().map(from_row).collect()
    }

    /// The row with this id.
    pub async fn get(&self, id: AuditId) -> Result<Option<AuditEntry>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM audit_log WHERE id = ?1"))
            .bind(id.0)
            .fetch_optional(self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// How many rows the project has.
    pub async fn count(&self, project: ProjectId) -> Result<u64> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM audit_log WHERE project_id = ?1")
            .bind(project.0)
            .fetch_one(self.pool)
            .await?;
        Ok(u64::try_from(count).unwrap_or_default())
    }
}

/// The [`AuditSink`] of one project's [`gantry_tools::ToolManager`]: every dispatch becomes a
/// row. Get one from [`Store::audit_sink`].
#[derive(Debug, Clone)]
pub struct StoreAudit {
    store: Store,
    project: ProjectId,
}

impl StoreAudit {
    pub(crate) fn new(store: Store, project: ProjectId) -> Self {
        Self { store, project }
    }
}

#[async_trait]
impl AuditSink for StoreAudit {
    async fn record(&self, record: AuditRecord) {
        if let Err(error) = self.store.audit().record(self.project, &record).await {
            tracing::error!(
                tool = %record.tool,
                project = %self.project,
                %error,
                "could not write the audit record"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_external_rule_decision_round_trips_with_its_file() {
        let decision = Decision {
            kind: DecisionKind::Denied,
            by: Decider::ExternalRule,
            detail: Some("deny rule Bash(rm *) of .claude/settings.json".into()),
            rule: None,
            source: Some(".claude/settings.json".into()),
        };
        let stored = decision.decided_by();
        assert_eq!(stored, "claude-rule:.claude/settings.json");
        let read = decision_from("denied", &stored, decision.detail.clone()).unwrap();
        assert_eq!(read, decision);
        let own = decision_from("allowed_by_rule", "rule:4", None).unwrap();
        assert_eq!(
            (own.by, own.rule, own.source),
            (Decider::Rule, Some(4), None)
        );
    }
}
