//! Each hook's last run, per project (see `migrations/0012_hook_runs.sql`): when it finished
//! and how it ended (`exit 0`, `exit 2: blocked`, `timed out`), so the hooks list shows it
//! across runs of the app and the CLI.

use sqlx::sqlite::SqlitePool;

use crate::error::{Result, StoreError};
use crate::ids::ProjectId;

/// The longest text kept in any field (a command or a result line).
const MAX_TEXT_BYTES: usize = 16 * 1024;

/// What identifies a hook: its file, event, matcher and command.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HookRunKey {
    /// The file it comes from (absolute).
    pub source_path: String,
    /// Its event (`PreToolUse`, ...).
    pub event: String,
    /// Its matcher as written.
    pub matcher: String,
    /// Its command as listed.
    pub command: String,
}

/// One hook's last run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRunRow {
    /// The hook.
    pub key: HookRunKey,
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_at_ms: i64,
    /// How it ended.
    pub result: String,
}

/// The hook_runs table. Get one from [`crate::Store::hook_runs`].
#[derive(Debug, Clone, Copy)]
pub struct HookRuns<'s> {
    pool: &'s SqlitePool,
}

impl<'s> HookRuns<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Keeps `row` as its hook's last run in `project` (replacing the one before).
    pub async fn record(&self, project: ProjectId, row: &HookRunRow) -> Result<()> {
        let key = &row.key;
        for (field, text) in [
            ("hook file", &key.source_path),
            ("hook event", &key.event),
            ("hook matcher", &key.matcher),
            ("hook command", &key.command),
            ("hook result", &row.result),
        ] {
            if text.len() > MAX_TEXT_BYTES {
                return Err(StoreError::invalid(
                    field,
                    format!("at most {MAX_TEXT_BYTES} bytes"),
                ));
            }
        }
        sqlx::query(
            "INSERT INTO hook_runs
                 (project_id, source_path, event, matcher, command, finished_at, result)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (project_id, source_path, event, matcher, command)
             DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result",
        )
        .bind(project.0)
        .bind(&key.source_path)
        .bind(&key.event)
        .bind(&key.matcher)
        .bind(&key.command)
        .bind(row.finished_at_ms)
        .bind(&row.result)
        .execute(self.pool)
        .await
        .map_err(|error| StoreError::missing_parent(error, "project", project))?;
        Ok(())
    }

    /// Every hook's last run in `project`.
    pub async fn list(&self, project: ProjectId) -> Result<Vec<HookRunRow>> {
        let rows: Vec<(String, String, String, String, i64, String)> = sqlx::query_as(
            "SELECT source_path, event, matcher, command, finished_at, result
             FROM hook_runs WHERE project_id = ?1",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(source_path, event, matcher, command, finished_at_ms, result)| HookRunRow {
                    key: HookRunKey {
                        source_path,
                        event,
                        matcher,
                        command,
                    },
                    finished_at_ms,
                    result,
                },
            )
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{HookRunKey, HookRunRow};
    use crate::Store;

    fn row(command: &str, at: i64, result: &str) -> HookRunRow {
        HookRunRow {
            key: HookRunKey {
                source_path: "/home/u/.claude/settings.json".into(),
                event: "PreToolUse".into(),
                matcher: "Bash".into(),
                command: command.into(),
            },
            finished_at_ms: at,
            result: result.into(),
        }
    }

    #[tokio::test]
    async fn the_last_run_replaces_the_one_before_per_hook_and_project() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("g.db")).await.unwrap();
        let one = store.projects().open(dir.path()).await.unwrap().id;
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        let two = store.projects().open(&other).await.unwrap().id;
        let runs = store.hook_runs();
        runs.record(one, &row("a.sh", 1, "exit 0")).await.unwrap();
        runs.record(one, &row("a.sh", 2, "exit 2: blocked"))
            .await
            .unwrap();
        runs.record(one, &row("b.sh", 3, "timed out"))
            .await
            .unwrap();
        runs.record(two, &row("a.sh", 4, "exit 1")).await.unwrap();
        let mut kept = runs.list(one).await.unwrap();
        kept.sort_by(|a, b| a.key.cmp(&b.key));
        assert_eq!(
            kept,
            [
                row("a.sh", 2, "exit 2: blocked"),
                row("b.sh", 3, "timed out")
            ]
        );
        assert_eq!(runs.list(two).await.unwrap(), [row("a.sh", 4, "exit 1")]);
        let long = "x".repeat(20_000);
        assert!(runs.record(one, &row(&long, 5, "exit 0")).await.is_err());
    }
}
