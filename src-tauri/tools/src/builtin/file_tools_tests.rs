//! The file tools together: the approval flow with a scripted approver (a denied write or edit
//! leaves the file system untouched; the diff the approver saw is what gets written), and
//! read_file's memory staying O(window) on a large file.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use crate::fsutil::atomic::TEMP_PREFIX;
use crate::fsutil::diff::unified_diff;
use crate::{
    ApprovalDecision, ObservationKind, PermissionLevel, Preview, ScriptedApprover, ToolManager,
};

fn deny() -> ApprovalDecision {
    ApprovalDecision::Deny {
        reason: Some("not now".into()),
    }
}

fn project(approver: Option<Arc<ScriptedApprover>>) -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = ToolManager::new(dir.path()).unwrap();
    if let Some(approver) = approver {
        manager = manager.with_approver(approver);
    }
    super::register_builtins(&manager).unwrap();
    (dir, manager)
}

/// Every file under `dir` with its bytes, sorted: a snapshot to compare before and after.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                walk(base, &path, out);
            } else {
                out.push((name, fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[tokio::test]
async fn levels_are_read_safe_and_write_edit_sensitive() {
    let (_dir, m) = project(None);
    let levels: Vec<(String, PermissionLevel)> =
        m.tools().into_iter().map(|t| (t.name, t.level)).collect();
    for (name, level) in [
        ("read_file", PermissionLevel::Safe),
        ("write_file", PermissionLevel::Sensitive),
        ("edit_file", PermissionLevel::Sensitive),
    ] {
        assert!(levels.contains(&(name.to_owned(), level)), "{name}");
    }
}

#[tokio::test]
async fn a_denied_write_or_edit_leaves_the_file_system_untouched() {
    let approver = ScriptedApprover::new([deny(), deny(), deny()]);
    let (dir, m) = project(Some(approver.clone()));
    fs::write(dir.path().join("existing.txt"), "one\ntwo\n").unwrap();
    let before = snapshot(dir.path());

    let calls = [
        (
            "write_file",
            json!({"path": "new/dir/file.txt", "content": "x\n"}),
        ),
        (
            "write_file",
            json!({"path": "existing.txt", "content": "replaced\n"}),
        ),
        (
            "edit_file",
            json!({"path": "existing.txt", "old_string": "two", "new_string": "2"}),
        ),
    ];
    for (tool, args) in calls {
        let obs = m.dispatch(tool, args, &crate::call::test_call()).await;
        assert_eq!(obs.kind, ObservationKind::Denied, "{tool}");
        assert_eq!(
            obs.text,
            format!("[denied] the user denied tool '{tool}': not now")
        );
        assert_eq!(obs.diff, None);
    }
    assert_eq!(
        snapshot(dir.path()),
        before,
        "no file, directory or temp file"
    );
    // The approver was shown each change before refusing it.
    let previews: Vec<Option<Preview>> =
        approver.requests().into_iter().map(|r| r.preview).collect();
    assert_eq!(
        previews,
        [
            Some(Preview::Diff {
                path: "new/dir/file.txt".into(),
                unified: "--- a/new/dir/file.txt\n+++ b/new/dir/file.txt\n@@ -0,0 +1 @@\n+x\n"
                    .into()
            }),
            Some(Preview::Diff {
                path: "existing.txt".into(),
                unified:
                    "--- a/existing.txt\n+++ b/existing.txt\n@@ -1,2 +1 @@\n-one\n-two\n+replaced\n"
                        .into()
            }),
            Some(Preview::Diff {
                path: "existing.txt".into(),
                unified:
                    "--- a/existing.txt\n+++ b/existing.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
                        .into()
            }),
        ]
    );
}

#[tokio::test]
async fn without_an_approver_sensitive_file_tools_do_not_run() {
    let (dir, m) = project(None);
    let obs = m
        .dispatch(
            "write_file",
            json!({"path": "a.txt", "content": "x"}),
            &crate::call::test_call(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert!(snapshot(dir.path()).is_empty());
}

#[tokio::test]
async fn an_allowed_change_writes_exactly_the_previewed_diff() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowOnce,
        ApprovalDecision::AllowOnce,
        ApprovalDecision::AllowOnce,
    ]);
    let (dir, m) = project(Some(approver.clone()));
    let path = dir.path().join("src/lib.rs");
    let steps = [
        (
            "write_file",
            json!({"path": "src/lib.rs", "content": "pub fn a() {}\n\npub fn b() {}\n"}),
        ),
        (
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "pub fn b() {}", "new_string": "pub fn b() -> u8 {\n    1\n}"}),
        ),
        (
            "write_file",
            json!({"path": "src/lib.rs", "content": "pub fn c() {}\n"}),
        ),
    ];
    for (index, (tool, args)) in steps.into_iter().enumerate() {
        let old = fs::read_to_string(&path).unwrap_or_default();
        let obs = m.dispatch(tool, args, &crate::call::test_call()).await;
        assert_eq!(obs.kind, ObservationKind::Ok, "{tool}: {}", obs.text);
        let new = fs::read_to_string(&path).unwrap();
        let Some(Preview::Diff {
            path: shown,
            unified,
        }) = approver.requests()[index].preview.clone()
        else {
            panic!("{tool} previews a diff")
        };
        assert_eq!(shown, "src/lib.rs");
        assert_eq!(unified, unified_diff("src/lib.rs", &old, &new), "{tool}");
        assert_eq!(obs.diff.as_deref(), Some(unified.as_str()), "{tool}");
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), "pub fn c() {}\n");
    let leftovers: Vec<_> = fs::read_dir(dir.path().join("src"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(TEMP_PREFIX)
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[tokio::test]
async fn allowing_writes_for_the_session_covers_the_folder_shown_and_nothing_else() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowForSession]);
    let (dir, m) = project(Some(approver.clone()));
    let call = crate::call::test_call();
    let write = |path: &str| m.dispatch("write_file", json!({"path": path, "content": "x"}), &call);
    for path in ["notes/f0.txt", "notes/f1.txt", "notes/deep/f2.txt"] {
        let obs = write(path).await;
        assert!(obs.is_ok(), "{path}: {}", obs.text);
    }
    let asked = approver.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].session_scope, ["write_file: notes/**"]);
    // Outside the folder it asks again (and the script, now empty, denies).
    for path in ["src/main.rs", "notes.txt", "README.md"] {
        let obs = write(path).await;
        assert_eq!(obs.kind, ObservationKind::Denied, "{path}");
        assert!(!dir.path().join(path).exists(), "{path}");
    }
    assert_eq!(
        approver.requests()[2].session_scope,
        ["write_file: notes.txt"]
    );
    // notes/, notes/deep/ and the three files.
    assert_eq!(snapshot(dir.path()).len(), 5);
    // edit_file is another tool: it asks.
    let obs = m
        .dispatch(
            "edit_file",
            json!({"path": "notes/f0.txt", "old_string": "x", "new_string": "y"}),
            &crate::call::test_call(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(
        fs::read_to_string(dir.path().join("notes/f0.txt")).unwrap(),
        "x"
    );
}

/// The attack a review found: with write_file allowed for the session (to edit notes.md) and
/// `git status` allowed too, the model wrote `.git/config` with `core.fsmonitor` (a command
/// git runs) without asking. The write to `.git/config` must ask, and the run must not happen.
#[tokio::test]
async fn a_session_grant_never_covers_a_file_that_makes_programs_run() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowForSession]);
    let (dir, m) = project(Some(approver.clone()));
    fs::create_dir_all(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    let call = crate::call::test_call();
    let obs = m
        .dispatch(
            "write_file",
            json!({"path": "notes.md", "content": "todo\n"}),
            &call,
        )
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    // Even a grant of the whole tool does not cover it.
    call.session().approve_tool("write_file");
    let attack = "[core]\n\tfsmonitor = \"touch /tmp/pwned; echo\"\n";
    let obs = m
        .dispatch(
            "write_file",
            json!({"path": ".git/config", "content": attack}),
            &call,
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied, "{}", obs.text);
    assert_eq!(
        fs::read_to_string(dir.path().join(".git/config")).unwrap(),
        "[core]\n"
    );
    let asked = approver.requests();
    assert_eq!(asked.len(), 2, "the write to .git/config asked");
    assert!(asked[1].session_scope.is_empty());
    assert!(
        matches!(&asked[1].reason, crate::AskReason::Always { why }
            if why.contains("`.git/config` can make programs run")),
        "{:?}",
        asked[1].reason
    );
    // edit_file too, through a link that hides the name.
    std::os::unix::fs::symlink(".git/config", dir.path().join("notes-link")).unwrap();
    call.session().approve_tool("edit_file");
    let obs = m
        .dispatch(
            "edit_file",
            json!({"path": "notes-link", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = x"}),
            &call,
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied, "{}", obs.text);
    assert_eq!(approver.requests().len(), 3);
    assert_eq!(
        fs::read_to_string(dir.path().join(".git/config")).unwrap(),
        "[core]\n"
    );
}

/// Under Auto a write to a hook still asks; with nobody to answer it is refused.
#[tokio::test]
async fn the_auto_policy_still_asks_before_writing_a_git_hook() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowOnce]);
    let (dir, m) = project(Some(approver.clone()));
    m.set_policy("write_file", crate::Policy::Auto).unwrap();
    let hook = json!({"path": ".git/hooks/x", "content": "#!/bin/sh\ntouch pwned\n"});
    let obs = m
        .dispatch("write_file", hook.clone(), &crate::call::test_call())
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    assert_eq!(approver.requests().len(), 1, "Auto asked for the hook");
    assert_eq!(obs.decision.kind, crate::DecisionKind::AllowedOnce);
    // Ordinary files still run without asking under Auto.
    let obs = m
        .dispatch(
            "write_file",
            json!({"path": "src/a.rs", "content": ""}),
            &crate::call::test_call(),
        )
        .await;
    assert_eq!(obs.decision.kind, crate::DecisionKind::Auto);
    assert_eq!(approver.requests().len(), 1);
    // Without an approver the hook is refused.
    let (_dir2, bare) = project(None);
    bare.set_policy("write_file", crate::Policy::Auto).unwrap();
    let obs = bare
        .dispatch("write_file", hook, &crate::call::test_call())
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert!(dir.path().join(".git/hooks/x").exists());
}

/// The child half of [`reading_the_end_of_a_large_file_keeps_memory_flat`]: reads the last
/// 200 lines of the file named by `GANTRY_READ_MEMORY_FILE` in a fresh process and prints the
/// peak resident memory before and after.
#[test]
#[ignore = "run by reading_the_end_of_a_large_file_keeps_memory_flat in a child process"]
fn read_memory_child() {
    let Ok(file) = std::env::var("GANTRY_READ_MEMORY_FILE") else {
        return;
    };
    let lines: usize = std::env::var("GANTRY_READ_MEMORY_LINES")
        .unwrap()
        .parse()
        .unwrap();
    let path = Path::new(&file);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let m = ToolManager::new(path.parent().unwrap()).unwrap();
    super::register_builtins(&m).unwrap();
    let before = peak_rss_kib();
    let name = path.file_name().unwrap().to_str().unwrap();
    let obs = runtime.block_on(m.dispatch(
        "read_file",
        json!({"path": name, "offset": lines - 199, "limit": 200}),
        &crate::call::test_call(),
    ));
    let after = peak_rss_kib();
    assert!(obs.is_ok(), "{}", obs.text);
    let header = obs.text.lines().next().unwrap().to_owned();
    println!("MEMORY before={before} after={after} header={header}");
}

/// `VmHWM` (peak resident set) of this process, in KiB.
fn peak_rss_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn reading_the_end_of_a_large_file_keeps_memory_flat() {
    use std::io::Write;

    const TARGET_BYTES: usize = 200 * 1024 * 1024;
    // One 1 MiB block of numbered lines, written over and over.
    let mut block = String::new();
    let mut block_lines = 0;
    while block.len() < (1 << 20) - 64 {
        block_lines += 1;
        block.push_str(&format!(
            "{block_lines:06} the quick brown fox jumps over the lazy dog\n"
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.log");
    let mut out = fs::File::create(&path).unwrap();
    let mut lines = 0;
    for _ in 0..TARGET_BYTES / block.len() {
        out.write_all(block.as_bytes()).unwrap();
        lines += block_lines;
    }
    drop(out);

    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "builtin::file_tools_tests::read_memory_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("GANTRY_READ_MEMORY_FILE", &path)
        .env("GANTRY_READ_MEMORY_LINES", lines.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&child.stderr)
    );
    let report = stdout
        .lines()
        .find_map(|l| l.split_once("MEMORY ").map(|(_, report)| report))
        .unwrap_or_else(|| panic!("no report in {stdout}"));
    let field = |name: &str| -> u64 {
        report
            .split(' ')
            .find_map(|f| f.strip_prefix(name))
            .unwrap()
            .parse()
            .unwrap()
    };
    let growth_kib = field("after=").saturating_sub(field("before="));
    assert!(
        report.contains(&format!(
            "header=[file: big.log | lines {}-{lines}/{lines}]",
            lines - 199
        )),
        "{report}"
    );
    // The window is 200 short lines and the buffer 128 KiB; reading the whole file would
    // add 200 MiB.
    assert!(growth_kib < 16 * 1024, "peak RSS grew by {growth_kib} KiB");
}
