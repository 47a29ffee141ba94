//! Project MCP config files the user approved, pinned to the content they saw.
//!
//! A project can ship an MCP config that starts programs; Gantry runs them only after the user
//! approved that exact file. The approval holds the content's hash, so an edited file (a pulled
//! commit, a tool's write) needs approving again.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::SqlitePool;

use crate::codec::path_text;
use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::time::Timestamp;

/// One approved file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpApproval {
    /// The file, as the caller named it.
    pub path: PathBuf,
    /// The hash of the content that was approved.
    pub content_hash: String,
    /// When.
    pub approved_at: Timestamp,
}

/// The mcp_approvals table. Get one from [`crate::Store::mcp_trust`].
#[derive(Debug, Clone, Copy)]
pub struct McpTrust<'s> {
    pool: &'s SqlitePool,
}

impl<'s> McpTrust<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// True when the user approved this file with exactly this content.
    pub async fn is_approved(
        &self,
        project: ProjectId,
        path: &Path,
        content_hash: &str,
    ) -> Result<bool> {
        let found = sqlx::query(
            "SELECT 1 FROM mcp_approvals WHERE project_id = ?1 AND path = ?2 AND content_hash = ?3",
        )
        .bind(project.0)
        .bind(path_text("MCP config path", path)?)
        .bind(content_hash)
        .fetch_optional(self.pool)
        .await?;
        Ok(found.is_some())
    }

    /// Approves the file with this content (replacing an approval of other content).
    pub async fn approve(&self, project: ProjectId, path: &Path, content_hash: &str) -> Result<()> {
        if content_hash.is_empty() {
            return Err(StoreError::invalid("content hash", "it is empty"));
        }
        sqlx::query(
            "INSERT INTO mcp_approvals (project_id, path, content_hash, approved_at)
             VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (project_id, path)
             DO UPDATE SET content_hash = excluded.content_hash, approved_at = excluded.approved_at",
        )
        .bind(project.0)
        .bind(path_text("MCP config path", path)?)
        .bind(content_hash)
        .bind(Timestamp::now().as_millis())
        .execute(self.pool)
        .await
        .map_err(|error| StoreError::missing_parent(error, "project", project))?;
        Ok(())
    }

    /// Withdraws the approval of a file; true when there was one.
    pub async fn revoke(&self, project: ProjectId, path: &Path) -> Result<bool> {
        let done = sqlx::query("DELETE FROM mcp_approvals WHERE project_id = ?1 AND path = ?2")
            .bind(project.0)
            .bind(path_text("MCP config path", path)?)
            .execute(self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every approval of the project, by path.
    pub async fn list(&self, project: ProjectId) -> Result<Vec<McpApproval>> {
        let rows = sqlx::query(
            "SELECT path, content_hash, approved_at FROM mcp_approvals
             WHERE project_id = ?1 ORDER BY path",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(McpApproval {
                    path: PathBuf::from(row.try_get::<String, _>("path")?),
                    content_hash: row.try_get("content_hash")?,
                    approved_at: Timestamp(row.try_get("approved_at")?),
                })
            })
            .collect()
    }
}
