//! A watcher that reaches its limit on watched directories polls the shown ones instead.
//!
//! Most tests use the watcher's own cap, which takes the same path as the system's refusal
//! (`ENOSPC`, mapped in `limit::is_limit`, tested beside it). The system's limit itself is met in
//! a user namespace of the test's own, where lowering it touches no other program.

use std::time::{Duration, Instant};

use gantry_watch::{TreeChange, TreeWatcher, WatchLimit, WatchOptions};

use super::support::Project;
use super::watcher::{DEBOUNCE, created, drain, expect, removed};

fn options(max_watches: usize) -> WatchOptions {
    WatchOptions {
        max_watches: Some(max_watches),
        poll_interval: Duration::from_millis(100),
        ..WatchOptions::new(DEBOUNCE)
    }
}

#[tokio::test]
async fn past_the_cap_shown_folders_are_polled_and_report_the_same_changes() {
    let project = Project::new(&[
        ("a/one.txt", "1"),
        ("b/two.txt", "2"),
        ("node_modules/pkg/index.js", ""),
    ]);
    // Only the root is watched; a/ and b/ are left over (node_modules/ is not shown at all).
    let (watcher, mut changes) =
        TreeWatcher::start_with_options(project.root(), &options(1)).unwrap();
    let mut limit = watcher.limit();
    assert_eq!(
        *limit.borrow_and_update(),
        Some(WatchLimit {
            watched: 1,
            unwatched: 2,
            cap: Some(1),
        })
    );

    // The root is watched as always.
    let t0 = Instant::now();
    project.write("top.txt", "");
    expect(&mut changes, &created("top.txt", false), t0).await;

    // a/ is shown, b/ is not: only a/ is polled.
    watcher.shown("a");
    let t0 = Instant::now();
    project.write("a/new.txt", "");
    project.write("b/unseen.txt", "");
    project.remove("a/one.txt");
    project.write("a/.gitignore", "*.log\n");
    project.write("a/trace.log", "");
    let mut seen = expect(&mut changes, &created("a/new.txt", false), t0).await;
    seen.extend(drain(&mut changes).await);
    assert!(seen.contains(&removed("a/one.txt", false)), "{seen:?}");
    assert!(
        seen.iter().all(|change| !matches!(
            change,
            TreeChange::Created { path, .. } if path == "b/unseen.txt" || path == "a/trace.log"
        )),
        "an unshown folder is not polled; ignored files are not reported: {seen:?}"
    );

    // A folder that appears in a polled one is shown, and is past the cap too.
    let t0 = Instant::now();
    project.mkdir("a/sub");
    expect(&mut changes, &created("a/sub", true), t0).await;
    tokio::time::timeout(Duration::from_secs(1), limit.changed())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        limit.borrow().as_ref().map(|limit| limit.unwatched),
        Some(3)
    );
    watcher.shown("a/sub");
    let t0 = Instant::now();
    project.write("a/sub/deep.txt", "");
    expect(&mut changes, &created("a/sub/deep.txt", false), t0).await;

    // Removing a polled folder is reported once, from its parent's poll.
    let t0 = Instant::now();
    std::fs::remove_dir_all(project.path("a/sub")).unwrap();
    expect(&mut changes, &removed("a/sub", true), t0).await;
    let after = drain(&mut changes).await;
    assert!(
        !after.contains(&removed("a/sub", true)),
        "reported twice: {after:?}"
    );

    drop(watcher);
    assert_eq!(changes.recv().await, None, "dropping stops the poller too");
}

#[tokio::test]
async fn under_the_cap_nothing_is_polled_and_no_limit_is_reported() {
    let project = Project::new(&[("a/one.txt", "1"), ("b/two.txt", "2")]);
    let (watcher, mut changes) =
        TreeWatcher::start_with_options(project.root(), &options(3)).unwrap();
    assert_eq!(*watcher.limit().borrow(), None);
    watcher.shown("b");
    let t0 = Instant::now();
    project.write("b/new.txt", "");
    expect(&mut changes, &created("b/new.txt", false), t0).await;
    // Watched, so one report only (a poll would not repeat it anyway).
    assert_eq!(drain(&mut changes).await, []);
}

#[test]
fn a_zero_poll_interval_is_refused() {
    let project = Project::new(&[]);
    let zero = WatchOptions {
        poll_interval: Duration::ZERO,
        ..WatchOptions::new(DEBOUNCE)
    };
    assert!(TreeWatcher::start_with_options(project.root(), &zero).is_err());
}

/// Set in the child process that runs [`the_systems_limit_in_a_user_namespace_falls_back_to_polling`]
/// inside a user namespace, to the limit on inotify watches it sets there.
const CHILD_LIMIT: &str = "GANTRY_WATCH_TEST_NAMESPACE_LIMIT";

/// The real `ENOSPC`: in a user namespace of its own (`unshare -Ur`), this test's binary lowers
/// `/proc/sys/user/max_inotify_watches`, which there counts only its own watches (the host's
/// limit and every other program are untouched), and the watcher meets the kernel's refusal.
#[tokio::test]
async fn the_systems_limit_in_a_user_namespace_falls_back_to_polling() {
    if let Ok(limit) = std::env::var(CHILD_LIMIT) {
        return in_the_namespace(limit.parse().unwrap()).await;
    }
    let usable = std::process::Command::new("unshare")
        .args(["-Ur", "true"])
        .status()
        .is_ok_and(|status| status.success());
    if !usable {
        eprintln!("SKIPPED: no user namespaces here (`unshare -Ur true` failed)");
        return;
    }
    let output = std::process::Command::new("unshare")
        .arg("-Ur")
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::limit::the_systems_limit_in_a_user_namespace_falls_back_to_polling",
            "--nocapture",
        ])
        .env(CHILD_LIMIT, "5")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("1 passed"),
        "the test ran in the namespace: {text}"
    );
}

async fn in_the_namespace(limit: usize) {
    std::fs::write("/proc/sys/user/max_inotify_watches", limit.to_string()).unwrap();
    let dirs = ["a", "b", "c", "d", "e", "f", "g", "h"];
    let files: Vec<(String, &str)> = dirs.iter().map(|dir| (format!("{dir}/x"), "")).collect();
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let project = Project::new(&files);
    let options = WatchOptions {
        poll_interval: Duration::from_millis(100),
        ..WatchOptions::new(DEBOUNCE)
    };
    let (watcher, mut changes) = TreeWatcher::start_with_options(project.root(), &options).unwrap();
    assert_eq!(
        *watcher.limit().borrow(),
        Some(WatchLimit {
            watched: limit,
            unwatched: dirs.len() + 1 - limit,
            cap: None,
        }),
        "the kernel refused the watches past its limit"
    );
    // Every folder is shown: those watched and those polled report alike.
    for dir in dirs {
        watcher.shown(dir);
    }
    let t0 = Instant::now();
    for dir in dirs {
        project.write(&format!("{dir}/new.txt"), "");
    }
    // In any order: the watched folders' changes come first, the polled ones' at the next poll.
    let mut seen = Vec::new();
    let deadline = t0 + Duration::from_secs(2);
    while !dirs
        .iter()
        .all(|dir| seen.contains(&created(&format!("{dir}/new.txt"), false)))
    {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, changes.recv()).await {
            Ok(Some(change)) => seen.push(change),
            other => panic!("not every creation arrived: {other:?} after {seen:?}"),
        }
    }
    seen.extend(drain(&mut changes).await);
    assert!(
        seen.iter()
            .all(|change| matches!(change, TreeChange::Created { .. })),
        "{seen:?}"
    );
}
