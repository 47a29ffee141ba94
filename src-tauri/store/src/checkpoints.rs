//! The checkpoints' index: which files each tool call and each restore of a session changed,
//! from which state to which (see `migrations/0006_checkpoints.sql`).
//!
//! The contents themselves are blobs in the data folder, kept by the engine; a row names them by
//! hash. Everything a restore does to the index — its own rows, the rows it undoes, the rows an
//! undone restore had undone — happens in one transaction, so the index never shows half a
//! restore.

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::codec::{parse_name, to_u32};
use crate::error::{Result, StoreError};
use crate::ids::{BranchId, ChangeId, ProjectId, RestoreId, SessionId};
use crate::store::begin_write;
use crate::time::Timestamp;

/// What a file was (or became).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum FileState {
    /// No file.
    Absent,
    /// A regular file whose content is the blob `hash` (SHA-256, hex).
    Kept {
        /// The content's SHA-256, lower-case hex.
        hash: String,
        /// Permission bits.
        mode: u32,
        /// Size in bytes.
        size: u64,
    },
    /// A regular file too large to keep: known by mode and size only.
    Unkept {
        /// Permission bits.
        mode: u32,
        /// Size in bytes.
        size: u64,
    },
}

impl FileState {
    fn name(&self) -> &'static str {
        match self {
            Self::Absent => "absent",
            Self::Kept { .. } => "kept",
            Self::Unkept { .. } => "unkept",
        }
    }

    fn hash(&self) -> Option<&str> {
        match self {
            Self::Kept { hash, .. } => Some(hash),
            _ => None,
        }
    }

    fn mode(&self) -> Option<i64> {
        match self {
            Self::Absent => None,
            Self::Kept { mode, .. } | Self::Unkept { mode, .. } => Some(i64::from(*mode)),
        }
    }

    fn size(&self) -> Option<i64> {
        match self {
            Self::Absent => None,
            Self::Kept { size, .. } | Self::Unkept { size, .. } => {
                Some(i64::try_from(*size).unwrap_or(i64::MAX))
            }
        }
    }

    fn from_columns(row: &SqliteRow, prefix: &str) -> Result<Self> {
        let state: String = row.try_get(format!("{prefix}_state").as_str())?;
        let mode: Option<i64> = row.try_get(format!("{prefix}_mode").as_str())?;
        let size: Option<i64> = row.try_get(format!("{prefix}_size").as_str())?;
        let mode = u32::try_from(mode.unwrap_or(0o644)).unwrap_or(0o644);
        let size = u64::try_from(size.unwrap_or(0)).unwrap_or(0);
        match state.as_str() {
            "absent" => Ok(Self::Absent),
            "kept" => Ok(Self::Kept {
                hash: row
                    .try_get::<Option<String>, _>(format!("{prefix}_hash").as_str())?
                    .ok_or_else(|| StoreError::Corrupt {
                        what: "checkpoint state",
                        reason: "a kept state without a hash".into(),
                    })?,
                mode,
                size,
            }),
            "unkept" => Ok(Self::Unkept { mode, size }),
            other => Err(StoreError::Corrupt {
                what: "checkpoint state",
                reason: format!("unknown state '{other}'"),
            }),
        }
    }
}

/// What made a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ChangeOrigin {
    /// The tool call with this id.
    Call {
        /// The model's `tool_call_id`.
        id: String,
    },
    /// A restore.
    Restore {
        /// Its id.
        id: RestoreId,
    },
}

/// One file changed by one tool call, to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChange {
    /// The session the call belongs to.
    pub session: SessionId,
    /// The turn: the ordinal of the user message that started it.
    pub turn: u32,
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The file, project-relative with `/`.
    pub path: String,
    /// What it was before the call.
    pub before: FileState,
    /// What the call left.
    pub after: FileState,
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// Its id (later changes have larger ids).
    pub id: ChangeId,
    /// Its session.
    pub session_id: SessionId,
    /// The set-aside branch it belongs to; `None` on the live conversation.
    pub branch_id: Option<BranchId>,
    /// The turn (ordinal of the user message that started it).
    pub turn: u32,
    /// The call or restore that made it.
    pub origin: ChangeOrigin,
    /// The tool's name, or the restore's kind.
    pub tool: String,
    /// The file, project-relative.
    pub path: String,
    /// Before.
    pub before: FileState,
    /// After.
    pub after: FileState,
    /// The restore that undid it, if one did.
    pub reverted_by: Option<RestoreId>,
    /// When it was recorded.
    pub created_at: Timestamp,
}

/// What a restore put back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "RestoreKindView"))]
#[serde(rename_all = "snake_case")]
pub enum RestoreKind {
    /// One file, to the state before the session.
    File,
    /// One hunk of a file.
    Hunk,
    /// A turn's files.
    Turn,
    /// Every file of the session.
    Session,
    /// The files, to an earlier message of the conversation (edit and resend, retry).
    Rewind,
    /// An earlier restore, undone.
    Undo,
    /// The files of a set-aside version of the conversation, brought back.
    Branch,
}

impl RestoreKind {
    /// The name in the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::File => "file",
            Self::Hunk => "hunk",
            Self::Turn => "turn",
            Self::Session => "session",
            Self::Rewind => "rewind",
            Self::Undo => "undo",
            Self::Branch => "branch",
        }
    }
}

/// One file a restore wrote (or removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoredFile {
    /// The file, project-relative.
    pub path: String,
    /// What it was before the restore.
    pub before: FileState,
    /// What the restore made it.
    pub after: FileState,
}

/// A restore to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRestore {
    /// The project.
    pub project: ProjectId,
    /// The session whose changes it restores.
    pub session: SessionId,
    /// What it restores.
    pub kind: RestoreKind,
    /// What it restores in words (a path, a turn), for lists.
    pub label: String,
    /// The turn its rows belong to.
    pub turn: u32,
    /// The files it wrote.
    pub files: Vec<RestoredFile>,
    /// The changes it undoes (marked `reverted_by` it). Undoing a restore's own rows also
    /// clears the marks that restore had set on the same files.
    pub reverts: Vec<ChangeId>,
}

/// A recorded restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restore {
    /// Its id.
    pub id: RestoreId,
    /// Its session.
    pub session_id: SessionId,
    /// What it restored.
    pub kind: RestoreKind,
    /// What, in words.
    pub label: String,
    /// When.
    pub created_at: Timestamp,
}

const CHANGE_COLUMNS: &str = "id, session_id, branch_id, turn, call_id, restore_id, tool, path, \
    before_state, before_hash, before_mode, before_size, \
    after_state, after_hash, after_mode, after_size, reverted_by, created_at";

fn change_from_row(row: &SqliteRow) -> Result<Change> {
    let call_id: Option<String> = row.try_get("call_id")?;
    let restore_id: Option<i64> = row.try_get("restore_id")?;
    let origin = match (call_id, restore_id) {
        (Some(id), _) => ChangeOrigin::Call { id },
        (None, Some(id)) => ChangeOrigin::Restore { id: RestoreId(id) },
        (None, None) => {
            return Err(StoreError::Corrupt {
                what: "checkpoint change",
                reason: "neither a call nor a restore".into(),
            });
        }
    };
    Ok(Change {
        id: ChangeId(row.try_get("id")?),
        session_id: SessionId(row.try_get("session_id")?),
        branch_id: row.try_get::<Option<i64>, _>("branch_id")?.map(BranchId),
        turn: to_u32("checkpoint turn", row.try_get("turn")?)?,
        origin,
        tool: row.try_get("tool")?,
        path: row.try_get("path")?,
        before: FileState::from_columns(row, "before")?,
        after: FileState::from_columns(row, "after")?,
        reverted_by: row.try_get::<Option<i64>, _>("reverted_by")?.map(RestoreId),
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

/// One row to insert.
struct InsertRow<'a> {
    project: ProjectId,
    session: SessionId,
    turn: u32,
    call_id: Option<&'a str>,
    restore_id: Option<RestoreId>,
    tool: &'a str,
    path: &'a str,
    before: &'a FileState,
    after: &'a FileState,
    now: i64,
}

impl InsertRow<'_> {
    async fn insert(&self, tx: &mut sqlx::SqliteConnection) -> Result<()> {
        if self.path.is_empty() {
            return Err(StoreError::invalid("checkpoint path", "the path is empty"));
        }
        sqlx::query(
            "INSERT INTO checkpoint_changes (project_id, session_id, turn, call_id, restore_id,
                 tool, path, before_state, before_hash, before_mode, before_size,
                 after_state, after_hash, after_mode, after_size, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )
        .bind(self.project.0)
        .bind(self.session.0)
        .bind(i64::from(self.turn))
        .bind(self.call_id)
        .bind(self.restore_id.map(|id| id.0))
        .bind(self.tool)
        .bind(self.path)
        .bind(self.before.name())
        .bind(self.before.hash())
        .bind(self.before.mode())
        .bind(self.before.size())
        .bind(self.after.name())
        .bind(self.after.hash())
        .bind(self.after.mode())
        .bind(self.after.size())
        .bind(self.now)
        .execute(&mut *tx)
        .await
        .map_err(|error| StoreError::missing_parent(error, "session", self.session))?;
        Ok(())
    }
}

/// The checkpoints' index. Get one from [`crate::Store::checkpoints`].
#[derive(Debug, Clone, Copy)]
pub struct Checkpoints<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Checkpoints<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Records what tool calls of `project` changed, in one transaction.
    pub async fn record(&self, project: ProjectId, changes: &[NewChange]) -> Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let now = Timestamp::now().as_millis();
        let mut tx = begin_write(self.pool).await?;
        for change in changes {
            InsertRow {
                project,
                session: change.session,
                turn: change.turn,
                call_id: Some(&change.call_id),
                restore_id: None,
                tool: &change.tool,
                path: &change.path,
                before: &change.before,
                after: &change.after,
                now,
            }
            .insert(&mut tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Records a restore: its rows, the changes it undoes, and — for each of its targets that
    /// is itself a restore's row — the marks that restore had set on the same file, cleared
    /// (undoing a restore brings its changes back).
    pub async fn record_restore(&self, restore: &NewRestore) -> Result<RestoreId> {
        let now = Timestamp::now().as_millis();
        let mut tx = begin_write(self.pool).await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO checkpoint_restores (project_id, session_id, kind, label, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
        )
        .bind(restore.project.0)
        .bind(restore.session.0)
        .bind(restore.kind.as_str())
        .bind(&restore.label)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .map_err(|error| StoreError::missing_parent(error, "session", restore.session))?;
        let id = RestoreId(id);
        for file in &restore.files {
            InsertRow {
                project: restore.project,
                session: restore.session,
                turn: restore.turn,
                call_id: None,
                restore_id: Some(id),
                tool: restore.kind.as_str(),
                path: &file.path,
                before: &file.before,
                after: &file.after,
                now,
            }
            .insert(&mut tx)
            .await?;
        }
        for target in &restore.reverts {
            sqlx::query(
                "UPDATE checkpoint_changes SET reverted_by = NULL
                 WHERE (reverted_by, path) IN (
                     SELECT restore_id, path FROM checkpoint_changes
                     WHERE id = ?1 AND restore_id IS NOT NULL)",
            )
            .bind(target.0)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE checkpoint_changes SET reverted_by = ?2
                 WHERE id = ?1 AND session_id = ?3 AND reverted_by IS NULL",
            )
            .bind(target.0)
            .bind(id.0)
            .bind(restore.session.0)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// The changes of a session's live conversation (`branch` `None`) or of one of its
    /// set-aside branches, oldest first.
    pub async fn changes(
        &self,
        session: SessionId,
        branch: Option<BranchId>,
    ) -> Result<Vec<Change>> {
        let rows = sqlx::query(&format!(
            "SELECT {CHANGE_COLUMNS} FROM checkpoint_changes
             WHERE session_id = ?1 AND branch_id IS ?2 ORDER BY id"
        ))
        .bind(session.0)
        .bind(branch.map(|id| id.0))
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(change_from_row).collect()
    }

    /// The restores with changes on a session's live conversation, oldest first.
    pub async fn restores(&self, session: SessionId) -> Result<Vec<Restore>> {
        let rows = sqlx::query(
            "SELECT id, session_id, kind, label, created_at FROM checkpoint_restores r
             WHERE session_id = ?1 AND EXISTS (
                 SELECT 1 FROM checkpoint_changes c
                 WHERE c.restore_id = r.id AND c.branch_id IS NULL)
             ORDER BY id",
        )
        .bind(session.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Restore {
                    id: RestoreId(row.try_get("id")?),
                    session_id: SessionId(row.try_get("session_id")?),
                    kind: parse_name("restore kind", row.try_get("kind")?)?,
                    label: row.try_get("label")?,
                    created_at: Timestamp(row.try_get("created_at")?),
                })
            })
            .collect()
    }

    /// Forgets the live changes of a session (of one file, or all): the user accepts them.
    /// Returns how many were forgotten.
    pub async fn accept(&self, session: SessionId, path: Option<&str>) -> Result<u64> {
        let mut tx = begin_write(self.pool).await?;
        let done = sqlx::query(
            "DELETE FROM checkpoint_changes
             WHERE session_id = ?1 AND branch_id IS NULL AND (?2 IS NULL OR path = ?2)",
        )
        .bind(session.0)
        .bind(path)
        .execute(&mut *tx)
        .await?;
        delete_empty_restores(&mut tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// Every blob hash the project's changes name (live and set aside): what must be kept.
    pub async fn hashes(&self, project: ProjectId) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT before_hash FROM checkpoint_changes WHERE project_id = ?1 AND before_hash IS NOT NULL
             UNION
             SELECT after_hash FROM checkpoint_changes WHERE project_id = ?1 AND after_hash IS NOT NULL",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?)
    }

    /// Forgets the project's changes recorded before `time` (the age limit). Returns how many.
    pub async fn prune_before(&self, project: ProjectId, time: Timestamp) -> Result<u64> {
        let mut tx = begin_write(self.pool).await?;
        let done =
            sqlx::query("DELETE FROM checkpoint_changes WHERE project_id = ?1 AND created_at < ?2")
                .bind(project.0)
                .bind(time.as_millis())
                .execute(&mut *tx)
                .await?;
        delete_empty_restores(&mut tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// Forgets the project's oldest turn (every change of the turn whose first change is the
    /// oldest; the size limit drops whole turns). Returns how many changes went; 0 when there
    /// were none.
    pub async fn prune_oldest_turn(&self, project: ProjectId) -> Result<u64> {
        let mut tx = begin_write(self.pool).await?;
        let done = sqlx::query(
            "DELETE FROM checkpoint_changes WHERE id IN (
                 SELECT c.id FROM checkpoint_changes c
                 JOIN (SELECT session_id, branch_id, turn FROM checkpoint_changes
                       WHERE project_id = ?1 ORDER BY id LIMIT 1) oldest
                   ON c.session_id = oldest.session_id AND c.branch_id IS oldest.branch_id
                  AND c.turn = oldest.turn)",
        )
        .bind(project.0)
        .execute(&mut *tx)
        .await?;
        delete_empty_restores(&mut tx).await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }

    /// How many changes the project has (live and set aside).
    pub async fn count(&self, project: ProjectId) -> Result<u64> {
        let count: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM checkpoint_changes WHERE project_id = ?1")
                .bind(project.0)
                .fetch_one(self.pool)
                .await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

/// Deletes restores that no longer have a change and no branch refers to.
async fn delete_empty_restores(tx: &mut sqlx::SqliteConnection) -> Result<()> {
    sqlx::query(
        "DELETE FROM checkpoint_restores WHERE
             NOT EXISTS (SELECT 1 FROM checkpoint_changes c WHERE c.restore_id = checkpoint_restores.id)
             AND NOT EXISTS (SELECT 1 FROM session_branches b WHERE b.restore_id = checkpoint_restores.id)",
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}
