//! Rules that last, per project: the tool system's [`ToolRule`]s, persisted.
//!
//! A rule says "always allow" or "always refuse" a tool, or one command key or path glob of it,
//! in one project (see `gantry_tools::rules` for how they match). They are added from the
//! approval dialog ("Always allow in this project", through [`StoreRules`], the gate's
//! [`RuleStore`]), and listed, edited and removed in the Tools panel and the CLI. Adding a rule
//! that exists already returns the existing one.

use async_trait::async_trait;
use gantry_tools::{RuleAction, RuleSpec, RuleStore, ToolRule};
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqliteRow};

use crate::codec::parse_name;
use crate::error::{Result, StoreError};
use crate::ids::ProjectId;
use crate::store::{Store, begin_write};
use crate::time::Timestamp;

fn from_row(row: &SqliteRow) -> Result<ToolRule> {
    Ok(ToolRule {
        id: row.try_get("id")?,
        spec: RuleSpec {
            tool: row.try_get("tool")?,
            pattern: row.try_get("pattern")?,
            action: parse_name::<RuleAction>("rule action", row.try_get("action")?)?,
        },
    })
}

fn checked(spec: RuleSpec) -> Result<RuleSpec> {
    spec.checked()
        .map_err(|reason| StoreError::invalid("rule", reason))
}

/// The tool_rules table. Get one from [`crate::Store::rules`].
#[derive(Debug, Clone, Copy)]
pub struct Rules<'s> {
    pool: &'s SqlitePool,
}

impl<'s> Rules<'s> {
    pub(crate) fn new(pool: &'s SqlitePool) -> Self {
        Self { pool }
    }

    /// The project's rules, in id order.
    pub async fn list(&self, project: ProjectId) -> Result<Vec<ToolRule>> {
        let rows = sqlx::query(
            "SELECT id, tool, pattern, action FROM tool_rules WHERE project_id = ?1 ORDER BY id",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// The rule with this id in the project.
    pub async fn get(&self, project: ProjectId, id: i64) -> Result<Option<ToolRule>> {
        let row = sqlx::query(
            "SELECT id, tool, pattern, action FROM tool_rules WHERE project_id = ?1 AND id = ?2",
        )
        .bind(project.0)
        .bind(id)
        .fetch_optional(self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Saves `spec` (checked first) for the project; an identical rule is returned as it is.
    pub async fn add(&self, project: ProjectId, spec: RuleSpec) -> Result<ToolRule> {
        let spec = checked(spec)?;
        let mut tx = begin_write(self.pool).await?;
        let existing: Option<i64> = sqlx::query_scalar(
            "SELECT id FROM tool_rules WHERE project_id = ?1 AND tool = ?2
               AND ifnull(pattern, '') = ifnull(?3, '') AND action = ?4",
        )
        .bind(project.0)
        .bind(&spec.tool)
        .bind(&spec.pattern)
        .bind(spec.action.as_str())
        .fetch_optional(&mut *tx)
        .await?;
        let id = match existing {
            Some(id) => id,
            None => sqlx::query_scalar(
                "INSERT INTO tool_rules (project_id, tool, pattern, action, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5) RETURNING id",
            )
            .bind(project.0)
            .bind(&spec.tool)
            .bind(&spec.pattern)
            .bind(spec.action.as_str())
            .bind(Timestamp::now().as_millis())
            .fetch_one(&mut *tx)
            .await
            .map_err(|error| StoreError::missing_parent(error, "project", project))?,
        };
        tx.commit().await?;
        Ok(ToolRule { id, spec })
    }

    /// Changes rule `id` of the project to say `spec`. A rule that is not there:
    /// [`StoreError::NotFound`]; one that would duplicate another: [`StoreError::Invalid`].
    pub async fn update(&self, project: ProjectId, id: i64, spec: RuleSpec) -> Result<ToolRule> {
        let spec = checked(spec)?;
        let done = sqlx::query(
            "UPDATE tool_rules SET tool = ?3, pattern = ?4, action = ?5
             WHERE project_id = ?1 AND id = ?2",
        )
        .bind(project.0)
        .bind(id)
        .bind(&spec.tool)
        .bind(&spec.pattern)
        .bind(spec.action.as_str())
        .execute(self.pool)
        .await
        .map_err(|error| match &error {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                StoreError::invalid("rule", "the project has this rule already")
            }
            _ => StoreError::Database(error),
        })?;
        if done.rows_affected() == 0 {
            return Err(StoreError::not_found("rule", id));
        }
        Ok(ToolRule { id, spec })
    }

    /// Removes rule `id` of the project; true when it existed.
    pub async fn remove(&self, project: ProjectId, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM tool_rules WHERE project_id = ?1 AND id = ?2")
            .bind(project.0)
            .bind(id)
            .execute(self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// How many audit rows each rule of the project decided, by rule id (the rules that let
    /// calls run or refused them).
    pub async fn uses(&self, project: ProjectId) -> Result<Vec<(i64, u64)>> {
        let rows = sqlx::query(
            "SELECT CAST(substr(decided_by, 6) AS INTEGER) AS rule, COUNT(*) AS uses
             FROM audit_log WHERE project_id = ?1 AND decided_by LIKE 'rule:%'
             GROUP BY rule ORDER BY rule",
        )
        .bind(project.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let uses: i64 = row.try_get("uses")?;
                Ok((
                    row.try_get("rule")?,
                    u64::try_from(uses).unwrap_or_default(),
                ))
            })
            .collect()
    }
}

/// The gate's [`RuleStore`] for one project: "Always allow in this project" saves here. Get one
/// from [`Store::rule_store`].
#[derive(Debug, Clone)]
pub struct StoreRules {
    store: Store,
    project: ProjectId,
}

impl StoreRules {
    pub(crate) fn new(store: Store, project: ProjectId) -> Self {
        Self { store, project }
    }
}

#[async_trait]
impl RuleStore for StoreRules {
    async fn add(&self, spec: RuleSpec) -> Result<ToolRule, String> {
        self.store
            .rules()
            .add(self.project, spec)
            .await
            .map_err(|error| error.to_string())
    }
}
