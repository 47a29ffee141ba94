//! The Changes panel's view of a session: every file it changed, as a diff against the state
//! before the session, and the same per turn; the restores that can be undone; the tool calls
//! whose changes were undone (their cards say "reverted").
//!
//! A file's net change over a span of changes (the session, a turn) goes from the first
//! change's before-state to the last one's after-state; a file that ended as it began is not
//! listed. "Edited since" says the file on disk is no longer what the session left, so a
//! restore of it would be refused as a conflict.

use std::collections::BTreeMap;

use gantry_store::{Change, ChangeOrigin, FileState, Restore, RestoreKind, Role, SessionId};
use gantry_tools::text::excerpt;
use gantry_tools::{Prior, ProjectRoot};
use serde::Serialize;

use super::blobs::{BlobStore, hash_hex};
use super::diff::{NotText, as_text, unified};
use super::restore::matches;
use super::{CheckpointError, Checkpoints};

/// Characters of a user message shown as its turn's title.
const TITLE_CHARS: usize = 80;

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It did not exist before.
    Created,
    /// Its content or mode changed.
    Modified,
    /// It no longer exists.
    Deleted,
}

/// Why a file's change is shown without a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FileNote {
    /// Binary content.
    Binary,
    /// Text too large to diff.
    TooLarge,
    /// A side's content was not kept (too large to keep): the change is listed, not undoable.
    NotKept,
}

/// One file's net change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// Project-relative path.
    pub path: String,
    /// Created, modified or deleted.
    pub kind: ChangeKind,
    /// The unified diff (absent with a note).
    pub diff: Option<String>,
    /// Why there is no diff.
    pub note: Option<FileNote>,
    /// Lines added.
    pub additions: u32,
    /// Lines removed.
    pub deletions: u32,
    /// The file on disk is no longer what the session left (a restore would be a conflict).
    pub edited_since: bool,
    /// The tools that changed it, in order, without repeats.
    pub tools: Vec<String>,
}

/// What one turn changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TurnChanges {
    /// The turn's user message among the session's, from 1 (what `revert --turn` takes).
    pub number: u32,
    /// The ordinal of that message in the transcript.
    pub ordinal: u32,
    /// The start of that message.
    pub title: String,
    /// The files it changed.
    pub files: Vec<FileChange>,
    /// Every change of the turn was undone.
    pub reverted: bool,
}

/// A restore the user can undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RestoreView {
    /// Its id (for `Undo`).
    pub id: String,
    /// What it restored.
    pub kind: RestoreKind,
    /// What, in words (a path, a turn number).
    pub label: String,
    /// When, in milliseconds since the epoch.
    pub created_at: i64,
    /// The files it wrote.
    pub files: Vec<String>,
    /// It was undone already.
    pub undone: bool,
}

/// The Changes panel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ChangesView {
    /// The session shown (`None`: a fresh chat, nothing changed).
    pub session_id: Option<String>,
    /// Every file the session changed, against the state before the session.
    pub files: Vec<FileChange>,
    /// The same per turn, oldest first.
    pub turns: Vec<TurnChanges>,
    /// The session's restores, oldest first.
    pub restores: Vec<RestoreView>,
    /// Tool calls whose every change was undone.
    pub reverted_calls: Vec<String>,
}

impl ChangesView {
    /// The view of no session.
    pub fn empty() -> Self {
        Self {
            session_id: None,
            files: Vec::new(),
            turns: Vec::new(),
            restores: Vec::new(),
            reverted_calls: Vec::new(),
        }
    }
}

/// Changes grouped by file, each group in id order (rows come sorted by id).
pub(crate) fn by_path<'a>(
    rows: impl IntoIterator<Item = &'a Change>,
) -> BTreeMap<&'a str, Vec<&'a Change>> {
    let mut groups: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for row in rows {
        groups.entry(row.path.as_str()).or_default().push(row);
    }
    groups
}

/// The user messages of a session: ordinal → (number from 1, title).
pub(crate) async fn user_messages(
    checkpoints: &Checkpoints,
    session: SessionId,
) -> Result<BTreeMap<u32, (u32, String)>, CheckpointError> {
    let messages = checkpoints.store().sessions().messages(session).await?;
    let mut users = BTreeMap::new();
    for message in messages {
        if message.message.role == Role::User {
            let number = u32::try_from(users.len() + 1).unwrap_or(u32::MAX);
            let text = message.message.content.unwrap_or_default();
            let first = text
                .lines()
                .find(|line| !line.trim().is_empty())
                .unwrap_or("");
            users.insert(
                message.ordinal,
                (number, excerpt(first.trim(), TITLE_CHARS)),
            );
        }
    }
    Ok(users)
}

impl Checkpoints {
    /// The Changes panel of `session` (its live conversation).
    pub async fn view(&self, session: SessionId) -> Result<ChangesView, CheckpointError> {
        let index = self.store().checkpoints();
        let rows = index.changes(session, None).await?;
        let restores = index.restores(session).await?;
        let users = user_messages(self, session).await?;
        let (root, blobs) = (self.root().clone(), self.blobs().clone());
        let mut view =
            tokio::task::spawn_blocking(move || build(&root, &blobs, &rows, &restores, &users))
                .await?;
        view.session_id = Some(session.to_string());
        Ok(view)
    }
}

fn build(
    root: &ProjectRoot,
    blobs: &BlobStore,
    rows: &[Change],
    restores: &[Restore],
    users: &BTreeMap<u32, (u32, String)>,
) -> ChangesView {
    let mut view = ChangesView::empty();
    for (path, group) in by_path(rows) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        if let Some(mut change) = file_change(blobs, path, &first.before, &last.after, &group) {
            change.edited_since =
                !current(root, path).is_some_and(|now| matches(&now, &last.after));
            view.files.push(change);
        }
    }

    let tool_rows = || {
        rows.iter()
            .filter(|row| matches!(row.origin, ChangeOrigin::Call { .. }))
    };
    let mut turns: BTreeMap<u32, Vec<&Change>> = BTreeMap::new();
    for row in tool_rows() {
        turns.entry(row.turn).or_default().push(row);
    }
    for (turn, turn_rows) in turns {
        let files: Vec<FileChange> = by_path(turn_rows.iter().copied())
            .into_iter()
            .filter_map(|(path, group)| {
                let (first, last) = (group.first()?, group.last()?);
                file_change(blobs, path, &first.before, &last.after, &group)
            })
            .collect();
        let (number, title) = users.get(&turn).cloned().unwrap_or((0, String::new()));
        view.turns.push(TurnChanges {
            number,
            ordinal: turn,
            title,
            reverted: turn_rows.iter().all(|row| row.reverted_by.is_some()),
            files,
        });
    }

    for restore in restores {
        let own: Vec<&Change> = rows
            .iter()
            .filter(|row| row.origin == ChangeOrigin::Restore { id: restore.id })
            .collect();
        view.restores.push(RestoreView {
            id: restore.id.to_string(),
            kind: restore.kind,
            label: restore.label.clone(),
            created_at: restore.created_at.as_millis(),
            files: own.iter().map(|row| row.path.clone()).collect(),
            undone: !own.is_empty() && own.iter().all(|row| row.reverted_by.is_some()),
        });
    }

    let mut calls: BTreeMap<&str, bool> = BTreeMap::new();
    for row in tool_rows() {
        if let ChangeOrigin::Call { id } = &row.origin {
            let reverted = calls.entry(id.as_str()).or_insert(true);
            *reverted &= row.reverted_by.is_some();
        }
    }
    view.reverted_calls = calls
        .into_iter()
        .filter(|(_, reverted)| *reverted)
        .map(|(id, _)| id.to_owned())
        .collect();
    view
}

/// The net change of `path` from `before` to `after` (`None` when it ended as it began).
fn file_change(
    blobs: &BlobStore,
    path: &str,
    before: &FileState,
    after: &FileState,
    rows: &[&Change],
) -> Option<FileChange> {
    if matches(after, before) && !matches!(before, FileState::Unkept { .. }) {
        return None;
    }
    let kind = match (before, after) {
        (FileState::Absent, _) => ChangeKind::Created,
        (_, FileState::Absent) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    let mut tools: Vec<String> = Vec::new();
    for row in rows {
        if matches!(row.origin, ChangeOrigin::Call { .. }) && !tools.contains(&row.tool) {
            tools.push(row.tool.clone());
        }
    }
    let mut change = FileChange {
        path: path.to_owned(),
        kind,
        diff: None,
        note: None,
        additions: 0,
        deletions: 0,
        edited_since: false,
        tools,
    };
    match (content(blobs, before), content(blobs, after)) {
        (Some(old), Some(new)) => match (as_text(&old), as_text(&new)) {
            (Ok(old), Ok(new)) => {
                let (diff, additions, deletions) = unified(path, old, new);
                change.diff = Some(diff);
                change.additions = additions;
                change.deletions = deletions;
            }
            (Err(NotText::TooLarge), _) | (_, Err(NotText::TooLarge)) => {
                change.note = Some(FileNote::TooLarge);
            }
            _ => change.note = Some(FileNote::Binary),
        },
        _ => change.note = Some(FileNote::NotKept),
    }
    Some(change)
}

/// A state's content: empty for an absent file, `None` when it was not kept (or its blob is
/// unreadable).
pub(crate) fn content(blobs: &BlobStore, state: &FileState) -> Option<Vec<u8>> {
    match state {
        FileState::Absent => Some(Vec::new()),
        FileState::Kept { hash, .. } => blobs.get(hash).ok(),
        FileState::Unkept { .. } => None,
    }
}

/// The project file `path`'s state now (hashed, not stored); `None` when it can't be read.
pub(crate) fn current(root: &ProjectRoot, path: &str) -> Option<FileState> {
    let resolved = root.resolve(path).ok()?;
    Some(match Prior::read(root, &resolved).ok()? {
        Prior::Absent => FileState::Absent,
        Prior::File { bytes, mode } => FileState::Kept {
            hash: hash_hex(&bytes),
            mode,
            size: bytes.len() as u64,
        },
        Prior::TooLarge { size, mode } => FileState::Unkept { mode, size },
    })
}
