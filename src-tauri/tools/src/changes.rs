//! What a call changes in the project: the sink checkpoints implement.
//!
//! Gantry promises that anything the agent did to the project can be undone, so before a call
//! changes a file, whoever keeps checkpoints (the engine) must learn what the file was. Two
//! kinds of tools change files:
//!
//! - tools that know exactly which file they replace (write_file, edit_file: marked
//!   `records_changes`) report it themselves, through the call's [`CallChanges`], *before* the
//!   write, with the file's previous content or its absence ([`Prior`]);
//! - every other tool that may change something (run_command, MCP tools above SAFE) is opaque:
//!   the manager tells the sink a call starts ([`ChangeSink::call_started`] with
//!   [`ChangeWatch::Snapshot`]) and ends ([`CallChanges::finished`]), and the sink compares the
//!   project before and after.
//!
//! SAFE tools read; the manager does not involve the sink for them. The manager holds one sink
//! per project ([`crate::ToolManager::with_changes`]) and asks it once per allowed call; a sink
//! that does not want to record a call (no session, nothing to watch) answers `None` and the
//! call runs as if there were no sink.

use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use async_trait::async_trait;

use crate::beneath::OpenError;
use crate::confine::{ProjectRoot, ResolvedPath};
use crate::context::ToolContext;
use crate::tool::ToolError;

/// The largest file whose previous content is kept; a larger one is recorded by size and mode
/// only ([`Prior::TooLarge`]), so its change is listed but cannot be undone.
pub const MAX_PRIOR_BYTES: u64 = 64 * 1024 * 1024;

/// What a file was before a call changed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prior {
    /// Nothing was there.
    Absent,
    /// A regular file: its bytes and permission bits.
    File {
        /// The whole content.
        bytes: Vec<u8>,
        /// The permission bits (`mode & 0o7777`).
        mode: u32,
    },
    /// A regular file larger than [`MAX_PRIOR_BYTES`]: recorded, not kept.
    TooLarge {
        /// Its size in bytes.
        size: u64,
        /// The permission bits.
        mode: u32,
    },
}

impl Prior {
    /// What the project file `resolved` is now, read below the root's descriptor. A directory,
    /// a FIFO or a path that left the project is an error (no tool replaces those).
    pub fn read(project: &ProjectRoot, resolved: &ResolvedPath) -> io::Result<Self> {
        let (file, metadata) = match project.open_regular(resolved) {
            Ok(opened) => opened,
            Err(OpenError::NotFound) => return Ok(Self::Absent),
            Err(OpenError::Io(error)) => return Err(error),
            Err(other) => {
                return Err(io::Error::other(format!("{} {other}", resolved.relative())));
            }
        };
        let mode = metadata.permissions().mode() & 0o7777;
        let size = metadata.len();
        if size > MAX_PRIOR_BYTES {
            return Ok(Self::TooLarge { size, mode });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        file.take(MAX_PRIOR_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_PRIOR_BYTES {
            return Ok(Self::TooLarge {
                size: bytes.len() as u64,
                mode,
            });
        }
        Ok(Self::File { bytes, mode })
    }
}

/// How the sink learns what an allowed call changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeWatch {
    /// The tool reports each file before it replaces it ([`CallChanges::before_write`]).
    Reported,
    /// The tool's effects are opaque (a command, an MCP tool): compare the project before and
    /// after the call.
    Snapshot,
}

/// An allowed call that may change files, as the sink sees it.
#[derive(Debug, Clone, Copy)]
pub struct ChangeCall<'a> {
    /// The session the call belongs to (`None` for a detached call).
    pub session_id: Option<&'a str>,
    /// The call's id.
    pub call_id: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// How its changes are found.
    pub watch: ChangeWatch,
}

/// Why a change could not be recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ChangeError(pub String);

/// Where the changes of a project's calls go (the engine's checkpoints).
#[async_trait]
pub trait ChangeSink: Send + Sync {
    /// An allowed call that may change files is about to run. For [`ChangeWatch::Snapshot`]
    /// the sink looks at the project *now*, before returning. `None`: nothing is recorded for
    /// this call.
    async fn call_started(&self, call: &ChangeCall<'_>) -> Option<Arc<dyn CallChanges>>;
}

/// The change record of one running call.
#[async_trait]
pub trait CallChanges: Send + Sync {
    /// The tool is about to replace, create or delete the project file `path`, which is
    /// `prior` now. An error means the previous state could not be kept: the tool must not
    /// write.
    async fn before_write(&self, path: &ResolvedPath, prior: Prior) -> Result<(), ChangeError>;

    /// The call ended (well, badly or cancelled): the sink finds the after-state of what it
    /// watched. Called exactly once, by the manager.
    async fn finished(&self);
}

/// A sink that records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoChanges;

#[async_trait]
impl ChangeSink for NoChanges {
    async fn call_started(&self, _call: &ChangeCall<'_>) -> Option<Arc<dyn CallChanges>> {
        None
    }
}

/// Reports the project file `resolved` to the call's change record before a tool replaces it:
/// reads what is there now and hands it over. Without a record (no checkpoints) it does
/// nothing. An error is the tool's: the file must not be written.
pub(crate) async fn record_prior(
    ctx: &ToolContext,
    resolved: &ResolvedPath,
) -> Result<(), ToolError> {
    let Some(changes) = ctx.changes() else {
        return Ok(());
    };
    let (project, target) = (ctx.project().clone(), resolved.clone());
    let display = resolved.relative().to_owned();
    let prior = tokio::task::spawn_blocking(move || Prior::read(&project, &target))
        .await
        .map_err(|_| ToolError::new(format!("reading {display} failed unexpectedly")))?
        .map_err(|error| ToolError::new(format!("cannot read {display}: {error}")))?;
    changes
        .before_write(resolved, prior)
        .await
        .map_err(|error| {
            ToolError::new(format!(
                "{display} was not changed: its previous content could not be kept for undo \
                 ({error})"
            ))
        })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_prior_state_is_the_content_and_mode_or_absence() {
        let dir = tempfile::tempdir().unwrap();
        let project = ProjectRoot::new(dir.path()).unwrap();
        fs::write(dir.path().join("a.sh"), "echo\r\n").unwrap();
        fs::set_permissions(dir.path().join("a.sh"), fs::Permissions::from_mode(0o754)).unwrap();
        let a = project.resolve("a.sh").unwrap();
        assert_eq!(
            Prior::read(&project, &a).unwrap(),
            Prior::File {
                bytes: b"echo\r\n".to_vec(),
                mode: 0o754
            }
        );
        let missing = project.resolve("new/b.txt").unwrap();
        assert_eq!(Prior::read(&project, &missing).unwrap(), Prior::Absent);
        fs::create_dir(dir.path().join("d")).unwrap();
        let folder = project.resolve("d").unwrap();
        assert!(Prior::read(&project, &folder).is_err());
    }
}
