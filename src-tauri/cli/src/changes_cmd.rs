//! `gantry-cli changes` and `gantry-cli revert`: what a session changed in the project's files,
//! and taking it back — the desktop app's Changes panel on the terminal.
//!
//! Both work on a stored session: `--session ID`, or the project's most recent one. A revert
//! never overwrites a file changed since the agent changed it unless `--force` says so; without
//! it such files are listed and nothing at all is written (exit 1).

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use gantry_engine::checkpoints::{
    ChangeKind, ChangesView, Checkpoints, ConflictReason, FileChange, FileNote, OnConflict,
    RestoreReport, RevertTarget,
};
use gantry_store::SessionId;

use crate::engine::{People, open_project};
use crate::escape::for_terminal;
use crate::{CliError, ProjectArgs};

/// `changes`: what a session changed.
#[derive(Debug, Args)]
pub(crate) struct ChangesArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// The session (see `sessions list`); default: the most recent one.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print each file's diff against the state before the session.
    #[arg(long)]
    diff: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// `revert`: take changes back.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").args(["turn", "file", "undo", "session"]).required(true).multiple(true)))]
pub(crate) struct RevertArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Revert turn N of the session (its user message's number, as `changes` lists it).
    #[arg(long, value_name = "N", conflicts_with_all = ["file", "undo"])]
    turn: Option<u32>,
    /// Revert one file to how it was before the session.
    #[arg(long, value_name = "PATH", conflicts_with = "undo")]
    file: Option<String>,
    /// Undo an earlier restore (its id, as `changes` lists it).
    #[arg(long, value_name = "ID")]
    undo: Option<String>,
    /// The session; alone, revert every file it changed. Default for the others: the most
    /// recent session.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Overwrite files changed since the agent changed them (the overwritten content is kept:
    /// the revert can be undone).
    #[arg(long)]
    force: bool,
}

/// The checkpoints of the project at `args` and the session asked for (or the latest).
async fn open(
    project: &ProjectArgs,
    session: Option<&str>,
) -> Result<(Checkpoints, Option<SessionId>), CliError> {
    let opened = open_project(&project.root, People::default()).await?;
    let session = match session {
        Some(id) => {
            let parsed: SessionId = id
                .parse()
                .map_err(|_| CliError::Usage(format!("no session {id}")))?;
            match opened.store.sessions().get(parsed).await {
                Ok(Some(found)) if found.project_id == opened.project.id => Some(parsed),
                Ok(_) => {
                    return Err(CliError::Usage(format!(
                        "no session {id} in {}",
                        project.root.display()
                    )));
                }
                Err(error) => return Err(crate::state::store_error(error)),
            }
        }
        None => opened
            .store
            .sessions()
            .list(opened.project.id)
            .await
            .map_err(crate::state::store_error)?
            .first()
            .map(|session| session.id),
    };
    Ok((opened.checkpoints, session))
}

fn failed(error: impl Into<anyhow::Error>) -> CliError {
    CliError::Failed(error.into())
}

/// Runs `changes`.
pub(crate) async fn changes(args: ChangesArgs) -> Result<ExitCode, CliError> {
    let (checkpoints, session) = open(&args.project, args.session.as_deref()).await?;
    let view = match session {
        Some(session) => checkpoints
            .view(session)
            .await
            .map_err(|error| failed(anyhow::anyhow!("{error}")))?,
        None => ChangesView::empty(),
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&view).context("serialising")?
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", for_terminal(&render(&view, args.diff)));
    Ok(ExitCode::SUCCESS)
}

/// The view as text.
fn render(view: &ChangesView, diffs: bool) -> String {
    let Some(session) = &view.session_id else {
        return "no session in this project\n".to_owned();
    };
    let mut out = format!("session {session}\n");
    if view.files.is_empty() {
        out.push_str("  no changes\n");
    }
    for file in &view.files {
        out.push_str(&format!("  {}\n", file_line(file)));
    }
    if !view.turns.is_empty() {
        out.push_str("turns:\n");
        for turn in &view.turns {
            let files: Vec<&str> = turn.files.iter().map(|file| file.path.as_str()).collect();
            out.push_str(&format!(
                "  {} {:?}{}: {}\n",
                turn.number,
                turn.title,
                if turn.reverted { " (reverted)" } else { "" },
                if files.is_empty() {
                    "no net change".to_owned()
                } else {
                    files.join(", ")
                }
            ));
        }
    }
    if !view.restores.is_empty() {
        out.push_str("restores (undo with: revert --undo ID):\n");
        for restore in &view.restores {
            out.push_str(&format!(
                "  {} {:?} {}: {}{}\n",
                restore.id,
                restore.kind,
                restore.label,
                restore.files.join(", "),
                if restore.undone { " (undone)" } else { "" }
            ));
        }
    }
    if diffs {
        for file in &view.files {
            match (&file.diff, file.note) {
                (Some(diff), _) => out.push_str(diff),
                (None, note) => out.push_str(&format!(
                    "--- a/{path}\n+++ b/{path}\n({})\n",
                    note_text(note),
                    path = file.path
                )),
            }
        }
    }
    out
}

fn file_line(file: &FileChange) -> String {
    let mark = match file.kind {
        ChangeKind::Created => "A",
        ChangeKind::Modified => "M",
        ChangeKind::Deleted => "D",
    };
    let counts = match file.note {
        None => format!("+{} -{}", file.additions, file.deletions),
        Some(note) => note_text(Some(note)).to_owned(),
    };
    let mut line = format!(
        "{mark} {}  {counts}  ({})",
        file.path,
        file.tools.join(", ")
    );
    if file.edited_since {
        line.push_str("  [edited since]");
    }
    line
}

fn note_text(note: Option<FileNote>) -> &'static str {
    match note {
        Some(FileNote::Binary) => "binary",
        Some(FileNote::TooLarge) => "too large to diff",
        Some(FileNote::NotKept) => "content not kept",
        None => "",
    }
}

/// Runs `revert`.
pub(crate) async fn revert(args: RevertArgs) -> Result<ExitCode, CliError> {
    let (checkpoints, session) = open(&args.project, args.session.as_deref()).await?;
    let Some(session) = session else {
        return Err(CliError::Usage("the project has no session".into()));
    };
    let target = match (&args.turn, &args.file, &args.undo) {
        (Some(number), _, _) => RevertTarget::Turn { number: *number },
        (_, Some(path), _) => RevertTarget::File { path: path.clone() },
        (_, _, Some(id)) => RevertTarget::Undo {
            restore_id: id.clone(),
        },
        _ => RevertTarget::Session,
    };
    let on_conflict = if args.force {
        OnConflict::Overwrite
    } else {
        OnConflict::Refuse
    };
    let report = checkpoints
        .revert(session, &target, on_conflict)
        .await
        .map_err(|error| match error {
            gantry_engine::checkpoints::CheckpointError::NotFound(message)
            | gantry_engine::checkpoints::CheckpointError::Invalid(message) => {
                CliError::Usage(message)
            }
            other => failed(anyhow::anyhow!("{other}")),
        })?;
    print!("{}", for_terminal(&report_text(&report)));
    Ok(if report.applied && report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn report_text(report: &RestoreReport) -> String {
    let mut out = String::new();
    if !report.applied {
        out.push_str("nothing was reverted: these files changed since the agent changed them (--force overwrites them):\n");
    }
    for conflict in &report.conflicts {
        let why = match conflict.reason {
            ConflictReason::EditedSince => "edited since",
            ConflictReason::ChangedLater => "changed again by a later turn",
        };
        out.push_str(&format!("  conflict: {} ({why})\n", conflict.path));
    }
    for path in &report.restored {
        out.push_str(&format!("reverted {path}\n"));
    }
    for path in &report.unrestorable {
        out.push_str(&format!(
            "cannot revert {path}: its earlier content was not kept\n"
        ));
    }
    for failure in &report.failed {
        out.push_str(&format!("failed {}: {}\n", failure.path, failure.message));
    }
    if report.applied && report.restored.is_empty() && report.failed.is_empty() {
        out.push_str("nothing to revert\n");
    }
    if let Some(id) = &report.restore_id {
        out.push_str(&format!("undo with: gantry-cli revert --undo {id}\n"));
    }
    out
}
