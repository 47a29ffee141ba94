//! A fresh database in a temp folder, and records to write into it.

use std::time::Duration;

use gantry_store::{Project, Store};
use gantry_tools::{AuditRecord, Decider, Decision, DecisionKind, ObservationKind};
use tempfile::TempDir;

/// A store in a temp folder with one project (another temp folder).
pub struct Fixture {
    pub data: TempDir,
    pub folder: TempDir,
    pub store: Store,
    pub project: Project,
}

impl Fixture {
    pub async fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let project = store.projects().open(folder.path()).await.unwrap();
        Self {
            data,
            folder,
            store,
            project,
        }
    }

    /// Every byte of the database files (main file, WAL, shared memory).
    pub fn database_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for entry in std::fs::read_dir(self.data.path()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("gantry.db")
            {
                bytes.extend(std::fs::read(&path).unwrap());
            }
        }
        bytes
    }
}

/// An audit record of a call to `tool`.
pub fn record(
    tool: &str,
    session: Option<String>,
    kind: DecisionKind,
    outcome: ObservationKind,
) -> AuditRecord {
    let by = match kind {
        DecisionKind::Auto | DecisionKind::Disabled => Decider::Policy,
        DecisionKind::NotEvaluated => Decider::Engine,
        _ => Decider::User,
    };
    AuditRecord {
        session_id: session,
        tool: tool.to_owned(),
        level: Some(gantry_tools::PermissionLevel::Safe),
        arguments: serde_json::json!({ "path": "src/lib.rs" }),
        decision: Decision::new(kind, by),
        outcome,
        duration: Duration::from_millis(12),
        result_excerpt: "fine".to_owned(),
        started_at_ms: gantry_store::Timestamp::now().as_millis(),
    }
}

/// True when `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}
