//! What one project's sandboxed commands may do: where they may write, what they may not see,
//! and whether they reach the network.

use std::io;
use std::path::{Path, PathBuf};

use crate::secrets::home_secret_paths;
use crate::temp::SessionTemp;

/// The rules for one session's commands in one project.
///
/// Everything outside the writable folders is read-only; the hidden paths are unreadable on
/// top of that. Build it with [`SandboxPolicy::new`], which fills in the user's secret stores,
/// then add Gantry's own folders with [`SandboxPolicy::hide`] and the user's extra writable
/// folders with [`SandboxPolicy::allow_writing`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// The project folder: readable and writable (except its repository's hooks and config).
    pub project_root: PathBuf,
    /// The session's private temporary folder on the host, seen as `/tmp` inside.
    pub temp_dir: PathBuf,
    /// More folders the user made writable for this project (a shared build cache, ...).
    pub extra_writable: Vec<PathBuf>,
    /// Files and folders no command may read: secret stores, Gantry's own data and
    /// configuration. Those that do not exist when a command starts are skipped.
    pub hidden_paths: Vec<PathBuf>,
    /// Whether commands reach the network (off: no route out, not even to the host's
    /// loopback; a private loopback of their own still works).
    pub network: bool,
}

impl SandboxPolicy {
    /// The policy for `project_root` with `temp` as the session's temporary folder, hiding the
    /// secret stores under `home` ([`crate::home_secret_paths`]), with the network off.
    pub fn new(project_root: impl Into<PathBuf>, temp: &SessionTemp, home: &Path) -> Self {
        Self {
            project_root: project_root.into(),
            temp_dir: temp.path().to_path_buf(),
            extra_writable: Vec::new(),
            hidden_paths: home_secret_paths(home),
            network: false,
        }
    }

    /// Also hides `path` (Gantry's data and configuration folders, say).
    pub fn hide(mut self, path: impl Into<PathBuf>) -> Self {
        self.hidden_paths.push(path.into());
        self
    }

    /// Also lets commands write in `path`, which must exist when a command starts.
    pub fn allow_writing(mut self, path: impl Into<PathBuf>) -> Self {
        self.extra_writable.push(path.into());
        self
    }

    /// Turns the network on or off.
    pub fn with_network(mut self, network: bool) -> Self {
        self.network = network;
        self
    }
}

/// What a path given to the sandbox is for, in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRole {
    /// [`SandboxPolicy::project_root`].
    Project,
    /// [`SandboxPolicy::temp_dir`].
    Temp,
    /// One of [`SandboxPolicy::extra_writable`].
    ExtraWritable,
    /// The command's working directory.
    WorkingDirectory,
}

impl std::fmt::Display for PathRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Project => "the project folder",
            Self::Temp => "the session's temporary folder",
            Self::ExtraWritable => "the extra writable folder",
            Self::WorkingDirectory => "the working directory",
        })
    }
}

/// Why a command could not be put in the sandbox with this policy. Nothing was run.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A folder the policy names cannot be used.
    #[error("{role} {path} cannot be used: {source}")]
    Unusable {
        /// What the folder is for.
        role: PathRole,
        /// The folder as given.
        path: PathBuf,
        /// Why (usually: it does not exist).
        source: io::Error,
    },
    /// A path the policy names is not a folder.
    #[error("{role} {path} is not a folder")]
    NotAFolder {
        /// What the folder is for.
        role: PathRole,
        /// The path as given.
        path: PathBuf,
    },
    /// A writable folder would uncover the system folders the sandbox replaces.
    #[error("{role} {path} would make the whole system writable; pick a narrower folder")]
    TooBroad {
        /// What the folder is for.
        role: PathRole,
        /// The folder.
        path: PathBuf,
    },
    /// A writable folder lies inside a hidden one, which would either hide the folder or
    /// reveal the secret.
    #[error("{role} {path} lies inside {hidden}, which the sandbox hides")]
    InsideHidden {
        /// What the folder is for.
        role: PathRole,
        /// The folder.
        path: PathBuf,
        /// The hidden path around it.
        hidden: PathBuf,
    },
    /// The working directory is not visible inside the sandbox (it is under the host's
    /// `/tmp`, `/dev` or `/proc`, which the sandbox replaces).
    #[error("the working directory {path} is not visible inside the sandbox")]
    CwdNotVisible {
        /// The working directory.
        path: PathBuf,
    },
}
