//! What a command changed in the project, found by looking before and after it.
//!
//! A command (or an MCP tool) can touch any file, and by the time it has, the old content is
//! gone: whatever is to be restored must have been copied *before*. Copying the project before
//! every command would cost a 100,000-file project its whole size per command, so the copy is
//! incremental, the way git's index works:
//!
//! - Gantry keeps, per open project, a **stat index**: for every file of the project walk (the
//!   files the tools and the tree see: `.gitignore` honoured, `.git` and vendor folders such as
//!   `node_modules/` or `target/` skipped), its size, times, inode and mode, and the blob that
//!   holds its content.
//! - Before a command, the project is walked again (one `lstat` per file, in parallel). Only
//!   files whose stat differs from the index — new, or changed since Gantry last looked (by the
//!   user, an editor, another program) — are read, hashed and stored. The first snapshot of a
//!   project reads every file once (the baseline); later ones read only what changed.
//! - After the command, one more walk: files whose stat differs from the before-index are read
//!   and compared by content; files that are gone are deleted ones. Their before-state is the
//!   blob the index named.
//!
//! What this does not see, and says so in the README: files the walk skips (ignored files,
//! vendor and build folders — a build's output is not the agent's change to undo); files larger
//! than [`MAX_SNAPSHOT_FILE_BYTES`], whose changes are listed but whose old content is not kept;
//! contents beyond the project's size limit (the rest of a baseline that would not fit is
//! recorded as not kept); and the contents of files changed by something else *during* the
//! command, which are attributed to it. A file that only became visible (an ignore rule the
//! command removed) is told from a created one by its inode change time, which predates the
//! command; one that only became invisible is checked with `lstat` before it is called deleted.

use std::collections::HashMap;
use std::fs::Metadata;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use gantry_store::FileState;
use gantry_tools::ProjectRoot;
use gantry_tools::walk::{FileVisitor, StopFlag, relative_to, visit_files};

use super::blobs::BlobStore;

/// Files larger than this are indexed by stat only: a change to one is listed, but its previous
/// content is not kept.
pub const MAX_SNAPSHOT_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// How much earlier than a command's start a file's inode change time must be for the file to
/// count as having existed before it (file system clocks are coarse: a few milliseconds).
const CTIME_SLACK_NANOS: i128 = 20_000_000;

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    size: u64,
    mtime: i128,
    ctime: i128,
    inode: u64,
    mode: u32,
}

impl Stat {
    /// The stat of a file from its metadata.
    pub fn of(metadata: &Metadata) -> Self {
        Self {
            size: metadata.len(),
            mtime: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()),
            ctime: i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
            inode: metadata.ino(),
            mode: metadata.permissions().mode() & 0o7777,
        }
    }
}

/// What the index knows of a file's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Stored in the blob with this hash (shared: copying an entry allocates nothing).
    Kept(Arc<str>),
    /// Not kept (too large, over the size limit, or unreadable).
    Unkept,
}

/// One file in the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its stat when it was read.
    pub stat: Stat,
    /// Its content then.
    pub content: Content,
}

impl Entry {
    /// The file's state as the checkpoints' index records it.
    pub fn state(&self) -> FileState {
        match &self.content {
            Content::Kept(hash) => FileState::Kept {
                hash: hash.to_string(),
                mode: self.stat.mode,
                size: self.stat.size,
            },
            Content::Unkept => FileState::Unkept {
                mode: self.stat.mode,
                size: self.stat.size,
            },
        }
    }

    /// True when `other` holds the same content with the same mode (a `touch` is no change).
    fn same_file(&self, other: &Entry) -> bool {
        self.stat.mode == other.stat.mode
            && match (&self.content, &other.content) {
                (Content::Kept(a), Content::Kept(b)) => a == b,
                _ => self.stat == other.stat,
            }
    }
}

/// Every file of the project walk, by project-relative path (shared: a scan that finds a file
/// unchanged reuses its key).
pub type Index = HashMap<Arc<str>, Entry>;

/// How many more bytes the blobs may take during one scan (the project's size limit), and how
/// much they grew.
#[derive(Debug)]
pub struct Budget {
    left: AtomicU64,
    written: AtomicU64,
}

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: u64) -> Self {
        Self {
            left: AtomicU64::new(bytes),
            written: AtomicU64::new(0),
        }
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when there is not enough.
    fn take(&self, bytes: u64) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }

    /// What is left.
    pub fn left(&self) -> u64 {
        self.left.load(Ordering::Relaxed)
    }

    /// How many bytes the blobs grew by (what was new after compression and deduplication).
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

/// One file a command changed: its path and its states before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Project-relative path.
    pub path: String,
    /// Before the command.
    pub before: FileState,
    /// After it.
    pub after: FileState,
}

/// Walks the project and returns its index: entries of `previous` whose stat is unchanged are
/// reused, every other file is read and stored in `blobs` (within `budget`). Also returns
/// the paths that were read.
pub fn scan(
    root: &ProjectRoot,
    blobs: &BlobStore,
    previous: &Index,
    budget: &Budget,
) -> (Index, Vec<Arc<str>>) {
    let found: Mutex<Vec<(Arc<str>, Entry, bool)>> = Mutex::default();
    let stop = StopFlag::default();
    visit_files(root.path(), &stop, || Scanner {
        root,
        blobs,
        previous,
        budget,
        found: Vec::new(),
        out: &found,
    });
    let found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    let mut index = Index::with_capacity(found.len());
    let mut read = Vec::new();
    for (path, entry, was_read) in found {
        if was_read {
            read.push(Arc::clone(&path));
        }
        index.insert(path, entry);
    }
    (index, read)
}

/// Looks again at the files `paths` (a watcher said they changed) and returns what differs
/// from `index`: each path with its new entry, or `None` when it is gone. Files whose stat is
/// unchanged are not read.
pub fn refresh(
    root: &ProjectRoot,
    blobs: &BlobStore,
    index: &Index,
    paths: &[String],
    budget: &Budget,
) -> Vec<(Arc<str>, Option<Entry>)> {
    let reader = Scanner {
        root,
        blobs,
        previous: index,
        budget,
        found: Vec::new(),
        out: &Mutex::default(),
    };
    let mut updates = Vec::new();
    for path in paths {
        let known = index.get_key_value(path.as_str());
        let now = match root.open_listed(Path::new(path)) {
            Ok((_, metadata)) => Some(Stat::of(&metadata)),
            Err(_) => None,
        };
        match (known, now) {
            (Some((_, entry)), Some(stat)) if entry.stat == stat => {}
            (None, None) => {}
            (Some((key, _)), None) => updates.push((Arc::clone(key), None)),
            (known, Some(_)) => {
                let key =
                    known.map_or_else(|| Arc::from(path.as_str()), |(key, _)| Arc::clone(key));
                updates.push((key, reader.read(path)));
            }
        }
    }
    updates
}

/// What changed between `before` (the index before a command that started at `started`, in
/// nanoseconds since the epoch) and `after` (a scan once it ended).
pub fn compare(
    root: &ProjectRoot,
    before: &Index,
    after: &Index,
    read: &[Arc<str>],
    started: i128,
) -> Vec<Changed> {
    let mut changes = Vec::new();
    for path in read {
        let Some(now) = after.get(path) else {
            continue;
        };
        match before.get(path) {
            Some(was) if was.same_file(now) => {}
            Some(was) => changes.push(Changed {
                path: path.to_string(),
                before: was.state(),
                after: now.state(),
            }),
            // Visible now but older than the command: an ignore rule changed, not a new file.
            None if now.stat.ctime < started - CTIME_SLACK_NANOS => {}
            None => changes.push(Changed {
                path: path.to_string(),
                before: FileState::Absent,
                after: now.state(),
            }),
        }
    }
    for (path, was) in before {
        if after.contains_key(path) {
            continue;
        }
        // Out of the walk but still there, unchanged: hidden by an ignore rule, not deleted.
        let still = root
            .open_listed(Path::new(&**path))
            .ok()
            .map(|(_, metadata)| Stat::of(&metadata));
        if still == Some(was.stat) {
            continue;
        }
        changes.push(Changed {
            path: path.to_string(),
            before: was.state(),
            after: FileState::Absent,
        });
    }
    changes.sort_by(|a, b| gantry_tools::walk::path_order(&a.path, &b.path));
    changes
}

/// One walker thread's share of a scan.
struct Scanner<'a> {
    root: &'a ProjectRoot,
    blobs: &'a BlobStore,
    previous: &'a Index,
    budget: &'a Budget,
    found: Vec<(Arc<str>, Entry, bool)>,
    out: &'a Mutex<Vec<(Arc<str>, Entry, bool)>>,
}

impl FileVisitor for Scanner<'_> {
    fn file(&mut self, entry: &ignore::DirEntry) {
        // Paths that are not UTF-8 cannot be recorded by name; they are left out.
        if entry.path().to_str().is_none() {
            return;
        }
        let Some(path) = relative_to(entry.path(), self.root.path()) else {
            return;
        };
        let Ok(metadata) = entry.metadata() else {
            return;
        };
        let stat = Stat::of(&metadata);
        if let Some((key, known)) = self.previous.get_key_value(&*path)
            && known.stat == stat
        {
            self.found.push((Arc::clone(key), known.clone(), false));
            return;
        }
        if let Some(entry) = self.read(&path) {
            self.found.push((Arc::from(&*path), entry, true));
        }
    }
}

impl Scanner<'_> {
    /// Reads and stores one file; `None` when it vanished or is no longer a regular file.
    fn read(&self, path: &str) -> Option<Entry> {
        let (file, metadata) = self.root.open_listed(Path::new(path)).ok()?;
        let stat = Stat::of(&metadata);
        let unkept = Entry {
            stat,
            content: Content::Unkept,
        };
        if stat.size > MAX_SNAPSHOT_FILE_BYTES {
            return Some(unkept);
        }
        let mut bytes = Vec::with_capacity(usize::try_from(stat.size).unwrap_or(0));
        if file
            .take(MAX_SNAPSHOT_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .is_err()
        {
            return Some(unkept);
        }
        // Charged at the content's size: compression only makes it cheaper.
        if !self.budget.take(bytes.len() as u64) {
            return Some(unkept);
        }
        match self.blobs.put(&bytes) {
            Ok((hash, grown)) => {
                self.budget.written.fetch_add(grown, Ordering::Relaxed);
                Some(Entry {
                    stat,
                    content: Content::Kept(Arc::from(hash)),
                })
            }
            Err(error) => {
                tracing::warn!(%error, path, "cannot keep a file's content for checkpoints");
                Some(unkept)
            }
        }
    }
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        self.out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .append(&mut self.found);
    }
}

/// The time now, in nanoseconds since the epoch (a command's start, for [`compare`]).
pub fn now_nanos() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|since| i128::try_from(since.as_nanos()).unwrap_or(i128::MAX))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn scan_now(root: &ProjectRoot, blobs: &BlobStore, previous: &Index) -> (Index, Vec<Arc<str>>) {
        scan(root, blobs, previous, &Budget::new(u64::MAX))
    }

    #[test]
    fn a_second_scan_reads_only_what_changed_and_compare_finds_it() {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = project.path();
        fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
        fs::create_dir_all(dir.join("src")).unwrap();
        fs::create_dir_all(dir.join("node_modules/x")).unwrap();
        fs::write(dir.join("src/a.rs"), "a\n").unwrap();
        fs::write(dir.join("src/b.rs"), "b\n").unwrap();
        fs::write(dir.join("keep.txt"), "k\n").unwrap();
        fs::write(dir.join("old.log"), "ignored\n").unwrap();
        fs::write(dir.join("node_modules/x/i.js"), "vendor\n").unwrap();
        let root = ProjectRoot::new(dir).unwrap();
        let blobs = BlobStore::new(data.path().join("blobs"));

        let (before, read) = scan_now(&root, &blobs, &Index::new());
        let mut names: Vec<&str> = before.keys().map(|key| &**key).collect();
        names.sort_unstable();
        assert_eq!(names, [".gitignore", "keep.txt", "src/a.rs", "src/b.rs"]);
        assert_eq!(read.len(), 4);

        let started = now_nanos();
        std::thread::sleep(std::time::Duration::from_millis(30));
        fs::write(dir.join("src/a.rs"), "a changed\n").unwrap();
        fs::remove_file(dir.join("src/b.rs")).unwrap();
        fs::write(dir.join("src/c.rs"), "c\n").unwrap();
        fs::write(dir.join("new.log"), "ignored too\n").unwrap();
        // Same content rewritten: a new stat, no change.
        fs::write(dir.join("keep.txt"), "k\n").unwrap();
        let (after, read) = scan_now(&root, &blobs, &before);
        let mut read_sorted: Vec<&str> = read.iter().map(|key| &**key).collect();
        read_sorted.sort_unstable();
        assert_eq!(read_sorted, ["keep.txt", "src/a.rs", "src/c.rs"]);
        let changes = compare(&root, &before, &after, &read, started);
        let summary: Vec<(&str, &str, &str)> = changes
            .iter()
            .map(|change| {
                let name = |state: &FileState| match state {
                    FileState::Absent => "absent",
                    FileState::Kept { .. } => "kept",
                    FileState::Unkept { .. } => "unkept",
                };
                (
                    change.path.as_str(),
                    name(&change.before),
                    name(&change.after),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("src/a.rs", "kept", "kept"),
                ("src/b.rs", "kept", "absent"),
                ("src/c.rs", "absent", "kept")
            ]
        );
        let FileState::Kept { hash, .. } = &changes[1].before else {
            panic!("{changes:?}")
        };
        assert_eq!(blobs.get(hash).unwrap(), b"b\n");
    }

    #[test]
    fn files_that_only_change_visibility_are_not_changes() {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = project.path();
        fs::write(dir.join(".gitignore"), "*.log\n").unwrap();
        fs::write(dir.join("a.txt"), "a\n").unwrap();
        fs::write(dir.join("b.log"), "b\n").unwrap();
        let root = ProjectRoot::new(dir).unwrap();
        let blobs = BlobStore::new(data.path().join("blobs"));
        let (before, _) = scan_now(&root, &blobs, &Index::new());
        std::thread::sleep(std::time::Duration::from_millis(50));
        let started = now_nanos();
        // The command swaps the rule: b.log appears, a.txt disappears; neither changed.
        fs::write(dir.join(".gitignore"), "*.txt\n").unwrap();
        let (after, read) = scan_now(&root, &blobs, &before);
        let changes = compare(&root, &before, &after, &read, started);
        let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, [".gitignore"]);
    }

    #[test]
    fn large_files_and_an_exhausted_budget_are_indexed_without_content() {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = project.path();
        fs::write(
            dir.join("big.bin"),
            vec![7u8; MAX_SNAPSHOT_FILE_BYTES as usize + 1],
        )
        .unwrap();
        fs::write(dir.join("small.txt"), "0123456789").unwrap();
        let root = ProjectRoot::new(dir).unwrap();
        let blobs = BlobStore::new(data.path().join("blobs"));
        let (index, _) = scan(&root, &blobs, &Index::new(), &Budget::new(5));
        assert_eq!(index["big.bin"].content, Content::Unkept);
        assert_eq!(index["small.txt"].content, Content::Unkept);
        let budget = Budget::new(100);
        let (index, _) = scan(&root, &blobs, &Index::new(), &budget);
        assert!(matches!(index["small.txt"].content, Content::Kept(_)));
        assert_eq!(budget.left(), 90);
    }

    #[test]
    fn a_refresh_reads_only_the_reported_files() {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = project.path();
        fs::write(dir.join("a.txt"), "a\n").unwrap();
        fs::write(dir.join("b.txt"), "b\n").unwrap();
        let root = ProjectRoot::new(dir).unwrap();
        let blobs = BlobStore::new(data.path().join("blobs"));
        let (index, _) = scan_now(&root, &blobs, &Index::new());
        fs::write(dir.join("a.txt"), "a, longer\n").unwrap();
        fs::remove_file(dir.join("b.txt")).unwrap();
        fs::write(dir.join("c.txt"), "c\n").unwrap();
        fs::write(dir.join("unreported.txt"), "x\n").unwrap();
        let reported: Vec<String> = ["a.txt", "b.txt", "c.txt", "never.txt"]
            .map(String::from)
            .to_vec();
        let mut updates = refresh(&root, &blobs, &index, &reported, &Budget::new(u64::MAX));
        updates.sort_by(|x, y| x.0.cmp(&y.0));
        let summary: Vec<(&str, bool)> = updates
            .iter()
            .map(|(path, entry)| (&**path, entry.is_some()))
            .collect();
        assert_eq!(
            summary,
            [("a.txt", true), ("b.txt", false), ("c.txt", true)]
        );
        let Some(Entry {
            content: Content::Kept(hash),
            ..
        }) = &updates[0].1
        else {
            panic!("{updates:?}")
        };
        assert_eq!(blobs.get(hash).unwrap(), b"a, longer\n");
    }
}
