//! The file tools under a concurrent attack on the project tree: a second thread swaps a project
//! folder with a symlink to a folder outside (`renameat2(RENAME_EXCHANGE)`, atomically, in a
//! loop) while read_file, write_file, edit_file and grep_search run on paths in that folder.
//! Whatever the interleaving, no call may return outside content and nothing outside may be
//! created or changed: each call either works inside or fails. Run once with an absolute
//! symlink and once with a relative one (`../outside`), 1,000 calls each.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::json;

use crate::{ApprovalDecision, FixedApprover, ObservationKind, ToolManager};

/// Calls made per symlink flavour, a quarter per tool.
const CALLS: usize = 1_000;
/// Calls dispatched at once.
const BATCH: usize = 8;
/// Distinct files read and edited.
const FILES: usize = 8;

/// Every entry under `dir` with its bytes, sorted (directories end in `/`).
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(base)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
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

/// `proj/sub` (a real folder) and `outside/` hold files of the same names; `proj/swap` is a
/// symlink to `outside` (absolute, or `../outside`). Returns (tempdir, project, outside).
fn layout(absolute: bool) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let project = base.join("proj");
    let outside = base.join("outside");
    fs::create_dir_all(project.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    for n in 0..FILES {
        fs::write(
            project.join(format!("sub/r{n}.txt")),
            format!("inside {n}\n"),
        )
        .unwrap();
        fs::write(project.join(format!("sub/e{n}.txt")), "alpha\n").unwrap();
        fs::write(outside.join(format!("r{n}.txt")), format!("OUTSIDE {n}\n")).unwrap();
        fs::write(outside.join(format!("e{n}.txt")), "alpha\n").unwrap();
    }
    let target = if absolute {
        outside.clone()
    } else {
        PathBuf::from("../outside")
    };
    std::os::unix::fs::symlink(target, project.join("swap")).unwrap();
    (tmp, project, outside)
}

#[derive(Debug, Default)]
struct Tally {
    outside_content: usize,
    reads_ok: usize,
    writes_ok: usize,
    edits_ok: usize,
    greps_ok: usize,
    changed_outside: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swapping_a_folder_for_an_absolute_symlink_out_never_lets_a_call_escape() {
    let tally = attack(true).await;
    assert_eq!(
        (tally.outside_content, tally.changed_outside),
        (0, 0),
        "{tally:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn swapping_a_folder_for_a_relative_symlink_out_never_lets_a_call_escape() {
    let tally = attack(false).await;
    assert_eq!(
        (tally.outside_content, tally.changed_outside),
        (0, 0),
        "{tally:?}"
    );
}

/// Runs [`CALLS`] calls while the swapper runs; returns what happened.
async fn attack(absolute: bool) -> Tally {
    let (_tmp, project, outside) = layout(absolute);
    let outside_before = snapshot(&outside);
    let manager = ToolManager::new(&project)
        .unwrap()
        .with_approver(Arc::new(FixedApprover(ApprovalDecision::AllowOnce)));
    super::register_builtins(&manager).unwrap();

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps) = (stop.clone(), swaps.clone());
        let (sub, swap) = (project.join("sub"), project.join("swap"));
        std::thread::spawn(move || {
            // Pauses of 0 to 255 µs between swaps, so that both states last about as long as
            // a call's steps and every interleaving of check and use comes up.
            let mut state = 0x5eed_u64;
            while !stop.load(Ordering::Relaxed) {
                renameat_with(CWD, &sub, CWD, &swap, RenameFlags::EXCHANGE).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                std::thread::sleep(Duration::from_micros(state >> 56));
            }
            // Leave `sub` the real folder.
            if fs::symlink_metadata(&sub).unwrap().file_type().is_symlink() {
                renameat_with(CWD, &sub, CWD, &swap, RenameFlags::EXCHANGE).unwrap();
            }
        })
    };

    let mut tally = Tally::default();
    for batch in 0..CALLS / BATCH + 1 {
        let calls = (batch * BATCH..((batch + 1) * BATCH).min(CALLS)).map(|i| {
            let n = i % FILES;
            let (tool, args) = match i % 4 {
                0 => ("read_file", json!({"path": format!("sub/r{n}.txt")})),
                // Matches "inside 1" and "OUTSIDE 1"; the header shows the pattern, which
                // does not contain "OUTSIDE".
                3 => (
                    "grep_search",
                    json!({"pattern": "SIDE [0-9]", "path": "sub"}),
                ),
                1 => (
                    "write_file",
                    json!({"path": format!("sub/w{i}/new.txt"), "content": "written\n"}),
                ),
                _ => (
                    "edit_file",
                    json!({"path": format!("sub/e{n}.txt"), "old_string": "alpha",
                           "new_string": format!("alpha {i}")}),
                ),
            };
            let manager = &manager;
            async move {
                (
                    tool,
                    manager
                        .dispatch(tool, args, &crate::call::test_call())
                        .await,
                )
            }
        });
        for (tool, obs) in futures::future::join_all(calls).await {
            if obs.text.contains("OUTSIDE") {
                tally.outside_content += 1;
            }
            if obs.kind != ObservationKind::Ok && std::env::var_os("RACE_DEBUG").is_some() {
                eprintln!("{tool}: {}", obs.text.lines().next().unwrap_or_default());
            }
            if obs.kind == ObservationKind::Ok {
                match tool {
                    "read_file" => tally.reads_ok += 1,
                    "write_file" => tally.writes_ok += 1,
                    "grep_search" => tally.greps_ok += 1,
                    _ => tally.edits_ok += 1,
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();

    let outside_after = snapshot(&outside);
    let changed: Vec<&String> = outside_after
        .iter()
        .filter(|entry| !outside_before.contains(entry))
        .map(|(name, _)| name)
        .collect();
    tally.changed_outside = changed.len();
    let swaps = swaps.load(Ordering::Relaxed);
    eprintln!("{tally:?}, {swaps} swaps; changed outside: {changed:?}");
    assert!(swaps > 10, "the swapper barely ran");
    // Not vacuous: calls that met the real folder did their work inside, and with the folder
    // left in place every tool works on it.
    let ok = tally.reads_ok + tally.writes_ok + tally.edits_ok + tally.greps_ok;
    assert!(ok > 0, "{tally:?}");
    for (tool, args, expected) in [
        ("read_file", json!({"path": "sub/r0.txt"}), "1: inside 0"),
        (
            "write_file",
            json!({"path": "sub/after/new.txt", "content": "x\n"}),
            "[ok] created sub/after/new.txt",
        ),
        (
            "edit_file",
            json!({"path": "sub/e0.txt", "old_string": "alpha", "new_string": "omega"}),
            "[ok] edited sub/e0.txt",
        ),
        (
            "grep_search",
            json!({"pattern": "inside 0", "path": "sub"}),
            "sub/r0.txt:1: inside 0",
        ),
    ] {
        let obs = manager
            .dispatch(tool, args, &crate::call::test_call())
            .await;
        assert!(obs.text.contains(expected), "{tool}: {}", obs.text);
    }
    tally
}

/// The same swap without a race, step by step: a path checked while `sub` was a real folder
/// and used after `sub` became a symlink out is refused by every file operation with the
/// usual message, and the outside is untouched.
#[test]
fn a_path_checked_before_the_swap_is_refused_after_it() {
    use crate::builtin::edit_file::{EditFileArgs, plan_edit};
    use crate::builtin::read_file::{Window, read_window};
    use crate::builtin::write_file::plan_write;
    use crate::fsutil::atomic::{AtomicWriteError, write_atomic_beneath};

    let (_tmp, project_dir, outside) = layout(false);
    let outside_before = snapshot(&outside);
    let project = crate::ProjectRoot::new(&project_dir).unwrap();
    let read = project.resolve("sub/r1.txt").unwrap();
    let edit = project.resolve("sub/e1.txt").unwrap();
    let new = project.resolve("sub/d/new.txt").unwrap();
    renameat_with(
        CWD,
        project_dir.join("sub"),
        CWD,
        project_dir.join("swap"),
        RenameFlags::EXCHANGE,
    )
    .unwrap();

    let cancel = tokio_util::sync::CancellationToken::new();
    let window = Window {
        first: 1,
        limit: 10,
    };
    let error = read_window(&project, &read, window, &cancel).unwrap_err();
    assert_eq!(
        error.message(read.relative()),
        "path 'sub/r1.txt' is outside the project"
    );
    let args = EditFileArgs {
        path: "sub/e1.txt".into(),
        old_string: "alpha".into(),
        new_string: "beta".into(),
        replace_all: false,
    };
    let error = plan_edit(&project, &edit, &args).unwrap_err();
    assert_eq!(error.message(), "path 'sub/e1.txt' is outside the project");
    let error = plan_write(&project, &edit, "x").unwrap_err();
    assert_eq!(error.message(), "path 'sub/e1.txt' is outside the project");
    for target in [&edit, &new] {
        let error = write_atomic_beneath(&project, target, b"x", None).unwrap_err();
        assert!(matches!(error, AtomicWriteError::Outside(_)), "{error}");
    }
    assert_eq!(snapshot(&outside), outside_before);
}
