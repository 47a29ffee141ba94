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
//! Where the platform watches a whole tree with one kernel object (see
//! [`crate::backend::watches_each_directory`]) the root is watched recursively instead and the
//! set is kept without kernel calls; either way it answers whether a vanished path was a shown
//! directory.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use gantry_tools::walk::project_walker;
use notify_debouncer_full::notify::{ErrorKind, RecursiveMode, Watcher};

use crate::backend::{WatchHandle, lock};
use crate::error::{Result, TreeError};

/// The shown project directories (relative paths; the root is empty).
#[derive(Debug)]
pub(crate) struct Watches {
    root: PathBuf,
    dirs: BTreeSet<PathBuf>,
    /// The watcher to add a watch per directory to, or `None` when the root is watched
    /// recursively.
    each: Option<WatchHandle>,
}

impl Watches {
    /// An empty set for the project at the canonical `root`; with `each`, every directory added
    /// is watched through it.
    pub(crate) fn new(root: PathBuf, each: Option<WatchHandle>) -> Self {
        Self {
            root,
            dirs: BTreeSet::new(),
            each,
        }
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
    /// and skipped (a directory may vanish while being walked).
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
        for dir in missing {
            let abs = self.root.join(&dir);
            match watcher.watch(&abs, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.dirs.insert(dir);
                }
                Err(source) if dir == rel => {
                    return Err(TreeError::Watch { path: abs, source });
                }
                Err(err) if matches!(err.kind, ErrorKind::MaxFilesWatch) => {
                    tracing::warn!(
                        dir = %abs.display(),
                        "the system's limit on watched directories is reached; \
                         changes in further directories will not be reported"
                    );
                    break;
                }
                Err(err) => {
                    tracing::debug!(dir = %abs.display(), error = %err, "cannot watch directory");
                }
            }
        }
        Ok(())
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
        for dir in dirs {
            self.dirs.remove(dir);
        }
        if let Some(each) = &self.each {
            let mut watcher = lock(each);
            for dir in dirs {
                let _ = watcher.unwatch(&self.root.join(dir));
            }
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
