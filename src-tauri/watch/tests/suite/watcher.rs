//! `TreeWatcher` against real file system changes.

use std::time::{Duration, Instant};

use gantry_watch::{ProjectTree, TreeChange, TreeError, TreeWatcher};
use tokio::sync::mpsc::UnboundedReceiver;

use super::support::Project;

/// The interval the app uses.
pub(super) const DEBOUNCE: Duration = Duration::from_millis(50);
/// How long any one change may take to arrive here: the requirement is 200 ms, this bound is
/// generous so that a loaded CI machine does not fail the suite.
const BOUND: Duration = Duration::from_secs(1);
/// How long to listen for changes that must not come.
const QUIET: Duration = Duration::from_millis(300);

pub(super) fn created(path: &str, is_dir: bool) -> TreeChange {
    TreeChange::Created {
        path: path.into(),
        is_dir,
    }
}

pub(super) fn removed(path: &str, is_dir: bool) -> TreeChange {
    TreeChange::Removed {
        path: path.into(),
        is_dir,
    }
}

fn renamed(from: &str, to: &str, is_dir: bool) -> TreeChange {
    TreeChange::Renamed {
        from: from.into(),
        to: to.into(),
        is_dir,
    }
}

/// True when `change` concerns `path` or something below it.
fn mentions(change: &TreeChange, path: &str) -> bool {
    let under = |candidate: &str| candidate == path || candidate.starts_with(&format!("{path}/"));
    match change {
        TreeChange::Created { path, .. }
        | TreeChange::Removed { path, .. }
        | TreeChange::Modified { path, .. }
        | TreeChange::Rescan { path } => under(path),
        TreeChange::Renamed { from, to, .. } => under(from) || under(to),
    }
}

fn start(project: &Project) -> (TreeWatcher, UnboundedReceiver<TreeChange>) {
    TreeWatcher::start(project.root(), DEBOUNCE).unwrap()
}

/// Waits until `expected` arrives, within [`BOUND`] of `since`; returns what came before it.
pub(super) async fn expect(
    changes: &mut UnboundedReceiver<TreeChange>,
    expected: &TreeChange,
    since: Instant,
) -> Vec<TreeChange> {
    let mut before = Vec::new();
    loop {
        let left = BOUND.saturating_sub(since.elapsed());
        match tokio::time::timeout(left, changes.recv()).await {
            Ok(Some(change)) if change == *expected => return before,
            Ok(Some(change)) => before.push(change),
            Ok(None) => panic!("the channel closed while waiting for {expected:?}"),
            Err(_) => panic!("{expected:?} did not arrive within {BOUND:?}; got {before:?}"),
        }
    }
}

/// Everything that arrives within [`QUIET`].
pub(super) async fn drain(changes: &mut UnboundedReceiver<TreeChange>) -> Vec<TreeChange> {
    let mut seen = Vec::new();
    let until = Instant::now() + QUIET;
    while let Ok(Some(change)) = tokio::time::timeout(
        until.saturating_duration_since(Instant::now()),
        changes.recv(),
    )
    .await
    {
        seen.push(change);
    }
    seen
}

#[tokio::test]
async fn created_renamed_and_removed_files_are_reported_within_the_bound() {
    let project = Project::new(&[("src/", "")]);
    let (_watcher, mut changes) = start(&project);

    let at = Instant::now();
    project.write("src/new.rs", "fn main() {}\n");
    expect(&mut changes, &created("src/new.rs", false), at).await;

    let at = Instant::now();
    project.rename("src/new.rs", "src/renamed.rs");
    expect(
        &mut changes,
        &renamed("src/new.rs", "src/renamed.rs", false),
        at,
    )
    .await;

    let at = Instant::now();
    project.remove("src/renamed.rs");
    expect(&mut changes, &removed("src/renamed.rs", false), at).await;

    let rest = drain(&mut changes).await;
    assert!(rest.is_empty(), "unexpected changes: {rest:?}");
}

#[tokio::test]
async fn modified_files_are_reported() {
    let project = Project::new(&[("notes.md", "one\n")]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.write("notes.md", "two\n");
    let modified = TreeChange::Modified {
        path: "notes.md".into(),
        is_dir: false,
    };
    expect(&mut changes, &modified, at).await;
}

#[tokio::test]
async fn a_new_directory_is_watched_before_it_is_reported() {
    let project = Project::new(&[]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.mkdir("a/b/c");
    expect(&mut changes, &created("a", true), at).await;
    // The directory and those below it are watched by the time its event arrives.
    let at = Instant::now();
    project.write("a/b/c/d.txt", "");
    expect(&mut changes, &created("a/b/c/d.txt", false), at).await;
    let tree = ProjectTree::new(project.root()).unwrap();
    assert_eq!(tree.children("a/b/c").unwrap()[0].path, "a/b/c/d.txt");
}

#[tokio::test]
async fn a_renamed_directory_is_followed_under_its_new_name() {
    let project = Project::new(&[("old/keep.rs", ""), ("old/inner/x.rs", "")]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.rename("old", "new");
    // Made before the watch catches up with the rename: found by the rescan, not reported.
    project.write("new/inner/quick.rs", "");
    let mut seen = expect(&mut changes, &renamed("old", "new", true), at).await;
    seen.extend(expect(&mut changes, &TreeChange::Rescan { path: "new".into() }, at).await);
    let tree = ProjectTree::new(project.root()).unwrap();
    let inner = tree.children("new/inner").unwrap();
    assert!(inner.iter().any(|entry| entry.path == "new/inner/quick.rs"));

    let at = Instant::now();
    project.write("new/inner/y.rs", "");
    seen.extend(expect(&mut changes, &created("new/inner/y.rs", false), at).await);
    seen.extend(drain(&mut changes).await);
    let stray: Vec<_> = seen
        .iter()
        .filter(|change| mentions(change, "old"))
        .collect();
    assert!(stray.is_empty(), "the old name came back: {stray:?}");
}

#[tokio::test]
async fn removing_a_directory_reports_it_once() {
    let project = Project::new(&[("gone/a.rs", ""), ("gone/sub/b.rs", ""), ("stay.rs", "")]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    std::fs::remove_dir_all(project.path("gone")).unwrap();
    expect(&mut changes, &removed("gone", true), at).await;
    let rest = drain(&mut changes).await;
    assert!(
        !rest.contains(&removed("gone", true)) && !rest.contains(&removed("gone", false)),
        "reported twice: {rest:?}"
    );
}

#[tokio::test]
async fn ignored_and_vendor_paths_are_not_reported() {
    let project = Project::new(&[
        (".gitignore", "*.log\n/secret/\n"),
        ("node_modules/pkg/index.js", ""),
        ("secret/", ""),
        ("src/", ""),
    ]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.write("node_modules/pkg/more.js", "");
    project.write("node_modules/fresh/index.js", "");
    project.write("app.log", "");
    project.write("src/trace.log", "");
    project.write("secret/key.pem", "");
    project.write("target/debug/app", "");
    project.write("web/node_modules/q/index.js", "");
    project.write("src/sentinel.rs", "");
    let mut seen = expect(&mut changes, &created("src/sentinel.rs", false), at).await;
    seen.extend(drain(&mut changes).await);
    for hidden in [
        "node_modules",
        "app.log",
        "src/trace.log",
        "secret",
        "target",
        "web/node_modules",
    ] {
        assert!(
            !seen.iter().any(|change| mentions(change, hidden)),
            "{hidden} was reported: {seen:?}"
        );
    }
    // The directory holding the vendor directory is real, though.
    assert!(seen.contains(&created("web", true)), "{seen:?}");
}

#[tokio::test]
async fn renaming_across_the_ignore_line_is_seen_from_the_tree() {
    let project = Project::new(&[(".gitignore", "*.log\n"), ("a.txt", ""), ("b.log", "")]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.rename("a.txt", "a.log");
    expect(&mut changes, &removed("a.txt", false), at).await;
    let at = Instant::now();
    project.rename("b.log", "b.txt");
    expect(&mut changes, &created("b.txt", false), at).await;
}

#[tokio::test]
async fn a_changed_gitignore_takes_effect_without_a_restart() {
    let project = Project::new(&[(".gitignore", "gen/\n"), ("gen/sub/", ""), ("src/", "")]);
    let (_watcher, mut changes) = start(&project);

    let at = Instant::now();
    project.write(".gitignore", "*.tmp\n");
    expect(&mut changes, &TreeChange::Rescan { path: "".into() }, at).await;
    // gen/ is shown now, and watched down to gen/sub; *.tmp is hidden now.
    let at = Instant::now();
    project.write("a.tmp", "");
    project.write("gen/sub/new.rs", "");
    let mut seen = expect(&mut changes, &created("gen/sub/new.rs", false), at).await;
    seen.extend(drain(&mut changes).await);
    assert!(
        !seen.iter().any(|change| mentions(change, "a.tmp")),
        "{seen:?}"
    );

    // A nested ignore file governs its own directory.
    let at = Instant::now();
    project.write("src/.gitignore", "*.bak\n");
    expect(&mut changes, &TreeChange::Rescan { path: "src".into() }, at).await;
    let at = Instant::now();
    project.write("src/x.bak", "");
    project.write("src/x.rs", "");
    let mut seen = expect(&mut changes, &created("src/x.rs", false), at).await;
    seen.extend(drain(&mut changes).await);
    assert!(
        !seen.iter().any(|change| mentions(change, "src/x.bak")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn moves_into_and_out_of_the_project_are_creations_and_removals() {
    let project = Project::new(&[("leaving.txt", "")]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("arriving.txt"), "").unwrap();
    let (_watcher, mut changes) = start(&project);

    let at = Instant::now();
    std::fs::rename(
        outside.path().join("arriving.txt"),
        project.path("arrived.txt"),
    )
    .unwrap();
    expect(&mut changes, &created("arrived.txt", false), at).await;
    let at = Instant::now();
    std::fs::rename(project.path("leaving.txt"), outside.path().join("left.txt")).unwrap();
    expect(&mut changes, &removed("leaving.txt", false), at).await;
}

#[cfg(unix)]
#[tokio::test]
async fn links_are_reported_but_not_followed() {
    let project = Project::new(&[]);
    let outside = tempfile::tempdir().unwrap();
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    std::os::unix::fs::symlink(outside.path(), project.path("link")).unwrap();
    expect(&mut changes, &created("link", false), at).await;

    let at = Instant::now();
    std::fs::write(outside.path().join("private.txt"), "").unwrap();
    project.write("sentinel", "");
    let mut seen = expect(&mut changes, &created("sentinel", false), at).await;
    seen.extend(drain(&mut changes).await);
    assert!(
        !seen.iter().any(|change| mentions(change, "link")),
        "{seen:?}"
    );
}

#[tokio::test]
async fn dropping_the_watcher_stops_it_and_closes_the_channel() {
    let project = Project::new(&[]);
    let (watcher, mut changes) = start(&project);
    assert_eq!(watcher.root(), project.root());
    drop(watcher);
    project.write("after.txt", "");
    let end = tokio::time::timeout(BOUND, changes.recv()).await;
    assert!(matches!(end, Ok(None)), "{end:?}");
}

#[test]
fn a_zero_interval_or_a_bad_root_is_refused() {
    let project = Project::new(&[("file", "")]);
    assert!(matches!(
        TreeWatcher::start(project.root(), Duration::ZERO),
        Err(TreeError::InvalidDebounce)
    ));
    assert!(matches!(
        TreeWatcher::start(project.path("missing"), DEBOUNCE),
        Err(TreeError::Root { .. })
    ));
    assert!(matches!(
        TreeWatcher::start(project.path("file"), DEBOUNCE),
        Err(TreeError::RootNotADirectory { .. })
    ));
}

#[tokio::test]
async fn replacing_a_file_by_renaming_over_it_never_reports_it_removed() {
    // What editors do on save: write a temporary file, then rename it over the original. Within
    // one debounce interval this is reported as the creation of a path that already existed.
    let project = Project::new(&[("main.rs", "old\n")]);
    let (_watcher, mut changes) = start(&project);
    let at = Instant::now();
    project.write("main.rs.tmp", "new\n");
    project.rename("main.rs.tmp", "main.rs");
    let mut seen = Vec::new();
    while at.elapsed() < BOUND {
        let Ok(Some(change)) = tokio::time::timeout(QUIET, changes.recv()).await else {
            break;
        };
        seen.push(change);
    }
    assert!(
        seen.iter().any(|change| matches!(
            change,
            TreeChange::Created { path, .. } | TreeChange::Renamed { to: path, .. } if path == "main.rs"
        )),
        "{seen:?}"
    );
    assert!(!seen.contains(&removed("main.rs", false)), "{seen:?}");
}
