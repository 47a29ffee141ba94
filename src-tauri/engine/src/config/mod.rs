//! The project's configuration from other agents (`CLAUDE.md`, `.claude/`, `.codex/`,
//! `.agents/`), read by gantry-config and applied here under Gantry's guarantees: it can only
//! narrow what the model may do, or widen it after the user trusted the project's files — never
//! past a deny rule, a disabled tool, a file that makes programs run, or the sandbox.
//!
//! Trust is one step for every project file that can run programs or widen permissions, and it
//! is remembered in the same table as the `.mcp.json` approvals (per file, per content), so
//! `gantry-cli mcp trust` and the trust dialog agree.
//!
//! - [`instructions`]: a session's instruction files (`CLAUDE.md`, `AGENTS.md`, imports, the
//!   folders the model worked in), for its system prompt and the context gauge.
//! - [`rules`]: Claude Code's permission rules in the project's gate.

pub mod hooks;
pub mod instructions;
pub mod report;
pub mod rules;
pub mod service;
pub mod skills;
pub mod trust;

pub use gantry_config::ConfigReport;
use gantry_config::{Locations, TrustedFiles};
use gantry_store::{ProjectId, Store};
use std::path::Path;

/// Where the project's and the user's configuration is (the home from the environment).
pub fn locations(root: &Path) -> Locations {
    Locations::for_project(root)
}

/// The project files the user trusted, with the content they saw. A store that cannot be read
/// trusts nothing (fail closed).
pub async fn trusted_files(store: &Store, project: ProjectId) -> TrustedFiles {
    match store.mcp_trust().list(project).await {
        Ok(approvals) => TrustedFiles::from_approvals(
            approvals
                .into_iter()
                .map(|approval| (approval.path, approval.content_hash)),
        ),
        Err(error) => {
            tracing::warn!(%error, "cannot read the project's trusted files; trusting none");
            TrustedFiles::none()
        }
    }
}
