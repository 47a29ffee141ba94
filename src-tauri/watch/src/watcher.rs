//! The watcher's lifecycle: start, and stop on drop.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::Duration;

use notify_debouncer_full::DebounceEventResult;
use notify_debouncer_full::notify::RecursiveMode;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::sync::watch;

use crate::backend::{SharedDebouncer, new_debouncer, watches_each_directory};
use crate::change::TreeChange;
use crate::error::{Result, TreeError};
use crate::limit::{WatchLimit, WatchOptions};
use crate::poll::{self, PollSet};
use crate::relpath::RelPath;
use crate::tree::canonical_root;
use crate::watches::Watches;
use crate::worker::Worker;

/// Watches a project and reports changes to its visible tree; stops when dropped.
///
/// Changes arrive on the channel returned by [`TreeWatcher::start`] about one debounce interval
/// after they happen (plus up to a quarter of it, the debouncer's tick). The channel closes when
/// the watcher is dropped.
#[derive(Debug)]
pub struct TreeWatcher {
    root: PathBuf,
    debouncer: Option<SharedDebouncer>,
    worker: Option<JoinHandle<()>>,
    /// The directories that could not be watched, polled while shown.
    polled: PollSet,
    /// Dropped to stop the poller.
    stop_poller: Option<Sender<()>>,
    poller: Option<JoinHandle<()>>,
    limit: watch::Receiver<Option<WatchLimit>>,
}

impl TreeWatcher {
    /// Starts watching the project at `root`, reporting changes debounced over `debounce` (50 ms
    /// keeps the end-to-end delay near 60 ms; bursts to one path within it are merged).
    ///
    /// Blocking: it walks the project's shown directories once (the ignored and vendor
    /// directories are neither walked nor, on Linux, watched). From async code call it in
    /// `tokio::task::spawn_blocking`. Changes made once it has returned are reported.
    ///
    /// Errors: [`TreeError::InvalidDebounce`] for a zero interval; [`TreeError::Root`] and
    /// [`TreeError::RootNotADirectory`] for a bad root; [`TreeError::Watch`] when the operating
    /// system refuses a watcher or a watch on the root; [`TreeError::Thread`].
    pub fn start(
        root: impl AsRef<Path>,
        debounce: Duration,
    ) -> Result<(Self, UnboundedReceiver<TreeChange>)> {
        Self::start_with_options(root, &WatchOptions::new(debounce))
    }

    /// [`TreeWatcher::start`] with all its options: a cap on watched directories of our own and
    /// the interval at which directories left unwatched by a limit are polled (see
    /// [`TreeWatcher::limit`]).
    pub fn start_with_options(
        root: impl AsRef<Path>,
        options: &WatchOptions,
    ) -> Result<(Self, UnboundedReceiver<TreeChange>)> {
        Self::start_with(root.as_ref(), options, watches_each_directory())
    }

    /// [`TreeWatcher::start_with_options`], watching each shown directory on its own
    /// (`each_directory`) or the root recursively.
    fn start_with(
        root: &Path,
        options: &WatchOptions,
        each_directory: bool,
    ) -> Result<(Self, UnboundedReceiver<TreeChange>)> {
        let debounce = options.debounce;
        if debounce.is_zero() || options.poll_interval.is_zero() {
            return Err(TreeError::InvalidDebounce);
        }
        let root = canonical_root(root)?;
        let (batches_tx, batches) = std::sync::mpsc::channel::<DebounceEventResult>();
        let watch_error = |source| TreeError::Watch {
            path: root.clone(),
            source,
        };
        let poll_tx = batches_tx.clone();
        let (mut debouncer, handle) = new_debouncer(debounce, batches_tx).map_err(watch_error)?;
        let mut watches = if each_directory {
            Watches::new(root.clone(), Some(handle)).with_cap(options.max_watches)
        } else {
            debouncer
                .watch(&root, RecursiveMode::Recursive)
                .map_err(watch_error)?;
            Watches::new(root.clone(), None)
        };
        watches.add_tree(Path::new(""))?;
        tracing::debug!(watched = watches.watched(), "the watcher's initial watches");
        let polled = watches.polled().clone();
        let limit = watches.limit();
        let (out, changes) = unbounded_channel();
        let worker = Worker::new(root.clone(), watches, out);
        let worker = std::thread::Builder::new()
            .name("gantry-watch".into())
            .spawn(move || worker.run(batches))
            .map_err(TreeError::Thread)?;
        let mut watcher = Self {
            root,
            debouncer: Some(debouncer),
            worker: Some(worker),
            polled: polled.clone(),
            stop_poller: None,
            poller: None,
            limit,
        };
        // From here on, dropping `watcher` stops what started.
        let (stop_poller, stop) = std::sync::mpsc::channel();
        let interval = options.poll_interval;
        let poller = std::thread::Builder::new()
            .name("gantry-watch-poll".into())
            .spawn(move || poll::run(&polled, interval, &stop, &poll_tx))
            .map_err(TreeError::Thread)?;
        watcher.stop_poller = Some(stop_poller);
        watcher.poller = Some(poller);
        Ok((watcher, changes))
    }

    /// Tells the watcher that the tree shows the project directory `rel` (the webview listed
    /// it): if a limit left it unwatched, it is polled from now on. Paths that are not a project
    /// directory are ignored. Cheap unless `rel` is polled (then one directory read).
    pub fn shown(&self, rel: &str) {
        if let Ok(parsed) = RelPath::parse(rel) {
            self.polled.shown(&parsed.to_path());
        }
    }

    /// Follows the limit on watched directories: `None` until one is reached, then how many
    /// directories are watched and how many are polled instead.
    pub fn limit(&self) -> watch::Receiver<Option<WatchLimit>> {
        self.limit.clone()
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for TreeWatcher {
    /// Stops the debouncer, then waits for the worker to finish its last batch; the change
    /// channel then closes, and the operating system's watcher goes with the worker's handle.
    fn drop(&mut self) {
        // The poller holds a sender of the worker's channel: stop it first.
        drop(self.stop_poller.take());
        if let Some(poller) = self.poller.take() {
            let _ = poller.join();
        }
        if let Some(debouncer) = self.debouncer.take() {
            // Joins the debouncer's thread, which drops the sender the worker reads from.
            debouncer.stop();
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    //! The recursive strategy (the one used where inotify is not), run here on inotify. The
    //! per-directory strategy is covered by `tests/suite/watcher.rs`.

    use std::time::Instant;

    use super::*;

    async fn next_except_noise(
        changes: &mut UnboundedReceiver<TreeChange>,
        until: Instant,
    ) -> Option<TreeChange> {
        tokio::time::timeout(
            until.saturating_duration_since(Instant::now()),
            changes.recv(),
        )
        .await
        .ok()
        .flatten()
    }

    /// Collects changes until `last` arrives (panicking after a second), then for 300 ms more.
    async fn collect_through(
        changes: &mut UnboundedReceiver<TreeChange>,
        last: &TreeChange,
    ) -> Vec<TreeChange> {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(1);
        while !seen.contains(last) {
            match next_except_noise(changes, deadline).await {
                Some(change) => seen.push(change),
                None => panic!("{last:?} did not arrive; got {seen:?}"),
            }
        }
        let quiet = Instant::now() + Duration::from_millis(300);
        while let Some(change) = next_except_noise(changes, quiet).await {
            seen.push(change);
        }
        seen
    }

    #[tokio::test]
    async fn a_recursive_root_watch_reports_the_same_tree() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let (watcher, mut changes) =
            TreeWatcher::start_with(&root, &WatchOptions::new(Duration::from_millis(50)), false)
                .unwrap();

        std::fs::write(root.join("node_modules/pkg/index.js"), "").unwrap();
        std::fs::write(root.join("src/trace.log"), "").unwrap();
        std::fs::write(root.join("src/new.rs"), "").unwrap();
        let new_rs = TreeChange::Created {
            path: "src/new.rs".into(),
            is_dir: false,
        };
        let seen = collect_through(&mut changes, &new_rs).await;
        assert_eq!(seen, [new_rs], "only the shown file is reported");

        // A file made in the renamed directory at once is named by its old path (the watch has
        // not caught up); the rescan that follows the rename is how it is found.
        std::fs::rename(root.join("src"), root.join("lib")).unwrap();
        std::fs::write(root.join("lib/quick.rs"), "").unwrap();
        let rescan = TreeChange::Rescan { path: "lib".into() };
        let seen = collect_through(&mut changes, &rescan).await;
        let moved = TreeChange::Renamed {
            from: "src".into(),
            to: "lib".into(),
            is_dir: true,
        };
        // Whether the new file is also reported depends on how fast the watch caught up.
        let quick = TreeChange::Created {
            path: "lib/quick.rs".into(),
            is_dir: false,
        };
        assert!(seen.contains(&moved), "{seen:?}");
        assert!(
            seen.iter()
                .all(|change| [&moved, &rescan, &quick].contains(&change)),
            "no stale or removed paths: {seen:?}"
        );
        let listed = crate::ProjectTree::new(&root)
            .unwrap()
            .children("lib")
            .unwrap();
        assert!(listed.iter().any(|entry| entry.path == "lib/quick.rs"));

        std::fs::write(root.join("lib/later.rs"), "").unwrap();
        let later = TreeChange::Created {
            path: "lib/later.rs".into(),
            is_dir: false,
        };
        collect_through(&mut changes, &later).await;

        std::fs::remove_dir_all(root.join("lib")).unwrap();
        let gone = TreeChange::Removed {
            path: "lib".into(),
            is_dir: true,
        };
        collect_through(&mut changes, &gone).await;

        drop(watcher);
        assert_eq!(changes.recv().await, None);
    }
}
