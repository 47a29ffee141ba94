//! The audit view's backend: a project's tool calls from the store's audit log, filtered, as the
//! webview shows them, and exported as JSON lines.
//!
//! The store's rows are redacted when written; they are shown and exported as they are. The
//! view type lives here (the store stays free of ts-rs) and adds the session's title. An export
//! writes one [`AuditEntry`] per line, serialised exactly as the store defines it, atomically
//! (temp file, fsync, rename), so a reader never sees half a file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gantry_store::{AuditEntry, AuditFilter, SessionId};
use gantry_tools::{Decision, DecisionKind, ObservationKind, PermissionLevel};
use serde::{Deserialize, Serialize};

use crate::error::CommandError;
use crate::project::OpenProject;

/// How many rows the view shows when the request names no limit.
pub const DEFAULT_VIEW_LIMIT: u32 = 500;
/// The most rows one request may ask for.
pub const MAX_LIMIT: u32 = 100_000;
/// The longest tool name a filter accepts, in bytes.
const MAX_TOOL_BYTES: usize = 256;

/// Which audit entries to list or export: every field narrows; none means everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditRequest {
    /// Only calls of this tool.
    #[serde(default)]
    #[ts(optional)]
    pub tool: Option<String>,
    /// Only calls decided this way.
    #[serde(default)]
    #[ts(optional)]
    pub decision: Option<DecisionKind>,
    /// Only calls that ended this way.
    #[serde(default)]
    #[ts(optional)]
    pub outcome: Option<ObservationKind>,
    /// Only this session's calls (its id).
    #[serde(default)]
    #[ts(optional)]
    pub session: Option<String>,
    /// At most this many rows, the newest (the view's default is [`DEFAULT_VIEW_LIMIT`]; an
    /// export's is everything).
    #[serde(default)]
    #[ts(optional)]
    pub limit: Option<u32>,
}

impl AuditRequest {
    /// The store's filter for this request, with `default_limit` when it names none. A blank
    /// tool means any tool; a malformed session id or a zero limit is [`ErrorKind::InvalidInput`].
    pub fn to_filter(&self, default_limit: Option<u32>) -> Result<AuditFilter, CommandError> {
        let tool = match self.tool.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(tool) if tool.len() > MAX_TOOL_BYTES => {
                return Err(CommandError::invalid("the tool name is too long"));
            }
            Some(tool) => Some(tool.to_owned()),
        };
        let session = match self.session.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(id) => Some(
                id.parse::<SessionId>()
                    .map_err(|_| CommandError::invalid(format!("{id:?} is not a session id")))?,
            ),
        };
        let limit = match self.limit.or(default_limit) {
            Some(0) => return Err(CommandError::invalid("the limit must be at least 1")),
            limit => limit.map(|limit| limit.min(MAX_LIMIT)),
        };
        Ok(AuditFilter {
            session,
            tool,
            decision: self.decision,
            outcome: self.outcome,
            limit,
        })
    }
}

/// One tool call, as the audit view shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    /// The row's id (grows with insertion).
    pub id: i64,
    /// The session the call belonged to.
    pub session_id: Option<String>,
    /// That session's title, when it still exists.
    pub session_title: Option<String>,
    /// The tool's name as called.
    pub tool: String,
    /// The tool's level; absent for unknown tools.
    pub level: Option<PermissionLevel>,
    /// The arguments, redacted.
    pub arguments: serde_json::Value,
    /// How the gate decided, and who decided.
    pub decision: Decision,
    /// How the call ended.
    pub outcome: ObservationKind,
    /// Wall time of the call, in milliseconds.
    pub duration_ms: u64,
    /// The start of the result, redacted.
    pub result_excerpt: String,
    /// When the call started, in milliseconds since the epoch.
    pub started_at: i64,
}

impl AuditEntryView {
    /// The view of `entry`; `titles` maps session ids to titles.
    pub fn new(entry: AuditEntry, titles: &HashMap<i64, String>) -> Self {
        Self {
            id: entry.id.0,
            session_id: entry.session_id.map(|id| id.to_string()),
            session_title: entry.session_id.and_then(|id| titles.get(&id.0).cloned()),
            tool: entry.tool,
            level: entry.level,
            arguments: entry.arguments,
            decision: entry.decision,
            outcome: entry.outcome,
            duration_ms: u64::try_from(entry.duration.as_millis()).unwrap_or(u64::MAX),
            result_excerpt: entry.result_excerpt,
            started_at: entry.started_at.as_millis(),
        }
    }
}

/// What exporting the audit log wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AuditExport {
    /// The file.
    pub path: String,
    /// How many calls it holds (one per line).
    pub count: u32,
}

/// `entries` as JSON lines: one serialised [`AuditEntry`] per line, each ending in `\n`.
pub fn json_lines(entries: &[AuditEntry]) -> Result<String, CommandError> {
    let mut text = String::new();
    for entry in entries {
        let line = serde_json::to_string(entry)
            .map_err(|error| CommandError::internal(format!("cannot serialise a row: {error}")))?;
        text.push_str(&line);
        text.push('\n');
    }
    Ok(text)
}

/// The tool calls of `project` that pass `request`, newest first (at most
/// [`DEFAULT_VIEW_LIMIT`] unless the request says otherwise), with their sessions' titles.
pub async fn view(
    project: &OpenProject,
    request: &AuditRequest,
) -> Result<Vec<AuditEntryView>, CommandError> {
    let filter = request.to_filter(Some(DEFAULT_VIEW_LIMIT))?;
    let store = project.store();
    let entries = store.audit().list(project.store_project(), &filter).await?;
    let titles: HashMap<i64, String> = store
        .sessions()
        .list(project.store_project())
        .await?
        .into_iter()
        .map(|session| (session.id.0, session.title))
        .collect();
    Ok(entries
        .into_iter()
        .map(|entry| AuditEntryView::new(entry, &titles))
        .collect())
}

/// Writes the tool calls of `project` that pass `request` (all of them unless it names a limit)
/// to `path` as JSON lines, atomically.
pub async fn export(
    project: &OpenProject,
    request: &AuditRequest,
    path: PathBuf,
) -> Result<AuditExport, CommandError> {
    let filter = request.to_filter(None)?;
    let entries = project
        .store()
        .audit()
        .list(project.store_project(), &filter)
        .await?;
    let written = path.clone();
    let count = tokio::task::spawn_blocking(move || write_json_lines(&written, &entries)).await??;
    Ok(AuditExport {
        path: path.display().to_string(),
        count,
    })
}

/// Writes `entries` as JSON lines to `path`, atomically (blocking). Returns how many it wrote.
pub fn write_json_lines(path: &Path, entries: &[AuditEntry]) -> Result<u32, CommandError> {
    let text = json_lines(entries)?;
    gantry_tools::write_atomic(path, text.as_bytes())
        .map_err(|error| CommandError::cannot_write(path, &error))?;
    Ok(u32::try_from(entries.len()).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gantry_store::{AuditId, ProjectId, Timestamp};
    use gantry_tools::Decider;
    use serde_json::json;

    use super::*;
    use crate::error::ErrorKind;

    fn entry(id: i64, session: Option<i64>, tool: &str) -> AuditEntry {
        AuditEntry {
            id: AuditId(id),
            project_id: ProjectId(1),
            session_id: session.map(SessionId),
            tool: tool.into(),
            level: Some(PermissionLevel::Sensitive),
            arguments: json!({"path": "a.txt", "content": "[REDACTED]"}),
            decision: Decision {
                kind: DecisionKind::Denied,
                by: Decider::User,
                detail: Some("not today".into()),
                rule: None,
                source: None,
            },
            outcome: ObservationKind::Denied,
            duration: Duration::from_millis(42),
            result_excerpt: "denied: not today\nsecond line".into(),
            started_at: Timestamp(1_700_000_000_000),
        }
    }

    #[test]
    fn an_empty_request_means_everything_up_to_the_default_limit() {
        let filter = AuditRequest::default()
            .to_filter(Some(DEFAULT_VIEW_LIMIT))
            .unwrap();
        assert_eq!(
            filter,
            AuditFilter {
                limit: Some(DEFAULT_VIEW_LIMIT),
                ..AuditFilter::default()
            }
        );
        assert_eq!(
            AuditRequest::default().to_filter(None).unwrap(),
            AuditFilter::default()
        );
    }

    #[test]
    fn every_field_narrows_the_filter() {
        let request: AuditRequest = serde_json::from_value(json!({
            "tool": " write_file ", "decision": "denied", "outcome": "denied",
            "session": "7", "limit": 3
        }))
        .unwrap();
        assert_eq!(
            request.to_filter(Some(DEFAULT_VIEW_LIMIT)).unwrap(),
            AuditFilter {
                session: Some(SessionId(7)),
                tool: Some("write_file".into()),
                decision: Some(DecisionKind::Denied),
                outcome: Some(ObservationKind::Denied),
                limit: Some(3),
            }
        );
        let blank = AuditRequest {
            tool: Some("  ".into()),
            session: Some(String::new()),
            limit: Some(u32::MAX),
            ..AuditRequest::default()
        };
        let filter = blank.to_filter(None).unwrap();
        assert_eq!((filter.tool, filter.session), (None, None));
        assert_eq!(filter.limit, Some(MAX_LIMIT));
    }

    #[test]
    fn malformed_requests_are_invalid_input() {
        for request in [
            json!({"session": "abc"}),
            json!({"limit": 0}),
            json!({"tool": "x".repeat(300)}),
        ] {
            let request: AuditRequest = serde_json::from_value(request).unwrap();
            assert_eq!(
                request.to_filter(None).unwrap_err().kind,
                ErrorKind::InvalidInput
            );
        }
        assert!(serde_json::from_value::<AuditRequest>(json!({"decision": "maybe"})).is_err());
    }

    #[test]
    fn the_view_adds_the_session_title_and_plain_numbers() {
        let titles = HashMap::from([(5, "Fix the build".to_owned())]);
        let view = AuditEntryView::new(entry(9, Some(5), "write_file"), &titles);
        assert_eq!(view.session_id.as_deref(), Some("5"));
        assert_eq!(view.session_title.as_deref(), Some("Fix the build"));
        assert_eq!((view.id, view.duration_ms), (9, 42));
        assert_eq!(view.started_at, 1_700_000_000_000);
        let value = serde_json::to_value(&view).unwrap();
        assert_eq!(value["decision"]["kind"], "denied");
        assert_eq!(value["resultExcerpt"], "denied: not today\nsecond line");
        let orphan = AuditEntryView::new(entry(10, None, "read_file"), &titles);
        assert_eq!((orphan.session_id, orphan.session_title), (None, None));
    }

    #[test]
    fn json_lines_hold_one_store_entry_per_line() {
        let entries = [entry(2, Some(1), "write_file"), entry(1, None, "read_file")];
        let text = json_lines(&entries).unwrap();
        assert!(text.ends_with('\n'));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        for (line, entry) in lines.iter().zip(&entries) {
            let parsed: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(parsed, serde_json::to_value(entry).unwrap());
        }
        // The result's newline stays inside its line, escaped.
        assert!(lines[0].contains(r"not today\nsecond line"));
        assert_eq!(json_lines(&[]).unwrap(), "");
    }

    #[test]
    fn the_export_replaces_the_file_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out/audit.jsonl");
        assert_eq!(
            write_json_lines(&path, &[entry(1, None, "read_file")]).unwrap(),
            1
        );
        assert_eq!(
            write_json_lines(
                &path,
                &[entry(3, None, "grep_search"), entry(2, None, "read_file")]
            )
            .unwrap(),
            2
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert!(text.starts_with(r#"{"id":3,"#), "{text}");
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["audit.jsonl"], "no temporary files left");
        let blocked = dir.path().join("file");
        std::fs::write(&blocked, "").unwrap();
        let error = write_json_lines(&blocked.join("x.jsonl"), &[]).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Io);
    }
}
