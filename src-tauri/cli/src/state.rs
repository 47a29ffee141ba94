//! Gantry's database as the commands reach it: opened from `GANTRY_DATA_DIR` or the user's data
//! folder, with its errors mapped to exit codes.

use std::path::Path;

use anyhow::Context;
use gantry_store::{Project, Store, StoreError};

use crate::CliError;

/// Opens Gantry's database.
pub(crate) async fn open_store() -> Result<Store, CliError> {
    Store::open_default().await.map_err(|error| {
        CliError::Failed(anyhow::Error::new(error).context("opening Gantry's database"))
    })
}

/// A store error as a command failure: a value the user gave that doesn't fit is a usage error
/// (exit 2), anything else a failure (exit 1).
pub(crate) fn store_error(error: StoreError) -> CliError {
    match error {
        StoreError::Invalid { .. } | StoreError::BadRoot { .. } => {
            CliError::Usage(error.to_string())
        }
        other => CliError::Failed(other.into()),
    }
}

/// The known project at `root`, or a failure that says how to add it.
pub(crate) async fn known_project(store: &Store, root: &Path) -> Result<Project, CliError> {
    store
        .projects()
        .find(root)
        .await
        .map_err(store_error)?
        .with_context(|| {
            format!(
                "{} is not a Gantry project yet (add it with: gantry-cli projects add {})",
                root.display(),
                root.display()
            )
        })
        .map_err(CliError::Failed)
}
