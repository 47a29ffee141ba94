//! Which files of a project Gantry looks at.
//!
//! Every listing of a project (glob_search, grep_search, the project tree in the app) skips the
//! same things: what the project's `.gitignore`/`.ignore` files exclude, and the vendor and build
//! directories below, which hold nothing a model should read and can dwarf the sources. Keeping
//! the rule in one place means the tree the user sees and the files the tools search agree.
//!
//! The module also holds what every search over such a walk shares: the order listings are
//! sorted in ([`path_order`]) and a way to run a blocking walk off the async runtime that stops
//! when the turn is cancelled ([`run_blocking_walk`]).

use std::borrow::Cow;
use std::cmp::Ordering;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

use tokio_util::sync::CancellationToken;

/// Directory names skipped everywhere, whatever the ignore files say.
pub const VENDOR_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    "dist",
    "build",
];

/// True when a directory with this file name is one of [`VENDOR_DIRS`].
pub fn is_vendor_dir(name: &std::ffi::OsStr) -> bool {
    VENDOR_DIRS.iter().any(|vendor| name == *vendor)
}

/// A walker over `start` (a directory inside a project) that honours the ignore files of `start`
/// and of its parent directories (so a listing of `src/` still obeys the root `.gitignore`) and
/// skips [`VENDOR_DIRS`]. Hidden files are included (`.github/`, `.env.example` are real project
/// files); symlinks are not followed, so a walk never leaves the project.
pub fn project_walker(start: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(start);
    builder
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(true)
        // Honour .gitignore even when the project is not (yet) a git repository.
        .require_git(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|kind| kind.is_dir())
                && is_vendor_dir(entry.file_name()))
        });
    builder
}

/// The order in which listings show project-relative paths (`/`-separated): component by
/// component, each compared by its bytes, so a directory's files stay together (`a/b` before
/// `a-b`, as `Path` and Python's `sorted(Path)` order them). It equals comparing the bytes with
/// `/` ranked below every other byte.
pub fn path_order(a: &str, b: &str) -> Ordering {
    let rank = |byte: u8| if byte == b'/' { 0 } else { byte };
    a.bytes().map(rank).cmp(b.bytes().map(rank))
}

/// `path` relative to `base`, `/`-separated (lossy for names that are not UTF-8), or `None`
/// when `path` is not below `base`; `base` itself gives `""`. A walk's entries are `base`
/// joined with names, so this is a byte comparison and a slice: `Path::strip_prefix` parses
/// components and showed up at several percent of a glob over a large tree.
pub fn relative_to<'p>(path: &'p Path, base: &Path) -> Option<Cow<'p, str>> {
    let (path_bytes, base_bytes) = (path.as_os_str().as_bytes(), base.as_os_str().as_bytes());
    let rest = path_bytes.strip_prefix(base_bytes)?;
    let rest = if base_bytes.ends_with(b"/") || rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(b"/")?
    };
    Some(String::from_utf8_lossy(rest))
}

/// The error for a search path that resolved inside the project but cannot be used: `path
/// '{path}' does not exist` (also when a component is a file), or `cannot access path
/// '{path}': {error}` otherwise (permissions, ...). `path` is the string the model sent.
pub fn unusable_path(path: &str, error: &std::io::Error) -> crate::ToolError {
    use std::io::ErrorKind::{NotADirectory, NotFound};
    if matches!(error.kind(), NotFound | NotADirectory) {
        crate::ToolError::new(format!("path '{path}' does not exist"))
    } else {
        crate::ToolError::new(format!("cannot access path '{path}': {error}"))
    }
}

/// Why a blocking walk did not produce its result.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// The turn was cancelled before the walk finished.
    #[error("the search was cancelled")]
    Cancelled,
    /// The walk's thread failed (a panic in the walk).
    #[error("the search failed: {0}")]
    Failed(String),
}

/// Raised when the walk should stop; a walk checks it once per entry ([`StopFlag::is_raised`])
/// and returns [`ignore::WalkState::Quit`].
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// True once the walk should stop.
    pub fn is_raised(&self) -> bool {
        self.0.load(AtomicOrdering::Relaxed)
    }

    /// Asks the walk to stop.
    pub fn raise(&self) {
        self.0.store(true, AtomicOrdering::Relaxed);
    }
}

/// What a parallel search does with each regular file the walk finds. Every walker thread gets
/// a visitor of its own (see [`visit_files`]); a visitor keeps what it finds and merges it into
/// shared state when it is dropped, at the end of its thread.
pub trait FileVisitor: Send {
    /// Looks at one regular file.
    fn file(&mut self, entry: &ignore::DirEntry);
}

/// Walks `start` with the project's walk rules ([`project_walker`]) on every core, giving each
/// regular file to the visitor of the thread that found it, until the walk ends or `stop` is
/// raised. Entries that can't be read (an unreadable folder, a file that vanished) are skipped:
/// a search reports what it could search. `make` builds one visitor per thread.
pub fn visit_files<V, M>(start: &Path, stop: &StopFlag, make: M)
where
    V: FileVisitor,
    M: FnMut() -> V,
{
    let mut builder = PerThread { stop, make };
    project_walker(start).build_parallel().visit(&mut builder);
}

/// Builds each walker thread's [`Threaded`] visitor.
struct PerThread<'a, M> {
    stop: &'a StopFlag,
    make: M,
}

impl<'s, V, M> ignore::ParallelVisitorBuilder<'s> for PerThread<'s, M>
where
    V: FileVisitor + 's,
    M: FnMut() -> V,
{
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Threaded {
            stop: self.stop,
            visitor: (self.make)(),
        })
    }
}

/// One walker thread: the stop check and the file filter every search shares, around its own
/// visitor.
struct Threaded<'a, V> {
    stop: &'a StopFlag,
    visitor: V,
}

impl<V: FileVisitor> ignore::ParallelVisitor for Threaded<'_, V> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        if self.stop.is_raised() {
            return ignore::WalkState::Quit;
        }
        if let Ok(entry) = entry
            && entry.file_type().is_some_and(|kind| kind.is_file())
        {
            self.visitor.file(&entry);
        }
        ignore::WalkState::Continue
    }
}

/// Raises the flag when dropped: the future of [`run_blocking_walk`] may be dropped mid-walk
/// (the manager drops a cancelled call), and the walk must not go on alone on the blocking pool.
struct RaiseOnDrop(StopFlag);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.raise();
    }
}

/// Runs `walk` on tokio's blocking pool and waits for it. The [`StopFlag`] it receives is raised
/// when `cancel` fires or when the returned future is dropped, whichever comes first, so a
/// cancelled turn stops the walk within one file (walks check the flag per entry).
pub async fn run_blocking_walk<T, F>(cancel: &CancellationToken, walk: F) -> Result<T, WalkError>
where
    T: Send + 'static,
    F: FnOnce(&StopFlag) -> T + Send + 'static,
{
    let stop = StopFlag::default();
    let _raise_on_drop = RaiseOnDrop(stop.clone());
    let flag = stop.clone();
    let handle = tokio::task::spawn_blocking(move || walk(&flag));
    tokio::select! {
        // A cancelled turn reports as cancelled even if the walk happened to finish too.
        biased;
        () = cancel.cancelled() => Err(WalkError::Cancelled),
        joined = handle => joined.map_err(|error| WalkError::Failed(error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn paths_sort_by_component() {
        let mut paths = vec!["a-b", "a/b", "a", "B", "a/b/c", "a.rs", "ab", "a/a"];
        paths.sort_by(|a, b| path_order(a, b));
        assert_eq!(
            paths,
            ["B", "a", "a/a", "a/b", "a/b/c", "a-b", "a.rs", "ab"]
        );
        let mut as_paths: Vec<&Path> = paths.iter().map(Path::new).collect();
        as_paths.sort();
        let as_paths: Vec<&str> = as_paths.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(paths, as_paths, "the same order as std's Path ordering");
    }

    #[test]
    fn relative_paths_are_byte_slices_below_the_base() {
        let base = Path::new("/p/root");
        let rel = |p: &'static str| relative_to(Path::new(p), base).map(Cow::into_owned);
        assert_eq!(rel("/p/root/a/b.rs").as_deref(), Some("a/b.rs"));
        assert_eq!(rel("/p/root").as_deref(), Some(""));
        assert_eq!(rel("/p/rootx/a"), None);
        assert_eq!(rel("/p/other/a"), None);
        assert_eq!(
            relative_to(Path::new("/x.rs"), Path::new("/")).as_deref(),
            Some("x.rs")
        );
        let odd = std::ffi::OsStr::from_bytes(b"/p/root/caf\xe9.txt");
        assert_eq!(
            relative_to(Path::new(odd), base).as_deref(),
            Some("caf\u{fffd}.txt")
        );
    }

    #[tokio::test]
    async fn a_finished_walk_returns_its_result() {
        let result = run_blocking_walk(&CancellationToken::new(), |stop| {
            assert!(!stop.is_raised());
            42
        })
        .await;
        assert_eq!(result.unwrap(), 42);
    }

    /// A walk that runs until its flag is raised; reports through `seen` that it stopped.
    fn endless(stopped: Arc<AtomicBool>) -> impl FnOnce(&StopFlag) + Send + 'static {
        move |stop: &StopFlag| {
            while !stop.is_raised() {
                std::thread::sleep(Duration::from_millis(1));
            }
            stopped.store(true, AtomicOrdering::SeqCst);
        }
    }

    async fn eventually(flag: &AtomicBool) -> bool {
        for _ in 0..2_000 {
            if flag.load(AtomicOrdering::SeqCst) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        false
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cancelling_the_token_stops_the_walk() {
        let cancel = CancellationToken::new();
        let stopped = Arc::new(AtomicBool::new(false));
        let walk = run_blocking_walk(&cancel, endless(stopped.clone()));
        let canceller = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            canceller.cancel();
        });
        assert!(matches!(walk.await, Err(WalkError::Cancelled)));
        assert!(eventually(&stopped).await, "the walk went on after cancel");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_future_stops_the_walk() {
        let cancel = CancellationToken::new();
        let stopped = Arc::new(AtomicBool::new(false));
        let walk = run_blocking_walk(&cancel, endless(stopped.clone()));
        let timed_out = tokio::time::timeout(Duration::from_millis(20), walk).await;
        assert!(timed_out.is_err());
        assert!(
            eventually(&stopped).await,
            "the walk went on after its future was dropped"
        );
    }
}
