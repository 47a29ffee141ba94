//! edit_file through the dispatcher: output formats, every error path, the file's format kept,
//! stale edits, previews, and the data-driven fixtures in `tests/fixtures/edit`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::{ApprovalDecision, FixedApprover, ObservationKind, ToolManager};

fn manager() -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path())
        .unwrap()
        .with_approver(Arc::new(FixedApprover(ApprovalDecision::AllowOnce)));
    crate::builtin::register_builtins(&manager).unwrap();
    (dir, manager)
}

async fn edit(m: &ToolManager, args: Value) -> (ObservationKind, String) {
    let obs = m
        .dispatch("edit_file", args, &crate::call::test_call())
        .await;
    (obs.kind, obs.text)
}

fn ok(text: &str) -> (ObservationKind, String) {
    (ObservationKind::Ok, text.to_owned())
}

fn err(text: &str) -> (ObservationKind, String) {
    (ObservationKind::Error, text.to_owned())
}

#[tokio::test]
async fn an_exact_edit_reports_the_count_and_a_diff() {
    let (dir, m) = manager();
    fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
    let obs = m
        .dispatch(
            "edit_file",
            json!({"path": "f.txt", "old_string": "b", "new_string": "B"}),
            &crate::call::test_call(),
        )
        .await;
    assert_eq!(
        (obs.kind, obs.text.as_str()),
        (
            ObservationKind::Ok,
            "[ok] edited f.txt: replaced 1 occurrence(s)\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c"
        )
    );
    assert_eq!(
        obs.diff.as_deref(),
        Some("--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nB\nc\n"
    );
}

#[tokio::test]
async fn replace_all_replaces_every_exact_occurrence() {
    let (dir, m) = manager();
    fs::write(dir.path().join("f.py"), "x = 1\ny = x\nz = x\n").unwrap();
    let (kind, text) = edit(
        &m,
        json!({"path": "f.py", "old_string": "x", "new_string": "w", "replace_all": true}),
    )
    .await;
    assert_eq!(kind, ObservationKind::Ok);
    assert!(
        text.starts_with("[ok] edited f.py: replaced 3 occurrence(s)\n--- a/f.py\n"),
        "{text}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.py")).unwrap(),
        "w = 1\ny = w\nz = w\n"
    );
}

#[tokio::test]
async fn several_places_without_replace_all_are_listed_and_nothing_changes() {
    let (dir, m) = manager();
    fs::write(dir.path().join("f.py"), "x = 1\ny = 2\nx = 1\n\nx = 1\n").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.py", "old_string": "x = 1", "new_string": "x = 2"})
        )
        .await,
        err("[error] old_string matches 3 places (lines 1, 3, 5); add context to make it unique")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.py")).unwrap(),
        "x = 1\ny = 2\nx = 1\n\nx = 1\n"
    );
}

#[tokio::test]
async fn a_fallback_tier_says_which_one_matched() {
    let (dir, m) = manager();
    fs::write(dir.path().join("f.rs"), "fn a() {   \n    b();\n}\n").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.rs", "old_string": "fn a() {\n    b();", "new_string": "fn a() {\n    c();"})
        )
        .await,
        ok("[ok] edited f.rs: replaced 1 occurrence(s) (matched with trailing whitespace ignored)\n--- a/f.rs\n+++ b/f.rs\n@@ -1,3 +1,3 @@\n-fn a() {   \n-    b();\n+fn a() {\n+    c();\n }")
    );
    // An ambiguous loose match explains itself.
    fs::write(dir.path().join("g.rs"), "x();  \ny();\nx(); \n").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "g.rs", "old_string": "x();\n", "new_string": "z();\n", "replace_all": true})
        )
        .await,
        err("[error] old_string matches 2 places (lines 1, 3); add context to make it unique\nthere is no exact match; these places match with trailing whitespace ignored, and a loose match is used only when it is unique (replace_all applies to exact matches only)")
    );
}

#[tokio::test]
async fn not_found_shows_the_closest_lines_with_numbers() {
    let (dir, m) = manager();
    let text = "use std::io;\n\nfn main() {\n    let total = compute(1, 2);\n    println!(\"{total}\");\n}\n";
    fs::write(dir.path().join("main.rs"), text).unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "main.rs", "old_string": "let total = compute(1, 3);", "new_string": "x"})
        )
        .await,
        err("[error] old_string not found in main.rs\nthe closest lines in main.rs (read the file again if unsure):\n2: \n3: fn main() {\n4:     let total = compute(1, 2);\n5:     println!(\"{total}\");\n6: }")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("main.rs")).unwrap(),
        text
    );
}

#[tokio::test]
async fn not_found_hints_at_line_number_prefixes_and_empty_or_unlike_files() {
    let (dir, m) = manager();
    fs::write(dir.path().join("f.txt"), "alpha\nbeta\n").unwrap();
    let (_, text) = edit(
        &m,
        json!({"path": "f.txt", "old_string": "1: alpha\n2: beta", "new_string": "x"}),
    )
    .await;
    assert!(
        text.starts_with(
            "[error] old_string not found in f.txt\nold_string seems to include read_file's line-number prefixes ('12: '); leave them out\nthe closest lines in f.txt"
        ),
        "{text}"
    );
    fs::write(dir.path().join("empty.txt"), "").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "empty.txt", "old_string": "a", "new_string": "b"})
        )
        .await,
        err("[error] old_string not found in empty.txt\nempty.txt is empty")
    );
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.txt", "old_string": "qqq", "new_string": "b"})
        )
        .await,
        err("[error] old_string not found in f.txt\nno line of f.txt resembles it")
    );
}

#[tokio::test]
async fn every_error_path_is_clear_and_changes_nothing() {
    let (dir, m) = manager();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("f.txt"), "text\n").unwrap();
    fs::write(dir.path().join("bin"), b"ab\0cd").unwrap();
    fs::write(dir.path().join("latin1.txt"), b"ok\ncaf\xE9\n").unwrap();
    let big = fs::File::create(dir.path().join("big.txt")).unwrap();
    big.set_len(MAX_EDIT_BYTES + 1).unwrap();
    let cases = [
        (
            "missing.txt",
            "a",
            "b",
            "[error] missing.txt does not exist; use write_file to create it",
        ),
        ("sub", "a", "b", "[error] sub is a directory"),
        (
            "bin",
            "ab",
            "x",
            "[error] bin is a binary file; edit_file edits text files only",
        ),
        (
            "latin1.txt",
            "ok",
            "x",
            "[error] latin1.txt is not valid UTF-8 (first invalid byte on line 2); edit_file edits UTF-8 text only",
        ),
        (
            "big.txt",
            "a",
            "b",
            "[error] big.txt is larger than 16 MiB; edit_file edits smaller files",
        ),
        (
            "../f.txt",
            "a",
            "b",
            "[error] path '../f.txt' is outside the project",
        ),
        (
            "/etc/hosts",
            "a",
            "b",
            "[error] path '/etc/hosts' is outside the project",
        ),
        (
            "f.txt",
            "",
            "b",
            "[error] old_string is empty; to create a file or replace all of it use write_file",
        ),
        (
            "f.txt",
            "text",
            "text",
            "[error] old_string and new_string are identical; nothing to change",
        ),
    ];
    for (path, old, new, expected) in cases {
        assert_eq!(
            edit(
                &m,
                json!({"path": path, "old_string": old, "new_string": new})
            )
            .await,
            err(expected),
            "{path}"
        );
    }
    assert_eq!(fs::read(dir.path().join("bin")).unwrap(), b"ab\0cd");
    assert_eq!(
        fs::read(dir.path().join("latin1.txt")).unwrap(),
        b"ok\ncaf\xE9\n"
    );
    assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), b"text\n");
}

#[tokio::test]
async fn a_crlf_file_stays_crlf_with_its_bom_and_permissions() {
    let (dir, m) = manager();
    let path = dir.path().join("win.txt");
    fs::write(&path, b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let (kind, text) = edit(
        &m,
        json!({"path": "win.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\nand more\n"}),
    )
    .await;
    assert_eq!(kind, ObservationKind::Ok, "{text}");
    assert_eq!(
        fs::read(&path).unwrap(),
        b"\xEF\xBB\xBF1\r\n2\r\nand more\r\nthree\r\n"
    );
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

#[tokio::test]
async fn a_mixed_file_keeps_every_untouched_byte() {
    let (dir, m) = manager();
    let path = dir.path().join("mixed.txt");
    fs::write(&path, b"a\r\nb\nc\r\nd\n").unwrap();
    edit(
        &m,
        json!({"path": "mixed.txt", "old_string": "c", "new_string": "C"}),
    )
    .await;
    assert_eq!(fs::read(&path).unwrap(), b"a\r\nb\nC\r\nd\n");
}

#[tokio::test]
async fn the_final_newline_state_is_kept_both_ways() {
    let (dir, m) = manager();
    fs::write(dir.path().join("with.txt"), "a\nb\n").unwrap();
    fs::write(dir.path().join("without.txt"), "a\nb").unwrap();
    edit(
        &m,
        json!({"path": "with.txt", "old_string": "b\n", "new_string": "c"}),
    )
    .await;
    edit(
        &m,
        json!({"path": "without.txt", "old_string": "b", "new_string": "c\n"}),
    )
    .await;
    assert_eq!(
        fs::read_to_string(dir.path().join("with.txt")).unwrap(),
        "a\nc\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("without.txt")).unwrap(),
        "a\nc"
    );
    // Deleting text works, and deleting everything leaves an empty file.
    edit(
        &m,
        json!({"path": "with.txt", "old_string": "a\nc\n", "new_string": ""}),
    )
    .await;
    assert_eq!(fs::read_to_string(dir.path().join("with.txt")).unwrap(), "");
}

#[tokio::test]
async fn stale_edits_are_refused_until_the_file_is_read_again() {
    let (dir, m) = manager();
    let path = dir.path().join("f.txt");
    fs::write(&path, "one\ntwo\n").unwrap();
    // Never read in this session: allowed, old_string still has to match.
    assert!(
        edit(
            &m,
            json!({"path": "f.txt", "old_string": "one", "new_string": "1"})
        )
        .await
        .1
        .starts_with("[ok] edited f.txt")
    );
    // The edit recorded the file; a formatter touches it afterwards.
    fs::write(&path, "1\ntwo\nthree\n").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.txt", "old_string": "two", "new_string": "2"})
        )
        .await,
        err("[error] f.txt changed since it was last read; read it again")
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "1\ntwo\nthree\n");
    assert!(
        m.dispatch(
            "read_file",
            json!({"path": "f.txt"}),
            &crate::call::test_call()
        )
        .await
        .is_ok()
    );
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.txt", "old_string": "two", "new_string": "2"})
        )
        .await
        .0,
        ObservationKind::Ok
    );
    // A write records the file too.
    m.dispatch(
        "write_file",
        json!({"path": "f.txt", "content": "fresh\n"}),
        &crate::call::test_call(),
    )
    .await;
    fs::write(&path, "changed by someone else\n").unwrap();
    assert_eq!(
        edit(
            &m,
            json!({"path": "f.txt", "old_string": "changed", "new_string": "x"})
        )
        .await,
        err("[error] f.txt changed since it was last read; read it again")
    );
}

#[tokio::test]
async fn the_preview_is_the_diff_that_is_then_written() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(Arc::new(crate::ProjectRoot::new(dir.path()).unwrap()));
    fs::write(dir.path().join("f.txt"), "keep\nold\n").unwrap();
    let args = EditFileArgs {
        path: "f.txt".into(),
        old_string: "old".into(),
        new_string: "new".into(),
        replace_all: false,
    };
    let preview = edit_preview(&ctx, &args).await;
    assert_eq!(
        preview,
        Some(Preview::Diff {
            path: "f.txt".into(),
            unified: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n".into()
        })
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "keep\nold\n",
        "previewing writes nothing"
    );
    let output = edit_file(&ctx, args.clone()).await.unwrap();
    let Some(Preview::Diff { unified, .. }) = preview else {
        unreachable!()
    };
    assert_eq!(output.diff.as_deref(), Some(unified.as_str()));
    // Now old_string is gone: the preview says the call will fail.
    assert_eq!(
        edit_preview(&ctx, &args).await,
        Some(Preview::Text {
            text:
                "this call will fail: old_string not found in f.txt\nno line of f.txt resembles it"
                    .into()
        })
    );
}

#[test]
fn final_newline_helper() {
    assert_eq!(keep_final_newline("a\n", "b".into(), "\n"), "b\n");
    assert_eq!(keep_final_newline("a\r\n", "b".into(), "\r\n"), "b\r\n");
    assert_eq!(keep_final_newline("a", "b\r\n".into(), "\r\n"), "b");
    assert_eq!(keep_final_newline("a\n", String::new(), "\n"), "");
    assert_eq!(keep_final_newline("a", "b".into(), "\n"), "b");
}

/// One fixture folder: `input` (the file's bytes), `args.json` (old_string, new_string, and
/// optionally replace_all), and either `expected` (the file's bytes afterwards) or nothing, in
/// which case the file must be unchanged; `output`, when present, is the observation text.
struct Fixture {
    name: String,
    dir: PathBuf,
}

fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edit");
    let mut found: Vec<Fixture> = fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .map(|dir| Fixture {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir,
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

#[tokio::test]
async fn data_driven_fixtures() {
    let all = fixtures();
    assert!(all.len() >= 10, "fixtures missing: {}", all.len());
    for fixture in all {
        let (dir, m) = manager();
        let input = fs::read(fixture.dir.join("input")).unwrap();
        let target = dir.path().join("file.txt");
        fs::write(&target, &input).unwrap();
        let mut args: Value =
            serde_json::from_str(&fs::read_to_string(fixture.dir.join("args.json")).unwrap())
                .unwrap();
        args["path"] = json!("file.txt");
        let obs = m
            .dispatch("edit_file", args, &crate::call::test_call())
            .await;
        let after = fs::read(&target).unwrap();
        match fs::read(fixture.dir.join("expected")) {
            Ok(expected) => {
                assert!(obs.is_ok(), "{}: {}", fixture.name, obs.text);
                assert_eq!(
                    String::from_utf8_lossy(&after),
                    String::from_utf8_lossy(&expected),
                    "{}",
                    fixture.name
                );
                assert_eq!(after, expected, "{}", fixture.name);
            }
            Err(_) => {
                assert_eq!(
                    obs.kind,
                    ObservationKind::Error,
                    "{}: {}",
                    fixture.name,
                    obs.text
                );
                assert_eq!(after, input, "{}: the file must be unchanged", fixture.name);
            }
        }
        if let Ok(output) = fs::read_to_string(fixture.dir.join("output")) {
            assert_eq!(obs.text, output.trim_end_matches('\n'), "{}", fixture.name);
        }
    }
}
