//! The operating system's watcher, shared between the debouncer and our own watch bookkeeping.
//!
//! notify-debouncer-full creates its watcher itself and offers only its own `watch`, which also
//! records the path in a list of roots that it scans linearly on every call: watching each of
//! 11,000 directories that way took 5.3 s (`benches/tree.rs --fanout 22`), quadratic in the number
//! of directories. The roots only serve the file-ID cache, which Linux does not use. So the
//! debouncer is given [`SharedWatcher`], a thin handle whose `new` leaves a second handle behind
//! (in a thread-local slot, read right after on the same thread): per-directory watches go
//! through that second handle, and the debouncer still owns the watcher's lifetime.

use std::cell::RefCell;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use notify_debouncer_full::notify::{
    self, EventHandler, RecommendedWatcher, RecursiveMode, Watcher, WatcherKind,
};
use notify_debouncer_full::{DebounceEventHandler, Debouncer, RecommendedCache, new_debouncer_opt};

/// A handle on the operating system's watcher.
pub(crate) type WatchHandle = Arc<Mutex<RecommendedWatcher>>;

/// The debouncer over a [`SharedWatcher`].
pub(crate) type SharedDebouncer = Debouncer<SharedWatcher, RecommendedCache>;

thread_local! {
    /// The handle left behind by the last [`SharedWatcher::new`] on this thread.
    static CREATED: RefCell<Option<WatchHandle>> = const { RefCell::new(None) };
}

/// The recommended watcher behind a shared handle.
#[derive(Debug)]
pub(crate) struct SharedWatcher(WatchHandle);

impl Watcher for SharedWatcher {
    fn new<F: EventHandler>(event_handler: F, config: notify::Config) -> notify::Result<Self> {
        let handle = Arc::new(Mutex::new(RecommendedWatcher::new(event_handler, config)?));
        CREATED.with(|slot| *slot.borrow_mut() = Some(Arc::clone(&handle)));
        Ok(Self(handle))
    }

    fn watch(&mut self, path: &Path, recursive_mode: RecursiveMode) -> notify::Result<()> {
        lock(&self.0).watch(path, recursive_mode)
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        lock(&self.0).unwatch(path)
    }

    fn configure(&mut self, option: notify::Config) -> notify::Result<bool> {
        lock(&self.0).configure(option)
    }

    fn kind() -> WatcherKind {
        RecommendedWatcher::kind()
    }
}

/// Locks a watcher handle, carrying on past a poisoned lock (the watcher's own state lives in its
/// thread; a panic elsewhere cannot leave it half-changed).
pub(crate) fn lock(handle: &WatchHandle) -> MutexGuard<'_, RecommendedWatcher> {
    handle.lock().unwrap_or_else(PoisonError::into_inner)
}

/// True when this platform's watcher is cheap per directory and costly per recursive tree
/// (inotify: one kernel watch per directory, recursive or not), so that watching only the shown
/// directories one by one pays. Elsewhere (FSEvents, ReadDirectoryChangesW) a recursive watch of
/// the root is one kernel object and the better choice.
pub(crate) fn watches_each_directory() -> bool {
    matches!(RecommendedWatcher::kind(), WatcherKind::Inotify)
}

/// A debouncer emitting to `handler` after `timeout`, and a handle on its watcher. Links are not
/// followed by recursive watches.
pub(crate) fn new_debouncer(
    timeout: Duration,
    handler: impl DebounceEventHandler,
) -> notify::Result<(SharedDebouncer, WatchHandle)> {
    CREATED.with(|slot| slot.borrow_mut().take());
    let debouncer = new_debouncer_opt::<_, SharedWatcher, RecommendedCache>(
        timeout,
        None,
        handler,
        RecommendedCache::new(),
        notify::Config::default().with_follow_symlinks(false),
    )?;
    let handle = CREATED
        .with(|slot| slot.borrow_mut().take())
        .ok_or_else(|| notify::Error::generic("the debouncer did not create a watcher"))?;
    Ok((debouncer, handle))
}
