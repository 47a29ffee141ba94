//! Approval of project `.mcp.json` files.
//!
//! A project file can start programs, and projects come from anywhere (a cloned repository), so
//! its servers start only once the user has approved that file. An approval is bound to the
//! file's content (its SHA-256): if the file changes, the servers wait for a new approval. The
//! store keeps approvals per project (another crate); here is only the seam it implements and an
//! in-memory version for tests and one-off runs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;

/// Remembers which project MCP files the user approved.
#[async_trait]
pub trait ProjectTrust: Send + Sync {
    /// True when the user approved `file` of the project at `project_root` with exactly this
    /// content.
    async fn is_trusted(&self, project_root: &Path, file: &Path, content_sha256: &str) -> bool;
    /// Records the user's approval of this content of `file`.
    async fn trust(&self, project_root: &Path, file: &Path, content_sha256: &str);
}

/// Approvals held in memory (lost at exit).
#[derive(Debug, Default)]
pub struct MemoryTrust {
    approved: Mutex<BTreeSet<(PathBuf, PathBuf, String)>>,
}

impl MemoryTrust {
    /// No approvals.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl ProjectTrust for MemoryTrust {
    async fn is_trusted(&self, project_root: &Path, file: &Path, content_sha256: &str) -> bool {
        self.approved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&(
                project_root.to_owned(),
                file.to_owned(),
                content_sha256.to_owned(),
            ))
    }

    async fn trust(&self, project_root: &Path, file: &Path, content_sha256: &str) {
        self.approved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((
                project_root.to_owned(),
                file.to_owned(),
                content_sha256.to_owned(),
            ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn approval_is_bound_to_the_content() {
        let trust = MemoryTrust::new();
        let (root, file) = (Path::new("/p"), Path::new("/p/.mcp.json"));
        assert!(!trust.is_trusted(root, file, "aaa").await);
        trust.trust(root, file, "aaa").await;
        assert!(trust.is_trusted(root, file, "aaa").await);
        assert!(!trust.is_trusted(root, file, "bbb").await);
        assert!(!trust.is_trusted(Path::new("/q"), file, "aaa").await);
    }
}
