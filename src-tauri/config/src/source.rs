//! A configuration file found, whose it is, and reading it safely.
//!
//! A project file is read the way read_file reads: resolved through the project's confinement,
//! so a `CLAUDE.md -> ~/.aws/credentials` planted in a cloned repository is refused rather than
//! sent to the provider. A user file (under `~/.claude`, `~/.codex`, `~/.agents`) is the user's
//! own, but never one of the secret stores the sandbox hides. Either must be a regular file (a
//! FIFO would block), and at most a bounded prefix is read.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::Locations;

/// Whose a file is, which decides whether it needs the user's trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ConfigScope {
    /// The user's own (`~/.claude/settings.json`): trusted, it is theirs.
    User,
    /// The project's, committed (`.claude/settings.json`): came with the repository.
    Project,
    /// The project's, kept out of version control (`.claude/settings.local.json`,
    /// `CLAUDE.local.md`): still inside a folder that may have come from elsewhere.
    Local,
}

impl ConfigScope {
    /// True when what the file widens (allow rules, hooks, programs) waits for the user's trust.
    pub const fn needs_trust(self) -> bool {
        !matches!(self, Self::User)
    }

    /// The snake_case name (`user`, `project`, `local`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
        }
    }
}

/// A configuration file: where it is and whose.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SourceFile {
    /// The file as found (absolute).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub path: PathBuf,
    /// How the user sees it: `.claude/settings.json`, `~/.claude/CLAUDE.md`.
    pub shown: String,
    /// Whose it is.
    pub scope: ConfigScope,
}

impl SourceFile {
    /// The file `relative` under the project.
    pub fn in_project(at: &Locations, relative: &str, scope: ConfigScope) -> Self {
        let path = at.in_project(relative);
        Self {
            shown: at.display(&path),
            path,
            scope,
        }
    }

    /// The file `relative` under the user's home, when the home is known.
    pub fn in_home(at: &Locations, relative: &str) -> Option<Self> {
        let path = at.in_home(relative)?;
        Some(Self {
            shown: at.display(&path),
            path,
            scope: ConfigScope::User,
        })
    }

    /// Any file, with its scope (an import, a nested `CLAUDE.md`).
    pub fn at(at: &Locations, path: PathBuf, scope: ConfigScope) -> Self {
        Self {
            shown: at.display(&path),
            path,
            scope,
        }
    }
}

/// A file's text as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// The text (invalid UTF-8 shown lossily), at most the cap asked for.
    pub text: String,
    /// True when the file was longer than the cap.
    pub truncated: bool,
    /// The SHA-256 of the bytes read (hex): what a trust is bound to.
    pub sha256: String,
}

/// Why a file that exists was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadProblem {
    /// A project file that resolves outside the project (a symlink out, `..`).
    #[error("{0} leads outside the project, so it is not read")]
    Outside(String),
    /// A user file under one of the secret stores the sandbox hides.
    #[error("{0} is in a secret store, so it is not read")]
    SecretStore(String),
    /// Not a regular file (a folder, a FIFO, a device).
    #[error("{0} is not a regular file")]
    NotAFile(String),
    /// The file could not be read.
    #[error("{shown} could not be read: {why}")]
    Io {
        /// The file as shown.
        shown: String,
        /// The system's reason.
        why: String,
    },
}

/// Reads `file` (at most `max_bytes`), `Ok(None)` when it does not exist.
pub fn read_text(
    at: &Locations,
    file: &SourceFile,
    max_bytes: usize,
) -> Result<Option<FileText>, ReadProblem> {
    let Some(path) = readable_path(at, file)? else {
        return Ok(None);
    };
    let io = |error: std::io::Error| ReadProblem::Io {
        shown: file.shown.clone(),
        why: error.to_string(),
    };
    // Checked before opening: opening a FIFO blocks until someone writes to it.
    if !std::fs::metadata(&path).map_err(io)?.is_file() {
        return Err(ReadProblem::NotAFile(file.shown.clone()));
    }
    let opened = std::fs::File::open(&path).map_err(io)?;
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    let mut bytes = Vec::new();
    opened.take(limit).read_to_end(&mut bytes).map_err(io)?;
    let truncated = bytes.len() > max_bytes;
    bytes.truncate(max_bytes);
    let sha256 = hex_sha256(&bytes);
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if truncated {
        // The cut may have split a character: drop a trailing replacement character it made.
        while text.ends_with('\u{fffd}') {
            text.pop();
        }
    }
    Ok(Some(FileText {
        text,
        truncated,
        sha256,
    }))
}

/// The SHA-256 of `bytes`, as lower-case hex.
pub fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Where to open `file`: its confined location for a project file, the path itself for a user
/// file outside the secret stores; `None` when it does not exist.
fn readable_path(at: &Locations, file: &SourceFile) -> Result<Option<PathBuf>, ReadProblem> {
    match file.scope {
        ConfigScope::Project | ConfigScope::Local => {
            let Ok(relative) = file.path.strip_prefix(&at.project) else {
                return Err(ReadProblem::Outside(file.shown.clone()));
            };
            let project = gantry_tools::ProjectRoot::new(&at.project)
                .map_err(|_| ReadProblem::Outside(file.shown.clone()))?;
            let resolved = project
                .resolve(&relative.to_string_lossy())
                .map_err(|_| ReadProblem::Outside(file.shown.clone()))?;
            Ok(resolved
                .path()
                .exists()
                .then(|| resolved.path().to_path_buf()))
        }
        ConfigScope::User => {
            if !file.path.exists() {
                return Ok(None);
            }
            let real = std::fs::canonicalize(&file.path).map_err(|error| ReadProblem::Io {
                shown: file.shown.clone(),
                why: error.to_string(),
            })?;
            if in_secret_store(at, &real) {
                return Err(ReadProblem::SecretStore(file.shown.clone()));
            }
            Ok(Some(real))
        }
    }
}

/// True when `path` (canonical) is one of the user's secret stores or inside one.
pub fn in_secret_store(at: &Locations, path: &Path) -> bool {
    let Some(home) = &at.home else {
        return false;
    };
    gantry_sandbox::home_secret_paths(home)
        .iter()
        .any(|secret| path.starts_with(secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, Locations) {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("proj")).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        let at = Locations::new(root.join("proj"), Some(root.join("home")));
        (dir, at)
    }

    #[test]
    fn a_project_file_is_read_capped_and_hashed() {
        let (_dir, at) = project();
        std::fs::write(at.in_project("CLAUDE.md"), "hello world").unwrap();
        let file = SourceFile::in_project(&at, "CLAUDE.md", ConfigScope::Project);
        let read = read_text(&at, &file, 5).unwrap().unwrap();
        assert_eq!(read.text, "hello");
        assert!(read.truncated);
        assert_eq!(read.sha256, hex_sha256(b"hello"));
        let missing = SourceFile::in_project(&at, "AGENTS.md", ConfigScope::Project);
        assert_eq!(read_text(&at, &missing, 5).unwrap(), None);
    }

    #[test]
    fn a_project_symlink_out_is_refused() {
        let (_dir, at) = project();
        let outside = at.home.clone().unwrap().join("secret.txt");
        std::fs::write(&outside, "token").unwrap();
        std::os::unix::fs::symlink(&outside, at.in_project("CLAUDE.md")).unwrap();
        let file = SourceFile::in_project(&at, "CLAUDE.md", ConfigScope::Project);
        assert_eq!(
            read_text(&at, &file, 100),
            Err(ReadProblem::Outside("CLAUDE.md".into()))
        );
    }

    #[test]
    fn a_user_file_in_a_secret_store_is_refused() {
        let (_dir, at) = project();
        let home = at.home.clone().unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "key").unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), home.join(".claude/CLAUDE.md"))
            .unwrap();
        let file = SourceFile::in_home(&at, ".claude/CLAUDE.md").unwrap();
        assert!(matches!(
            read_text(&at, &file, 100),
            Err(ReadProblem::SecretStore(_))
        ));
    }

    #[test]
    fn a_fifo_is_not_opened() {
        let (_dir, at) = project();
        let status = std::process::Command::new("mkfifo")
            .arg(at.in_project("AGENTS.md"))
            .status()
            .unwrap();
        assert!(status.success());
        let file = SourceFile::in_project(&at, "AGENTS.md", ConfigScope::Project);
        assert_eq!(
            read_text(&at, &file, 100),
            Err(ReadProblem::NotAFile("AGENTS.md".into()))
        );
    }
}
