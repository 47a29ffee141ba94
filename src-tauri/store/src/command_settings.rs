//! What a project chose for its commands: the network switch, the extra writable folders and
//! the environment variables passed on purpose.
//!
//! The engine reads these when it opens a project and after every change, and hands them to
//! the project's tools (`gantry_tools::CommandSandbox::set_settings` and
//! `gantry_tools::ProjectRoot::set_env_pass`). Only variable *names* are kept, never values:
//! the value comes from Gantry's environment when a command starts.

use std::path::{Path, PathBuf};

use sqlx::sqlite::SqlitePool;

use crate::codec::path_text;
use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::store::begin_write;
use crate::time::Timestamp;

/// The longest variable name kept.
const MAX_NAME_BYTES: usize = 256;

/// A project's command settings as stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectCommandSettings {
    /// Commands may use the network.
    pub network: bool,
    /// Folders outside the project commands may write to (absolute, sorted).
    pub writable: Vec<PathBuf>,
    /// Variables commands receive although they look secret (sorted).
    pub env_pass: Vec<String>,
}

/// The command settings tables. Get one from [`crate::Store::command_options`].
#[derive(Debug, Clone, Copy)]
pub struct CommandSettings<'s> {
    pool: &'s SqlitePool,
}

impl<'s> CommandSettings<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// The project's settings (the defaults when it chose none: network off, nothing extra).
    pub async fn load(&self, project: ProjectId) -> Result<ProjectCommandSettings> {
        let network: Option<i64> =
            sqlx::query_scalar("SELECT enabled FROM command_network WHERE project_id = ?1")
                .bind(project.0)
                .fetch_optional(self.pool)
                .await?;
        let writable: Vec<String> = sqlx::query_scalar(
            "SELECT path FROM command_writable_paths WHERE project_id = ?1 ORDER BY path",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        let env_pass: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM command_env_pass WHERE project_id = ?1 ORDER BY name",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        Ok(ProjectCommandSettings {
            network: network == Some(1),
            writable: writable.into_iter().map(PathBuf::from).collect(),
            env_pass,
        })
    }

    /// Replaces the project's settings by `settings` in one transaction. Writable folders must
    /// be absolute; variable names non-empty, without `=` or NUL.
    pub async fn save(&self, project: ProjectId, settings: &ProjectCommandSettings) -> Result<()> {
        for path in &settings.writable {
            check_path(path)?;
        }
        for name in &settings.env_pass {
            check_name(name)?;
        }
        let now = Timestamp::now().as_millis();
        let mut tx = begin_write(self.pool).await?;
        sqlx::query(
            "INSERT INTO command_network (project_id, enabled) VALUES (?1, ?2)
             ON CONFLICT (project_id) DO UPDATE SET enabled = excluded.enabled",
        )
        .bind(project.0)
        .bind(i64::from(settings.network))
        .execute(&mut *tx)
        .await
        .map_err(|error| StoreError::missing_parent(error, "project", project))?;
        sqlx::query("DELETE FROM command_writable_paths WHERE project_id = ?1")
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
        for path in &settings.writable {
            sqlx::query(
                "INSERT INTO command_writable_paths (project_id, path, added_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )
            .bind(project.0)
            .bind(path_text("writable folder", path)?)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query("DELETE FROM command_env_pass WHERE project_id = ?1")
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
        for name in &settings.env_pass {
            sqlx::query(
                "INSERT INTO command_env_pass (project_id, name, added_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )
            .bind(project.0)
            .bind(name)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

fn check_path(path: &Path) -> Result<()> {
    if !path.is_absolute() {
        return Err(StoreError::invalid(
            "writable folder",
            format!("{} is not an absolute path", path.display()),
        ));
    }
    Ok(())
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty()
        || name.len() > MAX_NAME_BYTES
        || name.contains('=')
        || name.contains('\0')
        || name.chars().any(char::is_whitespace)
    {
        return Err(StoreError::invalid(
            "environment variable name",
            format!("{name:?} is not a variable name"),
        ));
    }
    Ok(())
}
