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
//! minus the process umask, like any other program creating a file.
//!
//! Where the write lands ([`Target`]): a file in a project is written *below the project
//! root's descriptor* ([`write_atomic_beneath`]): its directory is opened (and created) with
//! `openat2(RESOLVE_BENEATH)` ([`crate::beneath`]), and the temporary file, the check of the
//! old file, the rename and the sync all take single names relative to that directory's
//! descriptor, so a folder swapped for a symlink after the path was checked cannot send the
//! write elsewhere. The path is the resolved one (symlinks already followed by
//! [`crate::confine`]), so writing "through" a symlink replaces its target and leaves the link
//! in place. Gantry's own files outside any project (an audit export, a config file) are
//! written by plain path with [`write_atomic`]; nothing confines those.

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::beneath::{Strategy, create_dirs_beneath, is_outside};
use crate::confine::{ProjectRoot, ResolvedPath};
use crate::ledger::FileStamp;

/// The temporary file's name starts with this (then random characters, then [`TEMP_SUFFIX`]),
/// so watchers can recognise and ignore Gantry's in-flight writes.
pub const TEMP_PREFIX: &str = ".gantry-";
/// The temporary file's name ends with this.
pub const TEMP_SUFFIX: &str = ".tmp";
/// Random characters between [`TEMP_PREFIX`] and [`TEMP_SUFFIX`].
const TEMP_RANDOM_CHARS: usize = 6;
/// Names tried before giving up on creating the temporary file.
const TEMP_ATTEMPTS: usize = 64;

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
    /// The file changed on disk after the caller read it (see [`write_atomic_beneath`]).
    #[error("'{}' changed on disk while it was being written", .0.display())]
    Changed(PathBuf),
    /// Writing would have left the project: its tree changed since the path was checked (a
    /// folder on the way became a symlink out).
    #[error("'{}' is outside the project", .0.display())]
    Outside(PathBuf),
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
            Self::Outside(_) => format!("path '{display}' is outside the project"),
            Self::Io { source } => format!("cannot write {display}: {source}"),
        }
    }
}

/// Where an atomic write lands.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// A plain path, for Gantry's own files outside any project. Its parent directories are
    /// created and opened by path; a symlink as the last component is replaced by the file.
    Path(&'a Path),
    /// A resolved path in a project, written below the root's descriptor (see the module docs).
    Beneath(&'a ProjectRoot, &'a ResolvedPath),
}

/// Replaces (or creates) the file at the plain `path` with `bytes`, atomically; see the module
/// docs. Creates missing parent directories. For files in a project use
/// [`write_atomic_beneath`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    write_atomic_with(Target::Path(path), None, |file| file.write_all(bytes))
}

/// [`write_atomic`] for a file only its owner may read, whatever it was before (Gantry's own
/// files that can hold secrets: the MCP servers' file with their tokens and headers): the file
/// ends with mode 0600, and missing parent folders are created with mode 0700.
pub fn write_atomic_private(path: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};

    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|source| AtomicWriteError::CreateDir {
                dir: dir.to_owned(),
                source,
            })?;
    }
    write_atomic_as(Target::Path(path), None, Permissions::Private, |file| {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        file.write_all(bytes)
    })
}

/// Replaces (or creates) the project file `resolved` with `bytes`, atomically and below the
/// project root's descriptor. With `expected`, refused with [`AtomicWriteError::Changed`]
/// when the file's stamp is no longer `expected` just before the rename — someone else changed
/// the file since the caller read it, and renaming over it would lose that change.
pub fn write_atomic_beneath(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    bytes: &[u8],
    expected: Option<FileStamp>,
) -> Result<(), AtomicWriteError> {
    write_atomic_with(Target::Beneath(project, resolved), expected, |file| {
        file.write_all(bytes)
    })
}

/// Writes the project file `resolved` as exactly `bytes` with the permission bits `mode`,
/// atomically and below the root's descriptor: how a checkpoint puts a file back as it was
/// (its line endings and BOM are in `bytes`; the mode is the recorded one, not the current
/// file's). With `expected`, refused with [`AtomicWriteError::Changed`] when the file's stamp
/// is no longer `expected` just before the rename.
pub fn write_atomic_beneath_with_mode(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    bytes: &[u8],
    mode: u32,
    expected: Option<FileStamp>,
) -> Result<(), AtomicWriteError> {
    use std::os::unix::fs::PermissionsExt as _;

    write_atomic_as(
        Target::Beneath(project, resolved),
        expected,
        Permissions::Private,
        |file| {
            file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
            file.write_all(bytes)
        },
    )
}

/// Removes the project file `resolved`, below the root's descriptor: how a checkpoint undoes
/// the creation of a file. A file already gone is not an error. With `expected`, refused with
/// [`AtomicWriteError::Changed`] when the file's stamp is no longer `expected`. Only a regular
/// file is removed (a directory or a symlink swapped in is refused), and the directories that
/// held it stay.
pub fn remove_beneath(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    expected: Option<FileStamp>,
) -> Result<(), AtomicWriteError> {
    let shown = resolved.path().to_owned();
    let rel = resolved.beneath();
    let (Some(name), Some(parent)) = (rel.file_name(), rel.parent()) else {
        return Err(AtomicWriteError::IsDirectory(shown));
    };
    let dir = match crate::beneath::open_beneath(
        project.dir_fd(),
        parent,
        OFlags::RDONLY | OFlags::DIRECTORY,
        Strategy::current(),
    ) {
        Ok(dir) => dir,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) if is_outside(&error) => return Err(AtomicWriteError::Outside(shown)),
        Err(error) => return Err(error.into()),
    };
    let metadata = match rustix::fs::openat(
        &dir,
        name,
        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => File::from(fd).metadata()?,
        Err(Errno::NOENT) => return Ok(()),
        Err(errno) => return Err(io::Error::from(errno).into()),
    };
    if metadata.is_dir() {
        return Err(AtomicWriteError::IsDirectory(shown));
    }
    if !metadata.is_file() {
        return Err(AtomicWriteError::NotRegularFile(shown));
    }
    if let Some(expected) = expected
        && FileStamp::from_metadata(&metadata) != expected
    {
        return Err(AtomicWriteError::Changed(shown));
    }
    match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => {}
        Err(errno) => return Err(io::Error::from(errno).into()),
    }
    let _ = rustix::fs::fsync(&dir);
    Ok(())
}

/// The general form: `fill` writes the content into the temporary file. A `fill` that fails
/// leaves the target untouched (which is how the failure path is tested).
pub fn write_atomic_with(
    target: Target<'_>,
    expected: Option<FileStamp>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), AtomicWriteError> {
    write_atomic_as(target, expected, Permissions::KeepExisting, fill)
}

/// Which permissions the new file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Permissions {
    /// The replaced file's (a new file: the process's default).
    KeepExisting,
    /// Whatever `fill` set (a private file, or a checkpoint's recorded mode).
    Private,
}

fn write_atomic_as(
    target: Target<'_>,
    expected: Option<FileStamp>,
    permissions: Permissions,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), AtomicWriteError> {
    let place = Place::open(target)?;
    let existing = match place.metadata() {
        Ok(metadata) if metadata.is_dir() => {
            return Err(AtomicWriteError::IsDirectory(place.shown));
        }
        Ok(metadata) if !metadata.is_file() => {
            return Err(AtomicWriteError::NotRegularFile(place.shown));
        }
        Ok(metadata) => Some(metadata.permissions()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error.into()),
    };
    let mut temp = TempFile::create(place.dir.as_fd())?;
    fill(&mut temp.file)?;
    if let (Some(old), Permissions::KeepExisting) = (existing, permissions) {
        temp.file.set_permissions(old)?;
    }
    temp.file.sync_all()?;
    if let Some(expected) = expected
        && place.metadata().ok().map(|m| FileStamp::from_metadata(&m)) != Some(expected)
    {
        return Err(AtomicWriteError::Changed(place.shown));
    }
    temp.rename_to(&place.name)?;
    // Best effort: some file systems refuse to sync directories, and the data itself is
    // already on disk by then.
    let _ = rustix::fs::fsync(&place.dir);
    Ok(())
}

/// The directory the target lives in (opened, created if missing) and its name there.
struct Place {
    dir: OwnedFd,
    name: OsString,
    /// The target's absolute path, for errors.
    shown: PathBuf,
    /// Follow a symlink as the last component when looking at the old file (plain paths only).
    follow: bool,
}

impl Place {
    fn open(target: Target<'_>) -> Result<Self, AtomicWriteError> {
        match target {
            Target::Path(path) => {
                let no_parent = || AtomicWriteError::NoParent(path.to_owned());
                let dir = path
                    .parent()
                    .filter(|dir| !dir.as_os_str().is_empty())
                    .ok_or_else(no_parent)?;
                let name = path.file_name().ok_or_else(no_parent)?;
                std::fs::create_dir_all(dir).map_err(|source| AtomicWriteError::CreateDir {
                    dir: dir.to_owned(),
                    source,
                })?;
                let dir = rustix::fs::open(
                    dir,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(io::Error::from)?;
                Ok(Self {
                    dir,
                    name: name.to_owned(),
                    shown: path.to_owned(),
                    follow: true,
                })
            }
            Target::Beneath(project, resolved) => {
                let shown = resolved.path().to_owned();
                let rel = resolved.beneath();
                let (Some(name), Some(parent)) = (rel.file_name(), rel.parent()) else {
                    // The root itself.
                    return Err(AtomicWriteError::IsDirectory(shown));
                };
                let dir = create_dirs_beneath(project.dir_fd(), parent, Strategy::current())
                    .map_err(|source| {
                        if is_outside(&source) {
                            AtomicWriteError::Outside(shown.clone())
                        } else {
                            AtomicWriteError::CreateDir {
                                dir: shown.parent().unwrap_or(&shown).to_owned(),
                                source,
                            }
                        }
                    })?;
                Ok(Self {
                    dir,
                    name: name.to_owned(),
                    shown,
                    follow: false,
                })
            }
        }
    }

    /// The metadata of the file now at the target's name (without following a symlink there,
    /// for a project file: one could only have been swapped in, and is refused as not regular).
    fn metadata(&self) -> io::Result<Metadata> {
        let mut flags = OFlags::PATH | OFlags::CLOEXEC;
        if !self.follow {
            flags |= OFlags::NOFOLLOW;
        }
        let fd = rustix::fs::openat(&self.dir, &self.name, flags, Mode::empty())?;
        File::from(fd).metadata()
    }
}

/// The temporary file, removed when dropped unless it was renamed into place.
struct TempFile<'d> {
    dir: BorrowedFd<'d>,
    name: OsString,
    file: File,
    renamed: bool,
}

impl<'d> TempFile<'d> {
    /// Creates a new, empty temporary file in `dir` (mode `0o666` minus the umask, as
    /// `File::create` would, so a new target gets the usual mode).
    fn create(dir: BorrowedFd<'d>) -> io::Result<Self> {
        let mut last = io::Error::from(Errno::EXIST);
        for _ in 0..TEMP_ATTEMPTS {
            let name = temp_name();
            match rustix::fs::openat(
                dir,
                &name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o666),
            ) {
                Ok(fd) => {
                    return Ok(Self {
                        dir,
                        name,
                        file: File::from(fd),
                        renamed: false,
                    });
                }
                Err(Errno::EXIST) => last = Errno::EXIST.into(),
                Err(errno) => return Err(errno.into()),
            }
        }
        Err(last)
    }

    /// Renames the temporary file over `name` in the same directory.
    fn rename_to(&mut self, name: &OsStr) -> io::Result<()> {
        rustix::fs::renameat(self.dir, &self.name, self.dir, name)?;
        self.renamed = true;
        Ok(())
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = rustix::fs::unlinkat(self.dir, &self.name, AtFlags::empty());
        }
    }
}

/// A fresh temporary name: [`TEMP_PREFIX`], random letters and digits, [`TEMP_SUFFIX`]. The
/// randomness is std's per-process hash keys over a counter; `O_EXCL` settles collisions.
fn temp_name() -> OsString {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    let mut bits = hasher.finish();
    let mut name = String::from(TEMP_PREFIX);
    for _ in 0..TEMP_RANDOM_CHARS {
        name.push(char::from(
            ALPHABET[(bits % ALPHABET.len() as u64) as usize],
        ));
        bits /= ALPHABET.len() as u64;
    }
    name.push_str(TEMP_SUFFIX);
    name.into()
}

#[cfg(test)]
mod tests {
    use std::fs::{self, Permissions};
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
        let result = write_atomic_with(Target::Path(&path), None, |file| {
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
        let if_unchanged = |bytes: &'static [u8], stamp| {
            write_atomic_with(Target::Path(&path), Some(stamp), |file| {
                file.write_all(bytes)
            })
        };
        let stamp = FileStamp::of(&path).unwrap();
        if_unchanged(b"edited", stamp).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"edited");

        let stamp = FileStamp::of(&path).unwrap();
        fs::write(&path, "someone else, longer").unwrap();
        let error = if_unchanged(b"mine", stamp).unwrap_err();
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

    /// A project with `sub/old.txt` (mode 0o640, CRLF, BOM) and a folder outside it.
    fn project() -> (tempfile::TempDir, PathBuf, ProjectRoot) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(base.join("proj/sub")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        let old = base.join("proj/sub/old.txt");
        fs::write(&old, b"\xEF\xBB\xBFa\r\n").unwrap();
        fs::set_permissions(&old, Permissions::from_mode(0o640)).unwrap();
        let project = ProjectRoot::new(base.join("proj")).unwrap();
        (tmp, base, project)
    }

    #[test]
    fn beneath_the_root_creates_directories_and_keeps_permissions() {
        let (_tmp, base, project) = project();
        let new = project.resolve("sub/x/y/new.txt").unwrap();
        write_atomic_beneath(&project, &new, b"new\n", None).unwrap();
        assert_eq!(
            fs::read(base.join("proj/sub/x/y/new.txt")).unwrap(),
            b"new\n"
        );

        let old = project.resolve("sub/old.txt").unwrap();
        let stamp = FileStamp::of(old.path()).unwrap();
        write_atomic_beneath(&project, &old, b"\xEF\xBB\xBFb\r\n", Some(stamp)).unwrap();
        assert_eq!(fs::read(old.path()).unwrap(), b"\xEF\xBB\xBFb\r\n");
        let mode = fs::metadata(old.path()).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        let error = write_atomic_beneath(&project, &old, b"c", Some(stamp)).unwrap_err();
        assert!(matches!(error, AtomicWriteError::Changed(_)), "{error}");
        assert!(leftovers(&base.join("proj/sub")).is_empty());

        let root = project.resolve(".").unwrap();
        let error = write_atomic_beneath(&project, &root, b"x", None).unwrap_err();
        assert_eq!(error.describe("."), ". is a directory");
    }

    #[test]
    fn beneath_the_root_a_folder_swapped_for_a_symlink_out_is_refused() {
        // The path is resolved while `sub` is a real folder, then `sub` becomes a symlink to
        // the outside folder before the write: the write must not follow it.
        let (_tmp, base, project) = project();
        let targets = [
            project.resolve("sub/old.txt").unwrap(),
            project.resolve("sub/new.txt").unwrap(),
            project.resolve("sub/deeper/new.txt").unwrap(),
        ];
        fs::rename(base.join("proj/sub"), base.join("proj/moved")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), base.join("proj/sub")).unwrap();
        for target in &targets {
            let error = write_atomic_beneath(&project, target, b"x", None).unwrap_err();
            assert!(matches!(error, AtomicWriteError::Outside(_)), "{error}");
            assert_eq!(
                error.describe(target.relative()),
                format!("path '{}' is outside the project", target.relative())
            );
        }
        assert!(fs::read_dir(base.join("outside")).unwrap().next().is_none());
    }

    #[test]
    fn beneath_the_root_a_symlink_swapped_in_as_the_file_is_left_alone() {
        let (_tmp, base, project) = project();
        let old = project.resolve("sub/old.txt").unwrap();
        fs::write(base.join("outside/secret"), "secret").unwrap();
        fs::remove_file(old.path()).unwrap();
        std::os::unix::fs::symlink(base.join("outside/secret"), old.path()).unwrap();
        let error = write_atomic_beneath(&project, &old, b"x", None).unwrap_err();
        assert!(
            matches!(error, AtomicWriteError::NotRegularFile(_)),
            "{error}"
        );
        assert!(fs::symlink_metadata(old.path()).unwrap().is_symlink());
        assert_eq!(fs::read(base.join("outside/secret")).unwrap(), b"secret");
        assert!(leftovers(&base.join("proj/sub")).is_empty());
    }

    #[test]
    fn temporary_names_differ_and_follow_the_pattern() {
        let names: std::collections::BTreeSet<String> = (0..1000)
            .map(|_| temp_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 1000);
        for name in &names {
            assert!(
                name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX),
                "{name}"
            );
            assert_eq!(
                name.len(),
                TEMP_PREFIX.len() + TEMP_RANDOM_CHARS + TEMP_SUFFIX.len()
            );
        }
    }

    #[test]
    fn a_private_write_leaves_a_file_only_its_owner_can_read() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/config/mcp.json");
        write_atomic_private(&path, b"{}").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().unwrap()), 0o700);
        // An existing file readable by others is made private too.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_atomic_private(&path, b"{\"a\": 1}").unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 1}");
        // A plain atomic write keeps the permissions it found.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"x").unwrap();
        assert_eq!(mode(&path), 0o640);
    }
}
