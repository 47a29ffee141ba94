//! Project folders Gantry knows, by canonical path.
//!
//! Forgetting a project deletes its rows (policies, sessions, messages, audit, approvals) through
//! the schema's cascades; the folder itself is never touched.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::codec::path_text;
use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::time::Timestamp;

/// A project folder Gantry knows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    /// Its id.
    pub id: ProjectId,
    /// The folder, canonical.
    pub root: PathBuf,
    /// The name shown for it (the folder's name unless renamed).
    pub name: String,
    /// When it was first opened.
    pub created_at: Timestamp,
    /// When it was last opened.
    pub last_opened_at: Timestamp,
}

const COLUMNS: &str = "id, root, name, created_at, last_opened_at";

fn from_row(row: &SqliteRow) -> Result<Project> {
    Ok(Project {
        id: ProjectId(row.try_get("id")?),
        root: PathBuf::from(row.try_get::<String, _>("root")?),
        name: row.try_get("name")?,
        created_at: Timestamp(row.try_get("created_at")?),
        last_opened_at: Timestamp(row.try_get("last_opened_at")?),
    })
}

/// The projects table. Get one from [`crate::Store::projects`].
#[derive(Debug, Clone, Copy)]
pub struct Projects<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Projects<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// Remembers the folder at `root` (it must exist) and marks it opened now. Returns the
    /// project, new or known.
    pub async fn open(&self, root: &Path) -> Result<Project> {
        let canonical = canonical_dir(root).await?;
        let text = path_text("project folder", &canonical)?;
        let name = canonical
            .file_name()
            .map_or_else(|| text.to_owned(), |n| n.to_string_lossy().into_owned());
        let row = sqlx::query(&format!(
            "INSERT INTO projects (root, name, created_at, last_opened_at) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT (root) DO UPDATE SET last_opened_at = excluded.last_opened_at
             RETURNING {COLUMNS}"
        ))
        .bind(text)
        .bind(name)
        .bind(Timestamp::now().as_millis())
        .fetch_one(self.pool)
        .await?;
        from_row(&row)
    }

    /// The project with this id.
    pub async fn get(&self, id: ProjectId) -> Result<Option<Project>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM projects WHERE id = ?1"))
            .bind(id.0)
            .fetch_optional(self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// The project at `root`, without remembering it. A folder that no longer exists is looked
    /// up by its absolute path.
    pub async fn find(&self, root: &Path) -> Result<Option<Project>> {
        let path = match canonical_dir(root).await {
            Ok(path) => path,
            Err(_) => std::path::absolute(root).map_err(|error| StoreError::BadRoot {
                path: root.to_path_buf(),
                reason: error.to_string(),
            })?,
        };
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM projects WHERE root = ?1"))
            .bind(path_text("project folder", &path)?)
            .fetch_optional(self.pool)
            .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Every project, most recently opened first.
    pub async fn list(&self) -> Result<Vec<Project>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM projects ORDER BY last_opened_at DESC, id DESC"
        ))
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// Renames a project.
    pub async fn rename(&self, id: ProjectId, name: &str) -> Result<()> {
        let name = name.trim();
        if name.is_empty() {
            return Err(StoreError::invalid("project name", "it is empty"));
        }
        let done = sqlx::query("UPDATE projects SET name = ?2 WHERE id = ?1")
            .bind(id.0)
            .bind(name)
            .execute(self.pool)
            .await?;
        StoreError::updated(&done, "project", id)
    }

    /// Forgets a project and every row that belongs to it; its folder is left alone. Returns
    /// the project that was removed, if there was one.
    pub async fn remove(&self, id: ProjectId) -> Result<Option<Project>> {
        let row = sqlx::query(&format!(
            "DELETE FROM projects WHERE id = ?1 RETURNING {COLUMNS}"
        ))
        .bind(id.0)
        .fetch_optional(self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
    }
}

/// The canonical form of a folder that must exist.
async fn canonical_dir(root: &Path) -> Result<PathBuf> {
    let bad = |reason: String| StoreError::BadRoot {
        path: root.to_path_buf(),
        reason,
    };
    let canonical = tokio::fs::canonicalize(root)
        .await
        .map_err(|error| bad(error.to_string()))?;
    if !canonical.is_dir() {
        return Err(bad("not a folder".into()));
    }
    Ok(canonical)
}
