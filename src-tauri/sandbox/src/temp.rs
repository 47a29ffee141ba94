//! The per-session private temporary folder.
//!
//! Inside the sandbox this folder *is* `/tmp` (and `TMPDIR` says so), so a command's scratch
//! files never meet another program's, the host's `/tmp` (X11, D-Bus and ssh-agent sockets,
//! other users' files) stays out of sight, and everything the session wrote there goes away
//! with the session. The folder is created mode 0700 under the system's temporary directory
//! (or a base the caller picks) and removed when the [`SessionTemp`] is closed or dropped.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Prefix of every session folder's name, so a stray one is recognisable.
pub const SESSION_TEMP_PREFIX: &str = "gantry-session-";

/// A private temporary folder for one session's sandboxed commands; removed on drop.
#[derive(Debug)]
pub struct SessionTemp {
    /// `None` once closed.
    dir: Option<tempfile::TempDir>,
    /// The canonical path (the sandbox binds by canonical path).
    path: PathBuf,
}

impl SessionTemp {
    /// Creates a new folder under the system's temporary directory (`$TMPDIR` or `/tmp`).
    pub fn new() -> io::Result<Self> {
        Self::new_in(std::env::temp_dir())
    }

    /// Creates a new folder under `base`, which must exist.
    pub fn new_in(base: impl AsRef<Path>) -> io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix(SESSION_TEMP_PREFIX)
            .permissions(fs::Permissions::from_mode(0o700))
            .tempdir_in(base)?;
        let path = dir.path().canonicalize()?;
        Ok(Self {
            dir: Some(dir),
            path,
        })
    }

    /// The folder's canonical path on the host.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the folder and everything in it, reporting a failure (dropping does the same
    /// but can only log it).
    pub fn close(mut self) -> io::Result<()> {
        self.remove()
    }

    fn remove(&mut self) -> io::Result<()> {
        let Some(dir) = self.dir.take() else {
            return Ok(());
        };
        // A command may have left folders without write or search permission (`chmod 0`),
        // which would stop the removal half way: give the owner full access first.
        let path = dir.keep();
        make_removable(&path);
        fs::remove_dir_all(&path)
    }
}

impl Drop for SessionTemp {
    fn drop(&mut self) {
        if let Err(error) = self.remove() {
            tracing::warn!(path = %self.path.display(), %error, "could not remove a session's temporary folder");
        }
    }
}

/// Gives the owner read, write and search permission on every folder under `path` (links are
/// not followed), ignoring what cannot be changed: the removal that follows reports failures.
fn make_removable(path: &Path) {
    let Ok(metadata) = fs::symlink_metadata(path) else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    if metadata.permissions().mode() & 0o700 != 0o700 {
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o700));
    }
    if let Ok(entries) = fs::read_dir(path) {
        for entry in entries.flatten() {
            make_removable(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_private_and_goes_away_on_drop_even_when_locked() {
        let temp = SessionTemp::new().unwrap();
        let path = temp.path().to_path_buf();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(SESSION_TEMP_PREFIX)
        );
        let locked = path.join("a/b");
        fs::create_dir_all(&locked).unwrap();
        fs::write(locked.join("f"), "x").unwrap();
        fs::set_permissions(path.join("a"), fs::Permissions::from_mode(0o000)).unwrap();
        drop(temp);
        assert!(!path.exists());
    }

    #[test]
    fn close_removes_the_folder() {
        let base = tempfile::tempdir().unwrap();
        let temp = SessionTemp::new_in(base.path()).unwrap();
        let path = temp.path().to_path_buf();
        fs::write(path.join("f"), "x").unwrap();
        temp.close().unwrap();
        assert!(!path.exists());
        assert!(base.path().exists());
    }
}
