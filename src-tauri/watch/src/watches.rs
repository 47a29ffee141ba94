//! Which directories the operating system watches for us.
//!
//! Only directories the tree shows are watched, each on its own (non-recursive) watch. A
//! recursive watch of the root would also put a kernel watch on every directory under
//! `node_modules/`, `target/` and the ignored build output, which can exhaust the user's inotify
//! limit and floods the watcher whenever a build or an install writes there, only for every one
//! of those events to be thrown away. The price is keeping the set current: a directory that
//! appears in view is watched (with the shown directories below it) before its event is sent, one
//! that goes is forgotten, and a change of ignore rules re-walks the directory it governs.

use std::collections::BTreeSet;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gantry_tools::walk::project_walker;
use notify_debouncer_full::notify::{ErrorKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{Debouncer, RecommendedCache};

use crate::error::{Result, TreeError};

/// The debouncer, shared between the [`crate::TreeWatcher`] that stops it and the worker that adds
/// and removes watches. `None` once stopping has begun.
pub(crate) type SharedDebouncer =
    Arc<Mutex<Option<Debouncer<RecommendedWatcher, RecommendedCache>>>>;

/// Locks the shared debouncer, carrying on past a poisoned lock (the debouncer holds no invariant
/// that a panic elsewhere could break).
pub(crate) fn lock(
    debouncer: &SharedDebouncer,
) -> MutexGuard<'_, Option<Debouncer<RecommendedWatcher, RecommendedCache>>> {
    debouncer.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The set of watched project directories (relative paths; the root is empty).
#[derive(Debug)]
pub(crate) struct Watches {
    root: PathBuf,
    dirs: BTreeSet<PathBuf>,
    debouncer: SharedDebouncer,
}

impl Watches {
    /// An empty set for the project at the canonical `root`.
    pub(crate) fn new(root: PathBuf, debouncer: SharedDebouncer) -> Self {
        Self {
            root,
            dirs: BTreeSet::new(),
            debouncer,
        }
    }

    /// True when the project directory `rel` is watched (so it was shown when last looked at).
    pub(crate) fn contains(&self, rel: &Path) -> bool {
        self.dirs.contains(rel)
    }

    /// How many directories are watched.
    pub(crate) fn len(&self) -> usize {
        self.dirs.len()
    }

    /// Watches the project directory `rel` and every shown directory below it not yet watched.
    /// Failing to watch `rel` itself is an error; failures below it are logged and skipped (a
    /// directory may vanish while being walked).
    pub(crate) fn add_tree(&mut self, rel: &Path) -> Result<()> {
        let missing: Vec<PathBuf> = self
            .shown_dirs(rel)
            .into_iter()
            .filter(|dir| !self.dirs.contains(dir))
            .collect();
        let mut guard = lock(&self.debouncer);
        let Some(debouncer) = guard.as_mut() else {
            return Ok(());
        };
        for dir in missing {
            let abs = self.root.join(&dir);
            match debouncer.watch(&abs, RecursiveMode::NonRecursive) {
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

    /// Forgets the project directory `rel` and everything watched below it (it was removed or
    /// renamed away, or is no longer shown).
    pub(crate) fn forget_tree(&mut self, rel: &Path) {
        let below: Vec<PathBuf> = self.watched_below(rel).cloned().collect();
        if below.is_empty() {
            return;
        }
        self.unwatch(&below);
    }

    /// Brings the watches at and below the project directory `rel` in line with what is shown
    /// now, after the ignore rules there changed.
    pub(crate) fn resync(&mut self, rel: &Path) -> Result<()> {
        let shown: BTreeSet<PathBuf> = self.shown_dirs(rel).into_iter().collect();
        let stale: Vec<PathBuf> = self
            .watched_below(rel)
            .filter(|dir| !shown.contains(*dir))
            .cloned()
            .collect();
        self.unwatch(&stale);
        self.add_tree(rel)
    }

    /// The watched directories at and below `rel`. Paths order component by component, so they
    /// form one contiguous run of the set.
    fn watched_below<'a>(&'a self, rel: &'a Path) -> impl Iterator<Item = &'a PathBuf> + 'a {
        self.dirs
            .range::<Path, _>((Bound::Included(rel), Bound::Unbounded))
            .take_while(move |dir| dir.starts_with(rel))
    }

    /// Drops the watches on `dirs`. The kernel has usually dropped them already (the directory is
    /// gone), so failures are expected and ignored.
    fn unwatch(&mut self, dirs: &[PathBuf]) {
        let mut guard = lock(&self.debouncer);
        for dir in dirs {
            self.dirs.remove(dir);
            if let Some(debouncer) = guard.as_mut() {
                let _ = debouncer.unwatch(self.root.join(dir));
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
