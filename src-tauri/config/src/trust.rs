//! Which project files wait for the user's trust, bound to their content.
//!
//! What a project's own files can widen — allow rules, hooks (programs that run outside the
//! sandbox), `allowed-tools` of a command, MCP servers, worktree set-up commands — applies only
//! once the user trusted those files as they are now. A trust is bound to a file's SHA-256, so a
//! pulled commit that changes a hook asks again. The user's own files (`~/.claude/...`) need no
//! trust. The engine keeps the approvals (the store); this crate only asks
//! [`TrustedFiles::covers`].

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::SourceFile;

/// The project files the user trusted, each with the content hash they saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedFiles {
    approved: BTreeSet<(PathBuf, String)>,
}

impl TrustedFiles {
    /// Nothing trusted (a project opened for the first time).
    pub fn none() -> Self {
        Self::default()
    }

    /// The files approved, as `(path, sha256)` pairs.
    pub fn from_approvals(approvals: impl IntoIterator<Item = (PathBuf, String)>) -> Self {
        Self {
            approved: approvals.into_iter().collect(),
        }
    }

    /// Records one approval.
    pub fn approve(&mut self, path: PathBuf, sha256: String) {
        self.approved.insert((path, sha256));
    }

    /// True when what `file` (with content `sha256`) widens may apply: a user file always, a
    /// project file when approved with exactly this content.
    pub fn covers(&self, file: &SourceFile, sha256: &str) -> bool {
        !file.scope.needs_trust()
            || self
                .approved
                .contains(&(file.path.clone(), sha256.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfigScope, Locations};

    #[test]
    fn a_project_file_is_covered_only_with_the_content_approved() {
        let at = Locations::new("/p", Some("/h".into()));
        let project = SourceFile::in_project(&at, ".claude/settings.json", ConfigScope::Project);
        let user = SourceFile::in_home(&at, ".claude/settings.json").unwrap();
        let mut trusted = TrustedFiles::none();
        assert!(trusted.covers(&user, "any"));
        assert!(!trusted.covers(&project, "abc"));
        trusted.approve(project.path.clone(), "abc".into());
        assert!(trusted.covers(&project, "abc"));
        assert!(!trusted.covers(&project, "changed"));
    }
}
