//! Path confinement: every path a tool touches stays inside the project.
//!
//! The model names files with strings it made up, and some of what it reads (a README, a web
//! page, a file planted in a dependency) may be written by an attacker. A tool that joins such a
//! string onto the project root and opens the result can be steered anywhere: `../../.ssh/id_rsa`,
//! an absolute path, or — the subtle one — a path that is innocent as text but runs through a
//! symlink that points out of the project. So a path is not checked as text; it is *resolved*
//! the way the kernel would resolve it, one component at a time from the canonical root,
//! following every symlink by hand, and refused the moment the walk would leave the root. What
//! the caller gets back is the real location (no symlinks, no `.` or `..` left in it) to operate
//! on, plus the project-relative form to show the user and the model.
//!
//! Rules, in short:
//! - A relative path is taken from the project root; an absolute path is accepted only when it
//!   names a place under the root (the canonical root, or the root as it was given to
//!   [`ProjectRoot::new`] when that differs, e.g. opened through a symlink).
//! - A `..` that would climb above the root is refused even if later components come back in
//!   (`../proj/x`): leaving the root is the escape, wherever the walk ends.
//! - A symlink is followed when it is met. A relative target is walked on from the link's
//!   directory under the same rules; an absolute target must name a place under the root. A
//!   dangling symlink is followed too, so a write through it lands where it points, which must
//!   be inside. More than [`MAX_SYMLINK_HOPS`] links in one resolution is a loop.
//! - Components that do not exist yet (a file about to be written, its new parent directories)
//!   are appended as they are, with `..` applied lexically; the deepest existing ancestor has
//!   been resolved for real by then.
//! - `~`, `~/x` and `~user/x` are refused: the tools do no home expansion, and a model that
//!   writes `~` means the home directory, not a folder named `~` in the project. `~` later in
//!   a path (`notes/~draft`) is an ordinary name.
//! - The empty string is an error rather than a quiet alias for the root; `.` is the root.
//!
//! # Time of check, time of use
//!
//! Resolution inspects the file system as it is *now*; the file is opened a moment later.
//! Anyone able to change the project tree in between — another process of the user, or a
//! command the agent itself started in the background — can swap a checked directory for a
//! symlink to somewhere else, and an open *by path* would follow it. So the tools never open
//! the returned absolute path: each [`ProjectRoot`] holds a descriptor of the root directory,
//! opened once, and every file the tools read or write is opened relative to it with
//! `openat2(RESOLVE_BENEATH)` (see [`crate::beneath`]), which fails instead of leaving the
//! root whatever was swapped in meanwhile. The resolved path is symlink-free at the time of the
//! check, so in the normal case the kernel follows nothing; a symlink raced in that points
//! outside is refused with the same "outside the project" message.
//!
//! Hard links are not detected: a hard link in the project to a file elsewhere is just a file
//! in the project (creating one needs write access to both places already), and neither are
//! bind mounts. A directory *moved* out of the project while a call holds its descriptor takes
//! the call's write with it; that is the mover's directory, not a place of their choosing.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use rustix::fs::{Mode, OFlags};

use crate::secret_env::PassList;

/// How many symlinks one resolution may follow before it is treated as a loop (Linux allows 40
/// per lookup, so a legitimate chain the kernel accepts is accepted here too).
pub const MAX_SYMLINK_HOPS: u32 = 40;

/// Why a path was not resolved, or why a project root cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// The path leaves the project (by `..`, an absolute path, `~`, or a symlink).
    #[error("path '{path}' is outside the project")]
    Outside {
        /// The path as the tool received it.
        path: String,
    },
    /// The path was the empty string; `.` names the project root.
    #[error("path is empty (use '.' for the project root)")]
    Empty,
    /// The path contains a NUL byte, which no file name can hold.
    #[error("path {path:?} contains a NUL byte")]
    NulByte {
        /// The path as the tool received it.
        path: String,
    },
    /// Following symlinks did not end (a loop, or a chain longer than `MAX_SYMLINK_HOPS`).
    #[error("path '{path}' runs into a symlink loop (more than {MAX_SYMLINK_HOPS} symlinks)")]
    SymlinkLoop {
        /// The path as the tool received it.
        path: String,
    },
    /// The file system refused to tell what a component is (permissions, name too long, ...).
    #[error("cannot resolve path '{path}': {source}")]
    Io {
        /// The path as the tool received it.
        path: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The project root does not exist or cannot be canonicalised.
    #[error("project root '{}' cannot be used: {source}", .root.display())]
    RootUnavailable {
        /// The root as given.
        root: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The project root exists but is not a directory.
    #[error("project root '{}' is not a directory", .root.display())]
    RootNotDirectory {
        /// The root as given.
        root: PathBuf,
    },
}

/// The directory a session's tools are confined to. Cloning shares the root's descriptor.
#[derive(Debug, Clone)]
pub struct ProjectRoot {
    /// Canonical (absolute, symlink-free) root.
    root: PathBuf,
    /// The root as the caller spelled it, when that is absolute, free of `..` and different
    /// from `root`; absolute paths under it are accepted as well.
    alias: Option<PathBuf>,
    /// The root directory, opened once (`O_PATH`): every file operation of the tools starts
    /// from it, so a rename of the root's path or a symlink swapped in below cannot redirect it.
    dir: Arc<OwnedFd>,
    /// The variables this project's commands receive on purpose ([`crate::secret_env`]),
    /// shared by every clone.
    env_pass: Arc<RwLock<PassList>>,
}

/// Two roots are equal when they name the same folder the same way (descriptors and settings
/// aside).
impl PartialEq for ProjectRoot {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.alias == other.alias
    }
}

impl Eq for ProjectRoot {}

/// A path that resolved to a place inside the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    absolute: PathBuf,
    relative: String,
    /// `absolute` below the root, bytes intact (empty for the root itself).
    beneath: PathBuf,
}

impl ProjectRoot {
    /// Opens `path` as a project root: canonicalises it, checks it is an existing directory and
    /// opens a descriptor of it for the tools' file operations.
    pub fn new(path: impl AsRef<Path>) -> Result<Self, ConfineError> {
        let given = path.as_ref();
        let unavailable = |source: io::Error| ConfineError::RootUnavailable {
            root: given.to_path_buf(),
            source,
        };
        let root = std::fs::canonicalize(given).map_err(unavailable)?;
        let metadata = std::fs::metadata(&root).map_err(unavailable)?;
        if !metadata.is_dir() {
            return Err(ConfineError::RootNotDirectory {
                root: given.to_path_buf(),
            });
        }
        let dir = rustix::fs::open(
            &root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| unavailable(errno.into()))?;
        // The descriptor must be the directory just checked, not one renamed into its place.
        let opened = rustix::fs::fstat(&dir).map_err(|errno| unavailable(errno.into()))?;
        if !same_inode(&opened, &metadata) {
            return Err(unavailable(io::Error::other(
                "the folder was replaced while it was being opened",
            )));
        }
        let alias = Some(given.components().collect::<PathBuf>()).filter(|alias| {
            alias.is_absolute()
                && *alias != root
                && !alias.components().any(|c| c == Component::ParentDir)
        });
        Ok(Self {
            root,
            alias,
            dir: Arc::new(dir),
            env_pass: Arc::default(),
        })
    }

    /// The canonical root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The root directory's descriptor, from which [`crate::beneath`] opens every file.
    pub(crate) fn dir_fd(&self) -> BorrowedFd<'_> {
        self.dir.as_fd()
    }

    /// Where [`crate::secret_env`] keeps the project's pass list.
    pub(crate) fn env_pass_cell(&self) -> &RwLock<PassList> {
        &self.env_pass
    }

    /// Resolves a path from a tool's arguments (relative to the root, or absolute under it) to
    /// the real location inside the project, following symlinks; see the module docs for the
    /// rules. The result may not exist yet (a file to be written); it may also be the root
    /// itself, which file operations should refuse through [`ResolvedPath::is_root`].
    pub fn resolve(&self, user_path: &str) -> Result<ResolvedPath, ConfineError> {
        if user_path.is_empty() {
            return Err(ConfineError::Empty);
        }
        if user_path.contains('\0') {
            return Err(ConfineError::NulByte {
                path: user_path.to_owned(),
            });
        }
        let mut walk = Walk {
            project: self,
            user_path,
            hops: 0,
        };
        if user_path.starts_with('~') {
            return Err(walk.outside());
        }
        let path = Path::new(user_path);
        let absolute = if path.is_absolute() {
            let rest = self.strip_root(path).ok_or_else(|| walk.outside())?;
            walk.walk(self.root.clone(), rest)?
        } else {
            walk.walk(self.root.clone(), path)?
        };
        // The walk never leaves the root; refuse rather than trust that blindly.
        let beneath = match absolute.strip_prefix(&self.root) {
            Ok(rest) => rest.to_path_buf(),
            Err(_) => return Err(walk.outside()),
        };
        let relative = if beneath.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            beneath
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        };
        Ok(ResolvedPath {
            absolute,
            relative,
            beneath,
        })
    }

    /// The part of an absolute path below the root (canonical or as given), if it is under it.
    fn strip_root<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.root).ok().or_else(|| {
            self.alias
                .as_ref()
                .and_then(|alias| path.strip_prefix(alias).ok())
        })
    }
}

impl ResolvedPath {
    /// The real absolute path to operate on (symlinks resolved, as of the resolution).
    pub fn path(&self) -> &Path {
        &self.absolute
    }

    /// The project-relative path for display: forward slashes, `.` for the root.
    pub fn relative(&self) -> &str {
        &self.relative
    }

    /// True when the path is the project root itself (a file operation should refuse it).
    pub fn is_root(&self) -> bool {
        self.relative == "."
    }

    /// The path below the project root, with its bytes as they are (empty for the root): what
    /// is opened relative to the root's descriptor. No `.`, `..` or symlink in it, as of the
    /// resolution.
    pub fn beneath(&self) -> &Path {
        &self.beneath
    }
}

/// True when `stat` (of a descriptor) and `metadata` (of a path) are the same file.
fn same_inode(stat: &rustix::fs::Stat, metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    stat.st_dev == metadata.dev() && stat.st_ino == metadata.ino()
}

impl fmt::Display for ResolvedPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.relative)
    }
}

/// One resolution in progress: the symlink budget is shared by every link it follows.
struct Walk<'a> {
    project: &'a ProjectRoot,
    user_path: &'a str,
    hops: u32,
}

impl Walk<'_> {
    fn outside(&self) -> ConfineError {
        ConfineError::Outside {
            path: self.user_path.to_owned(),
        }
    }

    /// Walks the relative `path` from `current`, a real directory inside the root (or a
    /// not-yet-existing place under one), and returns where it ends. Never leaves the root.
    fn walk(&mut self, mut current: PathBuf, path: &Path) -> Result<PathBuf, ConfineError> {
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    if current == self.project.root {
                        return Err(self.outside());
                    }
                    current.pop();
                }
                Component::Normal(name) => {
                    let candidate = current.join(name);
                    match std::fs::symlink_metadata(&candidate) {
                        Ok(meta) if meta.file_type().is_symlink() => {
                            current = self.follow(current, &candidate)?;
                        }
                        Ok(_) => current = candidate,
                        Err(err)
                            if matches!(
                                err.kind(),
                                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                            ) =>
                        {
                            // Not there (yet): the rest is lexical. A later `..` may climb back
                            // into existing directories, whose components are checked again.
                            current = candidate;
                        }
                        Err(source) => {
                            return Err(ConfineError::Io {
                                path: self.user_path.to_owned(),
                                source,
                            });
                        }
                    }
                }
                // Only a relative path reaches here; a root or prefix would restart the walk
                // somewhere else, so it is an escape.
                Component::RootDir | Component::Prefix(_) => return Err(self.outside()),
            }
        }
        Ok(current)
    }

    /// Follows the symlink `link` found in directory `dir`, returning its resolved target.
    fn follow(&mut self, dir: PathBuf, link: &Path) -> Result<PathBuf, ConfineError> {
        self.hops += 1;
        if self.hops > MAX_SYMLINK_HOPS {
            return Err(ConfineError::SymlinkLoop {
                path: self.user_path.to_owned(),
            });
        }
        let target = std::fs::read_link(link).map_err(|source| ConfineError::Io {
            path: self.user_path.to_owned(),
            source,
        })?;
        if target.is_absolute() {
            let rest = self
                .project
                .strip_root(&target)
                .ok_or_else(|| self.outside())?
                .to_path_buf();
            self.walk(self.project.root.clone(), &rest)
        } else {
            self.walk(dir, &target)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    /// What a row expects.
    #[derive(Debug)]
    enum Expect {
        /// Resolves inside, to this project-relative display path.
        Inside(&'static str),
        Outside,
        Empty,
        Nul,
        Loop,
    }
    use Expect::{Empty, Inside, Loop, Nul, Outside};

    /// A project `proj` next to an `outside` directory, a look-alike sibling `proj-evil` and an
    /// `alias` symlink to the project, all in a fresh temp directory.
    struct Fixture {
        _tmp: tempfile::TempDir,
        base: PathBuf,
        root: PathBuf,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("proj");
        let outside = base.join("outside");
        let file = |p: &Path| {
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        };
        let link = |target: &str, at: &str| symlink(target, root.join(at)).unwrap();

        file(&outside.join("secret.txt"));
        file(&outside.join("dir/inner.txt"));
        symlink("../proj/file.txt", outside.join("back")).unwrap();
        symlink(root.join("file.txt"), outside.join("back_abs")).unwrap();
        file(&base.join("proj-evil/x.txt"));
        symlink("proj", base.join("alias")).unwrap();

        for name in [
            "file.txt",
            "..foo",
            "foo..",
            "...",
            ".hidden",
            "-dash.txt",
            "a/b/c.txt",
            "dir with spaces/x.txt",
            "ünïcødé/文件.txt",
            "new\nline",
            "sub/~file",
            "tab\there",
            "back\\slash",
            "$HOME/x",
        ] {
            file(&root.join(name));
        }
        fs::create_dir_all(root.join("a/b/deep")).unwrap();
        fs::create_dir_all(root.join("empty dir")).unwrap();

        link("file.txt", "link_file");
        link("a", "link_dir");
        link(root.join("a").to_str().unwrap(), "link_abs_in");
        link(root.to_str().unwrap(), "link_abs_root");
        link(".", "link_dot");
        link("..", "a/link_up");
        link("../..", "a/b/link_up2");
        link("../../..", "a/b/link_up3");
        link("../outside/secret.txt", "link_out_file");
        link("../outside", "link_out_dir");
        link(outside.to_str().unwrap(), "link_out_abs");
        link("/etc", "link_etc");
        link("/", "link_fs_root");
        link("/etc/passwd", "link_passwd");
        link("../outside/nope.txt", "dangling_out");
        link("/nonexistent-gantry-dir/x", "dangling_out_abs");
        link("not_yet.txt", "dangling_in");
        link("missing_dir/file.txt", "dangling_in_dir");
        link("loop_b", "loop_a");
        link("loop_a", "loop_b");
        link("self_loop", "self_loop");
        link("chain2", "chain1");
        link("chain3", "chain2");
        link("a", "chain3");
        link("chain_out2", "chain_out1");
        link("../outside", "chain_out2");
        link("../outside/back", "via_outside");
        link(
            outside.join("back_abs").to_str().unwrap(),
            "via_outside_abs",
        );
        link("../proj/file.txt", "out_and_in");
        link(
            base.join("alias/file.txt").to_str().unwrap(),
            "abs_via_alias",
        );
        link("link_out_dir/secret.txt", "nested_out");
        link("../../link_out_dir", "a/b/up_then_out");
        link("../../../a/b/c.txt", "a/b/deep/up_in");
        link("./././file.txt", "dotty");
        link("a//b", "double_slash_link");
        // 45 links in a row: longer than the kernel's limit, so treated as a loop.
        for i in 0..45 {
            let next = if i == 44 {
                "file.txt".to_owned()
            } else {
                format!("long{}", i + 1)
            };
            link(&next, &format!("long{i}"));
        }
        // A chain of 10 is fine.
        for i in 0..10 {
            let next = if i == 9 {
                "a/b/c.txt".to_owned()
            } else {
                format!("short{}", i + 1)
            };
            link(&next, &format!("short{i}"));
        }
        Fixture {
            _tmp: tmp,
            base,
            root,
        }
    }

    #[rustfmt::skip]
    fn rows(fx: &Fixture) -> Vec<(&'static str, String, Expect)> {
        let root = fx.root.to_str().unwrap().to_owned();
        let base = fx.base.to_str().unwrap().to_owned();
        let s = |x: &str| x.to_owned();
        vec![
            // --- plain names inside ---
            ("root dot", s("."), Inside(".")),
            ("root dot slash", s("./"), Inside(".")),
            ("root dot dot-slash", s("./."), Inside(".")),
            ("file", s("file.txt"), Inside("file.txt")),
            ("dot slash file", s("./file.txt"), Inside("file.txt")),
            ("nested file", s("a/b/c.txt"), Inside("a/b/c.txt")),
            ("dot in middle", s("a/./b"), Inside("a/b")),
            ("double slash", s("a//b"), Inside("a/b")),
            ("many slashes", s("a///b////c.txt"), Inside("a/b/c.txt")),
            ("trailing slash dir", s("a/b/"), Inside("a/b")),
            ("dir", s("a"), Inside("a")),
            ("file named ..foo", s("..foo"), Inside("..foo")),
            ("file named foo..", s("foo.."), Inside("foo..")),
            ("file named ...", s("..."), Inside("...")),
            ("hidden file", s(".hidden"), Inside(".hidden")),
            ("leading dash", s("-dash.txt"), Inside("-dash.txt")),
            ("spaces", s("dir with spaces/x.txt"), Inside("dir with spaces/x.txt")),
            ("unicode", s("ünïcødé/文件.txt"), Inside("ünïcødé/文件.txt")),
            ("newline in name", s("new\nline"), Inside("new\nline")),
            ("tab in name", s("tab\there"), Inside("tab\there")),
            ("backslash in name", s("back\\slash"), Inside("back\\slash")),
            ("tilde not first", s("sub/~file"), Inside("sub/~file")),
            ("dot slash tilde", s("./~"), Inside("~")),
            ("literal $HOME dir", s("$HOME/x"), Inside("$HOME/x")),
            ("empty dir", s("empty dir"), Inside("empty dir")),
            // --- `..` that stays inside ---
            ("dotdot stays inside", s("a/b/../c"), Inside("a/c")),
            ("dotdot back to root", s("a/.."), Inside(".")),
            ("dotdot twice to root", s("a/b/../.."), Inside(".")),
            ("dotdot then file", s("a/../file.txt"), Inside("file.txt")),
            ("dotdot in deep", s("a/b/deep/../../b/c.txt"), Inside("a/b/c.txt")),
            ("dot and dotdot", s("./a/./../a/b/./c.txt"), Inside("a/b/c.txt")),
            // --- non-existing (writes) ---
            ("new file", s("new.txt"), Inside("new.txt")),
            ("new nested", s("x/y/z.txt"), Inside("x/y/z.txt")),
            ("new under existing", s("a/b/new.rs"), Inside("a/b/new.rs")),
            ("new with dotdot", s("x/y/../z.txt"), Inside("x/z.txt")),
            ("new then dotdot to root", s("x/.."), Inside(".")),
            ("new then back into file", s("nope/../file.txt"), Inside("file.txt")),
            ("new under file", s("file.txt/child"), Inside("file.txt/child")),
            ("new unicode", s("新しい/ファイル.md"), Inside("新しい/ファイル.md")),
            ("new named ..bar", s("..bar"), Inside("..bar")),
            ("new named ....", s("...."), Inside("....")),
            // --- absolute inside ---
            ("absolute root", root.clone(), Inside(".")),
            ("absolute root slash", format!("{root}/"), Inside(".")),
            ("absolute file", format!("{root}/file.txt"), Inside("file.txt")),
            ("absolute nested", format!("{root}/a/b/c.txt"), Inside("a/b/c.txt")),
            ("absolute new", format!("{root}/new/file.txt"), Inside("new/file.txt")),
            ("absolute dot", format!("{root}/./a"), Inside("a")),
            ("absolute dotdot inside", format!("{root}/a/../file.txt"), Inside("file.txt")),
            ("absolute via alias", format!("{base}/alias/file.txt"), Outside),
            // --- symlinks inside pointing inside ---
            ("link to file", s("link_file"), Inside("file.txt")),
            ("link to dir", s("link_dir"), Inside("a")),
            ("through link dir", s("link_dir/b/c.txt"), Inside("a/b/c.txt")),
            ("new through link dir", s("link_dir/new.txt"), Inside("a/new.txt")),
            ("absolute link inside", s("link_abs_in/b"), Inside("a/b")),
            ("absolute link to root", s("link_abs_root/file.txt"), Inside("file.txt")),
            ("link to dot", s("link_dot/link_dot/file.txt"), Inside("file.txt")),
            ("link up to root", s("a/link_up/file.txt"), Inside("file.txt")),
            ("link up two to root", s("a/b/link_up2"), Inside(".")),
            ("dotdot after link dir", s("link_dir/b/.."), Inside("a")),
            ("dotdot after link to root", s("a/link_up/a"), Inside("a")),
            ("dangling inside", s("dangling_in"), Inside("not_yet.txt")),
            ("dangling inside dir", s("dangling_in_dir"), Inside("missing_dir/file.txt")),
            ("chain inside", s("chain1/b/c.txt"), Inside("a/b/c.txt")),
            ("chain of ten", s("short0"), Inside("a/b/c.txt")),
            ("link up then in", s("a/b/deep/up_in"), Inside("a/b/c.txt")),
            ("dotty link", s("dotty"), Inside("file.txt")),
            ("double slash link", s("double_slash_link/c.txt"), Inside("a/b/c.txt")),
            ("absolute through link", format!("{root}/link_dir/b"), Inside("a/b")),
            // --- empty / NUL ---
            ("empty", s(""), Empty),
            ("nul alone", s("\0"), Nul),
            ("nul in name", s("file\0.txt"), Nul),
            ("nul after dotdot", s("../\0"), Nul),
            // --- `..` escapes ---
            ("dotdot", s(".."), Outside),
            ("dotdot slash", s("../"), Outside),
            ("dotdot file", s("../outside/secret.txt"), Outside),
            ("dotdot after dir", s("a/../../x"), Outside),
            ("dotdot deep", s("a/b/../../../outside"), Outside),
            ("dotdot many", s("../../../../../../../../etc/passwd"), Outside),
            ("dot dotdot", s("./.."), Outside),
            ("dotdot and back in", s("../proj/file.txt"), Outside),
            ("dotdot to look-alike sibling", s("../proj-evil/x.txt"), Outside),
            ("new then escape", s("x/../../y"), Outside),
            ("new deep then escape", s("x/y/../../../y"), Outside),
            ("dotdot trailing", s("a/b/../../.."), Outside),
            ("dotdot over file", s("file.txt/../../x"), Outside),
            // --- absolute elsewhere ---
            ("filesystem root", s("/"), Outside),
            ("etc passwd", s("/etc/passwd"), Outside),
            ("tmp", s("/tmp"), Outside),
            ("parent of root", base.clone(), Outside),
            ("sibling outside", format!("{base}/outside/secret.txt"), Outside),
            ("look-alike prefix sibling", format!("{base}/proj-evil/x.txt"), Outside),
            ("root name with suffix", format!("{root}x/file.txt"), Outside),
            ("absolute dotdot out", format!("{root}/../outside"), Outside),
            ("absolute dotdot out and in", format!("{root}/../proj/file.txt"), Outside),
            ("absolute double slash", s("//etc/passwd"), Outside),
            ("absolute nonexistent", s("/nonexistent-gantry/x"), Outside),
            // --- home expansion ---
            ("tilde", s("~"), Outside),
            ("tilde slash", s("~/"), Outside),
            ("tilde file", s("~/.ssh/id_rsa"), Outside),
            ("tilde user", s("~root/.bashrc"), Outside),
            ("tilde name first", s("~file"), Outside),
            // --- symlinks out ---
            ("link out file", s("link_out_file"), Outside),
            ("link out dir", s("link_out_dir"), Outside),
            ("through link out dir", s("link_out_dir/secret.txt"), Outside),
            ("new file in link out dir", s("link_out_dir/new.txt"), Outside),
            ("new nested in link out dir", s("link_out_dir/x/y/z.txt"), Outside),
            ("absolute link out", s("link_out_abs/secret.txt"), Outside),
            ("link etc", s("link_etc/passwd"), Outside),
            ("link etc new file", s("link_etc/gantry-new"), Outside),
            ("link fs root", s("link_fs_root"), Outside),
            ("link passwd", s("link_passwd"), Outside),
            ("link up escapes", s("a/b/link_up3"), Outside),
            ("link up escapes then in", s("a/b/link_up3/proj/file.txt"), Outside),
            ("dotdot after link out", s("link_out_dir/../proj/file.txt"), Outside),
            ("dangling out", s("dangling_out"), Outside),
            ("dangling out absolute", s("dangling_out_abs"), Outside),
            ("chain out", s("chain_out1/secret.txt"), Outside),
            ("via outside relative", s("via_outside"), Outside),
            ("via outside absolute", s("via_outside_abs"), Outside),
            ("out and back in", s("out_and_in"), Outside),
            ("absolute link via unknown alias", s("abs_via_alias"), Outside),
            ("nested link out", s("nested_out"), Outside),
            ("link up then out", s("a/b/up_then_out"), Outside),
            ("absolute through link out", format!("{root}/link_out_dir/secret.txt"), Outside),
            ("link dir then dotdot out", s("link_dir/../.."), Outside),
            ("link to root then dotdot", s("link_dot/.."), Outside),
            ("link up then dotdot", s("a/link_up/.."), Outside),
            ("dotdot into link out", s("a/../link_out_dir"), Outside),
            ("new then dotdot into link out", s("x/../link_out_dir/new"), Outside),
            // --- loops ---
            ("loop", s("loop_a"), Loop),
            ("loop below", s("loop_a/x"), Loop),
            ("self loop", s("self_loop"), Loop),
            ("too long chain", s("long0"), Loop),
        ]
    }

    #[test]
    fn adversarial_table() {
        let fx = fixture();
        let project = ProjectRoot::new(&fx.root).unwrap();
        let rows = rows(&fx);
        assert!(rows.len() >= 100, "only {} rows", rows.len());
        let mut failures = Vec::new();
        for (label, input, expect) in &rows {
            let got = project.resolve(input);
            let ok = match (expect, &got) {
                (Inside(display), Ok(resolved)) => {
                    let expected_abs = if *display == "." {
                        fx.root.clone()
                    } else {
                        fx.root.join(display)
                    };
                    resolved.relative() == *display
                        && resolved.path() == expected_abs
                        && resolved.is_root() == (*display == ".")
                        && really_inside(&fx.root, resolved.path())
                }
                (Outside, Err(err @ ConfineError::Outside { .. })) => {
                    err.to_string() == format!("path '{input}' is outside the project")
                }
                (Empty, Err(ConfineError::Empty))
                | (Nul, Err(ConfineError::NulByte { .. }))
                | (Loop, Err(ConfineError::SymlinkLoop { .. })) => true,
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "{label}: {input:?} expected {expect:?}, got {got:?}"
                ));
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} rows failed:\n{}",
            failures.len(),
            rows.len(),
            failures.join("\n")
        );
    }

    /// Independent check with the kernel's own resolution: the deepest existing ancestor of a
    /// resolved path canonicalises to itself (no symlinks left) and lies under the root.
    fn really_inside(root: &Path, resolved: &Path) -> bool {
        let mut probe = resolved;
        loop {
            if let Ok(real) = fs::canonicalize(probe) {
                return real == probe && real.starts_with(root);
            }
            match probe.parent() {
                Some(parent) => probe = parent,
                None => return false,
            }
        }
    }

    /// Random paths over the fixture's names: whatever resolves must really be inside (checked
    /// with the kernel's own resolution), and nothing panics.
    #[test]
    fn random_paths_never_escape() {
        const PARTS: &[&str] = &[
            "..",
            ".",
            "",
            "a",
            "b",
            "c.txt",
            "file.txt",
            "link_dir",
            "link_up",
            "link_dot",
            "link_out_dir",
            "link_abs_in",
            "link_abs_root",
            "link_etc",
            "dangling_out",
            "dangling_in",
            "chain1",
            "loop_a",
            "via_outside",
            "out_and_in",
            "proj",
            "outside",
            "new",
            "~",
            "deep",
            "link_up2",
            "link_up3",
            "up_in",
            "up_then_out",
        ];
        let fx = fixture();
        let project = ProjectRoot::new(&fx.root).unwrap();
        let mut state = 0x5eed_u64;
        let mut below = |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % n
        };
        let mut inside = 0;
        for _ in 0..5_000 {
            let len = 1 + below(7);
            let mut path: Vec<&str> = (0..len).map(|_| PARTS[below(PARTS.len())]).collect();
            let root = fx.root.to_str().unwrap();
            match below(4) {
                0 => path.insert(0, root),
                1 => path.insert(0, fx.base.to_str().unwrap()),
                _ => {}
            }
            let input = path.join("/");
            if let Ok(resolved) = project.resolve(&input) {
                inside += 1;
                assert!(
                    really_inside(&fx.root, resolved.path()),
                    "{input:?} resolved outside: {resolved:?}"
                );
            }
        }
        assert!(inside > 500, "only {inside} random paths resolved");
    }

    #[test]
    fn root_given_through_a_symlink_accepts_both_spellings() {
        let fx = fixture();
        let project = ProjectRoot::new(fx.base.join("alias")).unwrap();
        assert_eq!(project.path(), fx.root);
        let cases = [
            (
                "alias absolute",
                format!("{}/alias/file.txt", fx.base.display()),
            ),
            (
                "canonical absolute",
                format!("{}/file.txt", fx.root.display()),
            ),
            ("relative", "file.txt".to_owned()),
        ];
        for (label, input) in cases {
            let resolved = project
                .resolve(&input)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(resolved.relative(), "file.txt", "{label}");
            assert_eq!(resolved.path(), fx.root.join("file.txt"), "{label}");
        }
        let outside = format!("{}/alias/../outside/secret.txt", fx.base.display());
        assert!(matches!(
            project.resolve(&outside),
            Err(ConfineError::Outside { .. })
        ));
    }

    #[test]
    fn root_must_be_an_existing_directory() {
        let fx = fixture();
        assert!(matches!(
            ProjectRoot::new(fx.root.join("file.txt")),
            Err(ConfineError::RootNotDirectory { .. })
        ));
        assert!(matches!(
            ProjectRoot::new(fx.root.join("missing")),
            Err(ConfineError::RootUnavailable { .. })
        ));
        // A root reached through a symlink is canonicalised.
        let through_link = ProjectRoot::new(fx.root.join("link_dir")).unwrap();
        assert_eq!(through_link.path(), fx.root.join("a"));
    }

    #[test]
    fn error_messages() {
        let fx = fixture();
        let project = ProjectRoot::new(&fx.root).unwrap();
        let message = |p: &str| project.resolve(p).unwrap_err().to_string();
        assert_eq!(message("../x"), "path '../x' is outside the project");
        assert_eq!(message("~/x"), "path '~/x' is outside the project");
        assert_eq!(message(""), "path is empty (use '.' for the project root)");
        assert_eq!(message("a\0b"), "path \"a\\0b\" contains a NUL byte");
        assert_eq!(
            message("loop_a"),
            "path 'loop_a' runs into a symlink loop (more than 40 symlinks)"
        );
    }

    #[test]
    fn resolved_path_displays_relative() {
        let fx = fixture();
        let project = ProjectRoot::new(&fx.root).unwrap();
        let resolved = project.resolve("link_dir//b/./c.txt").unwrap();
        assert_eq!(resolved.to_string(), "a/b/c.txt");
        assert!(!resolved.is_root());
        assert!(project.resolve("a/..").unwrap().is_root());
    }
}
