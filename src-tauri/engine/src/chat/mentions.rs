//! The chat's @-mention completion: every file and folder of the project, kept in memory and
//! current, matched fuzzily on each key press.
//!
//! A key press must not walk the project: on a 100,000-file project a walk takes about a
//! second. So each open project keeps a [`MentionIndex`]: filled once by a walk with the tree's
//! rules ([`gantry_tools::walk::project_walker`]: the ignore files and vendor directories the
//! tree and the tools skip), then kept current by the watcher's changes (the same
//! [`TreeChange`]s the tree follows; a directory that appears or is rescanned is walked again,
//! only it). A query scores every path with Helix's matcher (`nucleo-matcher`, path-aware: a
//! match at the start of a component or the file name counts more) and keeps the best few;
//! `benches/mentions.rs` measures it on a 100,000-file tree.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{PoisonError, RwLock};

use gantry_tools::walk::{path_order, project_walker, relative_to};
use gantry_watch::TreeChange;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::{Deserialize, Serialize};

use crate::chat::attachments::MentionTarget;

/// Completions returned when the request names no limit, and the most it may ask for.
pub const DEFAULT_COMPLETIONS: usize = 20;
const MAX_COMPLETIONS: usize = 200;

/// What the user typed after an `@`, to complete into project paths.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MentionQuery {
    /// What follows the `@`.
    pub query: String,
    /// How many completions at most.
    #[serde(default)]
    #[ts(optional)]
    pub limit: Option<u32>,
}

/// The project paths that complete an `@`-mention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MentionCompletions {
    /// False while the first walk of the project is still running (the list may be partial).
    pub ready: bool,
    /// The best matches, best first.
    pub items: Vec<MentionTarget>,
}

#[derive(Debug, Default)]
struct Entries {
    /// Every shown path (relative, `/`-separated) and whether it is a folder.
    paths: BTreeMap<String, bool>,
    ready: bool,
}

/// A project's files and folders for completion; see the module docs.
#[derive(Debug, Default)]
pub struct MentionIndex {
    entries: RwLock<Entries>,
}

/// Walks `dir` (below `root`, `""` for the root itself) with the tree's rules and returns every
/// path below it with whether it is a folder. Blocking; uses every core.
fn walk(root: &Path, dir: &str) -> Vec<(String, bool)> {
    let start = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    let (sender, receiver) = mpsc::channel::<Vec<(String, bool)>>();
    project_walker(&start).build_parallel().run(|| {
        let sender = sender.clone();
        let mut found = Batch {
            items: Vec::new(),
            sender,
        };
        Box::new(move |entry| {
            if let Ok(entry) = entry
                && entry.depth() > 0
                && let Some(kind) = entry.file_type()
                && let Some(path) = relative_to(entry.path(), root)
            {
                found.items.push((path.into_owned(), kind.is_dir()));
            }
            ignore::WalkState::Continue
        })
    });
    drop(sender);
    receiver.into_iter().flatten().collect()
}

/// One walker thread's finds, handed over when the thread ends.
struct Batch {
    items: Vec<(String, bool)>,
    sender: mpsc::Sender<Vec<(String, bool)>>,
}

impl Drop for Batch {
    fn drop(&mut self) {
        let _ = self.sender.send(std::mem::take(&mut self.items));
    }
}

/// The keys of `paths` below `dir` (not `dir` itself).
fn remove_below(paths: &mut BTreeMap<String, bool>, dir: &str) {
    if dir.is_empty() {
        paths.clear();
        return;
    }
    // Every key starting with `dir/` sorts in [`dir/`, `dir0`): `0` follows `/` in ASCII.
    let below: Vec<String> = paths
        .range(format!("{dir}/")..format!("{dir}0"))
        .map(|(path, _)| path.clone())
        .collect();
    for path in below {
        paths.remove(&path);
    }
}

/// A scored candidate; the heap keeps the worst on top so it can be dropped.
struct Scored<'a> {
    score: u32,
    path: &'a str,
    is_dir: bool,
}

impl Scored<'_> {
    /// Better first: a higher score, then a shorter path, then the listing order.
    fn rank(&self, other: &Self) -> Ordering {
        other
            .score
            .cmp(&self.score)
            .then(self.path.len().cmp(&other.path.len()))
            .then_with(|| path_order(self.path, other.path))
    }
}

impl PartialEq for Scored<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other) == Ordering::Equal
    }
}
impl Eq for Scored<'_> {}
impl PartialOrd for Scored<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank(other)
    }
}

/// Adds `scored` to `best`, dropping the worst when there are more than `limit`.
fn keep<'a>(best: &mut BinaryHeap<Scored<'a>>, limit: usize, scored: Scored<'a>) {
    // Most candidates are worse than the worst kept: skip them without touching the heap.
    if best.len() >= limit
        && best.peek().is_some_and(|worst| {
            worst.score > scored.score || (worst.score == scored.score && *worst <= scored)
        })
    {
        return;
    }
    best.push(scored);
    if best.len() > limit {
        best.pop();
    }
}

impl MentionIndex {
    /// An empty index, not ready.
    pub fn new() -> Self {
        Self::default()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Entries> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fills the index with a walk of the project at `root` (canonical). Blocking.
    pub fn fill(&self, root: &Path) {
        let found = walk(root, "");
        let mut entries = self.write();
        entries.paths = found.into_iter().collect();
        entries.ready = true;
    }

    /// How many paths it holds.
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .paths
            .len()
    }

    /// True when it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Follows the watcher's `changes` of the project at `root`. Blocking for folders that
    /// appeared (they are walked).
    pub fn apply(&self, root: &Path, changes: &[TreeChange]) {
        for change in changes {
            match change {
                TreeChange::Created { path, is_dir } => self.add(root, path, *is_dir),
                TreeChange::Removed { path, .. } => {
                    let mut entries = self.write();
                    entries.paths.remove(path);
                    remove_below(&mut entries.paths, path);
                }
                TreeChange::Renamed { from, to, is_dir } => {
                    {
                        let mut entries = self.write();
                        entries.paths.remove(from);
                        remove_below(&mut entries.paths, from);
                    }
                    self.add(root, to, *is_dir);
                }
                TreeChange::Rescan { path } => {
                    let found = walk(root, path);
                    let mut entries = self.write();
                    remove_below(&mut entries.paths, path);
                    entries.paths.extend(found);
                }
                TreeChange::Modified { .. } => {}
            }
        }
    }

    fn add(&self, root: &Path, path: &str, is_dir: bool) {
        let found = if is_dir { walk(root, path) } else { Vec::new() };
        let mut entries = self.write();
        entries.paths.insert(path.to_owned(), is_dir);
        entries.paths.extend(found);
    }

    /// The paths that best match `query` (fuzzy, smart case; the best `limit`, best first). An
    /// empty query lists the shallowest paths.
    pub fn search(&self, query: &str, limit: Option<u32>) -> MentionCompletions {
        let limit = limit
            .map_or(DEFAULT_COMPLETIONS, |n| n as usize)
            .clamp(1, MAX_COMPLETIONS);
        let entries = self.entries.read().unwrap_or_else(PoisonError::into_inner);
        let query = query.trim();
        let mut best: BinaryHeap<Scored<'_>> = BinaryHeap::with_capacity(limit + 1);
        if query.is_empty() {
            for (path, is_dir) in &entries.paths {
                let depth = path.bytes().filter(|&b| b == b'/').count();
                keep(
                    &mut best,
                    limit,
                    Scored {
                        score: u32::MAX - u32::try_from(depth).unwrap_or(u32::MAX),
                        path,
                        is_dir: *is_dir,
                    },
                );
            }
        } else {
            let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
            let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
            let mut buffer = Vec::new();
            for (path, is_dir) in &entries.paths {
                if let Some(score) = pattern.score(Utf32Str::new(path, &mut buffer), &mut matcher) {
                    keep(
                        &mut best,
                        limit,
                        Scored {
                            score,
                            path,
                            is_dir: *is_dir,
                        },
                    );
                }
            }
        }
        MentionCompletions {
            ready: entries.ready,
            items: best
                .into_sorted_vec()
                .into_iter()
                .map(|scored| MentionTarget {
                    path: scored.path.to_owned(),
                    is_dir: scored.is_dir,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
