//! The change records of running calls: what [`Checkpoints`] hands the tool manager for each
//! allowed call that may change files.
//!
//! - [`ReportedCall`] (write_file, edit_file): the tool reports each file before it writes it;
//!   its previous content goes to the blobs at once (so the write can be refused when it can't
//!   be kept); when the call ends, each file's after-state is read and the changes are saved.
//! - [`SnapshotCall`] (run_command, MCP tools): the project was scanned before the call (the
//!   scan that [`ChangeSink::call_started`] runs); when it ends, it is scanned again and what
//!   differs is saved.
//!
//! A change that is no change (a write of the same bytes, a failed write) is not saved.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use gantry_store::{FileState, NewChange, SessionId};
use gantry_tools::{
    CallChanges, ChangeCall, ChangeError, ChangeSink, ChangeWatch, Prior, ProjectRoot, ResolvedPath,
};

use super::blobs::BlobStore;
use super::snapshot::{self, Budget, Index};
use super::{Checkpoints, is_git_path, lock};

#[async_trait]
impl ChangeSink for Checkpoints {
    async fn call_started(&self, call: &ChangeCall<'_>) -> Option<Arc<dyn CallChanges>> {
        let session: SessionId = call.session_id?.parse().ok()?;
        let who = Who {
            checkpoints: self.clone(),
            session,
            turn: self.turn_of(session),
            call_id: call.call_id.to_owned(),
            tool: call.tool.to_owned(),
        };
        match call.watch {
            ChangeWatch::Reported => Some(Arc::new(ReportedCall {
                who,
                files: Mutex::default(),
            })),
            ChangeWatch::Snapshot => match self.scan().await {
                Ok(before) => Some(Arc::new(SnapshotCall {
                    who,
                    before,
                    started: snapshot::now_nanos(),
                })),
                Err(error) => {
                    tracing::warn!(%error, tool = call.tool, "cannot snapshot the project; this call's changes are not recorded");
                    None
                }
            },
        }
    }
}

impl Checkpoints {
    /// Brings the stat index up to date (reading what changed since the last look) and returns
    /// it: by reading only the files the project's watcher reported when one runs (after
    /// waiting for reports still on their way), by walking the project otherwise.
    pub(crate) async fn scan(&self) -> Result<Arc<Index>, tokio::task::JoinError> {
        let _scanning = self.inner.scanning.lock().await;
        let previous = self.index();
        let budget = self.budget().await;
        let (root, blobs) = (self.inner.root.clone(), self.inner.blobs.clone());
        let incremental = {
            let mut watch = lock(&self.inner.watch);
            let incremental = watch.live && !watch.full && !previous.is_empty();
            watch.full = false;
            incremental.then_some((watch.last, watch.settle))
        };
        if let Some((last, settle)) = incremental {
            // A report of a change made just before may still be on its way.
            if let Some(wait) = last.and_then(|last| settle.checked_sub(last.elapsed())) {
                tokio::time::sleep(wait).await;
            }
            let dirty: Vec<String> = std::mem::take(&mut lock(&self.inner.watch).dirty)
                .into_iter()
                .collect();
            if dirty.is_empty() {
                return Ok(previous);
            }
            let (updates, budget) = tokio::task::spawn_blocking(move || {
                let updates = snapshot::refresh(&root, &blobs, &previous, &dirty, &budget);
                let mut index = Arc::unwrap_or_clone(previous);
                for (path, entry) in updates {
                    match entry {
                        Some(entry) => index.insert(path, entry),
                        None => index.remove(&path),
                    };
                }
                (index, budget)
            })
            .await?;
            let before = self.set_index(updates);
            self.grew(budget.written());
            return Ok(before);
        }
        lock(&self.inner.watch).dirty.clear();
        self.inner
            .walks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (index, grown) = tokio::task::spawn_blocking(move || {
            let (index, _) = snapshot::scan(&root, &blobs, &previous, &budget);
            (index, budget)
        })
        .await?;
        let before = self.set_index(index);
        self.grew(grown.written());
        Ok(before)
    }

    /// What a scan may still add: the size limit minus the blobs' size.
    async fn budget(&self) -> Budget {
        let limit = self.limits().max_bytes();
        Budget::new(limit.saturating_sub(self.usage().await))
    }

    /// Saves changes of calls, logging a failure (a call that ran is never turned into a
    /// failed one because its record could not be saved).
    async fn save(&self, changes: Vec<NewChange>) {
        if changes.is_empty() {
            return;
        }
        if let Err(error) = self
            .inner
            .store
            .checkpoints()
            .record(self.inner.project, &changes)
            .await
        {
            tracing::error!(%error, "cannot save what a call changed; it cannot be undone");
        }
    }
}

/// The call a record belongs to.
struct Who {
    checkpoints: Checkpoints,
    session: SessionId,
    turn: u32,
    call_id: String,
    tool: String,
}

impl Who {
    fn change(&self, path: String, before: FileState, after: FileState) -> NewChange {
        NewChange {
            session: self.session,
            turn: self.turn,
            call_id: self.call_id.clone(),
            tool: self.tool.clone(),
            path,
            before,
            after,
        }
    }
}

/// A call that reports the files it writes.
struct ReportedCall {
    who: Who,
    /// Each file reported, with its state before the call's first write of it.
    files: Mutex<Vec<(String, FileState)>>,
}

#[async_trait]
impl CallChanges for ReportedCall {
    async fn before_write(&self, path: &ResolvedPath, prior: Prior) -> Result<(), ChangeError> {
        let relative = path.relative().to_owned();
        if is_git_path(&relative)
            || lock(&self.files)
                .iter()
                .any(|(known, _)| *known == relative)
        {
            return Ok(());
        }
        let blobs = self.who.checkpoints.blobs().clone();
        let (state, grown) = tokio::task::spawn_blocking(move || keep(&blobs, prior))
            .await
            .map_err(|error| ChangeError(error.to_string()))?
            .map_err(|error| ChangeError(error.to_string()))?;
        self.who.checkpoints.grew(grown);
        lock(&self.files).push((relative, state));
        Ok(())
    }

    async fn finished(&self) {
        let files = std::mem::take(&mut *lock(&self.files));
        if files.is_empty() {
            return;
        }
        let checkpoints = &self.who.checkpoints;
        let (root, blobs) = (checkpoints.root().clone(), checkpoints.blobs().clone());
        let paths: Vec<String> = files.iter().map(|(path, _)| path.clone()).collect();
        let afters = tokio::task::spawn_blocking(move || {
            paths
                .iter()
                .map(|path| current_state(&root, &blobs, path))
                .collect::<Vec<_>>()
        })
        .await;
        let Ok(afters) = afters else {
            tracing::error!("reading the files a call wrote failed");
            return;
        };
        let mut changes = Vec::new();
        for ((path, before), after) in files.into_iter().zip(afters) {
            let (after, grown) = match after {
                Ok(after) => after,
                Err(error) => {
                    tracing::warn!(%error, path, "cannot read a file a call wrote");
                    continue;
                }
            };
            checkpoints.grew(grown);
            if !same_state(&before, &after) {
                changes.push(self.who.change(path, before, after));
            }
        }
        checkpoints.save(changes).await;
    }
}

/// A call whose changes are found by comparing the project before and after it.
struct SnapshotCall {
    who: Who,
    before: Arc<Index>,
    /// When the call started, in nanoseconds since the epoch.
    started: i128,
}

#[async_trait]
impl CallChanges for SnapshotCall {
    async fn before_write(&self, _path: &ResolvedPath, _prior: Prior) -> Result<(), ChangeError> {
        // The snapshot covers it.
        Ok(())
    }

    async fn finished(&self) {
        let checkpoints = &self.who.checkpoints;
        let _scanning = checkpoints.inner.scanning.lock().await;
        let budget = checkpoints.budget().await;
        let (root, blobs) = (checkpoints.root().clone(), checkpoints.blobs().clone());
        let before = Arc::clone(&self.before);
        let started = self.started;
        checkpoints
            .inner
            .walks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let scanned = tokio::task::spawn_blocking(move || {
            let (after, read) = snapshot::scan(&root, &blobs, &before, &budget);
            let changed = snapshot::compare(&root, &before, &after, &read, started);
            (after, changed, budget)
        })
        .await;
        let Ok((after, changed, budget)) = scanned else {
            tracing::error!("the snapshot after a call failed; its changes are not recorded");
            return;
        };
        checkpoints.set_index(after);
        checkpoints.grew(budget.written());
        let changes = changed
            .into_iter()
            .map(|change| self.who.change(change.path, change.before, change.after))
            .collect();
        checkpoints.save(changes).await;
    }
}

/// Keeps a file's previous state: its content goes to the blobs. Returns the state and how
/// many bytes the blobs grew by.
fn keep(blobs: &BlobStore, prior: Prior) -> std::io::Result<(FileState, u64)> {
    Ok(match prior {
        Prior::Absent => (FileState::Absent, 0),
        Prior::TooLarge { size, mode } => (FileState::Unkept { mode, size }, 0),
        Prior::File { bytes, mode } => {
            let (hash, grown) = blobs.put(&bytes)?;
            (
                FileState::Kept {
                    hash,
                    mode,
                    size: bytes.len() as u64,
                },
                grown,
            )
        }
    })
}

/// The project file `path`'s state now, its content kept in the blobs.
pub(crate) fn current_state(
    root: &ProjectRoot,
    blobs: &BlobStore,
    path: &str,
) -> std::io::Result<(FileState, u64)> {
    let resolved = root
        .resolve(path)
        .map_err(|error| std::io::Error::other(error.to_string()))?;
    keep(blobs, Prior::read(root, &resolved)?)
}

/// True when two states are the same file (same content and mode, or both absent).
pub(crate) fn same_state(a: &FileState, b: &FileState) -> bool {
    match (a, b) {
        (FileState::Absent, FileState::Absent) => true,
        (
            FileState::Kept {
                hash: a, mode: am, ..
            },
            FileState::Kept {
                hash: b, mode: bm, ..
            },
        ) => a == b && am == bm,
        // Without the contents, two large files cannot be told apart: never "the same".
        _ => false,
    }
}
