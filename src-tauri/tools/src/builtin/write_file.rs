//! write_file: create a file or replace its whole content, atomically.
//!
//! The write goes through `fsutil::atomic` (temp file in the same directory, fsync,
//! rename), so the old file is intact if anything fails, and an existing file keeps its
//! permissions. Before the user approves, the preview shows a unified diff against the current
//! content (against nothing for a new file), computed without writing; the same diff rides on
//! the result for the UI.
//!
//! Format of an existing file (the design's "writes keep line endings and BOM"): the model
//! writes `\n` and no BOM, so when it replaces a text file whose dominant line ending is CRLF
//! and the new content has no `\r` at all, the content is written with CRLF; when the file had
//! a UTF-8 BOM and the content has none, the BOM is kept. Content that carries its own `\r` or
//! BOM is written exactly as sent, and so is every new file — only the existing file's format
//! is inferred, never invented. A binary file being replaced lends no format. The diff
//! compares `\n`-normalised texts, so it shows content changes, not line-ending noise.
//!
//! write_file does not check the session ledger: replacing a whole file does not merge with
//! what was there, and the user sees the diff against the current content before approving.
//! It records the written file's stamp, so a later edit_file knows the model's view is current.
//! Before writing it reports the file's previous content (or absence) to the call's change
//! record (checkpoints, [`crate::CallChanges`]); when that fails, nothing is written.

use std::io::Read;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::changes::record_prior;
use crate::fsutil::atomic::write_atomic_beneath;
use crate::fsutil::diff::{cap_lines, undiffable, unified_diff};
use crate::fsutil::textfile::{BOM, LineEnding, Normalized, count_lines, looks_binary};
use crate::ledger::FileStamp;
use crate::path_scope::file_write_scope;
use crate::{
    ApprovalScope, OpenError, Preview, ProjectRoot, ResolvedPath, ToolContext, ToolError,
    ToolOutput, ToolResult, tool,
};

/// An existing file larger than this is not read for a diff (the preview says it differs).
pub const MAX_DIFF_BYTES: u64 = 8 * 1024 * 1024;
/// How much of a large existing file is read to learn its BOM and line endings.
const FORMAT_SNIFF_BYTES: u64 = 64 * 1024;
/// Diff lines shown in the approval preview and attached to the result.
pub const PREVIEW_DIFF_LINES: usize = 2000;

/// Arguments of write_file.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// Path of the file, relative to the project root. Missing parent directories are created.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// Create a file, or replace the entire content of an existing file, with `content`. Missing
/// parent directories are created. To change part of an existing file use edit_file instead,
/// which only touches the text you name.
#[tool(level = sensitive, scope = write_scope, preview = write_preview, records_changes)]
pub async fn write_file(ctx: &ToolContext, args: WriteFileArgs) -> ToolResult {
    let resolved = resolve(ctx, &args.path)?;
    let plan = plan_in_background(ctx.project(), &resolved, args.content).await?;
    record_prior(ctx, &resolved).await?;
    let (project, target) = (ctx.project().clone(), resolved.clone());
    let bytes = plan.bytes;
    let stamp = plan.stamp;
    let written = tokio::task::spawn_blocking(move || {
        write_atomic_beneath(&project, &target, &bytes, stamp).map(|()| bytes.len())
    })
    .await
    .map_err(|_| ToolError::new(format!("writing {resolved} failed unexpectedly")))?
    .map_err(|error| ToolError::new(error.describe(resolved.relative())))?;
    ctx.files().record_current(resolved.path());
    let verb = if plan.created { "created" } else { "wrote" };
    let (diff, _) = cap_lines(&plan.diff, PREVIEW_DIFF_LINES);
    Ok(ToolOutput::text(format!(
        "[ok] {verb} {} ({} lines, {written} bytes)",
        resolved.relative(),
        plan.lines
    ))
    .with_diff(diff))
}

/// What approving the call covers: writes below the file's folder (`notes/**`), or every
/// change to an execution-sensitive file asks ([`crate::path_scope`]).
fn write_scope(ctx: &ToolContext, args: &WriteFileArgs) -> ApprovalScope {
    file_write_scope(ctx, &args.path)
}

/// The approval preview: the diff against the current content, or why the call will fail.
async fn write_preview(ctx: &ToolContext, args: &WriteFileArgs) -> Option<Preview> {
    let resolved = match resolve(ctx, &args.path) {
        Ok(resolved) => resolved,
        Err(error) => return Some(failure_preview(&error)),
    };
    Some(
        match plan_in_background(ctx.project(), &resolved, args.content.clone()).await {
            Ok(plan) => Preview::Diff {
                path: resolved.relative().to_owned(),
                unified: cap_lines(&plan.diff, PREVIEW_DIFF_LINES).0,
            },
            Err(error) => failure_preview(&error),
        },
    )
}

/// What a preview shows for a call that will fail when run.
fn failure_preview(error: &ToolError) -> Preview {
    Preview::Text {
        text: format!("this call will fail: {}", error.message()),
    }
}

fn resolve(ctx: &ToolContext, path: &str) -> Result<ResolvedPath, ToolError> {
    ctx.resolve(path)
        .map_err(|error| ToolError::new(error.to_string()))
}

/// What writing `content` to a file will do, worked out without writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePlan {
    /// The bytes to write (the content in the existing file's format).
    pub bytes: Vec<u8>,
    /// Lines of the content.
    pub lines: usize,
    /// Unified diff from the current content (normalised to `\n`).
    pub diff: String,
    /// True when the file does not exist yet.
    pub created: bool,
    /// The existing file's stamp when it was inspected (none for a new file).
    pub stamp: Option<FileStamp>,
}

async fn plan_in_background(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    content: String,
) -> Result<WritePlan, ToolError> {
    let (project, target) = (project.clone(), resolved.clone());
    tokio::task::spawn_blocking(move || plan_write(&project, &target, &content))
        .await
        .map_err(|_| ToolError::new(format!("inspecting {resolved} failed unexpectedly")))?
}

/// Works out the bytes, the diff and whether the file is new, for writing `content` to the
/// project file `resolved` (looked at below the root's descriptor).
pub fn plan_write(
    project: &ProjectRoot,
    resolved: &ResolvedPath,
    content: &str,
) -> Result<WritePlan, ToolError> {
    let display = resolved.relative();
    let cannot_read =
        |error: std::io::Error| ToolError::new(format!("cannot read {display}: {error}"));
    let outside = || ToolError::new(format!("path '{display}' is outside the project"));
    let metadata = match project
        .metadata_beneath(resolved)
        .map_err(OpenError::from_io)
    {
        Ok(metadata) => Some(metadata),
        Err(OpenError::NotFound) => None,
        Err(OpenError::Outside) => return Err(outside()),
        Err(OpenError::Io(error)) => return Err(cannot_read(error)),
        Err(_) => return Err(ToolError::new(format!("{display} is not a regular file"))),
    };
    let new_text = Normalized::new(content.strip_prefix('\u{FEFF}').unwrap_or(content)).text;
    let lines = count_lines(content);
    let Some(metadata) = metadata else {
        return Ok(WritePlan {
            bytes: content.as_bytes().to_vec(),
            lines,
            diff: unified_diff(display, "", &new_text),
            created: true,
            stamp: None,
        });
    };
    if metadata.is_dir() {
        return Err(ToolError::new(format!("{display} is a directory")));
    }
    if !metadata.is_file() {
        return Err(ToolError::new(format!("{display} is not a regular file")));
    }
    let stamp = Some(FileStamp::from_metadata(&metadata));
    let large = metadata.len() > MAX_DIFF_BYTES;
    let limit = if large {
        FORMAT_SNIFF_BYTES
    } else {
        MAX_DIFF_BYTES
    };
    let (file, _) = project
        .open_regular(resolved)
        .map_err(|error| match error {
            OpenError::Io(error) => cannot_read(error),
            OpenError::Outside => outside(),
            other => ToolError::new(format!("cannot read {display}: it {other}")),
        })?;
    let mut old = Vec::new();
    file.take(limit)
        .read_to_end(&mut old)
        .map_err(cannot_read)?;
    if looks_binary(&old) {
        return Ok(WritePlan {
            bytes: content.as_bytes().to_vec(),
            lines,
            diff: undiffable(display, "the old file is binary"),
            created: false,
            stamp,
        });
    }
    let old_text = String::from_utf8_lossy(&old);
    let old_text = old_text.strip_prefix('\u{FEFF}').unwrap_or(&old_text);
    let mut text = content.to_owned();
    if !content.contains('\r') && LineEnding::detect(old_text) == LineEnding::Crlf {
        text = LineEnding::Crlf.apply(&text);
    }
    let mut bytes = Vec::with_capacity(text.len() + BOM.len());
    if old.starts_with(BOM) && !text.starts_with('\u{FEFF}') {
        bytes.extend_from_slice(BOM);
    }
    bytes.extend_from_slice(text.as_bytes());
    let diff = if large {
        undiffable(
            display,
            &format!("the old file is larger than {} MiB", MAX_DIFF_BYTES >> 20),
        )
    } else {
        unified_diff(display, &Normalized::new(old_text).text, &new_text)
    };
    Ok(WritePlan {
        bytes,
        lines,
        diff,
        created: false,
        stamp,
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    use serde_json::json;

    use super::*;
    use crate::{
        ApprovalDecision, ApprovalRequest, Approver, FixedApprover, ObservationKind, ToolManager,
    };

    fn manager() -> (tempfile::TempDir, ToolManager) {
        let dir = tempfile::tempdir().unwrap();
        let manager = ToolManager::new(dir.path())
            .unwrap()
            .with_approver(std::sync::Arc::new(FixedApprover(
                ApprovalDecision::AllowOnce,
            )));
        crate::builtin::register_builtins(&manager).unwrap();
        (dir, manager)
    }

    #[tokio::test]
    async fn creates_a_new_file_with_its_parent_directories() {
        let (dir, m) = manager();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "src/deep/new.rs", "content": "fn a() {}\nfn b() {}\n"}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(
            (obs.kind, obs.text.as_str()),
            (
                ObservationKind::Ok,
                "[ok] created src/deep/new.rs (2 lines, 20 bytes)"
            )
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("src/deep/new.rs")).unwrap(),
            "fn a() {}\nfn b() {}\n"
        );
        assert_eq!(
            obs.diff.as_deref(),
            Some(
                "--- a/src/deep/new.rs\n+++ b/src/deep/new.rs\n@@ -0,0 +1,2 @@\n+fn a() {}\n+fn b() {}\n"
            )
        );
    }

    #[tokio::test]
    async fn replaces_an_existing_file_keeping_its_permissions() {
        let (dir, m) = manager();
        let path = dir.path().join("run.sh");
        fs::write(&path, "echo old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "run.sh", "content": "echo new\necho two"}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(obs.text, "[ok] wrote run.sh (2 lines, 17 bytes)");
        assert_eq!(fs::read_to_string(&path).unwrap(), "echo new\necho two");
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o750
        );
        assert_eq!(
            obs.diff.as_deref(),
            Some(
                "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n-echo old\n+echo new\n+echo two\n\\ No newline at end of file\n"
            )
        );
    }

    #[tokio::test]
    async fn empty_content_writes_an_empty_file() {
        let (dir, m) = manager();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "empty", "content": ""}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(obs.text, "[ok] created empty (0 lines, 0 bytes)");
        assert_eq!(fs::read(dir.path().join("empty")).unwrap(), b"");
    }

    #[tokio::test]
    async fn an_existing_crlf_file_stays_crlf_and_keeps_its_bom() {
        let (dir, m) = manager();
        let path = dir.path().join("win.txt");
        fs::write(&path, b"\xEF\xBB\xBFold\r\nlines\r\n").unwrap();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "win.txt", "content": "new\nlines\n"}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(obs.text, "[ok] wrote win.txt (2 lines, 15 bytes)");
        assert_eq!(fs::read(&path).unwrap(), b"\xEF\xBB\xBFnew\r\nlines\r\n");
        // The diff shows the content change only.
        assert_eq!(
            obs.diff.as_deref(),
            Some("--- a/win.txt\n+++ b/win.txt\n@@ -1,2 +1,2 @@\n-old\n+new\n lines\n")
        );
    }

    #[tokio::test]
    async fn explicit_line_endings_and_new_files_are_written_as_sent() {
        let (dir, m) = manager();
        fs::write(dir.path().join("lf.txt"), "a\nb\n").unwrap();
        m.dispatch(
            "write_file",
            json!({"path": "lf.txt", "content": "x\r\ny\r\n"}),
            &crate::call::test_call(),
        )
        .await;
        assert_eq!(fs::read(dir.path().join("lf.txt")).unwrap(), b"x\r\ny\r\n");
        fs::write(dir.path().join("crlf.txt"), "a\r\nb\r\n").unwrap();
        m.dispatch(
            "write_file",
            json!({"path": "crlf.txt", "content": "mixed\r\nkept\n"}),
            &crate::call::test_call(),
        )
        .await;
        assert_eq!(
            fs::read(dir.path().join("crlf.txt")).unwrap(),
            b"mixed\r\nkept\n"
        );
        m.dispatch(
            "write_file",
            json!({"path": "new.txt", "content": "\u{FEFF}bom\n"}),
            &crate::call::test_call(),
        )
        .await;
        assert_eq!(
            fs::read(dir.path().join("new.txt")).unwrap(),
            b"\xEF\xBB\xBFbom\n"
        );
    }

    #[tokio::test]
    async fn writing_through_a_symlink_inside_replaces_its_target() {
        let (dir, m) = manager();
        fs::write(dir.path().join("real.txt"), "old\n").unwrap();
        std::os::unix::fs::symlink("real.txt", dir.path().join("alias.txt")).unwrap();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "alias.txt", "content": "new\n"}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(obs.text, "[ok] wrote real.txt (1 lines, 4 bytes)");
        assert!(
            fs::symlink_metadata(dir.path().join("alias.txt"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("real.txt")).unwrap(),
            "new\n"
        );
    }

    #[tokio::test]
    async fn every_error_path_leaves_the_file_system_alone() {
        let (dir, m) = manager();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let cases = [
            ("sub", "[error] sub is a directory"),
            (".", "[error] . is a directory"),
            (
                "../escape.txt",
                "[error] path '../escape.txt' is outside the project",
            ),
            (
                "out/x.txt",
                "[error] path 'out/x.txt' is outside the project",
            ),
            ("~/x", "[error] path '~/x' is outside the project"),
        ];
        for (path, expected) in cases {
            let obs = m
                .dispatch(
                    "write_file",
                    json!({"path": path, "content": "y"}),
                    &crate::call::test_call(),
                )
                .await;
            assert_eq!(
                (obs.kind, obs.text.as_str()),
                (ObservationKind::Error, expected),
                "{path}"
            );
        }
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "file/child", "content": "y"}),
                &crate::call::test_call(),
            )
            .await;
        assert!(
            obs.text
                .starts_with("[error] cannot create the parent directories of file/child: "),
            "{}",
            obs.text
        );
        assert_eq!(fs::read(dir.path().join("file")).unwrap(), b"x");
        assert!(fs::read_dir(outside.path()).unwrap().next().is_none());
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["file", "out", "sub"]);
        assert!(
            fs::read_dir(dir.path().join("sub"))
                .unwrap()
                .next()
                .is_none()
        );
    }

    #[tokio::test]
    async fn a_missing_content_is_bad_arguments() {
        let (_dir, m) = manager();
        let obs = m
            .dispatch(
                "write_file",
                json!({"path": "a.txt"}),
                &crate::call::test_call(),
            )
            .await;
        assert_eq!(obs.kind, ObservationKind::BadArguments);
    }

    #[tokio::test]
    async fn a_binary_or_huge_old_file_is_not_diffed() {
        let dir = tempfile::tempdir().unwrap();
        let project = ProjectRoot::new(dir.path()).unwrap();
        let bin = dir.path().join("blob");
        fs::write(&bin, b"\0\x01\x02").unwrap();
        let plan = plan_write(&project, &project.resolve("blob").unwrap(), "text\n").unwrap();
        assert_eq!(
            plan.diff,
            "--- a/blob\n+++ b/blob\nBinary files a/blob and b/blob differ (the old file is binary)\n"
        );
        assert_eq!(plan.bytes, b"text\n");

        let big = dir.path().join("big.log");
        fs::write(&big, "line\r\n".repeat((MAX_DIFF_BYTES / 6 + 1) as usize)).unwrap();
        let plan = plan_write(&project, &project.resolve("big.log").unwrap(), "short\n").unwrap();
        assert_eq!(
            plan.diff,
            "--- a/big.log\n+++ b/big.log\nBinary files a/big.log and b/big.log differ (the old file is larger than 8 MiB)\n"
        );
        assert_eq!(plan.bytes, b"short\r\n", "the format is still learned");
    }

    /// Remembers the preview it was shown and answers with `answer`.
    struct Recording {
        answer: ApprovalDecision,
        seen: std::sync::Mutex<Vec<ApprovalRequest>>,
    }

    #[async_trait::async_trait]
    impl Approver for Recording {
        async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
            self.seen.lock().unwrap().push(request);
            self.answer.clone()
        }
    }

    #[tokio::test]
    async fn a_failing_call_previews_its_error() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let approver = std::sync::Arc::new(Recording {
            answer: ApprovalDecision::Deny { reason: None },
            seen: std::sync::Mutex::default(),
        });
        let m = ToolManager::new(dir.path())
            .unwrap()
            .with_approver(approver.clone());
        crate::builtin::register_builtins(&m).unwrap();
        m.dispatch(
            "write_file",
            json!({"path": "sub", "content": ""}),
            &crate::call::test_call(),
        )
        .await;
        m.dispatch(
            "write_file",
            json!({"path": "../x", "content": ""}),
            &crate::call::test_call(),
        )
        .await;
        let seen = approver.seen.lock().unwrap();
        assert_eq!(
            seen[0].preview,
            Some(Preview::Text {
                text: "this call will fail: sub is a directory".into()
            })
        );
        assert_eq!(
            seen[1].preview,
            Some(Preview::Text {
                text: "this call will fail: path '../x' is outside the project".into()
            })
        );
    }
}
