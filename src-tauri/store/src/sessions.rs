//! Sessions: one conversation with the model in one project.
//!
//! A session's `updated_at` moves when a message is appended or it is touched (not when it is
//! renamed or switched to another model), so lists show the conversation the user last talked in
//! at the top. Deleting a session deletes its messages and
//! its audit rows.

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::codec::to_u32;
use crate::error::{Result, StoreError};
use crate::ids::{ProjectId, SessionId};
use crate::time::Timestamp;

/// A conversation in a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// Its id.
    pub id: SessionId,
    /// The project it works in.
    pub project_id: ProjectId,
    /// Its title.
    pub title: String,
    /// The model it talks to, when chosen.
    pub model: Option<String>,
    /// The provider it was switched to (with `model`); `None`: it follows the active provider.
    pub provider: Option<String>,
    /// How many messages it holds.
    pub message_count: u32,
    /// When it was created.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
}

const SELECT: &str = "SELECT id, project_id, title, model, provider, created_at, updated_at,
           (SELECT COUNT(*) FROM messages WHERE messages.session_id = sessions.id) AS message_count
    FROM sessions";

fn from_row(row: &SqliteRow) -> Result<Session> {
    Ok(Session {
        id: SessionId(row.try_get("id")?),
        project_id: ProjectId(row.try_get("project_id")?),
        title: row.try_get("title")?,
        model: row.try_get("model")?,
        provider: row.try_get("provider")?,
        message_count: to_u32("message count", row.try_get("message_count")?)?,
        created_at: Timestamp(row.try_get("created_at")?),
        updated_at: Timestamp(row.try_get("updated_at")?),
    })
}

/// The sessions and messages tables. Get one from [`crate::Store::sessions`]; the transcript
/// methods are in [`crate::messages`].
#[derive(Debug, Clone, Copy)]
pub struct Sessions<'s> {
    pub(crate) pool: &'s SqlitePool,
}

impl<'s> Sessions<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Starts a session in a project.
    pub async fn create(
        &self,
        project: ProjectId,
        title: &str,
        model: Option<&str>,
    ) -> Result<Session> {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO sessions (project_id, title, model, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?4) RETURNING id",
        )
        .bind(project.0)
        .bind(title.trim())
        .bind(model)
        .bind(Timestamp::now().as_millis())
        .fetch_one(self.pool)
        .await
        .map_err(|error| StoreError::missing_parent(error, "project", project))?;
        self.get(SessionId(id))
            .await?
            .ok_or_else(|| StoreError::not_found("session", id))
    }

    /// The session with this id.
    pub async fn get(&self, id: SessionId) -> Result<Option<Session>> {
        let row = sqlx::query(&format!("{SELECT} WHERE id = ?1"))
            .bind(id.0)
            .fetch_optional(self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// A project's sessions, the most recently updated first.
    pub async fn list(&self, project: ProjectId) -> Result<Vec<Session>> {
        let rows = sqlx::query(&format!(
            "{SELECT} WHERE project_id = ?1 ORDER BY updated_at DESC, id DESC"
        ))
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// Renames a session. Does not move it in the list.
    pub async fn rename(&self, id: SessionId, title: &str) -> Result<()> {
        let done = sqlx::query("UPDATE sessions SET title = ?2 WHERE id = ?1")
            .bind(id.0)
            .bind(title.trim())
            .execute(self.pool)
            .await?;
        StoreError::updated(&done, "session", id)
    }

    /// Switches a session to `model` of `provider` (`None`, `None`: back to following the
    /// active provider). Does not move it in the list.
    pub async fn switch_model(
        &self,
        id: SessionId,
        provider: Option<&str>,
        model: Option<&str>,
    ) -> Result<()> {
        let done = sqlx::query("UPDATE sessions SET provider = ?2, model = ?3 WHERE id = ?1")
            .bind(id.0)
            .bind(provider)
            .bind(model)
            .execute(self.pool)
            .await?;
        StoreError::updated(&done, "session", id)
    }

    /// Marks a session updated now (it moves to the top of its project's list).
    pub async fn touch(&self, id: SessionId) -> Result<()> {
        let done =
            sqlx::query("UPDATE sessions SET updated_at = MAX(updated_at, ?2) WHERE id = ?1")
                .bind(id.0)
                .bind(Timestamp::now().as_millis())
                .execute(self.pool)
                .await?;
        StoreError::updated(&done, "session", id)
    }

    /// Deletes a session, its messages and its audit rows; true when it existed.
    pub async fn delete(&self, id: SessionId) -> Result<bool> {
        let done = sqlx::query("DELETE FROM sessions WHERE id = ?1")
            .bind(id.0)
            .execute(self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
