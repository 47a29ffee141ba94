//! edit_file: replace one exact piece of a file, refusing stale or ambiguous edits.
//!
//! The model names the text to change (`old_string`) instead of line numbers, which go stale
//! the moment anything above them changes. Finding that text is `fsutil::matching`'s
//! job: exact first, then one forgiving tier at a time, a loose match only when it is unique.
//! This file is the tool around it:
//!
//! - **Stale edits.** The edit is written against the text the model last saw. If the session
//!   ledger says the file changed since the model last read or wrote it (a formatter, the user,
//!   another program), the edit is refused with "read it again" instead of being merged blind.
//!   A file the model never read in this session ([`Freshness::Unseen`]) may be edited: the
//!   old_string must still match what is on disk, which is the check that matters, and
//!   requiring a read first would only cost a turn. The file's stamp is checked once more just
//!   before the rename, so a change during the edit itself is caught too.
//! - **Format.** Matching runs on the text with `\r\n` read as `\n` and the BOM set aside; the
//!   replacement is spliced into the original text with the file's dominant line ending, so
//!   untouched lines stay byte-identical (even in a mixed-ending file), a CRLF file stays CRLF
//!   when the model sends `\n`, the BOM stays, and so does the presence or absence of a final
//!   newline. Permissions are kept by the atomic write.
//! - **Only what was named.** There is no whole-file fallback: no match is an error that shows
//!   the closest actual lines, with numbers, so the model can correct itself.
//! - **Undo.** Before writing, the file's previous content goes to the call's change record
//!   (checkpoints, [`crate::CallChanges`]); when it cannot be kept, nothing is written.
//! - Binary files, invalid UTF-8 (rewriting it would corrupt the bytes that are not) and files
//!   over [`MAX_EDIT_BYTES`] are refused.

use std::io::Read;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::changes::record_prior;
use crate::fsutil::atomic::{AtomicWriteError, write_atomic_beneath};
use crate::fsutil::diff::{cap_lines, unified_diff};
use crate::fsutil::matching::{MatchError, Tier, closest_lines, plan_replacements};
use crate::fsutil::textfile::{DecodeError, Normalized, TextFile};
use crate::ledger::{FileStamp, Freshness};
use crate::path_scope::file_write_scope;
use crate::text::excerpt;
use crate::{
    ApprovalScope, OpenError, Preview, ProjectRoot, ResolvedPath, ToolContext, ToolError,
    ToolOutput, ToolResult, tool,
};

/// The largest file edit_file will change.
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;
/// Diff lines in the observation text (the full diff goes to the approver and the UI).
pub const OUTPUT_DIFF_LINES: usize = 60;
/// Diff lines in the approval preview and the result's diff.
pub const PREVIEW_DIFF_LINES: usize = 2000;
/// Start lines listed when old_string matches several places.
const LISTED_PLACES: usize = 20;
/// Lines shown as the closest match when old_string is not found, at most.
const CLOSEST_MAX_LINES: usize = 12;
/// Characters of each line shown as the closest match.
const CLOSEST_LINE_CHARS: usize = 200;

/// Arguments of edit_file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditFileArgs {
    /// Path of the file, relative to the project root.
    pub path: String,
    /// The exact text to replace (no line-number prefixes), with context enough to be unique.
    pub old_string: String,
    /// The text to put in its place (empty to delete old_string).
    pub new_string: String,
    /// Replace every occurrence of old_string instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// Replace text in an existing file: old_string must match exactly one place in the file
/// (include a few surrounding lines to make it unique), or every place when replace_all is
/// true. Copy old_string from read_file output without the line-number prefixes. Read the file
/// before editing it: an edit of a file that changed since you last read it is refused. Use
/// write_file to create a file.
#[tool(level = sensitive, scope = edit_scope, preview = edit_preview, records_changes)]
pub async fn edit_file(ctx: &ToolContext, args: EditFileArgs) -> ToolResult {
    let resolved = prepare(ctx, &args)?;
    let plan = plan_in_background(ctx.project(), &resolved, args).await?;
    record_prior(ctx, &resolved).await?;
    let (project, target) = (ctx.project().clone(), resolved.clone());
    let bytes = plan.bytes;
    let stamp = plan.stamp;
    let display = resolved.relative().to_owned();
    tokio::task::spawn_blocking(move || {
        write_atomic_beneath(&project, &target, &bytes, Some(stamp))
    })
    .await
    .map_err(|_| ToolError::new(format!("writing {display} failed unexpectedly")))?
    .map_err(|error| match error {
        AtomicWriteError::Changed(_) => stale(&display),
        other => ToolError::new(other.describe(&display)),
    })?;
    ctx.files().record_current(resolved.path());

    let mut text = format!(
        "[ok] edited {}: replaced {} occurrence(s)",
        resolved.relative(),
        plan.count
    );
    if plan.tier != Tier::Exact {
        text.push_str(&format!(" (matched with {})", plan.tier.describe()));
    }
    let (short, cut) = cap_lines(&plan.diff, OUTPUT_DIFF_LINES);
    text.push('\n');
    text.push_str(short.trim_end_matches('\n'));
    let (diff, _) = cap_lines(&plan.diff, PREVIEW_DIFF_LINES);
    Ok(ToolOutput::text(text).with_truncated(cut).with_diff(diff))
}

/// What approving the call covers: writes below the file's folder (`notes/**`), or every
/// change to an execution-sensitive file asks ([`crate::path_scope`]).
fn edit_scope(ctx: &ToolContext, args: &EditFileArgs) -> ApprovalScope {
    file_write_scope(ctx, &args.path)
}

/// The approval preview: the diff the edit would make, or why it will fail.
async fn edit_preview(ctx: &ToolContext, args: &EditFileArgs) -> Option<Preview> {
    let planned = match prepare(ctx, args) {
        Ok(resolved) => plan_in_background(ctx.project(), &resolved, args.clone())
            .await
            .map(|plan| (resolved, plan)),
        Err(error) => Err(error),
    };
    Some(match planned {
        Ok((resolved, plan)) => Preview::Diff {
            path: resolved.relative().to_owned(),
            unified: cap_lines(&plan.diff, PREVIEW_DIFF_LINES).0,
        },
        Err(error) => Preview::Text {
            text: format!("this call will fail: {}", error.message()),
        },
    })
}

/// The checks that need no file content: the path, the arguments, the ledger.
fn prepare(ctx: &ToolContext, args: &EditFileArgs) -> Result<ResolvedPath, ToolError> {
    let resolved = ctx
        .resolve(&args.path)
        .map_err(|error| ToolError::new(error.to_string()))?;
    if args.old_string.is_empty() {
        return Err(ToolError::new(
            "old_string is empty; to create a file or replace all of it use write_file",
        ));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::new(
            "old_string and new_string are identical; nothing to change",
        ));
    }
    if ctx.files().freshness(resolved.path()) == Freshness::Changed {
        return Err(stale(resolved.relative()));
    }
    Ok(resolved)
}

fn stale(display: &str) -> ToolError {
    ToolError::new(format!(
        "{display} changed since it was last read; read it again"
    ))
}

/// What an edit will do, worked out without writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPlan {
    /// The file's new bytes.
    pub bytes: Vec<u8>,
    /// Unified diff of the change (`\n`-normalised).
    pub diff: String,
    /// How old_string was found.
    pub tier: Tier,
    /// How many places were replaced.
    pub count: usize,
    /// The file's stamp when it was read.
    pub stamp: FileStamp,
}

async fn plan_in_background(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    args: EditFileArgs,
) -> Result<EditPlan, ToolError> {
    let (project, target) = (project.clone(), resolved.clone());
    tokio::task::spawn_blocking(move || plan_edit(&project, &target, &args))
        .await
        .map_err(|_| ToolError::new(format!("reading {resolved} failed unexpectedly")))?
}

/// Reads the project file `resolved` (below the root's descriptor) and plans the edit.
pub fn plan_edit(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    args: &EditFileArgs,
) -> Result<EditPlan, ToolError> {
    let display = resolved.relative();
    let (bytes, stamp) = read_for_edit(project, resolved)?;
    let file = TextFile::decode(bytes).map_err(|error| match error {
        DecodeError::Binary => ToolError::new(format!(
            "{display} is a binary file; edit_file edits text files only"
        )),
        DecodeError::InvalidUtf8 { line } => ToolError::new(format!(
            "{display} is not valid UTF-8 (first invalid byte on line {line}); edit_file edits UTF-8 text only"
        )),
    })?;
    let (text, tier, count) = apply_edit(&file, display, args)?;
    let diff = unified_diff(
        display,
        &Normalized::new(&file.text).text,
        &Normalized::new(&text).text,
    );
    Ok(EditPlan {
        bytes: file.encode(&text),
        diff,
        tier,
        count,
        stamp,
    })
}

fn read_for_edit(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
) -> Result<(Vec<u8>, FileStamp), ToolError> {
    let display = resolved.relative();
    let cannot_read =
        |error: std::io::Error| ToolError::new(format!("cannot read {display}: {error}"));
    let (mut file, metadata) = project
        .open_regular(resolved)
        .map_err(|error| match error {
            OpenError::NotFound => ToolError::new(format!(
                "{display} does not exist; use write_file to create it"
            )),
            OpenError::Directory => ToolError::new(format!("{display} is a directory")),
            OpenError::NotRegular => ToolError::new(format!("{display} is not a regular file")),
            OpenError::Outside => {
                ToolError::new(format!("path '{display}' is outside the project"))
            }
            OpenError::Io(error) => cannot_read(error),
        })?;
    if metadata.len() > MAX_EDIT_BYTES {
        return Err(ToolError::new(format!(
            "{display} is larger than {} MiB; edit_file edits smaller files",
            MAX_EDIT_BYTES >> 20
        )));
    }
    let stamp = FileStamp::from_metadata(&metadata);
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    Ok((bytes, stamp))
}

/// The file's new text (after the BOM, its own line endings): the edit applied, or the error
/// the model should read.
pub fn apply_edit(
    file: &TextFile,
    display: &str,
    args: &EditFileArgs,
) -> Result<(String, Tier, usize), ToolError> {
    let normalized = Normalized::new(&file.text);
    let old = Normalized::new(&args.old_string).text;
    let new = Normalized::new(&args.new_string).text;
    let (tier, replacements) = plan_replacements(&normalized.text, &old, &new, args.replace_all)
        .map_err(|error| match error {
            MatchError::NotFound => not_found(display, &normalized.text, &old),
            MatchError::Ambiguous { tier, lines } => ambiguous(tier, &lines, args.replace_all),
        })?;
    let mut text = file.text.clone();
    for replacement in replacements.iter().rev() {
        let start = normalized.original_offset(replacement.range.start);
        let end = normalized.original_offset(replacement.range.end);
        text.replace_range(start..end, &file.line_ending.apply(&replacement.text));
    }
    let text = keep_final_newline(&file.text, text, file.line_ending.as_str());
    Ok((text, tier, replacements.len()))
}

/// `edited` with the final-newline state of `original`: an edit at the end of the file neither
/// adds nor removes the last line break.
fn keep_final_newline(original: &str, mut edited: String, line_ending: &str) -> String {
    let had = original.ends_with('\n');
    let has = edited.ends_with('\n');
    if had && !has && !edited.is_empty() {
        edited.push_str(line_ending);
    } else if !had && has {
        edited.pop();
        if edited.ends_with('\r') {
            edited.pop();
        }
    }
    edited
}

/// "not found", with the file's lines that look most like old_string.
fn not_found(display: &str, text: &str, old: &str) -> ToolError {
    let mut message = format!("old_string not found in {display}");
    let numbered = old.lines().filter(|l| !l.trim().is_empty()).all(|line| {
        line.trim_start()
            .split_once(": ")
            .is_some_and(|(digits, _)| {
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            })
    });
    if numbered && !old.trim().is_empty() {
        message.push_str(
            "\nold_string seems to include read_file's line-number prefixes ('12: '); leave them out",
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    match closest_lines(text, old) {
        _ if lines.is_empty() => message.push_str(&format!("\n{display} is empty")),
        None => message.push_str(&format!("\nno line of {display} resembles it")),
        Some(range) => {
            // A window of the needle's size, widened to about five lines for context.
            let size = range.end - range.start;
            let pad = 5usize.saturating_sub(size).div_ceil(2);
            let first = range.start.saturating_sub(pad).max(1);
            let last = (range.end - 1 + pad).min(lines.len());
            let last = last.min(first + CLOSEST_MAX_LINES - 1);
            message.push_str(&format!(
                "\nthe closest lines in {display} (read the file again if unsure):"
            ));
            for number in first..=last {
                let line = excerpt(lines[number - 1], CLOSEST_LINE_CHARS);
                message.push_str(&format!("\n{number}: {line}"));
            }
        }
    }
    ToolError::new(message)
}

/// "matches n places", with where they start.
fn ambiguous(tier: Tier, lines: &[usize], replace_all: bool) -> ToolError {
    let mut listed: Vec<String> = lines
        .iter()
        .take(LISTED_PLACES)
        .map(ToString::to_string)
        .collect();
    if lines.len() > LISTED_PLACES {
        listed.push("…".into());
    }
    let mut message = format!(
        "old_string matches {} places (lines {}); add context to make it unique",
        lines.len(),
        listed.join(", ")
    );
    if tier != Tier::Exact {
        message.push_str(&format!(
            "\nthere is no exact match; these places match with {}, and a loose match is used only when it is unique",
            tier.describe()
        ));
        if replace_all {
            message.push_str(" (replace_all applies to exact matches only)");
        }
    }
    ToolError::new(message)
}

#[cfg(test)]
mod tests;
