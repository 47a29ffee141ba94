//! Tool policies per project: the engine's [`PolicySet`], persisted.
//!
//! Only the user's explicit choices are rows; a tool without one follows its permission level's
//! default, as [`PolicySet`] does. A save replaces the whole set in one transaction, so a reader
//! never sees half of a change.

use gantry_tools::{Policy, PolicySet};
use sqlx::Row;
use sqlx::sqlite::SqlitePool;

use crate::codec::parse_name;
use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::store::begin_write;

/// The tool_policies table. Get one from [`crate::Store::policies`].
#[derive(Debug, Clone, Copy)]
pub struct Policies<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Policies<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// The project's choices (empty when it has made none).
    pub async fn load(&self, project: ProjectId) -> Result<PolicySet> {
        let rows = sqlx::query("SELECT tool, policy FROM tool_policies WHERE project_id = ?1")
            .bind(project.0)
            .fetch_all(self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                let tool: String = row.try_get("tool")?;
                let policy: Policy = parse_name("tool policy", row.try_get("policy")?)?;
                Ok((tool, policy))
            })
            .collect()
    }

    /// Replaces the project's choices by `policies`.
    pub async fn save(&self, project: ProjectId, policies: &PolicySet) -> Result<()> {
        let mut tx = begin_write(self.pool).await?;
        sqlx::query("DELETE FROM tool_policies WHERE project_id = ?1")
            .bind(project.0)
            .execute(&mut *tx)
            .await?;
        for (tool, policy) in policies.chosen() {
            sqlx::query("INSERT INTO tool_policies (project_id, tool, policy) VALUES (?1, ?2, ?3)")
                .bind(project.0)
                .bind(tool)
                .bind(policy.as_str())
                .execute(&mut *tx)
                .await
                .map_err(|error| StoreError::missing_parent(error, "project", project))?;
        }
        tx.commit().await?;
        Ok(())
    }
}
