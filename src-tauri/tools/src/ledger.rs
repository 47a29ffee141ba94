//! What the model has seen of each file in this session, to refuse stale edits.
//!
//! An edit is written against the text the model last read. If a formatter, the user or another
//! program changed the file since, applying the edit would silently merge two views of the
//! file. The read and write tools record a [`FileStamp`] of every file they touch; the edit
//! tool compares the file's current stamp with the recorded one and refuses when they differ.
//! Grants and this ledger both belong to the session ([`crate::ToolSession`]): a new session
//! starts with neither.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// What identifies one version of a file cheaply: modification time, size and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl FileStamp {
    /// The stamp of a file from its metadata.
    pub fn from_metadata(metadata: &Metadata) -> Self {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(metadata);
        #[cfg(not(unix))]
        let inode = 0;
        Self {
            modified: metadata.modified().ok(),
            len: metadata.len(),
            inode,
        }
    }

    /// The current stamp of the file at `path`.
    pub fn of(path: &Path) -> std::io::Result<Self> {
        std::fs::metadata(path).map(|metadata| Self::from_metadata(&metadata))
    }
}

/// How a file on disk compares with what the model last saw of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// The model has not read or written this file in this session.
    Unseen,
    /// The file is as the model last saw it.
    Fresh,
    /// The file changed since the model last read or wrote it.
    Changed,
}

/// The stamps of the files the model read or wrote in this session, by real path.
#[derive(Debug, Default)]
pub struct FileLedger {
    seen: Mutex<HashMap<PathBuf, FileStamp>>,
}

impl FileLedger {
    /// An empty ledger.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that the model now knows the file at `path` as `stamp`.
    pub fn record(&self, path: &Path, stamp: FileStamp) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(path.to_owned(), stamp);
    }

    /// Records the file's current stamp (ignored when the file can't be inspected).
    pub fn record_current(&self, path: &Path) {
        if let Ok(stamp) = FileStamp::of(path) {
            self.record(path, stamp);
        }
    }

    /// Compares the file's current state with what was recorded. A file that vanished after
    /// being seen counts as changed.
    pub fn freshness(&self, path: &Path) -> Freshness {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        match seen.get(path) {
            None => Freshness::Unseen,
            Some(recorded) => match FileStamp::of(path) {
                Ok(current) if current == *recorded => Freshness::Fresh,
                _ => Freshness::Changed,
            },
        }
    }

    /// Forgets every file (a new session).
    pub fn clear(&self) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracks_changes_since_last_seen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one").unwrap();
        let ledger = FileLedger::new();
        assert_eq!(ledger.freshness(&path), Freshness::Unseen);
        ledger.record_current(&path);
        assert_eq!(ledger.freshness(&path), Freshness::Fresh);
        std::fs::write(&path, "two, longer").unwrap();
        assert_eq!(ledger.freshness(&path), Freshness::Changed);
        ledger.record_current(&path);
        assert_eq!(ledger.freshness(&path), Freshness::Fresh);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(ledger.freshness(&path), Freshness::Changed);
        ledger.clear();
        assert_eq!(ledger.freshness(&path), Freshness::Unseen);
    }
}
