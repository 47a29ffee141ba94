//! Checkpoints end to end below the UI: real tools dispatched through the project's manager
//! (write_file, edit_file, run_command under a real shell), a real database and real files.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gantry_store::{NewMessage, Role, SessionId, Store};
use gantry_tools::{
    ApprovalDecision, CallContext, FixedApprover, Observation, ObservationKind, ToolManager,
    ToolSession,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::project::open::{People, open_tools};
use crate::test_support::eventually;

struct Rig {
    _data: tempfile::TempDir,
    _project: tempfile::TempDir,
    root: PathBuf,
    store: Store,
    tools: Arc<ToolManager>,
    checkpoints: Checkpoints,
    session: SessionId,
    tool_session: Arc<ToolSession>,
    calls: std::sync::atomic::AtomicU32,
}

async fn rig() -> Rig {
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let people = People {
        approver: Some(Arc::new(FixedApprover(ApprovalDecision::AllowOnce))),
        prompter: None,
    };
    let opened = open_tools(store.clone(), &root, people).await.unwrap();
    opened.manager.enable("run_command").unwrap();
    let session = store
        .sessions()
        .create(opened.project.id, "test", None)
        .await
        .unwrap();
    Rig {
        root,
        store,
        checkpoints: opened.checkpoints.clone(),
        tools: Arc::new(opened.manager),
        session: session.id,
        tool_session: Arc::new(ToolSession::new(session.id.to_string())),
        calls: std::sync::atomic::AtomicU32::new(0),
        _data: data,
        _project: project,
    }
}

impl Rig {
    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) {
        let path = self.path(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(path, content).unwrap();
    }

    fn read(&self, name: &str) -> Option<Vec<u8>> {
        fs::read(self.path(name)).ok()
    }

    fn text(&self, name: &str) -> Option<String> {
        self.read(name)
            .map(|bytes| String::from_utf8(bytes).unwrap())
    }

    /// The user says something: a new turn starts.
    async fn user_says(&self, text: &str) -> u32 {
        let saved = self
            .store
            .sessions()
            .append_message(self.session, &NewMessage::text(Role::User, text))
            .await
            .unwrap();
        self.checkpoints
            .begin_turn(&self.session.to_string(), saved.ordinal);
        saved.ordinal
    }

    fn context(&self) -> CallContext {
        let number = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        CallContext::new(format!("call_{number}"), Arc::clone(&self.tool_session))
    }

    async fn call(&self, tool: &str, arguments: Value) -> Observation {
        let observation = self.tools.dispatch(tool, arguments, &self.context()).await;
        assert_eq!(observation.kind, ObservationKind::Ok, "{observation:?}");
        observation
    }

    async fn command(&self, command: &str) -> Observation {
        self.call("run_command", json!({ "command": command }))
            .await
    }

    async fn view(&self) -> ChangesView {
        self.checkpoints.view(self.session).await.unwrap()
    }

    async fn revert(&self, target: RevertTarget, on_conflict: OnConflict) -> RestoreReport {
        self.checkpoints
            .revert(self.session, &target, on_conflict)
            .await
            .unwrap()
    }

    async fn revert_file(&self, path: &str) -> RestoreReport {
        let report = self
            .revert(RevertTarget::File { path: path.into() }, OnConflict::Refuse)
            .await;
        assert!(report.applied, "{report:?}");
        report
    }
}

fn summary(view: &ChangesView) -> Vec<(String, ChangeKind)> {
    view.files
        .iter()
        .map(|file| (file.path.clone(), file.kind))
        .collect()
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_and_commands_are_recorded_and_each_change_reverts() {
    let rig = rig().await;
    rig.write("edit.txt", "one\ntwo\nthree\n");
    rig.write("gone.txt", "delete me\n");
    rig.write("old-name.txt", "renamed content\n");
    rig.write("changed-by-command.txt", "before\n");
    rig.write("ignored.log", "noise\n");
    rig.write(".gitignore", "*.log\n");
    rig.user_says("change things").await;

    rig.call(
        "write_file",
        json!({"path": "new/created.txt", "content": "fresh\n"}),
    )
    .await;
    rig.call("read_file", json!({"path": "edit.txt"})).await;
    rig.call(
        "edit_file",
        json!({"path": "edit.txt", "old_string": "two", "new_string": "2"}),
    )
    .await;
    rig.command("rm gone.txt").await;
    rig.command("mv old-name.txt new-name.txt").await;
    rig.command(
        "echo after > changed-by-command.txt && echo made > made.txt && echo more >> ignored.log",
    )
    .await;

    let view = rig.view().await;
    assert_eq!(
        summary(&view),
        [
            ("changed-by-command.txt".into(), ChangeKind::Modified),
            ("edit.txt".into(), ChangeKind::Modified),
            ("gone.txt".into(), ChangeKind::Deleted),
            ("made.txt".into(), ChangeKind::Created),
            ("new-name.txt".into(), ChangeKind::Created),
            ("new/created.txt".into(), ChangeKind::Created),
            ("old-name.txt".into(), ChangeKind::Deleted),
        ],
        "the ignored log is not the agent's change to undo"
    );
    let edit = &view.files[1];
    assert_eq!(edit.tools, ["edit_file"]);
    assert_eq!((edit.additions, edit.deletions), (1, 1));
    assert!(
        edit.diff.as_deref().unwrap().contains("-two\n+2\n"),
        "{edit:?}"
    );
    assert!(view.files.iter().all(|file| !file.edited_since));
    assert_eq!(view.turns.len(), 1);
    assert_eq!(view.turns[0].number, 1);
    assert_eq!(view.turns[0].title, "change things");

    rig.revert_file("new/created.txt").await;
    assert_eq!(rig.read("new/created.txt"), None);
    rig.revert_file("edit.txt").await;
    assert_eq!(rig.text("edit.txt").unwrap(), "one\ntwo\nthree\n");
    rig.revert_file("gone.txt").await;
    assert_eq!(rig.text("gone.txt").unwrap(), "delete me\n");
    rig.revert_file("new-name.txt").await;
    rig.revert_file("old-name.txt").await;
    assert_eq!(rig.text("old-name.txt").unwrap(), "renamed content\n");
    assert_eq!(rig.read("new-name.txt"), None);
    rig.revert_file("changed-by-command.txt").await;
    assert_eq!(rig.text("changed-by-command.txt").unwrap(), "before\n");
    rig.revert_file("made.txt").await;
    assert_eq!(rig.read("made.txt"), None);
    assert_eq!(rig.text("ignored.log").unwrap(), "noise\nmore\n");

    let view = rig.view().await;
    assert!(view.files.is_empty(), "{:?}", summary(&view));
    assert!(view.turns[0].reverted);
    assert_eq!(view.reverted_calls.len(), 5, "{view:?}");
    assert_eq!(view.restores.len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_never_overwrites_a_later_edit_unless_told_and_can_be_undone() {
    let rig = rig().await;
    rig.write("a.txt", "original\n");
    rig.write("b.txt", "b original\n");
    rig.user_says("edit").await;
    rig.call("write_file", json!({"path": "a.txt", "content": "agent\n"}))
        .await;
    rig.call(
        "write_file",
        json!({"path": "b.txt", "content": "b agent\n"}),
    )
    .await;
    // The user edits a.txt by hand afterwards.
    rig.write("a.txt", "mine\n");
    let view = rig.view().await;
    assert!(view.files[0].edited_since && !view.files[1].edited_since);

    let refused = rig.revert(RevertTarget::Session, OnConflict::Refuse).await;
    assert!(!refused.applied);
    assert_eq!(
        refused.conflicts,
        [Conflict {
            path: "a.txt".into(),
            reason: ConflictReason::EditedSince
        }]
    );
    assert_eq!(refused.restore_id, None);
    assert_eq!(rig.text("a.txt").unwrap(), "mine\n");
    assert_eq!(
        rig.text("b.txt").unwrap(),
        "b agent\n",
        "nothing at all was written"
    );

    let skipped = rig.revert(RevertTarget::Session, OnConflict::Skip).await;
    assert!(skipped.applied);
    assert_eq!(skipped.restored, ["b.txt"]);
    assert_eq!(rig.text("a.txt").unwrap(), "mine\n");
    assert_eq!(rig.text("b.txt").unwrap(), "b original\n");

    let overwritten = rig
        .revert(
            RevertTarget::File {
                path: "a.txt".into(),
            },
            OnConflict::Overwrite,
        )
        .await;
    assert_eq!(overwritten.restored, ["a.txt"]);
    assert_eq!(rig.text("a.txt").unwrap(), "original\n");

    // The overwrite is undoable: the user's own edit comes back.
    let undo = rig
        .revert(
            RevertTarget::Undo {
                restore_id: overwritten.restore_id.clone().unwrap(),
            },
            OnConflict::Refuse,
        )
        .await;
    assert!(undo.applied, "{undo:?}");
    assert_eq!(rig.text("a.txt").unwrap(), "mine\n");
    // And undoing the skip-restore brings the agent's b.txt back, and its card is no longer
    // "reverted".
    assert_eq!(rig.view().await.reverted_calls, ["call_1"]);
    let undo = rig
        .revert(
            RevertTarget::Undo {
                restore_id: skipped.restore_id.clone().unwrap(),
            },
            OnConflict::Refuse,
        )
        .await;
    assert!(undo.applied, "{undo:?}");
    assert_eq!(rig.text("b.txt").unwrap(), "b agent\n");
    let view = rig.view().await;
    assert!(view.reverted_calls.is_empty(), "{view:?}");
    assert!(view.restores.iter().filter(|r| r.undone).count() >= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn line_endings_bom_and_mode_come_back_byte_for_byte() {
    let rig = rig().await;
    let original = b"\xEF\xBB\xBFfirst\r\nsecond\r\nthird\r\n".to_vec();
    rig.write("script.sh", &original);
    fs::set_permissions(rig.path("script.sh"), fs::Permissions::from_mode(0o751)).unwrap();
    rig.user_says("edit it").await;
    rig.call(
        "edit_file",
        json!({"path": "script.sh", "old_string": "second", "new_string": "2nd"}),
    )
    .await;
    rig.command("chmod 600 script.sh").await;
    assert_eq!(mode(&rig.path("script.sh")), 0o600);
    rig.revert_file("script.sh").await;
    assert_eq!(rig.read("script.sh").unwrap(), original);
    assert_eq!(mode(&rig.path("script.sh")), 0o751);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_binary_file_is_recorded_not_diffed_and_restored() {
    let rig = rig().await;
    let image: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    rig.write("image.bin", &image);
    rig.user_says("break it").await;
    rig.command("printf 'x\\000y' > image.bin").await;
    let view = rig.view().await;
    assert_eq!(view.files.len(), 1);
    assert_eq!(view.files[0].note, Some(FileNote::Binary));
    assert_eq!(view.files[0].diff, None);
    rig.revert_file("image.bin").await;
    assert_eq!(rig.read("image.bin").unwrap(), image);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_hunk_is_taken_back_and_the_rest_stays() {
    let rig = rig().await;
    let original: String = (1..=40).map(|n| format!("line {n}\n")).collect();
    rig.write("long.txt", &original);
    rig.user_says("two edits").await;
    let edited = original
        .replace("line 2\n", "line two\n")
        .replace("line 35\n", "line thirty-five\n");
    rig.call("write_file", json!({"path": "long.txt", "content": edited}))
        .await;
    let view = rig.view().await;
    assert_eq!(
        view.files[0]
            .diff
            .as_deref()
            .unwrap()
            .matches("\n@@ ")
            .count(),
        2
    );
    let report = rig
        .revert(
            RevertTarget::Hunk {
                path: "long.txt".into(),
                hunk: 1,
            },
            OnConflict::Refuse,
        )
        .await;
    assert!(report.applied, "{report:?}");
    assert_eq!(
        rig.text("long.txt").unwrap(),
        original.replace("line 2\n", "line two\n")
    );
    let view = rig.view().await;
    assert_eq!((view.files[0].additions, view.files[0].deletions), (1, 1));
    assert!(
        view.reverted_calls.is_empty(),
        "a hunk does not revert the call"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reverting_a_turn_that_a_later_turn_built_on_is_a_conflict() {
    let rig = rig().await;
    rig.write("shared.txt", "v0\n");
    rig.user_says("first").await;
    rig.call(
        "write_file",
        json!({"path": "shared.txt", "content": "v1\n"}),
    )
    .await;
    rig.call(
        "write_file",
        json!({"path": "only-first.txt", "content": "1\n"}),
    )
    .await;
    rig.user_says("second").await;
    rig.call(
        "write_file",
        json!({"path": "shared.txt", "content": "v2\n"}),
    )
    .await;
    let view = rig.view().await;
    assert_eq!(view.turns.len(), 2);
    assert_eq!(view.turns[1].number, 2);

    let report = rig
        .revert(RevertTarget::Turn { number: 1 }, OnConflict::Refuse)
        .await;
    assert_eq!(
        report.conflicts,
        [Conflict {
            path: "shared.txt".into(),
            reason: ConflictReason::ChangedLater
        }]
    );
    let report = rig
        .revert(RevertTarget::Turn { number: 2 }, OnConflict::Refuse)
        .await;
    assert!(report.applied);
    assert_eq!(rig.text("shared.txt").unwrap(), "v1\n");
    let report = rig
        .revert(RevertTarget::Turn { number: 1 }, OnConflict::Refuse)
        .await;
    assert!(report.applied, "{report:?}");
    assert_eq!(rig.text("shared.txt").unwrap(), "v0\n");
    assert_eq!(rig.read("only-first.txt"), None);
    let view = rig.view().await;
    assert!(view.turns.iter().all(|turn| turn.reverted));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_cancelled_halfway_keeps_what_it_changed_undoable() {
    let rig = rig().await;
    rig.user_says("start and stop").await;
    rig.call(
        "write_file",
        json!({"path": "before-stop.txt", "content": "1\n"}),
    )
    .await;
    let cancel = CancellationToken::new();
    let context = rig.context().with_cancel(cancel.clone());
    let stopper = cancel.clone();
    let root = rig.root.clone();
    tokio::spawn(async move {
        for _ in 0..200 {
            if root.join("during.txt").exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        stopper.cancel();
    });
    let observation = rig
        .tools
        .dispatch(
            "run_command",
            json!({"command": "echo half > during.txt; sleep 30; echo never > after.txt"}),
            &context,
        )
        .await;
    assert_eq!(observation.kind, ObservationKind::Cancelled);
    let view = rig.view().await;
    let paths: Vec<&str> = view.files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(paths, ["before-stop.txt", "during.txt"]);
    let report = rig
        .revert(RevertTarget::Turn { number: 1 }, OnConflict::Refuse)
        .await;
    assert!(report.applied);
    assert_eq!(rig.read("before-stop.txt"), None);
    assert_eq!(rig.read("during.txt"), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_projects_git_folder_is_never_read_or_written() {
    let rig = rig().await;
    rig.write(".git/HEAD", "ref: refs/heads/main\n");
    rig.write("tracked.txt", "x\n");
    rig.user_says("git things").await;
    rig.command("echo 'ref: refs/heads/other' > .git/HEAD && echo y > tracked.txt")
        .await;
    let view = rig.view().await;
    assert_eq!(
        summary(&view),
        [("tracked.txt".into(), ChangeKind::Modified)]
    );
    rig.revert(RevertTarget::Session, OnConflict::Refuse).await;
    assert_eq!(rig.text(".git/HEAD").unwrap(), "ref: refs/heads/other\n");
    assert_eq!(rig.text("tracked.txt").unwrap(), "x\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepting_forgets_and_the_limits_trim_the_blobs() {
    let rig = rig().await;
    rig.user_says("write").await;
    rig.call(
        "write_file",
        json!({"path": "a.txt", "content": "a\n".repeat(1000)}),
    )
    .await;
    rig.call("write_file", json!({"path": "b.txt", "content": "b\n"}))
        .await;
    assert_eq!(rig.view().await.files.len(), 2);
    rig.checkpoints
        .store()
        .checkpoints()
        .accept(rig.session, Some("a.txt"))
        .await
        .unwrap();
    let view = rig.view().await;
    assert_eq!(summary(&view), [("b.txt".into(), ChangeKind::Created)]);

    // Deleting the session deletes its checkpoints; collecting frees their blobs (the fresh
    // ones are kept for a grace period, so age them first).
    let before = rig.checkpoints.blobs().list().unwrap().len();
    assert!(before >= 2);
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for (hash, _) in rig.checkpoints.blobs().list().unwrap() {
        let dir = rig
            .checkpoints
            .blobs()
            .dir()
            .join(&hash[..2])
            .join(&hash[2..]);
        fs::File::options()
            .write(true)
            .open(dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    rig.store.sessions().delete(rig.session).await.unwrap();
    let collected = rig.checkpoints.collect_garbage().await.unwrap();
    assert_eq!(collected.kept_bytes, 0);
    assert!(rig.checkpoints.blobs().list().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_watcher_the_snapshot_before_a_command_reads_only_what_it_reported() {
    let rig = rig().await;
    rig.write("notes.txt", "from the start\n");
    rig.write("other.txt", "untouched\n");
    let debounce = Duration::from_millis(50);
    let root = rig.root.clone();
    let (watcher, mut changes) =
        tokio::task::spawn_blocking(move || gantry_watch::TreeWatcher::start(root, debounce))
            .await
            .unwrap()
            .unwrap();
    rig.checkpoints.watch_started(debounce);
    let checkpoints = rig.checkpoints.clone();
    let forward = tokio::spawn(async move {
        while let Some(change) = changes.recv().await {
            checkpoints.watched(&[change]);
        }
    });
    rig.user_says("two commands").await;
    // The first command walks (the watcher just started), before and after.
    rig.command("true").await;
    assert_eq!(rig.checkpoints.full_walks(), 2);

    // The user edits a file; the next command's snapshot reads it from the watcher's report
    // (no walk before it), so undoing the command brings back the user's version.
    rig.write("notes.txt", "the user's version\n");
    eventually("the watcher to report the user's edit", || {
        lock(&rig.checkpoints.inner.watch)
            .dirty
            .contains("notes.txt")
    })
    .await;
    rig.command("echo agent > notes.txt").await;
    assert_eq!(
        rig.checkpoints.full_walks(),
        3,
        "only the walk after the command"
    );
    let view = rig.view().await;
    assert_eq!(summary(&view), [("notes.txt".into(), ChangeKind::Modified)]);
    assert!(
        view.files[0]
            .diff
            .as_deref()
            .unwrap()
            .contains("-the user's version\n+agent\n")
    );
    rig.revert_file("notes.txt").await;
    assert_eq!(rig.text("notes.txt").unwrap(), "the user's version\n");

    rig.checkpoints.watch_stopped();
    rig.command("true").await;
    assert_eq!(
        rig.checkpoints.full_walks(),
        5,
        "without a watcher both snapshots walk"
    );
    tokio::task::spawn_blocking(move || drop(watcher))
        .await
        .unwrap();
    forward.await.unwrap();
}
