//! Opening the database: one SQLite file, WAL, foreign keys, a busy timeout, migrations at open.
//!
//! SQLite allows one writer at a time. Writers wait for each other through the busy timeout, and
//! every multi-statement write starts with `BEGIN IMMEDIATE` so it takes the write lock before it
//! reads (a deferred transaction that reads first can fail instead of waiting). Commits are
//! `synchronous = FULL`: a write that returned is on disk, not only in the page cache.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Row, Sqlite, Transaction};

use crate::audit::{AuditLog, StoreAudit};
use crate::branches::Branches;
use crate::checkpoints::Checkpoints;
use crate::command_settings::CommandSettings;
use crate::error::{Result, StoreError};
use crate::hook_runs::HookRuns;
use crate::ids::ProjectId;
use crate::mcp_switches::McpSwitches;
use crate::mcp_trust::McpTrust;
use crate::paths::default_database_path;
use crate::policies::Policies;
use crate::projects::Projects;
use crate::providers::Providers;
use crate::rules::{Rules, StoreRules};
use crate::sessions::Sessions;
use crate::settings::Settings;

/// The schema, embedded at compile time from `migrations/`.
/// How long opening keeps trying the migrations while other processes apply them too.
const MIGRATION_PATIENCE: Duration = Duration::from_secs(10);

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// How long a statement waits for another connection's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections in the pool: WAL lets readers run beside the one writer.
const MAX_CONNECTIONS: u32 = 4;

/// Gantry's database. Cheap to clone: clones share one connection pool.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    path: PathBuf,
}

/// How many times opening tries when another process holds the new database for a moment.
const OPEN_ATTEMPTS: u32 = 6;

/// Whether `error` is SQLite's "database is locked" (`SQLITE_BUSY`).
fn is_busy(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(database) if database.code().as_deref() == Some("5"))
}

impl Store {
    /// Opens (creating when missing) the database at `path` and brings its schema up to date.
    /// The parent folder is created too, readable by the user only.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            create_private_dir(parent)?;
        }
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(BUSY_TIMEOUT);
        // A new database's first connection switches it to WAL, which needs the file to
        // itself: another process creating it at the same moment makes that fail at once with
        // "database is locked" (SQLite's busy handler does not wait there), so try again a few
        // times.
        let mut attempt = 0;
        let pool = loop {
            attempt += 1;
            match SqlitePoolOptions::new()
                .max_connections(MAX_CONNECTIONS)
                .connect_with(options.clone())
                .await
            {
                Ok(pool) => break pool,
                Err(source) if attempt < OPEN_ATTEMPTS && is_busy(&source) => {
                    tracing::debug!(attempt, error = %source, "the database is busy; retrying");
                    tokio::time::sleep(Duration::from_millis(50 * u64::from(attempt))).await;
                }
                Err(source) => {
                    return Err(StoreError::Open {
                        path: path.clone(),
                        source,
                    });
                }
            }
        };
        // Several processes opening a new database at once all try to create the tables; a loser
        // fails on a step another one just applied, and finds it applied when it tries again.
        // Each try gets further, so it tries until the migrations pass or the patience runs out.
        let deadline = std::time::Instant::now() + MIGRATION_PATIENCE;
        let mut attempt = 0u64;
        while let Err(error) = MIGRATOR.run(&pool).await {
            if std::time::Instant::now() >= deadline {
                return Err(error.into());
            }
            attempt += 1;
            tracing::debug!(attempt, %error, "migrations failed; retrying");
            tokio::time::sleep(Duration::from_millis(20 * attempt.min(10))).await;
        }
        tracing::debug!(path = %path.display(), "store opened");
        Ok(Self { pool, path })
    }

    /// Opens the database in Gantry's data folder (see [`crate::paths`]).
    pub async fn open_default() -> Result<Self> {
        Self::open(default_database_path()?).await
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Project folders Gantry knows.
    pub fn projects(&self) -> Projects<'_> {
        Projects::new(&self.pool)
    }

    /// Tool policies per project.
    pub fn policies(&self) -> Policies<'_> {
        Policies::new(&self.pool)
    }

    /// Rules that last, per project (allow or deny a tool, a command key, a path glob).
    pub fn rules(&self) -> Rules<'_> {
        Rules::new(&self.pool)
    }

    /// A [`gantry_tools::RuleStore`] that saves a project's rules in this store (what the
    /// approval dialog's "Always allow in this project" adds through).
    pub fn rule_store(&self, project: ProjectId) -> StoreRules {
        StoreRules::new(self.clone(), project)
    }

    /// What projects chose for their commands: network, writable folders, variables passed.
    pub fn command_options(&self) -> CommandSettings<'_> {
        CommandSettings::new(&self.pool)
    }

    /// Project MCP config files the user approved.
    pub fn mcp_trust(&self) -> McpTrust<'_> {
        McpTrust::new(&self.pool)
    }

    /// Each hook's last run, per project.
    pub fn hook_runs(&self) -> HookRuns<'_> {
        HookRuns::new(&self.pool)
    }

    /// MCP servers switched off per project.
    pub fn mcp_switches(&self) -> McpSwitches<'_> {
        McpSwitches::new(&self.pool)
    }

    /// Model provider settings (never their keys).
    pub fn providers(&self) -> Providers<'_> {
        Providers::new(&self.pool)
    }

    /// Conversations and their messages.
    pub fn sessions(&self) -> Sessions<'_> {
        Sessions::new(&self.pool)
    }

    /// The checkpoints' index: what tool calls and restores changed in project files.
    pub fn checkpoints(&self) -> Checkpoints<'_> {
        Checkpoints::new(&self.pool)
    }

    /// Set-aside versions of conversations.
    pub fn branches(&self) -> Branches<'_> {
        Branches::new(&self.pool)
    }

    /// App-wide settings by key (the active provider, the window's layout).
    pub fn settings(&self) -> Settings<'_> {
        Settings::new(&self.pool)
    }

    /// The tool-call audit log.
    pub fn audit(&self) -> AuditLog<'_> {
        AuditLog::new(&self.pool)
    }

    /// An [`gantry_tools::AuditSink`] that records a project's calls in this store.
    pub fn audit_sink(&self, project: ProjectId) -> StoreAudit {
        StoreAudit::new(self.clone(), project)
    }

    /// SQLite's own consistency check, full-text indexes included: `"ok"` when the file is sound.
    ///
    /// FTS5 keeps each connection's copy of an index's structure record and refreshes it only
    /// when a cursor opens or a write begins on the table, not when `PRAGMA integrity_check`
    /// visits it (SQLite 3.46). A pooled connection that last touched `messages_fts` before
    /// another process wrote would check the new index against its old structure and report
    /// "malformed inverted index" for a sound file. So the check runs in one read transaction
    /// (one snapshot) that first opens a cursor on every FTS5 table, which makes FTS5 compare the
    /// database's `data_version` with its copy's and reload it when they differ.
    pub async fn integrity_check(&self) -> Result<String> {
        let mut tx = self.pool.begin().await?;
        let fts_tables: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_schema
             WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'",
        )
        .fetch_all(&mut *tx)
        .await?;
        for table in fts_tables {
            let quoted = table.replace('"', "\"\"");
            sqlx::query(&format!("SELECT rowid FROM \"{quoted}\" LIMIT 1"))
                .fetch_optional(&mut *tx)
                .await?;
        }
        let rows = sqlx::query("PRAGMA integrity_check")
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        let mut lines = Vec::with_capacity(rows.len());
        for row in rows {
            lines.push(row.try_get::<String, _>(0)?);
        }
        Ok(lines.join("\n"))
    }

    /// Closes every connection (checkpointing the WAL). Clones of this store stop working.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Starts a write transaction that holds the write lock from its first statement.
pub(crate) async fn begin_write(pool: &SqlitePool) -> Result<Transaction<'static, Sqlite>> {
    Ok(pool.begin_with("BEGIN IMMEDIATE").await?)
}

/// Creates `dir` (and its parents) with mode 0700 on Unix: the audit log is nobody else's business.
fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|source| StoreError::DataDir {
        path: dir.to_path_buf(),
        source,
    })
}
