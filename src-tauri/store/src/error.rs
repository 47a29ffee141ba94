//! The store's errors: what went wrong, in words a user can act on.
//!
//! None of them carries a secret: the store never holds one, and values that could be secret
//! (API keys) live in [`crate::secrets`], whose errors are separate.

use std::path::PathBuf;

/// A failure of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No data folder: neither `GANTRY_DATA_DIR` nor the platform's data dir is known.
    #[error("cannot find a data folder for Gantry: set GANTRY_DATA_DIR")]
    NoDataDir,
    /// The data folder could not be created.
    #[error("cannot create the data folder {path}: {source}")]
    DataDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The database file could not be opened.
    #[error("cannot open the database {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// Why.
        source: sqlx::Error,
    },
    /// The schema could not be brought up to date.
    #[error("cannot update the database schema: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query failed.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A project folder that does not exist or is not a folder.
    #[error("project folder {path} is not usable: {reason}")]
    BadRoot {
        /// The folder as given.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A row the call refers to does not exist.
    #[error("no {what} with id {id}")]
    NotFound {
        /// What kind of row ("project", "session", ...).
        what: &'static str,
        /// Its id as the caller gave it.
        id: String,
    },
    /// A value the caller gave does not fit (an empty name, a bad URL, ...).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// Which value.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// A stored value could not be read back (an unknown enum name, broken JSON).
    #[error("the database holds an unreadable {what}: {reason}")]
    Corrupt {
        /// Which value.
        what: &'static str,
        /// Why.
        reason: String,
    },
}

impl StoreError {
    pub(crate) fn invalid(what: &'static str, reason: impl Into<String>) -> Self {
        Self::Invalid {
            what,
            reason: reason.into(),
        }
    }

    pub(crate) fn not_found(what: &'static str, id: impl ToString) -> Self {
        Self::NotFound {
            what,
            id: id.to_string(),
        }
    }

    /// `Ok` when an update touched a row, [`Self::NotFound`] when there was none to touch.
    pub(crate) fn updated(
        done: &sqlx::sqlite::SqliteQueryResult,
        what: &'static str,
        id: impl ToString,
    ) -> Result<()> {
        if done.rows_affected() == 0 {
            return Err(Self::not_found(what, id));
        }
        Ok(())
    }

    /// Turns a foreign-key violation (the row referred to is gone) into [`Self::NotFound`].
    pub(crate) fn missing_parent(
        error: sqlx::Error,
        what: &'static str,
        id: impl ToString,
    ) -> Self {
        match &error {
            sqlx::Error::Database(db) if db.is_foreign_key_violation() => Self::not_found(what, id),
            _ => Self::Database(error),
        }
    }
}

/// The store's result type.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
