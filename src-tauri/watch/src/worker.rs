//! The watcher's worker thread: debounced notify events in, [`TreeChange`]s out.
//!
//! Each batch is handled in three passes. First, ignore files (and `.git`) that changed make the
//! cached rules of their directory stale, so the rest of the batch is judged by the new rules.
//! Then each event is judged: kind from the disk (`lstat`, never following links) or, for a path
//! already gone, from the event and the set of shown directories; shown or not by the rules;
//! and directories that appear are watched before their event is sent. Last, every directory
//! whose rules changed is re-walked and announced with [`TreeChange::Rescan`].
//!
//! A creation is reported only if something is at its path when the event is handled. inotify
//! names an event by the path its directory had when the watch was made; an event from inside a
//! directory renamed a moment earlier carries the old path, which no longer exists. Such events
//! are dropped, and the renamed directory is announced with a [`TreeChange::Rescan`] of its new
//! path, so a listing catches what happened inside it while the watch was catching up. A file
//! created and deleted again before its event is handled is not reported at all (its removal may
//! be, harmlessly).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

use notify_debouncer_full::{DebounceEventResult, DebouncedEvent};
use tokio::sync::mpsc::UnboundedSender;

use crate::change::TreeChange;
use crate::classify::{RawChange, classify};
use crate::relpath::to_slash_string;
use crate::rules::{IgnoreRules, is_rule_file};
use crate::watches::Watches;

/// Past this many remembered removals, the memory of them is dropped (see [`Worker::gone`]).
const GONE_MEMORY: usize = 4096;

/// Turns debounced events into tree changes and keeps the watches current.
#[derive(Debug)]
pub(crate) struct Worker {
    root: PathBuf,
    rules: IgnoreRules,
    watches: Watches,
    out: UnboundedSender<TreeChange>,
    /// Paths last reported removed (or renamed away) and not reported back since. inotify tells
    /// of a watched directory's removal twice, once from its parent and once from its own watch
    /// (and a rename away once as a rename and once as a removal); when the two land in different
    /// debounce batches the second is dropped here. Forgetting is harmless: a repeated removal of
    /// a path already gone changes no tree.
    gone: HashSet<PathBuf>,
}

impl Worker {
    /// A worker for the project at the canonical `root`, whose directories `watches` watches.
    pub(crate) fn new(root: PathBuf, watches: Watches, out: UnboundedSender<TreeChange>) -> Self {
        Self {
            rules: IgnoreRules::new(root.clone()),
            root,
            watches,
            out,
            gone: HashSet::new(),
        }
    }

    /// Handles batches until the debouncer stops (its sender is dropped) or nobody listens.
    pub(crate) fn run(mut self, batches: Receiver<DebounceEventResult>) {
        while let Ok(batch) = batches.recv() {
            match batch {
                Ok(events) => {
                    if !self.handle(&events) {
                        break;
                    }
                }
                Err(errors) => {
                    for error in errors {
                        tracing::warn!(error = %error, "file watcher error");
                    }
                }
            }
        }
    }

    /// Handles one batch; false once the receiving end is gone.
    fn handle(&mut self, events: &[DebouncedEvent]) -> bool {
        let changes: Vec<RawChange> = events
            .iter()
            .filter_map(|event| classify(event, &self.root))
            .collect();
        let stale_rules = self.forget_stale_rules(&changes);
        for change in changes {
            if !self.apply(change) {
                return false;
            }
        }
        for dir in stale_rules {
            if !self.rescan(&dir) {
                return false;
            }
        }
        true
    }

    /// Drops the cached rules of every directory whose ignore files changed in this batch, and
    /// returns those directories, outermost only.
    fn forget_stale_rules(&mut self, changes: &[RawChange]) -> Vec<PathBuf> {
        let mut dirs = BTreeSet::new();
        for change in changes {
            if matches!(change, RawChange::Rescan) {
                dirs.insert(PathBuf::new());
            }
            for path in change.paths() {
                if path.file_name().is_some_and(is_rule_file) {
                    dirs.insert(path.parent().unwrap_or(Path::new("")).to_path_buf());
                }
            }
        }
        let mut outermost: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            self.rules.forget(&dir);
            // Sorted component-wise, so an enclosing directory comes before what it encloses.
            if !outermost.iter().any(|outer| dir.starts_with(outer)) {
                outermost.push(dir);
            }
        }
        outermost
    }

    /// Judges one change and reports it if the tree shows it; false once nobody listens.
    fn apply(&mut self, change: RawChange) -> bool {
        match change {
            RawChange::Appeared { path } => self.appeared(path),
            RawChange::Gone { path, dir_hint } => self.gone(path, dir_hint),
            RawChange::Changed { path } => self.changed(path),
            RawChange::Moved { from, to } => self.moved(from, to),
            RawChange::Renamed { path } => {
                if self.kind_on_disk(&path).is_some() {
                    self.appeared(path)
                } else {
                    self.gone(path, None)
                }
            }
            // Handled with the stale rules.
            RawChange::Rescan => true,
        }
    }

    fn appeared(&mut self, path: PathBuf) -> bool {
        let Some(is_dir) = self.kind_on_disk(&path) else {
            // Gone again, or a stale path from inside a renamed directory.
            return true;
        };
        if !self.rules.is_visible(&path, is_dir) {
            return true;
        }
        if is_dir {
            self.watch_new_dir(&path);
        }
        self.report_created(path, is_dir)
    }

    fn gone(&mut self, path: PathBuf, dir_hint: Option<bool>) -> bool {
        let was_watched = self.watches.contains(&path);
        let is_dir = was_watched || dir_hint == Some(true);
        let was_shown = was_watched || self.rules.is_visible(&path, is_dir);
        if is_dir {
            self.forget_dir(&path);
        }
        if !was_shown {
            return true;
        }
        self.report_removed(path, is_dir)
    }

    fn changed(&mut self, path: PathBuf) -> bool {
        let Some(is_dir) = self.kind_on_disk(&path) else {
            return true;
        };
        if !self.rules.is_visible(&path, is_dir) {
            return true;
        }
        self.send(TreeChange::Modified {
            path: to_slash_string(&path),
            is_dir,
        })
    }

    fn moved(&mut self, from: PathBuf, to: PathBuf) -> bool {
        let was_watched = self.watches.contains(&from);
        let is_dir = self.kind_on_disk(&to).unwrap_or(was_watched);
        let from_shown = was_watched || self.rules.is_visible(&from, is_dir);
        let to_shown = self.rules.is_visible(&to, is_dir);
        if is_dir {
            self.forget_dir(&from);
            if to_shown {
                self.watch_new_dir(&to);
            }
        }
        match (from_shown, to_shown) {
            (true, true) => {
                self.remember_gone(from.clone());
                self.gone.remove(&to);
                let renamed = TreeChange::Renamed {
                    from: to_slash_string(&from),
                    to: to_slash_string(&to),
                    is_dir,
                };
                let rescan = TreeChange::Rescan {
                    path: to_slash_string(&to),
                };
                self.send(renamed) && (!is_dir || self.send(rescan))
            }
            (true, false) => self.report_removed(from, is_dir),
            (false, true) => self.report_created(to, is_dir),
            (false, false) => true,
        }
    }

    /// Reports a shown path that appeared.
    fn report_created(&mut self, path: PathBuf, is_dir: bool) -> bool {
        self.gone.remove(&path);
        self.send(TreeChange::Created {
            path: to_slash_string(&path),
            is_dir,
        })
    }

    /// Reports a shown path that went away, unless that was reported already.
    fn report_removed(&mut self, path: PathBuf, is_dir: bool) -> bool {
        let text = to_slash_string(&path);
        if !self.remember_gone(path) {
            return true;
        }
        self.send(TreeChange::Removed { path: text, is_dir })
    }

    /// Re-walks `dir` after its ignore rules changed and tells the listener to list it again.
    fn rescan(&mut self, dir: &Path) -> bool {
        if !dir.as_os_str().is_empty() && !self.rules.is_visible(dir, true) {
            return true;
        }
        if let Err(err) = self.watches.resync(dir) {
            tracing::warn!(error = %err, "cannot watch a directory after its ignore rules changed");
        }
        self.send(TreeChange::Rescan {
            path: to_slash_string(dir),
        })
    }

    /// Starts watching a directory that came into view, with the shown directories below it.
    fn watch_new_dir(&mut self, dir: &Path) {
        if let Err(err) = self.watches.add_tree(dir) {
            tracing::debug!(error = %err, "cannot watch a new directory");
        }
    }

    /// Forgets the watches and cached rules at and below a directory that went away.
    fn forget_dir(&mut self, dir: &Path) {
        self.watches.forget_tree(dir);
        self.rules.forget(dir);
    }

    /// Notes that `path` was reported gone; false if it already was (and not reported back).
    fn remember_gone(&mut self, path: PathBuf) -> bool {
        if self.gone.len() >= GONE_MEMORY {
            self.gone.clear();
        }
        self.gone.insert(path)
    }

    /// Whether the project path is a directory (`Some(true)`), something else (`Some(false)`), or
    /// gone (`None`), without following a link.
    fn kind_on_disk(&self, path: &Path) -> Option<bool> {
        std::fs::symlink_metadata(self.root.join(path))
            .ok()
            .map(|metadata| metadata.is_dir())
    }

    /// Reports `change`; false once nobody listens.
    fn send(&self, change: TreeChange) -> bool {
        tracing::trace!(?change, watched_dirs = self.watches.len(), "tree change");
        self.out.send(change).is_ok()
    }
}
