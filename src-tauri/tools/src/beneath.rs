//! Opening files under the project root by descriptor, so that what was checked is what is used.
//!
//! [`crate::confine`] resolves a model's path to a symlink-free place inside the project, but
//! only as of the moment it looked. Opening the resulting absolute path a moment later lets
//! anyone who can rename things in the project (another program of the user, a command the
//! agent started in the background) swap a checked folder for a symlink to `~/.ssh` in
//! between; the open would follow it. Here every open starts from the descriptor of the
//! project root that [`ProjectRoot`] holds and walks the *resolved* path below it with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: the kernel refuses (`EXDEV`) any step
//! that would leave the root — a `..` above it, an absolute symlink, a relative one that
//! climbs out — at the moment of the open, atomically. Directories are created with `mkdirat`
//! in a directory opened that way, temporary files with `openat(O_CREAT | O_EXCL)` in it, and
//! the atomic replace is a `renameat` within it ([`crate::fsutil::atomic`]): single names
//! relative to a descriptor, which no swap of a path can redirect.
//!
//! # Why rustix's `openat2` and not cap-std
//!
//! cap-std would do the same on Linux (it uses `openat2(RESOLVE_BENEATH)` when the kernel has
//! it) but it would bring its own resolution rules — it refuses every absolute symlink, while
//! Gantry accepts one that names a place inside the project, and has its own messages — plus
//! half a dozen crates (cap-primitives, io-lifetimes, ambient-authority, fs-set-times, and
//! cap-tempfile for the temporary file). Gantry already resolves paths by its own tested rules
//! and already depends on rustix; what was missing is only the descriptor-relative use of the
//! result, which is one system call per open.
//!
//! # Kernels without `openat2` (Linux < 5.6, or a seccomp filter that hides it)
//!
//! Probed once per process. Without it the open walks the resolved path one component at a
//! time with `openat(O_NOFOLLOW)` from the root's descriptor, refusing any symlink it meets.
//! That is complete, not a weaker guess: the resolved path has no symlinks and no `..` when it
//! is checked, so a symlink met later can only be one swapped in since — refused whether it
//! points in or out. It costs one `openat` per component instead of one call.

use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use rustix::fs::{AtFlags, CWD, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use crate::confine::{ProjectRoot, ResolvedPath};

/// How every open below the root resolves: never above the root, never through `/proc` magic
/// links.
const RESOLVE: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);

/// `openat2` answers `EAGAIN` when a rename elsewhere on the system raced with a `..` it had to
/// check; it is retried this many times before giving up.
const AGAIN_RETRIES: usize = 32;

/// The flags a directory is opened with to create things in it and sync it.
const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY);

/// How opens below the root are done on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// One `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`.
    Openat2,
    /// `openat(O_NOFOLLOW)` per component, refusing symlinks (no `openat2` available).
    Walk,
}

impl Strategy {
    /// The strategy for this process: `openat2` unless the kernel (or a seccomp filter) lacks
    /// it. Probed once.
    pub(crate) fn current() -> Self {
        static CURRENT: OnceLock<Strategy> = OnceLock::new();
        *CURRENT.get_or_init(|| {
            let probe = rustix::fs::openat2(
                CWD,
                ".",
                OFlags::PATH | OFlags::CLOEXEC,
                Mode::empty(),
                RESOLVE,
            );
            match probe {
                Err(Errno::NOSYS | Errno::PERM) => {
                    tracing::warn!(
                        "openat2 is not available; files are opened one path component at a time"
                    );
                    Self::Walk
                }
                _ => Self::Openat2,
            }
        })
    }
}

/// Why a file could not be opened for reading.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Nothing there (or a component is not a directory).
    #[error("does not exist")]
    NotFound,
    /// A directory.
    #[error("is a directory")]
    Directory,
    /// A FIFO, socket, device or symlink: reading it could block, never end or leave.
    #[error("is not a regular file")]
    NotRegular,
    /// Opening it would have left the project: the tree changed since the path was checked.
    #[error("is outside the project")]
    Outside,
    /// Anything else.
    #[error(transparent)]
    Io(io::Error),
}

impl OpenError {
    /// Classifies an error of an open below the root.
    pub fn from_io(error: io::Error) -> Self {
        match error.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Self::NotFound,
            _ if is_outside(&error) => Self::Outside,
            _ => Self::Io(error),
        }
    }
}

/// True for the error an open below the root fails with when it would have left the root.
pub(crate) fn is_outside(error: &io::Error) -> bool {
    error.raw_os_error() == Some(Errno::XDEV.raw_os_error())
}

impl ProjectRoot {
    /// The metadata of what `resolved` names, looked up below the root's descriptor (a symlink
    /// inside the project is followed; nothing outside is reached).
    pub fn metadata_beneath(&self, resolved: &ResolvedPath) -> io::Result<Metadata> {
        let fd = open_beneath(
            self.dir_fd(),
            resolved.beneath(),
            OFlags::PATH,
            Strategy::current(),
        )?;
        File::from(fd).metadata()
    }

    /// Opens the regular file `resolved` names for reading, below the root's descriptor, with
    /// its metadata (taken from the open file). Looks before opening, so that a FIFO or a
    /// device in the project is never opened, and checks the opened file again (opened
    /// non-blocking, so a FIFO swapped in meanwhile cannot hang the call).
    pub fn open_regular(&self, resolved: &ResolvedPath) -> Result<(File, Metadata), OpenError> {
        let metadata = self
            .metadata_beneath(resolved)
            .map_err(OpenError::from_io)?;
        if metadata.is_dir() {
            return Err(OpenError::Directory);
        }
        if !metadata.is_file() {
            return Err(OpenError::NotRegular);
        }
        open_listed_file(self.dir_fd(), resolved.beneath())
    }
}

impl ProjectRoot {
    /// Opens the regular file at `rel` (a path below the root that a walk of the project
    /// listed, without `..`) for reading, below the root's descriptor, with its metadata: how
    /// Gantry reads the files of its own walks (checkpoints' snapshots) without following a
    /// symlink swapped in since.
    pub fn open_listed(&self, rel: &Path) -> Result<(File, Metadata), OpenError> {
        open_listed_file(self.dir_fd(), rel)
    }
}

/// Opens the regular file at `rel` below `root` for reading, without looking first (for files
/// a directory listing already said are regular), and returns it with its metadata.
pub(crate) fn open_listed_file(
    root: BorrowedFd<'_>,
    rel: &Path,
) -> Result<(File, Metadata), OpenError> {
    let fd = open_beneath(
        root,
        rel,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY,
        Strategy::current(),
    )
    .map_err(OpenError::from_io)?;
    let file = File::from(fd);
    let metadata = file.metadata().map_err(OpenError::Io)?;
    if metadata.is_dir() {
        return Err(OpenError::Directory);
    }
    if !metadata.is_file() {
        return Err(OpenError::NotRegular);
    }
    // O_NONBLOCK stays: it has no effect on regular files (open(2)), and clearing it would
    // cost a system call per file of a search.
    Ok((file, metadata))
}

/// Opens the directory `rel` below `root` (created with its missing parents, as
/// `create_dir_all` would), readable so that it can be synced. Every directory is created with
/// `mkdirat` in a directory opened below the root, and opened again below the root after.
pub(crate) fn create_dirs_beneath(
    root: BorrowedFd<'_>,
    rel: &Path,
    strategy: Strategy,
) -> io::Result<OwnedFd> {
    match open_beneath(root, rel, DIR_FLAGS, strategy) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let mut prefix = PathBuf::new();
    let mut dir = open_beneath(root, Path::new(""), DIR_FLAGS, strategy)?;
    for name in names(rel)? {
        prefix.push(name);
        match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(errno) => return Err(errno.into()),
        }
        dir = open_beneath(root, &prefix, DIR_FLAGS, strategy)?;
    }
    Ok(dir)
}

/// Opens `rel` — a relative path of plain names below the directory `root`, as
/// [`ResolvedPath::beneath`] gives (empty for `root` itself) — with `flags` (`O_CLOEXEC` is
/// added), never resolving outside `root`: an escape fails with `EXDEV`.
pub(crate) fn open_beneath(
    root: BorrowedFd<'_>,
    rel: &Path,
    flags: OFlags,
    strategy: Strategy,
) -> io::Result<OwnedFd> {
    let names = names(rel)?;
    let flags = flags | OFlags::CLOEXEC;
    match strategy {
        Strategy::Openat2 => {
            let rel = if names.is_empty() {
                Path::new(".")
            } else {
                rel
            };
            let mut again = 0;
            loop {
                match rustix::fs::openat2(root, rel, flags, Mode::empty(), RESOLVE) {
                    Err(Errno::AGAIN) if again < AGAIN_RETRIES => again += 1,
                    result => return result.map_err(io::Error::from),
                }
            }
        }
        Strategy::Walk => walk(root, &names, flags),
    }
}

/// The plain names of `rel`; anything that could climb or restart (`..`, `/`) is an escape.
fn names(rel: &Path) -> io::Result<Vec<&std::ffi::OsStr>> {
    rel.components()
        .filter(|component| *component != Component::CurDir)
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            _ => Err(io::Error::from(Errno::XDEV)),
        })
        .collect()
}

/// The fallback: one `openat(O_NOFOLLOW)` per name from `root`, any symlink refused.
fn walk(root: BorrowedFd<'_>, names: &[&std::ffi::OsStr], flags: OFlags) -> io::Result<OwnedFd> {
    let Some((last, parents)) = names.split_last() else {
        return rustix::fs::openat(root, ".", flags, Mode::empty()).map_err(io::Error::from);
    };
    let mut dir: Option<OwnedFd> = None;
    for name in parents {
        let at = dir.as_ref().map_or(root, AsFd::as_fd);
        let next = rustix::fs::openat(
            at,
            *name,
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let kind = rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(&next)?.st_mode);
        match kind {
            rustix::fs::FileType::Directory => dir = Some(next),
            rustix::fs::FileType::Symlink => return Err(Errno::XDEV.into()),
            _ => return Err(Errno::NOTDIR.into()),
        }
    }
    let at = dir.as_ref().map_or(root, AsFd::as_fd);
    let is_symlink = |fd: BorrowedFd<'_>, name: &std::ffi::OsStr| {
        rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::Symlink
        })
    };
    match rustix::fs::openat(at, *last, flags | OFlags::NOFOLLOW, Mode::empty()) {
        // O_NOFOLLOW fails with ELOOP on a symlink, or ENOTDIR with O_DIRECTORY.
        Err(Errno::LOOP | Errno::NOTDIR) if is_symlink(at, last) => Err(Errno::XDEV.into()),
        Err(errno) => Err(errno.into()),
        // With O_PATH, O_NOFOLLOW opens the symlink itself instead of failing.
        Ok(_) if flags.contains(OFlags::PATH) && is_symlink(at, last) => Err(Errno::XDEV.into()),
        Ok(fd) => Ok(fd),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    use super::*;

    const BOTH: [Strategy; 2] = [Strategy::Openat2, Strategy::Walk];

    /// `proj/` with `a/b/c.txt`, a FIFO, and symlinks that only a race could put on a resolved
    /// path: one out (absolute), one out (relative), one inside; `outside/secret.txt` next to it.
    fn layout() -> (tempfile::TempDir, PathBuf, ProjectRoot) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/c.txt"), "inside").unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("outside/secret.txt"), "OUTSIDE").unwrap();
        symlink(base.join("outside"), root.join("out_abs")).unwrap();
        symlink("../outside", root.join("out_rel")).unwrap();
        symlink("a", root.join("in_rel")).unwrap();
        rustix::fs::mknodat(
            CWD,
            root.join("fifo"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let project = ProjectRoot::new(&root).unwrap();
        (tmp, root, project)
    }

    fn read(fd: OwnedFd) -> String {
        let mut text = String::new();
        File::from(fd).read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn opens_plain_paths_below_the_root_with_either_strategy() {
        let (_tmp, _root, project) = layout();
        for strategy in BOTH {
            let fd = open_beneath(
                project.dir_fd(),
                Path::new("a/b/c.txt"),
                OFlags::RDONLY,
                strategy,
            )
            .unwrap();
            assert_eq!(read(fd), "inside", "{strategy:?}");
            let dir = open_beneath(project.dir_fd(), Path::new(""), DIR_FLAGS, strategy);
            assert!(dir.is_ok(), "{strategy:?}: the root itself");
            let missing = open_beneath(
                project.dir_fd(),
                Path::new("a/nope"),
                OFlags::RDONLY,
                strategy,
            )
            .unwrap_err();
            assert_eq!(missing.kind(), io::ErrorKind::NotFound, "{strategy:?}");
        }
    }

    #[test]
    fn a_symlink_out_on_the_way_is_refused_as_outside_with_either_strategy() {
        let (_tmp, _root, project) = layout();
        for strategy in BOTH {
            for rel in [
                "out_abs/secret.txt",
                "out_rel/secret.txt",
                "out_abs",
                "../outside/secret.txt",
                "/etc/passwd",
            ] {
                for flags in [OFlags::RDONLY, OFlags::PATH, DIR_FLAGS] {
                    let error = open_beneath(project.dir_fd(), Path::new(rel), flags, strategy)
                        .unwrap_err();
                    assert!(is_outside(&error), "{strategy:?} {rel} {flags:?}: {error}");
                }
            }
        }
    }

    #[test]
    fn a_symlink_inside_is_followed_by_openat2_and_refused_by_the_walk() {
        // Resolved paths carry no symlinks; one met at open time was swapped in. openat2 may
        // follow it while it stays below the root; the fallback refuses all of them.
        let (_tmp, _root, project) = layout();
        let rel = Path::new("in_rel/b/c.txt");
        let fd = open_beneath(project.dir_fd(), rel, OFlags::RDONLY, Strategy::Openat2).unwrap();
        assert_eq!(read(fd), "inside");
        let error =
            open_beneath(project.dir_fd(), rel, OFlags::RDONLY, Strategy::Walk).unwrap_err();
        assert!(is_outside(&error), "{error}");
    }

    #[test]
    fn open_regular_refuses_directories_fifos_and_missing_files() {
        let (_tmp, _root, project) = layout();
        let resolve = |p: &str| project.resolve(p).unwrap();
        let (mut file, metadata) = project.open_regular(&resolve("a/b/c.txt")).unwrap();
        assert_eq!(metadata.len(), 6);
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "inside");
        assert!(matches!(
            project.open_regular(&resolve("a")),
            Err(OpenError::Directory)
        ));
        assert!(matches!(
            project.open_regular(&resolve("fifo")),
            Err(OpenError::NotRegular)
        ));
        assert!(matches!(
            project.open_regular(&resolve("a/b/c.txt/x")),
            Err(OpenError::NotFound)
        ));
        // Opening a FIFO listed as a file does not block either.
        assert!(matches!(
            open_listed_file(project.dir_fd(), Path::new("fifo")),
            Err(OpenError::NotRegular)
        ));
    }

    #[test]
    fn directories_are_created_below_the_root_and_never_through_a_symlink() {
        let (_tmp, root, project) = layout();
        for strategy in BOTH {
            let rel = format!("new-{strategy:?}/x/y");
            let dir = create_dirs_beneath(project.dir_fd(), Path::new(&rel), strategy).unwrap();
            assert!(root.join(&rel).is_dir());
            rustix::fs::fsync(&dir).unwrap();
            let error = create_dirs_beneath(project.dir_fd(), Path::new("out_abs/made"), strategy)
                .unwrap_err();
            assert!(is_outside(&error), "{strategy:?}: {error}");
            let error = create_dirs_beneath(project.dir_fd(), Path::new("a/b/c.txt/d"), strategy)
                .unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::NotADirectory, "{strategy:?}");
        }
        assert!(!root.join("../outside/made").exists());
    }

    #[test]
    fn the_root_descriptor_stays_on_the_folder_opened() {
        // Renaming the project folder (and putting a decoy at its old path) does not move
        // where the tools read: the descriptor is the folder, not its name.
        let (_tmp, root, project) = layout();
        let moved = root.with_file_name("moved");
        fs::rename(&root, &moved).unwrap();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::write(root.join("a/b/c.txt"), "decoy").unwrap();
        let fd = open_beneath(
            project.dir_fd(),
            Path::new("a/b/c.txt"),
            OFlags::RDONLY,
            Strategy::current(),
        )
        .unwrap();
        assert_eq!(read(fd), "inside");
    }
}
