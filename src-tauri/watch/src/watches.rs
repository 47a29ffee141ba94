//! Which project directories are shown, and, where it pays, watched one by one.
//!
//! On Linux only directories the tree shows are watched, each on its own (non-recursive) inotify
//! watch. A recursive watch of the root would also put a kernel watch on every directory under
//! `node_modules/`, `target/` and the ignored build output, which can exhaust the user's inotify
//! limit and floods the watcher whenever a build or an install writes there, only for every one
//! of those events to be thrown away. The price is keeping the set current: a directory that
//! appears in view is watched (with the shown directories below it) before its event is sent, one
//! that goes is forgotten, and a change of ignore rules re-walks the directory it governs.
//!
//! When a limit on watches is reached (the system's, or [`crate::WatchOptions::max_watches`]),
//! the directories left over stay in the set but unwatched: they are handed to
//! [`crate::poll::PollSet`], and the limit is published for the front end. They are not retried
//! when watches free up; reopening the project tries again.
//!
//! Where the platform watches a whole tree with one kernel object (see
//! [`crate::backend::watches_each_directory`]) the root is watched recursively instead and the
//! set is kept without kernel calls; either way it answers whether a vanished path was a shown
//! directory.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use gantry_tools::walk::project_walker;
use notify_debouncer_full::notify::{RecursiveMode, Watcher};
use tokio::sync::watch;

use crate::backend::{WatchHandle, lock};
use crate::error::{Result, TreeError};
use crate::limit::{WatchLimit, is_limit};
use crate::poll::PollSet;

/// The shown project directories (relative paths; the root is empty).
#[derive(Debug)]
pub(crate) struct Watches {
    root: PathBuf,
    dirs: BTreeSet<PathBuf>,
    /// The watcher to add a watch per directory to, or `None` when the root is watched
    /// recursively.
    each: Option<WatchHandle>,
    /// How many directories of the set are watched by the operating system.
    watched: usize,
    /// Our own cap on `watched`.
    cap: Option<usize>,
    /// Where the directories that could not be watched go.
    polled: PollSet,
    /// The last limit reached, for whoever follows it.
    limit: watch::Sender<Option<WatchLimit>>,
}

impl Watches {
    /// An empty set for the project at the canonical `root`; with `each`, every directory added
    /// is watched through it.
    pub(crate) fn new(root: PathBuf, each: Option<WatchHandle>) -> Self {
        Self {
            polled: PollSet::new(root.clone()),
            root,
            dirs: BTreeSet::new(),
            each,
            watched: 0,
            cap: None,
            limit: watch::Sender::new(None),
        }
    }

    /// Watches at most `cap` directories (see [`crate::WatchOptions::max_watches`]).
    pub(crate) fn with_cap(mut self, cap: Option<usize>) -> Self {
        self.cap = cap;
        self
    }

    /// The set of unwatched directories, to poll.
    pub(crate) fn polled(&self) -> &PollSet {
        &self.polled
    }

    /// Follows the limit on watches: `None` until one is reached.
    pub(crate) fn limit(&self) -> watch::Receiver<Option<WatchLimit>> {
        self.limit.subscribe()
    }

    /// How many directories the operating system watches for us.
    pub(crate) fn watched(&self) -> usize {
        self.watched
    }

    /// True when the project directory `rel` is in the set (so it was shown when last looked at).
    pub(crate) fn contains(&self, rel: &Path) -> bool {
        self.dirs.contains(rel)
    }

    /// How many directories are in the set.
    pub(crate) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Adds the project directory `rel` and every shown directory below it not in the set yet,
    /// watching each. Failing to watch `rel` itself is an error; failures below it are logged
    /// and skipped (a directory may vanish while being walked). Once a limit on watches is
    /// reached, the directories left over are recorded as unwatched (to poll) and the limit is
    /// published.
    pub(crate) fn add_tree(&mut self, rel: &Path) -> Result<()> {
        let missing: Vec<PathBuf> = self
            .shown_dirs(rel)
            .into_iter()
            .filter(|dir| !self.dirs.contains(dir))
            .collect();
        let Some(each) = &self.each else {
            self.dirs.extend(missing);
            return Ok(());
        };
        let mut watcher = lock(each);
        let mut refused_by_system = false;
        let mut unwatched = 0;
        for dir in missing {
            let abs = self.root.join(&dir);
            let outcome = if self.cap.is_some_and(|cap| self.watched >= cap) {
                Outcome::Limit
            } else {
                match watcher.watch(&abs, RecursiveMode::NonRecursive) {
                    Ok(()) => Outcome::Watched,
                    Err(err) if is_limit(&err) => {
                        refused_by_system = true;
                        Outcome::Limit
                    }
                    Err(source) if dir == rel => {
                        return Err(TreeError::Watch { path: abs, source });
                    }
                    Err(err) => {
                        tracing::debug!(dir = %abs.display(), error = %err, "cannot watch directory");
                        Outcome::Skipped
                    }
                }
            };
            match outcome {
                Outcome::Watched => {
                    self.watched += 1;
                    self.dirs.insert(dir);
                }
                Outcome::Limit => {
                    self.polled.unwatched(&dir);
                    self.dirs.insert(dir);
                    unwatched += 1;
                }
                Outcome::Skipped => {}
            }
        }
        drop(watcher);
        if unwatched > 0 {
            self.publish_limit(refused_by_system);
        }
        Ok(())
    }

    /// Tells the limit's followers how many directories are watched and not.
    fn publish_limit(&self, refused_by_system: bool) {
        let limit = WatchLimit {
            watched: self.watched,
            unwatched: self.polled.unwatched_count(),
            cap: if refused_by_system { None } else { self.cap },
        };
        tracing::warn!(
            watched = limit.watched,
            unwatched = limit.unwatched,
            cap = ?limit.cap,
            "the limit on watched directories is reached; the others are polled while shown"
        );
        self.limit.send_replace(Some(limit));
    }

    /// Forgets the project directory `rel` and everything below it (it was removed or renamed
    /// away, or is no longer shown).
    pub(crate) fn forget_tree(&mut self, rel: &Path) {
        let below: Vec<PathBuf> = self.below(rel).cloned().collect();
        self.forget(&below);
    }

    /// Brings the set at and below the project directory `rel` in line with what is shown now,
    /// after the ignore rules there changed.
    pub(crate) fn resync(&mut self, rel: &Path) -> Result<()> {
        let shown: BTreeSet<PathBuf> = self.shown_dirs(rel).into_iter().collect();
        let stale: Vec<PathBuf> = self
            .below(rel)
            .filter(|dir| !shown.contains(*dir))
            .cloned()
            .collect();
        self.forget(&stale);
        self.add_tree(rel)
    }

    /// The directories in the set at and below `rel`. Paths order component by component, so
    /// they form one contiguous run of the set.
    fn below<'a>(&'a self, rel: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.dirs
            .range::<Path, _>((Bound::Included(rel), Bound::Unbounded))
            .take_while(move |dir| dir.starts_with(rel))
    }

    /// Drops `dirs` from the set and their watches. The kernel has usually dropped the watches
    /// already (the directory is gone), so failures are expected and ignored.
    fn forget(&mut self, dirs: &[PathBuf]) {
        let before = self.polled.unwatched_count();
        for dir in dirs {
            self.dirs.remove(dir);
            self.polled.forget(dir);
        }
        let was_polled = before - self.polled.unwatched_count();
        if let Some(each) = &self.each {
            let mut watcher = lock(each);
            for dir in dirs {
                let _ = watcher.unwatch(&self.root.join(dir));
            }
            self.watched = self.watched.saturating_sub(dirs.len() - was_polled);
        }
    }

    /// The shown directories at and below `rel`, by the walker's rule.
    fn shown_dirs(&self, rel: &Path) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        let start = self.root.join(rel);
        // The walker would follow a link given as its starting point; never start on one.
        if !std::fs::symlink_metadata(&start).is_ok_and(|metadata| metadata.is_dir()) {
            return dirs;
        }
        for item in project_walker(&start).build() {
            let entry = match item {
                Ok(entry) => entry,
                Err(err) => {
                    tracing::debug!(error = %err, "skipping an unreadable directory");
                    continue;
                }
            };
            if !entry.file_type().is_some_and(|kind| kind.is_dir()) {
                continue;
            }
            if let Ok(dir) = entry.path().strip_prefix(&self.root) {
                dirs.push(dir.to_path_buf());
            }
        }
        dirs
    }
}

/// What became of one directory's watch.
enum Outcome {
    Watched,
    /// A limit on watches was reached: the directory is polled instead.
    Limit,
    /// It could not be watched for another reason (it vanished meanwhile).
    Skipped,
}
