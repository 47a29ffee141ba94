//! Checkpoints: everything the agent changed in the project, recorded so that any of it can be
//! undone — without git, in any folder, and without touching the project's own `.git`.
//!
//! [`Checkpoints`] is the project's [`gantry_tools::ChangeSink`] (one per open project, on its
//! `ToolManager`). Every allowed call that may change files reaches it:
//!
//! - write_file and edit_file report each file's previous content (or absence) before they
//!   write ([`recorder`]); the after-state is read when the call ends;
//! - any other such call (run_command, MCP tools above SAFE) is bracketed by a stat snapshot of
//!   the project ([`snapshot`]), whose blob store was filled incrementally before it ran.
//!
//! What changed goes to the store's index (`checkpoint_changes`: one row per file per call, in
//! the turn that the user message at ordinal `turn` started); the contents go to
//! content-addressed, compressed [`blobs`] in the data folder (`checkpoints/<project id>/`).
//! [`view`] turns the rows into the Changes panel (diffs against the state before the session
//! and per turn), [`restore`] writes files back — never over a change made since (that is a
//! conflict the caller decides about) — and records the restore the same way, so it can be
//! undone. [`limits`] keeps each project's checkpoints under a size and an age limit.

pub mod blobs;
pub mod diff;
pub mod limits;
pub mod recorder;
pub mod restore;
pub mod service;
pub mod snapshot;
pub mod view;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use gantry_store::{ProjectId, SessionId, Store, StoreError};
use gantry_tools::ProjectRoot;

use self::blobs::BlobStore;
pub use self::limits::{CheckpointLimits, CheckpointSettings, SaveCheckpointSettingsRequest};
pub use self::restore::{
    Conflict, ConflictReason, FailedFile, OnConflict, RestoreReport, RevertRequest, RevertTarget,
};
use self::snapshot::Index;
pub use self::view::{ChangeKind, ChangesView, FileChange, FileNote, RestoreView, TurnChanges};

/// Why a checkpoint operation failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading or writing a file or a blob failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The thing named does not exist (a turn, a file, a restore).
    #[error("{0}")]
    NotFound(String),
    /// The request does not fit (a hunk of a binary file, ...).
    #[error("{0}")]
    Invalid(String),
    /// A background task died.
    #[error("a background task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

/// A project's checkpoints. Cheap to clone.
#[derive(Clone)]
pub struct Checkpoints {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Checkpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoints")
            .field("project", &self.inner.project)
            .field("blobs", &self.inner.blobs.dir())
            .finish_non_exhaustive()
    }
}

struct Inner {
    store: Store,
    project: ProjectId,
    root: ProjectRoot,
    blobs: BlobStore,
    /// The project's stat index (empty until the first snapshot).
    index: Mutex<Arc<Index>>,
    /// One scan at a time (a second would read the same files again).
    scanning: tokio::sync::Mutex<()>,
    /// The turn each session is in.
    turns: Mutex<HashMap<SessionId, u32>>,
    limits: Mutex<CheckpointLimits>,
    /// The blobs' size on disk, as last counted plus what was written since.
    usage: AtomicU64,
    /// Whether `usage` was counted once.
    counted: AtomicBool,
    /// Whether a garbage collection runs.
    collecting: AtomicBool,
    /// What the project's watcher reported since the last look (the app runs one).
    watch: Mutex<WatchState>,
    /// How many times the whole project was walked (tests and measurements).
    walks: AtomicU64,
}

/// What the project's watcher said since Gantry last looked at the project.
#[derive(Debug, Default)]
struct WatchState {
    /// A watcher runs and reports every change of the visible tree.
    live: bool,
    /// How long its reports may lag behind a change.
    settle: std::time::Duration,
    /// Files reported changed, created, removed or renamed since the last look.
    dirty: std::collections::HashSet<String>,
    /// Something only a full walk can account for (a directory appeared, moved or went; the
    /// watcher asked for a rescan; it just started).
    full: bool,
    /// When the last report came.
    last: Option<std::time::Instant>,
}

/// Where the checkpoints of the store's project `project` live: beside the database.
pub fn checkpoint_dir(store: &Store, project: ProjectId) -> PathBuf {
    store
        .path()
        .parent()
        .map_or_else(
            || PathBuf::from("checkpoints"),
            |dir| dir.join("checkpoints"),
        )
        .join(project.to_string())
}

impl Checkpoints {
    /// The checkpoints of store project `project`, whose folder is `root`, with the limits
    /// saved in the store's settings.
    pub async fn open(store: Store, project: ProjectId, root: ProjectRoot) -> Self {
        let limits = CheckpointLimits::load(&store).await;
        let blobs = BlobStore::new(checkpoint_dir(&store, project).join("blobs"));
        Self {
            inner: Arc::new(Inner {
                store,
                project,
                root,
                blobs,
                index: Mutex::default(),
                scanning: tokio::sync::Mutex::new(()),
                turns: Mutex::default(),
                limits: Mutex::new(limits),
                usage: AtomicU64::new(0),
                counted: AtomicBool::new(false),
                collecting: AtomicBool::new(false),
                watch: Mutex::default(),
                walks: AtomicU64::new(0),
            }),
        }
    }

    /// The database the index lives in.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The project in the store.
    pub fn project(&self) -> ProjectId {
        self.inner.project
    }

    /// The project folder.
    pub fn root(&self) -> &ProjectRoot {
        &self.inner.root
    }

    /// The blobs.
    pub fn blobs(&self) -> &BlobStore {
        &self.inner.blobs
    }

    /// Says that `session`'s next calls belong to the turn started by its user message at
    /// `ordinal` (the engine calls it before each turn).
    pub fn begin_turn(&self, session: &str, ordinal: u32) {
        if let Ok(id) = session.parse::<SessionId>() {
            lock(&self.inner.turns).insert(id, ordinal);
        }
    }

    /// The turn `session` is in (0 before its first).
    pub fn turn_of(&self, session: SessionId) -> u32 {
        lock(&self.inner.turns).get(&session).copied().unwrap_or(0)
    }

    /// The limits in force.
    pub fn limits(&self) -> CheckpointLimits {
        *lock(&self.inner.limits)
    }

    /// Sets the limits (they apply from the next collection).
    pub fn set_limits(&self, limits: CheckpointLimits) {
        *lock(&self.inner.limits) = limits;
    }

    fn index(&self) -> Arc<Index> {
        Arc::clone(&lock(&self.inner.index))
    }

    fn set_index(&self, index: Index) -> Arc<Index> {
        let index = Arc::new(index);
        *lock(&self.inner.index) = Arc::clone(&index);
        index
    }

    /// Counts `bytes` more on disk, and collects garbage in the background when the size limit
    /// is passed.
    fn grew(&self, bytes: u64) {
        let usage = self.inner.usage.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if usage > self.limits().max_bytes() {
            self.collect_in_background();
        }
    }

    /// The blobs' size on disk (counted once, then kept up to date).
    async fn usage(&self) -> u64 {
        if !self.inner.counted.load(Ordering::Relaxed) {
            let blobs = self.inner.blobs.clone();
            let total = tokio::task::spawn_blocking(move || {
                blobs
                    .list()
                    .map(|list| list.iter().map(|(_, size)| size).sum::<u64>())
            })
            .await;
            if let Ok(Ok(total)) = total {
                self.inner.usage.store(total, Ordering::Relaxed);
                self.inner.counted.store(true, Ordering::Relaxed);
            }
        }
        self.inner.usage.load(Ordering::Relaxed)
    }

    /// How many times a snapshot walked the whole project so far.
    pub fn full_walks(&self) -> u64 {
        self.inner.walks.load(Ordering::Relaxed)
    }

    /// What the blobs take on disk, in bytes.
    pub async fn used_bytes(&self) -> u64 {
        self.usage().await
    }

    /// Collects garbage on the runtime unless a collection already runs.
    pub fn collect_in_background(&self) {
        if self.inner.collecting.swap(true, Ordering::AcqRel) {
            return;
        }
        let this = self.clone();
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(async move {
                if let Err(error) = this.collect_garbage().await {
                    tracing::warn!(%error, "cannot trim the checkpoints");
                }
                this.inner.collecting.store(false, Ordering::Release);
            });
        } else {
            self.inner.collecting.store(false, Ordering::Release);
        }
    }
}

impl Checkpoints {
    /// The project's watcher started (its reports lag at most `debounce` and a bit behind a
    /// change): from now on the snapshot before a command reads only what it reported, after
    /// one full walk.
    pub fn watch_started(&self, debounce: std::time::Duration) {
        let mut watch = lock(&self.inner.watch);
        watch.live = true;
        watch.full = true;
        watch.settle = debounce + debounce / 2 + std::time::Duration::from_millis(30);
        watch.dirty.clear();
    }

    /// What the watcher reported.
    pub fn watched(&self, changes: &[gantry_watch::TreeChange]) {
        use gantry_watch::TreeChange;
        let mut watch = lock(&self.inner.watch);
        watch.last = Some(std::time::Instant::now());
        for change in changes {
            match change {
                TreeChange::Created {
                    path,
                    is_dir: false,
                }
                | TreeChange::Modified {
                    path,
                    is_dir: false,
                }
                | TreeChange::Removed {
                    path,
                    is_dir: false,
                } => {
                    watch.dirty.insert(path.clone());
                }
                TreeChange::Renamed {
                    from,
                    to,
                    is_dir: false,
                } => {
                    watch.dirty.insert(from.clone());
                    watch.dirty.insert(to.clone());
                }
                // A directory's own metadata: nothing of its files.
                TreeChange::Modified { is_dir: true, .. } => {}
                TreeChange::Created { is_dir: true, .. }
                | TreeChange::Removed { is_dir: true, .. }
                | TreeChange::Renamed { is_dir: true, .. }
                | TreeChange::Rescan { .. } => watch.full = true,
            }
        }
    }

    /// The watcher stopped: snapshots walk the project again.
    pub fn watch_stopped(&self) {
        lock(&self.inner.watch).live = false;
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// True for a path Gantry never records or restores: anything inside a `.git` folder (the
/// project's own repository is the user's).
pub(crate) fn is_git_path(path: &str) -> bool {
    path.split('/').any(|component| component == ".git")
}

#[cfg(test)]
mod tests;
