//! A watcher that reaches its limit on watched directories polls the shown ones instead.
//!
//! The system's limit (`fs.inotify.max_user_watches`) cannot be lowered here without root and
//! side effects on every other program, so these tests use the watcher's own cap, which takes the
//! same path as the system's refusal (`ENOSPC`, mapped in `limit::is_limit`, tested beside it).

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
