//! Atomic file replacement: the old file stays whole until the new one is complete on disk.
//!
//! A tool that writes a file in place (`File::create` + write) leaves a truncated or half-written
//! file behind when it fails midway — disk full, a permission error, the process killed — and an
//! editor or build watching the file can read it half-written. Instead the new content goes to a
//! temporary file in the *same directory* (a rename is only atomic within one file system),
//! which is flushed to disk (`fsync`) and given the old file's permissions before it is renamed
//! over the target; the directory is then synced so the rename itself survives a crash. Readers
//! see the old file or the new one, never a mix. If anything fails before the rename, the
//! temporary file is removed and the target is untouched.
//!
//! Kept: the permission bits of an existing file. Not kept: its owner (changing it needs
//! privileges), extended attributes and ACLs, and hard links (the target becomes a new inode,
//! so other names of the old inode keep the old content). New files get the usual `0o666`
//! minus the process umask, like any other program creating a file. The caller passes a real
//! path (symlinks already resolved by [`crate::confine`]), so writing "through" a symlink
//! replaces its target and leaves the link in place.

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::ledger::FileStamp;

/// The temporary file's name starts with this (then random characters, then [`TEMP_SUFFIX`]),
/// so watchers can recognise and ignore Gantry's in-flight writes.
pub const TEMP_PREFIX: &str = ".gantry-";
/// The temporary file's name ends with this.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Why an atomic write failed. In every case the target file is as it was.
#[derive(Debug, thiserror::Error)]
pub enum AtomicWriteError {
    /// The path has no parent directory (the file system root).
    #[error("'{}' has no parent directory", .0.display())]
    NoParent(PathBuf),
    /// The target exists and is a directory.
    #[error("'{}' is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// The target exists and is not a regular file (a FIFO, a socket, a device).
    #[error("'{}' is not a regular file", .0.display())]
    NotRegularFile(PathBuf),
    /// The parent directories could not be created.
    #[error("cannot create directory '{}': {source}", .dir.display())]
    CreateDir {
        /// The directory that was to be created.
        dir: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file changed on disk after the caller read it (see [`write_atomic_if_unchanged`]).
    #[error("'{}' changed on disk while it was being written", .0.display())]
    Changed(PathBuf),
    /// Creating, writing, syncing or renaming the temporary file failed.
    #[error("{source}")]
    Io {
        /// The underlying error.
        #[from]
        source: io::Error,
    },
}

impl AtomicWriteError {
    /// The failure as the model reads it, naming the file by its project-relative `display`
    /// path (the variants themselves carry absolute paths, for logs).
    pub fn describe(&self, display: &str) -> String {
        match self {
            Self::IsDirectory(_) | Self::NoParent(_) => format!("{display} is a directory"),
            Self::NotRegularFile(_) => format!("{display} is not a regular file"),
            Self::CreateDir { source, .. } => {
                format!("cannot create the parent directories of {display}: {source}")
            }
            Self::Changed(_) => format!(
                "{display} changed on disk while it was being written; nothing was written, try again"
            ),
            Self::Io { source } => format!("cannot write {display}: {source}"),
        }
    }
}

/// Replaces (or creates) the file at `path` with `bytes`, atomically; see the module docs.
/// Creates missing parent directories.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    write_atomic_with(path, None, |file| file.write_all(bytes))
}

/// [`write_atomic`], refused with [`AtomicWriteError::Changed`] when the file's stamp is no
/// longer `expected` just before the rename — the file was changed by someone else since the
/// caller read it, and renaming over it would lose that change.
pub fn write_atomic_if_unchanged(
    path: &Path,
    bytes: &[u8],
    expected: FileStamp,
) -> Result<(), AtomicWriteError> {
    write_atomic_with(path, Some(expected), |file| file.write_all(bytes))
}

/// The general form: `fill` writes the content into the temporary file. A `fill` that fails
/// leaves the target untouched (which is how the failure path is tested).
pub fn write_atomic_with(
    path: &Path,
    expected: Option<FileStamp>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), AtomicWriteError> {
    let dir = path
        .parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .ok_or_else(|| AtomicWriteError::NoParent(path.to_owned()))?;
    let existing = match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(AtomicWriteError::IsDirectory(path.to_owned()));
        }
        Ok(metadata) if !metadata.is_file() => {
            return Err(AtomicWriteError::NotRegularFile(path.to_owned()));
        }
        Ok(metadata) => Some(metadata.permissions()),
        // NotADirectory: a parent is a file; creating the directories below says so.
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            None
        }
        Err(error) => return Err(error.into()),
    };
    fs::create_dir_all(dir).map_err(|source| AtomicWriteError::CreateDir {
        dir: dir.to_owned(),
        source,
    })?;

    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    // A new file gets 0o666 minus the umask, as `File::create` would (tempfile's default is
    // 0o600); an existing file's mode is set exactly below (creation modes are masked by the
    // umask).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    fill(temp.as_file_mut())?;
    if let Some(permissions) = existing {
        temp.as_file().set_permissions(permissions)?;
    }
    temp.as_file().sync_all()?;
    if let Some(expected) = expected
        && FileStamp::of(path).ok() != Some(expected)
    {
        return Err(AtomicWriteError::Changed(path.to_owned()));
    }
    // On failure the returned error owns the temporary file, and dropping it removes it.
    temp.persist(path).map_err(|error| error.error)?;
    sync_dir(dir);
    Ok(())
}

/// Syncs a directory so a rename in it is durable. Best effort: some file systems refuse to
/// open or sync directories, and the data itself is already on disk by then.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(TEMP_PREFIX))
            .collect()
    }

    #[test]
    fn creates_a_new_file_and_its_parent_directories() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/new.txt");
        write_atomic(&path, b"hello\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"hello\n");
        assert!(leftovers(&dir.path().join("a/b")).is_empty());
    }

    #[test]
    fn a_new_file_gets_the_umask_default_not_the_temp_files_0600() {
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("reference");
        File::create(&reference).unwrap();
        let path = dir.path().join("new");
        write_atomic(&path, b"x").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&reference));
    }

    #[test]
    fn replaces_content_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o751)).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o751
        );
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_failure_while_writing_leaves_the_old_file_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keep.txt");
        fs::write(&path, "precious").unwrap();
        let result = write_atomic_with(&path, None, |file| {
            file.write_all(b"half of the new con")?;
            Err(io::Error::other("disk full"))
        });
        assert_eq!(result.unwrap_err().to_string(), "disk full");
        assert_eq!(fs::read(&path).unwrap(), b"precious");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_directory_target_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inner"), "x").unwrap();
        let error = write_atomic(&target, b"x").unwrap_err();
        assert!(matches!(error, AtomicWriteError::IsDirectory(_)), "{error}");
        assert_eq!(fs::read(target.join("inner")).unwrap(), b"x");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_parent_that_is_a_file_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        let error = write_atomic(&dir.path().join("file/child"), b"y").unwrap_err();
        assert!(
            matches!(error, AtomicWriteError::CreateDir { .. }),
            "{error}"
        );
        assert_eq!(fs::read(dir.path().join("file")).unwrap(), b"x");
    }

    #[test]
    fn a_read_only_directory_fails_and_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("ro");
        fs::create_dir(&sub).unwrap();
        let path = sub.join("f.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&sub, Permissions::from_mode(0o555)).unwrap();
        // Root ignores directory permissions; the check only means something for other users.
        let probe = File::create(sub.join("probe")).is_ok();
        if !probe {
            assert!(write_atomic(&path, b"new").is_err());
            assert_eq!(fs::read(&path).unwrap(), b"old");
            assert!(leftovers(&sub).is_empty());
        }
        fs::set_permissions(&sub, Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn a_file_changed_since_it_was_read_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        fs::write(&path, "as read").unwrap();
        let stamp = FileStamp::of(&path).unwrap();
        write_atomic_if_unchanged(&path, b"edited", stamp).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"edited");

        let stamp = FileStamp::of(&path).unwrap();
        fs::write(&path, "someone else, longer").unwrap();
        let error = write_atomic_if_unchanged(&path, b"mine", stamp).unwrap_err();
        assert!(matches!(error, AtomicWriteError::Changed(_)), "{error}");
        assert_eq!(fs::read(&path).unwrap(), b"someone else, longer");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn writing_through_the_resolved_path_of_a_symlink_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.txt");
        fs::write(&target, "old").unwrap();
        std::os::unix::fs::symlink("real.txt", dir.path().join("link")).unwrap();
        let resolved = fs::canonicalize(dir.path().join("link")).unwrap();
        write_atomic(&resolved, b"new").unwrap();
        assert!(
            fs::symlink_metadata(dir.path().join("link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(dir.path().join("link")).unwrap(), b"new");
    }
}
