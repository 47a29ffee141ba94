//! Writing files back: revert a file, a hunk, a turn, the session; undo a restore; rewind the
//! files to an earlier message; bring back a set-aside version.
//!
//! Every restore is a list of per-file plans: the state to write (`desired`), the state Gantry
//! last left the file in (`expected`), and the changes the restore undoes. Before anything is
//! written each file is checked:
//!
//! - already as desired: nothing to write (its changes still count as undone);
//! - not as expected (the user or another program changed it since), or changed again by a
//!   later change the restore does not undo: a **conflict**. With [`OnConflict::Refuse`] nothing
//!   at all is written and the conflicts are listed; the caller lets the user choose
//!   [`OnConflict::Overwrite`] or [`OnConflict::Skip`] (restore the rest, keep those files);
//! - its desired content was never kept (too large): listed as not restorable.
//!
//! Files are written atomically below the project root's descriptor with their recorded bytes
//! (line endings and BOM included) and mode, or removed; the write is refused when the file
//! changed between the check and the write. Then the restore itself is recorded — each file's
//! state before it (its content kept) and after — so it can be undone like any change.

use std::collections::BTreeMap;

use gantry_store::{
    Change, ChangeId, ChangeOrigin, FileState, NewRestore, RestoreId, RestoreKind, RestoredFile,
    SessionId,
};
use gantry_tools::{
    AtomicWriteError, FileStamp, Prior, ProjectRoot, remove_beneath, write_atomic_beneath_with_mode,
};
use serde::{Deserialize, Serialize};

use super::blobs::{BlobStore, hash_hex};
use super::diff::{as_text, hunk_count, revert_hunk};
use super::view::{by_path, content};
use super::{CheckpointError, Checkpoints, is_git_path};

/// What to do with files changed since Gantry left them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum OnConflict {
    /// Write nothing; list the conflicts.
    #[default]
    Refuse,
    /// Write them too (the overwritten content is kept: the restore can be undone).
    Overwrite,
    /// Leave them as they are and restore the rest.
    Skip,
}

/// Why a file is a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ConflictReason {
    /// It is no longer what Gantry left (edited by the user or another program).
    EditedSince,
    /// A later change of the session changed it again; restoring would undo that too.
    ChangedLater,
}

/// A file a restore would overwrite a change in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    /// Project-relative path.
    pub path: String,
    /// Why.
    pub reason: ConflictReason,
}

/// A file a restore could not write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct FailedFile {
    /// Project-relative path.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RestoreReport {
    /// False when conflicts stopped it (nothing was written).
    pub applied: bool,
    /// Files written or removed.
    pub restored: Vec<String>,
    /// Files changed since (written anyway with `overwrite`, left with `skip`).
    pub conflicts: Vec<Conflict>,
    /// Files whose earlier content was not kept.
    pub unrestorable: Vec<String>,
    /// Files that could not be written.
    pub failed: Vec<FailedFile>,
    /// The restore, when one was recorded (undo it with this id).
    pub restore_id: Option<String>,
}

/// What to revert.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(
    tag = "scope",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RevertTarget {
    /// Every file of the session, to the state before the session.
    Session,
    /// One file, to the state before the session.
    File {
        /// Project-relative path.
        path: String,
    },
    /// One hunk of a file's diff against the state before the session.
    Hunk {
        /// Project-relative path.
        path: String,
        /// The hunk's index in that diff, from 0.
        hunk: u32,
    },
    /// The files of one turn, to the state before it.
    Turn {
        /// The turn's number (its user message among the session's, from 1).
        number: u32,
    },
    /// An earlier restore, undone.
    Undo {
        /// The restore's id.
        restore_id: String,
    },
}

/// What the agent changed to revert, and what to do with files changed since.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RevertRequest {
    /// What to revert.
    pub target: RevertTarget,
    /// What to do with files changed since.
    pub on_conflict: OnConflict,
}

/// One file of a restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilePlan {
    pub path: String,
    pub desired: FileState,
    pub expected: FileState,
    /// A change the restore does not undo changed the file after the ones it undoes.
    pub later: bool,
    pub reverts: Vec<ChangeId>,
}

/// A restore to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub kind: RestoreKind,
    pub label: String,
    pub turn: u32,
    pub files: Vec<FilePlan>,
}

/// True when the file state `current` is `wanted`. A state whose content was not kept matches
/// by size and mode only.
pub(crate) fn matches(current: &FileState, wanted: &FileState) -> bool {
    match (current, wanted) {
        (FileState::Absent, FileState::Absent) => true,
        (
            FileState::Kept { hash, mode, .. },
            FileState::Kept {
                hash: want,
                mode: want_mode,
                ..
            },
        ) => hash == want && mode == want_mode,
        (
            FileState::Kept { mode, size, .. } | FileState::Unkept { mode, size },
            FileState::Unkept {
                mode: want_mode,
                size: want_size,
            },
        ) => mode == want_mode && size == want_size,
        _ => false,
    }
}

/// Plans for restoring each file of `rows` to its first row's before-state, expecting the
/// after-state of its newest change (in `rows` or not); `later` is set when a newer change of
/// the agent that still stands touched the file (a conflict the user decides about).
fn plans_to_start(rows: &[&Change], all: &[Change]) -> Vec<FilePlan> {
    by_path(rows.iter().copied())
        .into_iter()
        .filter(|(path, _)| !is_git_path(path))
        .filter_map(|(path, group)| {
            let (first, last) = (group.first()?, group.last()?);
            // Newer changes of the file that the restore does not undo: the file should be as
            // the newest left it. A newer change of the agent that still stands would be undone
            // too: a conflict the user decides about. (Newer restores are the user's own
            // actions, recorded and undoable themselves: not a conflict.)
            let newer: Vec<&Change> = all
                .iter()
                .filter(|row| row.path == path && row.id > last.id)
                .filter(|row| !group.iter().any(|own| own.id == row.id))
                .collect();
            let later = newer.iter().any(|row| {
                matches!(row.origin, ChangeOrigin::Call { .. }) && row.reverted_by.is_none()
            });
            Some(FilePlan {
                path: path.to_owned(),
                desired: first.before.clone(),
                expected: newer
                    .last()
                    .map_or_else(|| last.after.clone(), |row| row.after.clone()),
                later,
                reverts: group.iter().map(|row| row.id).collect(),
            })
        })
        .collect()
}

impl Checkpoints {
    /// Reverts `target` of `session`'s live conversation.
    pub async fn revert(
        &self,
        session: SessionId,
        target: &RevertTarget,
        on_conflict: OnConflict,
    ) -> Result<RestoreReport, CheckpointError> {
        let rows = self.store().checkpoints().changes(session, None).await?;
        let turn = self.current_turn(session).await?;
        let all: Vec<&Change> = rows.iter().collect();
        let plan = match target {
            RevertTarget::Session => Plan {
                kind: RestoreKind::Session,
                label: String::new(),
                turn,
                files: plans_to_start(&all, &rows),
            },
            RevertTarget::File { path } => {
                let own: Vec<&Change> = rows.iter().filter(|row| row.path == *path).collect();
                if own.is_empty() {
                    return Err(CheckpointError::NotFound(format!(
                        "the session did not change {path}"
                    )));
                }
                Plan {
                    kind: RestoreKind::File,
                    label: path.clone(),
                    turn,
                    files: plans_to_start(&own, &rows),
                }
            }
            RevertTarget::Turn { number } => {
                let users = super::view::user_messages(self, session).await?;
                let ordinal = users
                    .iter()
                    .find(|(_, (n, _))| n == number)
                    .map(|(ordinal, _)| *ordinal)
                    .ok_or_else(|| CheckpointError::NotFound(format!("no turn {number}")))?;
                let own: Vec<&Change> = rows
                    .iter()
                    .filter(|row| {
                        row.turn == ordinal && matches!(row.origin, ChangeOrigin::Call { .. })
                    })
                    .collect();
                if own.is_empty() {
                    return Err(CheckpointError::NotFound(format!(
                        "turn {number} changed no file"
                    )));
                }
                Plan {
                    kind: RestoreKind::Turn,
                    label: number.to_string(),
                    turn,
                    files: plans_to_start(&own, &rows),
                }
            }
            RevertTarget::Undo { restore_id } => {
                let id: RestoreId = restore_id
                    .parse()
                    .map_err(|_| CheckpointError::NotFound(format!("no restore {restore_id}")))?;
                let own: Vec<&Change> = rows
                    .iter()
                    .filter(|row| row.origin == ChangeOrigin::Restore { id })
                    .collect();
                if own.is_empty() {
                    return Err(CheckpointError::NotFound(format!(
                        "no restore {restore_id}"
                    )));
                }
                Plan {
                    kind: RestoreKind::Undo,
                    label: restore_id.clone(),
                    turn,
                    files: plans_to_start(&own, &rows),
                }
            }
            RevertTarget::Hunk { path, hunk } => self.hunk_plan(&rows, path, *hunk, turn).await?,
        };
        self.apply(session, plan, on_conflict).await
    }

    /// The plan for taking back hunk `hunk` of `path`'s diff against the state before the
    /// session.
    async fn hunk_plan(
        &self,
        rows: &[Change],
        path: &str,
        hunk: u32,
        turn: u32,
    ) -> Result<Plan, CheckpointError> {
        let own: Vec<&Change> = rows.iter().filter(|row| row.path == path).collect();
        let (Some(first), Some(last)) = (own.first(), own.last()) else {
            return Err(CheckpointError::NotFound(format!(
                "the session did not change {path}"
            )));
        };
        let (before, after) = (first.before.clone(), last.after.clone());
        let mode = match &after {
            FileState::Kept { mode, .. } => *mode,
            FileState::Absent => match &before {
                FileState::Kept { mode, .. } => *mode,
                _ => 0o644,
            },
            FileState::Unkept { .. } => {
                return Err(CheckpointError::Invalid(format!(
                    "{path} was not kept; its hunks cannot be reverted"
                )));
            }
        };
        let blobs = self.blobs().clone();
        let index = usize::try_from(hunk).unwrap_or(usize::MAX);
        let shown = path.to_owned();
        let (desired, grown) = tokio::task::spawn_blocking(move || {
            let not_text =
                || CheckpointError::Invalid(format!("{shown} is not a text file; revert it whole"));
            let old = content(&blobs, &before).ok_or_else(not_text)?;
            let new = content(&blobs, &after).ok_or_else(not_text)?;
            let (old, new) = (
                as_text(&old).map_err(|_| not_text())?,
                as_text(&new).map_err(|_| not_text())?,
            );
            let reverted = revert_hunk(old, new, index).ok_or_else(|| {
                CheckpointError::NotFound(format!(
                    "{shown} has {} hunks, not {}",
                    hunk_count(old, new),
                    index + 1
                ))
            })?;
            let (hash, grown) = blobs.put(reverted.as_bytes())?;
            Ok::<_, CheckpointError>((
                FileState::Kept {
                    hash,
                    mode,
                    size: reverted.len() as u64,
                },
                grown,
            ))
        })
        .await??;
        self.grew(grown);
        Ok(Plan {
            kind: RestoreKind::Hunk,
            label: format!("{path}#{}", hunk + 1),
            turn,
            files: vec![FilePlan {
                path: path.to_owned(),
                desired,
                expected: last.after.clone(),
                later: false,
                reverts: Vec::new(),
            }],
        })
    }

    /// The ordinal of the session's last user message (0 before the first).
    pub(crate) async fn current_turn(&self, session: SessionId) -> Result<u32, CheckpointError> {
        let users = super::view::user_messages(self, session).await?;
        Ok(users.keys().next_back().copied().unwrap_or(0))
    }

    /// The plan that takes the files back to how they were before the user message at
    /// `ordinal`: every live change from that turn on, undone.
    pub(crate) async fn rewind_plan(
        &self,
        session: SessionId,
        ordinal: u32,
    ) -> Result<Plan, CheckpointError> {
        let rows = self.store().checkpoints().changes(session, None).await?;
        let own: Vec<&Change> = rows.iter().filter(|row| row.turn >= ordinal).collect();
        Ok(Plan {
            kind: RestoreKind::Rewind,
            label: ordinal.to_string(),
            turn: ordinal,
            files: plans_to_start(&own, &rows),
        })
    }

    /// The plan that brings back the files of the set-aside version `branch` (which leaves the
    /// conversation at `ordinal`, and whose exit restore is `exit`): the live changes from
    /// `ordinal` on are undone and the branch's own changes redone.
    pub(crate) async fn branch_plan(
        &self,
        session: SessionId,
        branch: gantry_store::BranchId,
        ordinal: u32,
        exit: Option<RestoreId>,
    ) -> Result<Plan, CheckpointError> {
        let index = self.store().checkpoints();
        let live = index.changes(session, None).await?;
        let set_aside = index.changes(session, Some(branch)).await?;
        let live: Vec<&Change> = live.iter().filter(|row| row.turn >= ordinal).collect();
        let own: Vec<&Change> = set_aside
            .iter()
            .filter(|row| exit.is_none_or(|exit| row.origin != ChangeOrigin::Restore { id: exit }))
            .collect();
        let live_paths = by_path(live.iter().copied());
        let branch_paths = by_path(own.iter().copied());
        let mut files = BTreeMap::new();
        for (path, group) in &live_paths {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            files.insert(
                *path,
                FilePlan {
                    path: (*path).to_owned(),
                    desired: first.before.clone(),
                    expected: last.after.clone(),
                    later: false,
                    reverts: group.iter().map(|row| row.id).collect(),
                },
            );
        }
        for (path, group) in &branch_paths {
            let (Some(first), Some(last)) = (group.first(), group.last()) else {
                continue;
            };
            let plan = files.entry(*path).or_insert_with(|| FilePlan {
                path: (*path).to_owned(),
                desired: last.after.clone(),
                expected: first.before.clone(),
                later: false,
                reverts: Vec::new(),
            });
            plan.desired = last.after.clone();
        }
        Ok(Plan {
            kind: RestoreKind::Branch,
            label: branch.to_string(),
            turn: ordinal,
            files: files
                .into_values()
                .filter(|plan| !is_git_path(&plan.path))
                .collect(),
        })
    }

    /// Checks and (unless conflicts stop it) applies `plan`, then records it.
    pub(crate) async fn apply(
        &self,
        session: SessionId,
        plan: Plan,
        on_conflict: OnConflict,
    ) -> Result<RestoreReport, CheckpointError> {
        let (root, blobs) = (self.root().clone(), self.blobs().clone());
        let files = plan.files;
        let (mut report, written, reverts, grown) =
            tokio::task::spawn_blocking(move || write_files(&root, &blobs, files, on_conflict))
                .await?;
        self.grew(grown);
        if written.is_empty() && reverts.is_empty() {
            return Ok(report);
        }
        let id = self
            .store()
            .checkpoints()
            .record_restore(&NewRestore {
                project: self.project(),
                session,
                kind: plan.kind,
                label: plan.label,
                turn: plan.turn,
                files: written,
                reverts,
            })
            .await?;
        report.restore_id = Some(id.to_string());
        Ok(report)
    }
}

/// One file checked against its plan.
struct Checked {
    plan: FilePlan,
    resolved: gantry_tools::ResolvedPath,
    /// What is there now, with its bytes.
    current: Prior,
    stamp: Option<FileStamp>,
    status: Status,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Already,
    Write,
    Conflict(ConflictReason),
    Unrestorable,
}

/// Checks every file, then writes (see the module docs). Returns the report, the files
/// written (for the record), the changes undone and how much the blobs grew.
fn write_files(
    root: &ProjectRoot,
    blobs: &BlobStore,
    files: Vec<FilePlan>,
    on_conflict: OnConflict,
) -> (RestoreReport, Vec<RestoredFile>, Vec<ChangeId>, u64) {
    let mut report = RestoreReport::default();
    let mut checked = Vec::new();
    for plan in files {
        let resolved = match root.resolve(&plan.path) {
            Ok(resolved) => resolved,
            Err(error) => {
                report.failed.push(FailedFile {
                    path: plan.path.clone(),
                    message: error.to_string(),
                });
                continue;
            }
        };
        let stamp = root
            .metadata_beneath(&resolved)
            .ok()
            .map(|metadata| FileStamp::from_metadata(&metadata));
        let current = match Prior::read(root, &resolved) {
            Ok(current) => current,
            Err(error) => {
                report.failed.push(FailedFile {
                    path: plan.path.clone(),
                    message: error.to_string(),
                });
                continue;
            }
        };
        let state = state_of(&current);
        let status = if matches(&state, &plan.desired) {
            Status::Already
        } else if matches!(plan.desired, FileState::Unkept { .. }) {
            Status::Unrestorable
        } else if !matches(&state, &plan.expected) {
            Status::Conflict(ConflictReason::EditedSince)
        } else if plan.later {
            Status::Conflict(ConflictReason::ChangedLater)
        } else {
            Status::Write
        };
        checked.push(Checked {
            plan,
            resolved,
            current,
            stamp,
            status,
        });
    }
    for file in &checked {
        match file.status {
            Status::Conflict(reason) => report.conflicts.push(Conflict {
                path: file.plan.path.clone(),
                reason,
            }),
            Status::Unrestorable => report.unrestorable.push(file.plan.path.clone()),
            Status::Already | Status::Write => {}
        }
    }
    if !report.conflicts.is_empty() && on_conflict == OnConflict::Refuse {
        return (report, Vec::new(), Vec::new(), 0);
    }
    report.applied = true;
    let mut written = Vec::new();
    let mut reverts = Vec::new();
    let mut grown = 0;
    for file in checked {
        let write = match file.status {
            Status::Already => {
                reverts.extend(&file.plan.reverts);
                continue;
            }
            Status::Unrestorable => continue,
            Status::Conflict(_) => on_conflict == OnConflict::Overwrite,
            Status::Write => true,
        };
        if !write {
            continue;
        }
        match write_one(root, blobs, &file) {
            Ok((before, more)) => {
                grown += more;
                reverts.extend(&file.plan.reverts);
                report.restored.push(file.plan.path.clone());
                written.push(RestoredFile {
                    path: file.plan.path.clone(),
                    before,
                    after: file.plan.desired.clone(),
                });
            }
            Err(message) => report.failed.push(FailedFile {
                path: file.plan.path.clone(),
                message,
            }),
        }
    }
    (report, written, reverts, grown)
}

/// Writes one file back; returns its state before (its content kept, for undo) and how much
/// the blobs grew.
fn write_one(
    root: &ProjectRoot,
    blobs: &BlobStore,
    file: &Checked,
) -> Result<(FileState, u64), String> {
    let shown = file.plan.path.as_str();
    let (before, grown) = match &file.current {
        Prior::Absent => (FileState::Absent, 0),
        Prior::TooLarge { size, mode } => (
            FileState::Unkept {
                mode: *mode,
                size: *size,
            },
            0,
        ),
        Prior::File { bytes, mode } => {
            let (hash, grown) = blobs
                .put(bytes)
                .map_err(|error| format!("cannot keep {shown} before restoring it: {error}"))?;
            (
                FileState::Kept {
                    hash,
                    mode: *mode,
                    size: bytes.len() as u64,
                },
                grown,
            )
        }
    };
    let result = match &file.plan.desired {
        FileState::Absent => remove_beneath(root, &file.resolved, file.stamp),
        FileState::Kept { hash, mode, .. } => {
            let bytes = blobs
                .get(hash)
                .map_err(|error| format!("the kept content of {shown} is unreadable: {error}"))?;
            write_atomic_beneath_with_mode(root, &file.resolved, &bytes, *mode, file.stamp)
        }
        FileState::Unkept { .. } => return Err(format!("{shown} was not kept")),
    };
    result.map_err(|error| match error {
        AtomicWriteError::Changed(_) => format!("{shown} changed while it was being restored"),
        other => other.describe(shown),
    })?;
    Ok((before, grown))
}

/// The state of what a file is now (hashed, not stored).
fn state_of(current: &Prior) -> FileState {
    match current {
        Prior::Absent => FileState::Absent,
        Prior::File { bytes, mode } => FileState::Kept {
            hash: hash_hex(bytes),
            mode: *mode,
            size: bytes.len() as u64,
        },
        Prior::TooLarge { size, mode } => FileState::Unkept {
            mode: *mode,
            size: *size,
        },
    }
}
