//! The watcher's lifecycle: start, and stop on drop.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use notify_debouncer_full::notify::{self, RecommendedWatcher};
use notify_debouncer_full::{DebounceEventResult, RecommendedCache, new_debouncer_opt};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::change::TreeChange;
use crate::error::{Result, TreeError};
use crate::tree::canonical_root;
use crate::watches::{SharedDebouncer, Watches, lock};
use crate::worker::Worker;

/// Watches a project and reports changes to its visible tree; stops when dropped.
///
/// Changes arrive on the channel returned by [`TreeWatcher::start`] about one debounce interval
/// after they happen (plus a quarter of it, the debouncer's tick). The channel closes when the
/// watcher is dropped.
#[derive(Debug)]
pub struct TreeWatcher {
    root: PathBuf,
    debouncer: SharedDebouncer,
    worker: Option<JoinHandle<()>>,
}

impl TreeWatcher {
    /// Starts watching the project at `root`, reporting changes debounced over `debounce` (50 ms
    /// keeps the end-to-end delay near 60 ms; bursts to one path within it are merged).
    ///
    /// Blocking: it walks the project's visible directories once to watch each of them (the
    /// ignored and vendor directories are never walked nor watched). From async code call it in
    /// `tokio::task::spawn_blocking`. Changes made once it has returned are reported.
    ///
    /// Errors: [`TreeError::InvalidDebounce`] for a zero interval; [`TreeError::Root`] and
    /// [`TreeError::RootNotADirectory`] for a bad root; [`TreeError::Watch`] when the operating
    /// system refuses a watcher or a watch on the root; [`TreeError::Thread`].
    pub fn start(
        root: impl AsRef<Path>,
        debounce: Duration,
    ) -> Result<(Self, UnboundedReceiver<TreeChange>)> {
        if debounce.is_zero() {
            return Err(TreeError::InvalidDebounce);
        }
        let root = canonical_root(root.as_ref())?;
        let (batches_tx, batches) = std::sync::mpsc::channel::<DebounceEventResult>();
        let debouncer = new_debouncer_opt::<_, RecommendedWatcher, RecommendedCache>(
            debounce,
            None,
            batches_tx,
            RecommendedCache::new(),
            notify::Config::default().with_follow_symlinks(false),
        )
        .map_err(|source| TreeError::Watch {
            path: root.clone(),
            source,
        })?;
        let debouncer: SharedDebouncer = Arc::new(Mutex::new(Some(debouncer)));
        let mut watches = Watches::new(root.clone(), Arc::clone(&debouncer));
        watches.add_tree(Path::new(""))?;
        let (out, changes) = unbounded_channel();
        let worker = Worker::new(root.clone(), watches, out);
        let worker = std::thread::Builder::new()
            .name("gantry-watch".into())
            .spawn(move || worker.run(batches))
            .map_err(TreeError::Thread)?;
        Ok((
            Self {
                root,
                debouncer,
                worker: Some(worker),
            },
            changes,
        ))
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for TreeWatcher {
    /// Stops the operating system's watcher and the debouncer, then waits for the worker to
    /// finish its last batch; the change channel then closes.
    fn drop(&mut self) {
        let debouncer = lock(&self.debouncer).take();
        if let Some(debouncer) = debouncer {
            // Joins the debouncer's thread, which drops the sender the worker reads from.
            debouncer.stop();
        }
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
