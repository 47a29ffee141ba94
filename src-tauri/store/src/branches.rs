//! Versions of a conversation: the later part set aside when the user rewinds to an earlier
//! message ("Edit and resend from here", "Retry"), kept so they can return to it.
//!
//! Rewinding a session to the message at ordinal `k` moves its messages from `k` on into
//! `branch_messages` under a new [`Branch`], and the session's live checkpoint changes of those
//! turns (`turn >= k`) with them; the live transcript goes on from `k`. Returning to a branch
//! swaps: what is live from the branch's ordinal on is set aside the same way, and the branch's
//! messages and changes become live again. Each swap is one transaction, so the transcript and
//! the file changes never disagree about which version is live.

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::SqlitePool;

use crate::codec::to_u32;
use crate::error::{Result, StoreError};
use crate::ids::{BranchId, RestoreId, SessionId};
use crate::store::begin_write;
use crate::time::Timestamp;

/// A set-aside version of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    /// Its id.
    pub id: BranchId,
    /// Its session.
    pub session_id: SessionId,
    /// The ordinal of its first message: where it leaves the live conversation.
    pub from_ordinal: u32,
    /// Its first message's first line.
    pub title: String,
    /// How many messages it holds.
    pub message_count: u32,
    /// The restore that took the files back when it was set aside.
    pub restore_id: Option<RestoreId>,
    /// When it was set aside.
    pub created_at: Timestamp,
}

/// The columns `messages` and `branch_messages` share.
const MESSAGE_COLUMNS: &str = "ordinal, role, content, tool_calls, tool_call_id, reasoning, \
                               prompt_tokens, completion_tokens, status, outcome, kind, \
                               created_at, attachments";

/// Sessions' set-aside versions. Get one from [`crate::Store::branches`].
#[derive(Debug, Clone, Copy)]
pub struct Branches<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Branches<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Sets aside the messages of `session` from ordinal `from` on, with the live checkpoint
    /// changes of their turns and the rows of `restore` (the restore that took the files back),
    /// as a new branch titled `title`. Returns `None` when there was no message to set aside.
    pub async fn set_aside(
        &self,
        session: SessionId,
        from: u32,
        title: &str,
        restore: Option<RestoreId>,
    ) -> Result<Option<BranchId>> {
        let mut tx = begin_write(self.pool).await?;
        let branch = set_aside_in(&mut tx, session, from, title, restore).await?;
        tx.commit().await?;
        Ok(branch)
    }

    /// A session's branches, by where they leave the conversation, then oldest first.
    pub async fn list(&self, session: SessionId) -> Result<Vec<Branch>> {
        let rows = sqlx::query(
            "SELECT b.id, b.session_id, b.from_ordinal, b.title, b.restore_id, b.created_at,
                    (SELECT COUNT(*) FROM branch_messages m WHERE m.branch_id = b.id) AS count
             FROM session_branches b WHERE b.session_id = ?1
             ORDER BY b.from_ordinal, b.id",
        )
        .bind(session.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Branch {
                    id: BranchId(row.try_get("id")?),
                    session_id: SessionId(row.try_get("session_id")?),
                    from_ordinal: to_u32("branch ordinal", row.try_get("from_ordinal")?)?,
                    title: row.try_get("title")?,
                    message_count: to_u32("branch message count", row.try_get("count")?)?,
                    restore_id: row.try_get::<Option<i64>, _>("restore_id")?.map(RestoreId),
                    created_at: Timestamp(row.try_get("created_at")?),
                })
            })
            .collect()
    }

    /// One branch of `session`.
    pub async fn get(&self, session: SessionId, branch: BranchId) -> Result<Branch> {
        self.list(session)
            .await?
            .into_iter()
            .find(|found| found.id == branch)
            .ok_or_else(|| StoreError::not_found("branch", branch))
    }

    /// Makes `branch` the live conversation again: what is live from its ordinal on is set aside
    /// as a new branch titled `title` (with the rows of `restore`, the restore that took the
    /// files to the branch's state), the branch's exit restore (the one that set it aside) is
    /// forgotten, and its messages and changes (no longer marked as undone) become live.
    /// Returns the branch the live part became, if there was one.
    pub async fn bring_back(
        &self,
        session: SessionId,
        branch: BranchId,
        title: &str,
        restore: Option<RestoreId>,
    ) -> Result<Option<BranchId>> {
        let mut tx = begin_write(self.pool).await?;
        let row = sqlx::query(
            "SELECT from_ordinal, restore_id FROM session_branches WHERE id = ?1 AND session_id = ?2",
        )
        .bind(branch.0)
        .bind(session.0)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::not_found("branch", branch))?;
        let from = to_u32("branch ordinal", row.try_get("from_ordinal")?)?;
        let exit: Option<i64> = row.try_get("restore_id")?;
        let set_aside = set_aside_in(&mut tx, session, from, title, restore).await?;
        // Deleting the exit restore deletes its rows and clears the marks it set (the foreign
        // keys' ON DELETE CASCADE and SET NULL).
        if let Some(exit) = exit {
            sqlx::query("DELETE FROM checkpoint_restores WHERE id = ?1")
                .bind(exit)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query(&format!(
            "INSERT INTO messages (session_id, {MESSAGE_COLUMNS})
             SELECT ?1, {MESSAGE_COLUMNS} FROM branch_messages WHERE branch_id = ?2 ORDER BY ordinal"
        ))
        .bind(session.0)
        .bind(branch.0)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE checkpoint_changes SET branch_id = NULL WHERE branch_id = ?1")
            .bind(branch.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM session_branches WHERE id = ?1")
            .bind(branch.0)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE sessions SET updated_at = MAX(updated_at, ?2) WHERE id = ?1")
            .bind(session.0)
            .bind(Timestamp::now().as_millis())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(set_aside)
    }
}

async fn set_aside_in(
    tx: &mut sqlx::SqliteConnection,
    session: SessionId,
    from: u32,
    title: &str,
    restore: Option<RestoreId>,
) -> Result<Option<BranchId>> {
    let count: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE session_id = ?1 AND ordinal >= ?2")
            .bind(session.0)
            .bind(i64::from(from))
            .fetch_one(&mut *tx)
            .await?;
    if count == 0 {
        return Ok(None);
    }
    let now = Timestamp::now().as_millis();
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO session_branches (session_id, from_ordinal, title, restore_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
    )
    .bind(session.0)
    .bind(i64::from(from))
    .bind(title)
    .bind(restore.map(|id| id.0))
    .bind(now)
    .fetch_one(&mut *tx)
    .await
    .map_err(|error| StoreError::missing_parent(error, "session", session))?;
    sqlx::query(&format!(
        "INSERT INTO branch_messages (branch_id, {MESSAGE_COLUMNS})
         SELECT ?1, {MESSAGE_COLUMNS} FROM messages
         WHERE session_id = ?2 AND ordinal >= ?3 ORDER BY ordinal"
    ))
    .bind(id)
    .bind(session.0)
    .bind(i64::from(from))
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM messages WHERE session_id = ?1 AND ordinal >= ?2")
        .bind(session.0)
        .bind(i64::from(from))
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE checkpoint_changes SET branch_id = ?1
         WHERE session_id = ?2 AND branch_id IS NULL
           AND (turn >= ?3 OR (?4 IS NOT NULL AND restore_id = ?4))",
    )
    .bind(id)
    .bind(session.0)
    .bind(i64::from(from))
    .bind(restore.map(|id| id.0))
    .execute(&mut *tx)
    .await?;
    Ok(Some(BranchId(id)))
}
