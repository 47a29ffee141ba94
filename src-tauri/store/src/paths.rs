//! Where the database lives: `GANTRY_DATA_DIR` when set, else the platform's data folder
//! (`$XDG_DATA_HOME/gantry` on Linux, through the `directories` crate).

use std::path::PathBuf;

use crate::error::{Result, StoreError};

/// The environment variable that overrides the data folder (tests, portable installs).
pub const DATA_DIR_ENV: &str = "GANTRY_DATA_DIR";

/// The database's file name inside the data folder.
pub const DATABASE_FILE: &str = "gantry.db";

/// Gantry's data folder (not created here).
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "gantry")
        .map(|dirs| dirs.data_dir().to_path_buf())
        .ok_or(StoreError::NoDataDir)
}

/// The database file in Gantry's data folder.
pub fn default_database_path() -> Result<PathBuf> {
    Ok(data_dir()?.join(DATABASE_FILE))
}
