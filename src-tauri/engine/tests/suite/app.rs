//! The app and a window behind the commands: opening folders, the project room, the tools
//! room's audit log, and the turn limit the app holds — through the engine's public API, as the
//! shell's commands reach it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_engine::chat::{ActivityState, SessionRequest};
use gantry_engine::events::RecordingSink;
use gantry_engine::project::preview::{FilePreview, PreviewRequest};
use gantry_engine::project::service::{LaunchState, ListDirRequest};
use gantry_engine::test_support::{eventually, stays_for};
use gantry_engine::tools::audit::{AuditEntryView, AuditRequest};
use gantry_engine::{
    ChatService, CommandError, ErrorKind, ProjectService, Service, Settings, Store, ToolsService,
    Window,
};
use serde_json::json;

/// How long the first project's tree is watched for a report its stopped watcher must not send.
const STOPPED_WATCHER_WINDOW: Duration = Duration::from_millis(300);

async fn list_dir(
    window: &Arc<Window>,
    path: &str,
) -> Result<Vec<gantry_watch::TreeEntry>, CommandError> {
    ProjectService::of(window)?
        .list_dir(ListDirRequest { path: path.into() })
        .await
}

async fn read_preview(window: &Arc<Window>, path: &str) -> Result<FilePreview, CommandError> {
    ProjectService::of(window)?
        .read_preview(PreviewRequest { path: path.into() })
        .await
}

async fn launch_state(window: &Arc<Window>) -> LaunchState {
    ProjectService::of(window)
        .unwrap()
        .launch_state()
        .await
        .unwrap()
}

async fn audit_log(
    window: &Arc<Window>,
    request: AuditRequest,
) -> Result<Vec<AuditEntryView>, CommandError> {
    ToolsService::of(window)?.audit_log(request).await
}

async fn state() -> (Arc<RecordingSink>, Arc<Window>) {
    let sink = Arc::new(RecordingSink::default());
    let data = tempfile::tempdir().unwrap().keep();
    let store = Store::open(data.join("gantry.db")).await.unwrap();
    let state = Window::of_new_app(sink.clone(), Settings::default(), store);
    (sink, state)
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    std::fs::create_dir_all(root.join("src/nested")).unwrap();
    std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("debug.log"), "noise").unwrap();
    std::fs::write(root.join("README.md"), "# hi\n").unwrap();
    dir
}

async fn wait_for(sink: &RecordingSink, name: &str, count: usize) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let events = sink.named(name);
        if events.len() >= count {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "no {name} event; got {:?}",
            sink.events()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_need_an_open_project() {
    let (_sink, state) = state().await;
    assert_eq!(
        list_dir(&state, "").await.unwrap_err().kind,
        ErrorKind::NoProject
    );
    assert_eq!(
        read_preview(&state, "a").await.unwrap_err().kind,
        ErrorKind::NoProject
    );
    let launch = launch_state(&state).await;
    assert_eq!((launch.project, launch.error), (None, None));
    assert!(
        ProjectService::of(&state)
            .unwrap()
            .recent_projects()
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_stopped_by_id_and_the_turn_limit_is_the_apps() {
    assert_eq!(Settings::default().max_turns, None);
    let sink = Arc::new(RecordingSink::default());
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let settings = Settings {
        max_turns: Some(2),
        ..Settings::default()
    };
    let state = Window::of_new_app(sink, settings, store);
    assert_eq!(state.app().turn_limit().max(), 2);
    assert_eq!(
        ChatService::of(&state).err().unwrap().kind,
        ErrorKind::NoProject
    );
    let dir = project();
    state.show_folder(dir.path().to_path_buf()).await.unwrap();
    assert!(
        ChatService::of(&state)
            .unwrap()
            .running_sessions()
            .await
            .unwrap()
            .is_empty()
    );
    let project = state.current().unwrap();
    let stored = project
        .store()
        .sessions()
        .create(project.store_project(), "t", None)
        .await
        .unwrap();
    // Stopping a session with no turn is harmless; a session of no project is not found.
    ChatService::of(&state)
        .unwrap()
        .cancel_session_turn(SessionRequest {
            id: stored.id.to_string(),
        })
        .await
        .unwrap();
    assert_eq!(
        ChatService::of(&state)
            .unwrap()
            .cancel_session_turn(SessionRequest {
                id: "424242".into()
            })
            .await
            .unwrap_err()
            .kind,
        ErrorKind::NotFound
    );
    let listed = ChatService::of(&state)
        .unwrap()
        .list_sessions()
        .await
        .unwrap();
    assert_eq!(listed[0].activity, ActivityState::Idle);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_folders_are_refused_with_a_reason() {
    let (_sink, state) = state().await;
    let dir = tempfile::tempdir().unwrap();
    let missing = state
        .show_folder(dir.path().join("missing"))
        .await
        .unwrap_err();
    assert_eq!(missing.kind, ErrorKind::NotFound, "{missing}");
    std::fs::write(dir.path().join("file"), "").unwrap();
    let file = state
        .show_folder(dir.path().join("file"))
        .await
        .unwrap_err();
    assert_eq!(file.kind, ErrorKind::NotADirectory, "{file}");
    let relative = state.show_folder("relative/dir".into()).await.unwrap_err();
    assert_eq!(relative.kind, ErrorKind::InvalidInput);
    let nul = state.show_folder("/tmp/a\0b".into()).await.unwrap_err();
    assert_eq!(nul.kind, ErrorKind::InvalidInput);

    state.set_launch_error(&dir.path().join("missing"), &missing);
    let launch = launch_state(&state).await;
    assert_eq!(launch.project, None);
    assert!(launch.error.unwrap().message.contains("missing"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_project_lists_lazily_previews_and_reports_changes() {
    let (sink, state) = state().await;
    let dir = project();
    let info = state.show_folder(dir.path().to_path_buf()).await.unwrap();
    assert_eq!(info.id, 1);
    assert_eq!(
        info.path,
        dir.path().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(launch_state(&state).await.project, Some(info.clone()));

    let root: Vec<_> = list_dir(&state, "")
        .await
        .unwrap()
        .into_iter()
        .map(|entry| entry.path)
        .collect();
    assert_eq!(
        root,
        ["src", ".gitignore", "README.md"],
        "no log, no node_modules"
    );
    let src: Vec<_> = list_dir(&state, "src")
        .await
        .unwrap()
        .into_iter()
        .map(|entry| entry.path)
        .collect();
    assert_eq!(src, ["src/nested", "src/main.rs"]);
    assert_eq!(
        list_dir(&state, "node_modules").await.unwrap_err().kind,
        ErrorKind::Ignored
    );
    assert_eq!(
        list_dir(&state, "../").await.unwrap_err().kind,
        ErrorKind::OutsideProject
    );
    assert!(matches!(
        read_preview(&state, "src/main.rs").await.unwrap(),
        FilePreview::Text { .. }
    ));
    assert_eq!(
        read_preview(&state, "../x").await.unwrap_err().kind,
        ErrorKind::OutsideProject
    );

    let status = wait_for(&sink, "tree:status", 1).await;
    assert_eq!(
        status[0],
        json!({"projectId": 1, "state": {"state": "watching"}})
    );
    std::fs::write(dir.path().join("src/new.rs"), "").unwrap();
    let changed = wait_for(&sink, "tree:changed", 1).await;
    assert_eq!(
        changed[0],
        json!({"projectId": 1, "changes": [{"kind": "created", "path": "src/new.rs", "isDir": false}]})
    );

    // Opening another project replaces the first and stops its watcher.
    let other = tempfile::tempdir().unwrap();
    let second = state.show_folder(other.path().to_path_buf()).await.unwrap();
    assert_eq!(second.id, 2);
    // A file written in each: the second project's watcher reports its own, and the first's,
    // watched for a while after that, is never reported.
    wait_for(&sink, "tree:status", 2).await;
    std::fs::write(dir.path().join("src/late.rs"), "").unwrap();
    std::fs::write(other.path().join("fresh.rs"), "").unwrap();
    let reported = |file: &str| {
        sink.named("tree:changed")
            .into_iter()
            .find(|event| event.to_string().contains(file))
    };
    eventually("the second project to report fresh.rs", || {
        reported("fresh.rs").is_some_and(|event| event["projectId"] == 2)
    })
    .await;
    stays_for(
        STOPPED_WATCHER_WINDOW,
        "the first project's watcher stopped: late.rs is not reported",
        || reported("late.rs").is_none(),
    )
    .await;

    state.close_folder();
    assert_eq!(launch_state(&state).await.project, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_watch_cap_the_user_is_told_and_a_shown_folder_is_polled() {
    let sink = Arc::new(RecordingSink::default());
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let settings = Settings {
        watch_max_watches: Some(1),
        watch_poll_interval: Duration::from_millis(100),
        ..Settings::default()
    };
    let state = Window::of_new_app(sink.clone(), settings, store);
    let dir = project();
    state.show_folder(dir.path().to_path_buf()).await.unwrap();

    // Only the root is watched: src/ and src/nested/ are left over, and the user is told.
    let status = wait_for(&sink, "tree:status", 1).await;
    assert_eq!(
        status[0],
        json!({"projectId": 1, "state": {"state": "watching",
            "limit": {"watched": 1, "unwatched": 2, "cap": 1}}})
    );
    assert_eq!(
        ProjectService::of(&state)
            .unwrap()
            .tree_status()
            .await
            .unwrap()
            .state,
        state.current().unwrap().watch_status().state
    );

    // The webview lists src/ (it is open in the tree): it is polled from then on, and a
    // file made there reaches the tree as if it were watched.
    list_dir(&state, "src").await.unwrap();
    std::fs::write(dir.path().join("src/polled.rs"), "").unwrap();
    let changed = wait_for(&sink, "tree:changed", 1).await;
    assert_eq!(
        changed[0],
        json!({"projectId": 1, "changes": [{"kind": "created", "path": "src/polled.rs", "isDir": false}]})
    );
    // A folder that appears there is past the cap too: the status says so again.
    std::fs::create_dir(dir.path().join("src/more")).unwrap();
    let status = wait_for(&sink, "tree:status", 2).await;
    assert_eq!(status[1]["state"]["limit"]["unwatched"], 3);
    state.close_folder();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_lists_filters_and_exports_the_projects_calls() {
    let (_sink, state) = state().await;
    let dir = project();
    state.show_folder(dir.path().to_path_buf()).await.unwrap();
    let open = state.current().unwrap();
    let read = open
        .tools()
        .dispatch(
            "read_file",
            json!({"path": "README.md"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(read.kind, gantry_tools::ObservationKind::Ok);
    // DANGEROUS and disabled by default: refused without asking anyone.
    open.tools()
        .dispatch(
            "run_command",
            json!({"command": "echo hi"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;

    let all = audit_log(&state, AuditRequest::default()).await.unwrap();
    let seen: Vec<_> = all
        .iter()
        .map(|entry| {
            (
                entry.tool.as_str(),
                entry.decision.kind.as_str(),
                entry.outcome.as_str(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("run_command", "disabled", "disabled"),
            ("read_file", "auto", "ok")
        ]
    );
    assert_eq!(all[1].arguments, json!({"path": "README.md"}));
    assert!(all[1].result_excerpt.contains("# hi"), "{:?}", all[1]);

    let disabled = AuditRequest {
        decision: Some(gantry_tools::DecisionKind::Disabled),
        ..AuditRequest::default()
    };
    let only = audit_log(&state, disabled).await.unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].tool, "run_command");
    let bad = AuditRequest {
        session: Some("not-a-session".into()),
        ..AuditRequest::default()
    };
    assert_eq!(
        audit_log(&state, bad).await.unwrap_err().kind,
        ErrorKind::InvalidInput
    );

    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("audit.jsonl");
    let written = ToolsService::of(&state)
        .unwrap()
        .write_audit(AuditRequest::default(), path.clone())
        .await
        .unwrap();
    assert_eq!(written.count, 2);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["tool"], "run_command");
    assert_eq!(lines[1]["decision"]["kind"], "auto");
    state.close_folder();
}
