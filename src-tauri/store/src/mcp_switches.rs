//! MCP servers switched off per project.
//!
//! The MCP panel's Disable button means "this project does not start this server", like the
//! per-project tool choices: the user's file (shared by every project) and a repository's
//! `.mcp.json` (not the user's to rewrite) stay as they are, and the choice is remembered here,
//! by the server's name. The hub reads the set when it starts or reloads.

use std::collections::BTreeSet;

use sqlx::sqlite::SqlitePool;

use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::store::begin_write;
use crate::time::Timestamp;

/// The longest server name kept (a name is a JSON key the user typed).
const MAX_NAME_BYTES: usize = 1024;

/// The mcp_disabled_servers table. Get one from [`crate::Store::mcp_switches`].
#[derive(Debug, Clone, Copy)]
pub struct McpSwitches<'s> {
    pool: &'s SqlitePool,
}

impl<'s> McpSwitches<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// The names of the servers the project does not start.
    pub async fn disabled(&self, project: ProjectId) -> Result<BTreeSet<String>> {
        let names: Vec<String> =
            sqlx::query_scalar("SELECT name FROM mcp_disabled_servers WHERE project_id = ?1")
                .bind(project.0)
                .fetch_all(self.pool)
                .await?;
        Ok(names.into_iter().collect())
    }

    /// Switches server `name` off (`enabled == false`) or on again in the project; true when
    /// that changed something.
    pub async fn set_enabled(&self, project: ProjectId, name: &str, enabled: bool) -> Result<bool> {
        check_name(name)?;
        let done = if enabled {
            sqlx::query("DELETE FROM mcp_disabled_servers WHERE project_id = ?1 AND name = ?2")
                .bind(project.0)
                .bind(name)
                .execute(self.pool)
                .await?
        } else {
            sqlx::query(
                "INSERT INTO mcp_disabled_servers (project_id, name, disabled_at)
                 VALUES (?1, ?2, ?3) ON CONFLICT (project_id, name) DO NOTHING",
            )
            .bind(project.0)
            .bind(name)
            .bind(Timestamp::now().as_millis())
            .execute(self.pool)
            .await
            .map_err(|error| StoreError::missing_parent(error, "project", project))?
        };
        Ok(done.rows_affected() > 0)
    }

    /// Carries the switch of server `old` over to `new` in every project (the user renamed a
    /// server of their user-wide file, which every project shares); returns how many projects
    /// had it off. A project that already had `new` off keeps that.
    pub async fn rename(&self, old: &str, new: &str) -> Result<u64> {
        check_name(old)?;
        check_name(new)?;
        if old == new {
            return Ok(0);
        }
        let mut tx = begin_write(self.pool).await?;
        sqlx::query(
            "INSERT INTO mcp_disabled_servers (project_id, name, disabled_at)
             SELECT project_id, ?2, disabled_at FROM mcp_disabled_servers WHERE name = ?1
             ON CONFLICT (project_id, name) DO NOTHING",
        )
        .bind(old)
        .bind(new)
        .execute(&mut *tx)
        .await?;
        let removed = sqlx::query("DELETE FROM mcp_disabled_servers WHERE name = ?1")
            .bind(old)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(removed.rows_affected())
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return Err(StoreError::invalid(
            "MCP server name",
            format!("a name must be 1 to {MAX_NAME_BYTES} bytes"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::McpSwitches;
    use crate::{ProjectId, Store};

    /// The servers switched off in `project`, in order.
    async fn disabled(switches: &McpSwitches<'_>, project: ProjectId) -> Vec<String> {
        switches
            .disabled(project)
            .await
            .unwrap()
            .into_iter()
            .collect()
    }

    #[tokio::test]
    async fn switches_are_per_project_kept_and_follow_a_rename() {
        let dir = tempfile::tempdir().unwrap();
        let (a_root, b_root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let path = dir.path().join("gantry.db");
        let store = Store::open(&path).await.unwrap();
        let a = store.projects().open(a_root.path()).await.unwrap().id;
        let b = store.projects().open(b_root.path()).await.unwrap().id;
        let switches = store.mcp_switches();
        assert!(switches.disabled(a).await.unwrap().is_empty());
        assert!(switches.set_enabled(a, "github", false).await.unwrap());
        // Already off: nothing changes.
        assert!(!switches.set_enabled(a, "github", false).await.unwrap());
        assert!(switches.set_enabled(a, "files", false).await.unwrap());
        assert_eq!(disabled(&switches, a).await, ["files", "github"]);
        assert!(switches.disabled(b).await.unwrap().is_empty());
        assert!(switches.set_enabled(a, "files", true).await.unwrap());
        assert!(!switches.set_enabled(a, "files", true).await.unwrap());
        assert!(switches.set_enabled(a, "", false).await.is_err());
        drop(store);

        let store = Store::open(&path).await.unwrap();
        let switches = store.mcp_switches();
        assert_eq!(disabled(&switches, a).await, ["github"]);
        switches.set_enabled(b, "gh", false).await.unwrap();
        assert_eq!(switches.rename("github", "gh").await.unwrap(), 1);
        assert_eq!(disabled(&switches, a).await, ["gh"]);
        assert_eq!(disabled(&switches, b).await, ["gh"]);
        assert_eq!(switches.rename("nothing", "else").await.unwrap(), 0);

        // Removing a project removes its switches.
        store.projects().remove(a).await.unwrap();
        assert!(switches.disabled(a).await.unwrap().is_empty());
        assert_eq!(switches.disabled(b).await.unwrap().len(), 1);
    }
}
