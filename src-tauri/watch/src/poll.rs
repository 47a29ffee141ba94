//! Polling, for the shown directories the operating system would not watch.
//!
//! When the limit on watches is reached ([`crate::limit`]), the directories left over are
//! recorded here as unwatched. Polling every one of them would cost a directory read each per
//! interval, however far from the user's eyes; so only those the tree shows are polled: a
//! directory counts as shown once it was listed for the webview ([`crate::TreeWatcher::shown`]),
//! and the most recent [`SHOWN_MEMORY`] of them are kept. The poller lists each such directory
//! at every interval and compares it with the last listing; differences become the same notify
//! events the kernel would have sent, fed to the same worker, so they become the same
//! [`crate::TreeChange`]s (judged by the same ignore rules, new directories watched or recorded
//! as unwatched in turn).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use notify_debouncer_full::notify::event::{CreateKind, DataChange, ModifyKind, RemoveKind};
use notify_debouncer_full::notify::{Event, EventKind};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent};

/// How many shown directories are remembered for polling (the most recently listed).
pub(crate) const SHOWN_MEMORY: usize = 256;

/// What polling needs to know of one entry to tell that it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    is_dir: bool,
    len: u64,
    modified: Option<SystemTime>,
}

/// One directory's entries by name.
type Listing = BTreeMap<OsString, Stamp>;

#[derive(Debug, Default)]
struct State {
    /// Shown directories that are not watched (project-relative).
    unwatched: BTreeSet<PathBuf>,
    /// Directories listed for the webview, most recent last.
    shown: VecDeque<PathBuf>,
    /// The last listing of each polled directory.
    listings: HashMap<PathBuf, Listing>,
}

/// The set of directories to poll, shared by the watches (which record what they could not
/// watch), the watcher (which records what is shown) and the poller thread.
#[derive(Debug, Clone)]
pub(crate) struct PollSet {
    root: PathBuf,
    state: Arc<Mutex<State>>,
}

impl PollSet {
    /// An empty set for the project at the canonical `root`.
    pub(crate) fn new(root: PathBuf) -> Self {
        Self {
            root,
            state: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that the shown directory `rel` is not watched.
    pub(crate) fn unwatched(&self, rel: &Path) {
        self.lock().unwatched.insert(rel.to_path_buf());
    }

    /// Forgets `rel` (it went away or is no longer shown).
    pub(crate) fn forget(&self, rel: &Path) {
        let mut state = self.lock();
        state.unwatched.remove(rel);
        state.listings.remove(rel);
    }

    /// How many shown directories are not watched.
    pub(crate) fn unwatched_count(&self) -> usize {
        self.lock().unwatched.len()
    }

    /// Records that the tree shows `rel`; if it is not watched, lists it now, so a change made
    /// from here on is found by the next poll.
    pub(crate) fn shown(&self, rel: &Path) {
        let mut state = self.lock();
        if let Some(at) = state.shown.iter().position(|dir| dir == rel) {
            state.shown.remove(at);
        }
        state.shown.push_back(rel.to_path_buf());
        if state.shown.len() > SHOWN_MEMORY
            && let Some(oldest) = state.shown.pop_front()
        {
            state.listings.remove(&oldest);
        }
        if state.unwatched.contains(rel) {
            let listing = list(&self.root.join(rel));
            state.listings.insert(rel.to_path_buf(), listing);
        }
    }

    /// The directories to poll now: shown and not watched.
    fn targets(&self) -> Vec<PathBuf> {
        let state = self.lock();
        state
            .shown
            .iter()
            .filter(|dir| state.unwatched.contains(*dir))
            .cloned()
            .collect()
    }

    /// Lists every target again and returns the events that tell how they changed since their
    /// last listing (a directory polled for the first time is only listed).
    pub(crate) fn poll(&self) -> Vec<DebouncedEvent> {
        let mut events = Vec::new();
        for rel in self.targets() {
            let abs = self.root.join(&rel);
            let now = list(&abs);
            let before = self.lock().listings.insert(rel.clone(), now.clone());
            if let Some(before) = before {
                diff(&abs, &before, &now, &mut events);
            }
        }
        events
    }
}

/// The entries of the directory at `abs` (empty when it cannot be read: gone, or not a directory
/// any more, which its parent's watch or poll reports).
fn list(abs: &Path) -> Listing {
    let Ok(entries) = std::fs::read_dir(abs) else {
        return Listing::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            // Not following links, as everywhere in the tree.
            let metadata = entry.metadata().ok()?;
            Some((
                entry.file_name(),
                Stamp {
                    is_dir: metadata.is_dir(),
                    len: metadata.len(),
                    modified: metadata.modified().ok(),
                },
            ))
        })
        .collect()
}

/// Appends to `events` the notify events that turn listing `before` of directory `abs` into `now`.
fn diff(abs: &Path, before: &Listing, now: &Listing, events: &mut Vec<DebouncedEvent>) {
    let at = Instant::now();
    let mut push = |kind: EventKind, name: &OsString| {
        events.push(DebouncedEvent::new(
            Event::new(kind).add_path(abs.join(name)),
            at,
        ));
    };
    for (name, old) in before {
        match now.get(name) {
            None => push(
                EventKind::Remove(if old.is_dir {
                    RemoveKind::Folder
                } else {
                    RemoveKind::File
                }),
                name,
            ),
            Some(new) if new.is_dir != old.is_dir => {
                push(EventKind::Remove(RemoveKind::Any), name);
                push(EventKind::Create(CreateKind::Any), name);
            }
            Some(new) if !new.is_dir && new != old => {
                push(EventKind::Modify(ModifyKind::Data(DataChange::Any)), name);
            }
            Some(_) => {}
        }
    }
    for name in now.keys().filter(|name| !before.contains_key(*name)) {
        push(EventKind::Create(CreateKind::Any), name);
    }
}

/// Polls `set` every `interval`, sending what changed to the worker through `batches`, until
/// `stop` is dropped or the worker is gone.
pub(crate) fn run(
    set: &PollSet,
    interval: Duration,
    stop: &Receiver<()>,
    batches: &Sender<DebounceEventResult>,
) {
    loop {
        match stop.recv_timeout(interval) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let events = set.poll();
        if !events.is_empty() && batches.send(Ok(events)).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_shown_unwatched_directories_are_polled_and_changes_become_events() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/sub")).unwrap();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("a/old.txt"), "1").unwrap();
        std::fs::write(root.join("a/edit.txt"), "1").unwrap();
        let set = PollSet::new(root.clone());
        set.unwatched(Path::new("a"));
        set.unwatched(Path::new("b"));
        set.shown(Path::new("a"));
        assert_eq!(set.targets(), [PathBuf::from("a")], "b is not shown");

        std::fs::write(root.join("a/new.txt"), "").unwrap();
        std::fs::remove_file(root.join("a/old.txt")).unwrap();
        std::fs::write(root.join("a/edit.txt"), "longer").unwrap();
        std::fs::remove_dir(root.join("a/sub")).unwrap();
        std::fs::write(root.join("b/unseen.txt"), "").unwrap();
        let mut seen: Vec<(String, EventKind)> = set
            .poll()
            .into_iter()
            .map(|event| {
                let path = event.event.paths[0].strip_prefix(&root).unwrap();
                (path.display().to_string(), event.event.kind)
            })
            .collect();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            [
                (
                    "a/edit.txt".to_owned(),
                    EventKind::Modify(ModifyKind::Data(DataChange::Any))
                ),
                ("a/new.txt".to_owned(), EventKind::Create(CreateKind::Any)),
                ("a/old.txt".to_owned(), EventKind::Remove(RemoveKind::File)),
                ("a/sub".to_owned(), EventKind::Remove(RemoveKind::Folder)),
            ]
        );
        assert!(set.poll().is_empty(), "nothing changed since");

        set.forget(Path::new("a"));
        std::fs::write(root.join("a/later.txt"), "").unwrap();
        assert!(set.poll().is_empty(), "a forgotten directory is not polled");
        assert_eq!(set.unwatched_count(), 1);
    }

    #[test]
    fn only_the_most_recently_shown_directories_are_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let set = PollSet::new(dir.path().to_path_buf());
        for n in 0..SHOWN_MEMORY + 10 {
            let rel = PathBuf::from(format!("d{n}"));
            set.unwatched(&rel);
            set.shown(&rel);
        }
        let targets = set.targets();
        assert_eq!(targets.len(), SHOWN_MEMORY);
        assert_eq!(targets[0], PathBuf::from("d10"));
    }
}
