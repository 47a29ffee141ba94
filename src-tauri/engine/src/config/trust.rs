//! The one trust step for a project's configuration: everything in it that can run programs or
//! widen permissions (hooks, allow rules, `allowed-tools`, `.mcp.json` servers) applies once the
//! user trusted the files as they were shown. The approval names each file with the hash it was
//! shown with; a file that changed in between, or one that appeared, is refused so the user
//! reviews again.

use std::path::PathBuf;

use gantry_config::{ConfigReport, Locations};
use gantry_store::{ProjectId, Store};
use serde::Deserialize;

use crate::config::report::project_report;
use crate::config::trusted_files;
use crate::error::{CommandError, ErrorKind};

/// A file as the trust step showed it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ShownFile {
    /// The file (absolute, as the report gave it).
    #[ts(type = "string")]
    pub path: PathBuf,
    /// What it was bound to when shown (the report's `sha256`).
    pub sha256: String,
}

/// Trust these files, exactly as shown.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TrustConfigRequest {
    /// Every file the trust step listed as waiting.
    pub files: Vec<ShownFile>,
}

impl TrustConfigRequest {
    /// What `report` shows as waiting for trust now: the request a user who saw it would send.
    pub fn for_report(report: &ConfigReport) -> Self {
        Self {
            files: report
                .untrusted()
                .map(|file| ShownFile {
                    path: file.source.path.clone(),
                    sha256: file.sha256.clone(),
                })
                .collect(),
        }
    }
}

/// Records the user's trust of every file of the project at `at` that waits for it, when each
/// is as `shown`; returns the files trusted. Refused, trusting nothing, when a waiting file was
/// not shown or changed since.
pub async fn trust_shown(
    at: &Locations,
    store: &Store,
    project: ProjectId,
    shown: &TrustConfigRequest,
) -> Result<Vec<PathBuf>, CommandError> {
    let report = project_report(at, &trusted_files(store, project).await);
    let waiting: Vec<_> = report.untrusted().collect();
    for file in &waiting {
        let seen = shown
            .files
            .iter()
            .any(|seen| seen.path == file.source.path && seen.sha256 == file.sha256);
        if !seen {
            return Err(CommandError::new(
                ErrorKind::NeedsConfirmation,
                format!(
                    "{} changed since it was shown, so nothing was trusted: review it again",
                    file.source.shown
                ),
            ));
        }
    }
    let mut trusted = Vec::with_capacity(waiting.len());
    for file in waiting {
        store
            .mcp_trust()
            .approve(project, &file.source.path, &file.sha256)
            .await?;
        trusted.push(file.source.path.clone());
    }
    Ok(trusted)
}
