//! The chat scenarios: the real app talking to the scripted OpenAI-compatible provider on
//! loopback (the one test double: it speaks the real wire format, SSE included), with the
//! engine's real tools acting on a temporary project, approvals and questions answered by
//! clicking in the window, and sessions kept in a real database.

use std::path::Path;
use std::time::{Duration, Instant};

use gantry_scripted_provider::{Expect, Handle, Script, ScriptedProvider, ToolCall, Turn};
use gantry_store::{AuditFilter, Store};
use serde_json::{Value, json};

use crate::app::App;
use crate::fixture::Fixture;
use crate::{SERIAL, enabled, ms};

/// A project, a data folder whose database points the app at the scripted provider, and the
/// provider.
pub(crate) struct ChatRig {
    pub(crate) fixture: Fixture,
    pub(crate) data: tempfile::TempDir,
    pub(crate) provider: Handle,
}

impl ChatRig {
    /// Starts the provider with `turns` and saves it as the app's active provider.
    pub(crate) async fn new(turns: Vec<Turn>) -> Self {
        let fixture = Fixture::new();
        let data = crate::fixture::data_dir();
        let provider = ScriptedProvider::start(Script::new(turns)).await.unwrap();
        let store = Store::open(data.path().join(gantry_store::DATABASE_FILE))
            .await
            .unwrap();
        store
            .providers()
            .set(&gantry_store::ProviderConfig {
                name: "scripted".into(),
                base_url: provider.base_url(),
                model: "scripted-model".into(),
                api_key_env: None,
                context_window: Some(32_000),
                flags: gantry_store::FlagSettings::default(),
            })
            .await
            .unwrap();
        store
            .settings()
            .set("provider.active", "scripted")
            .await
            .unwrap();
        drop(store);
        Self {
            fixture,
            data,
            provider,
        }
    }

    /// Launches the app on the project; `first` starts the scenario's screenshots afresh.
    pub(crate) async fn launch(&self, scenario: &str, first: bool) -> App {
        let arg = self.fixture.arg();
        let app = App::launch_with_data(scenario, &[arg.as_str()], self.data.path(), first)
            .await
            .unwrap();
        app.wait_for_css("[data-testid=chat-input]").await.unwrap();
        app
    }

    /// The database the app writes (opened beside it: SQLite in WAL mode allows that).
    pub(crate) async fn store(&self) -> Store {
        Store::open(self.data.path().join(gantry_store::DATABASE_FILE))
            .await
            .unwrap()
    }

    pub(crate) fn root(&self) -> &Path {
        &self.fixture.root
    }

    /// Every turn was played and every request met its expectations.
    pub(crate) fn verify(&self) {
        self.provider.verify().unwrap();
    }
}

/// Types `text` into the chat input and sends it.
pub(crate) async fn send(app: &App, text: &str) {
    app.wait_for(
        "the chat to be idle",
        "return document.querySelector('[data-testid=turn-status]')?.dataset.running === 'false';",
        json!([]),
    )
    .await
    .unwrap();
    app.fill("[data-testid=chat-input]", text).await.unwrap();
    app.click("[data-testid=chat-send]").await.unwrap();
}

/// Waits until an assistant message contains `needle`, returning its text.
pub(crate) async fn assistant_says(app: &App, needle: &str) -> String {
    let value = app
        .wait_for(
            &format!("an assistant message with {needle:?}"),
            "return [...document.querySelectorAll('[data-testid=chat-message][data-role=assistant]')]\
               .map(e => e.textContent).find(t => t.includes(arguments[0])) ?? null;",
            json!([needle]),
        )
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

/// Waits for a tool card of `tool` with `status`.
pub(crate) async fn card(app: &App, tool: &str, status: &str) {
    app.wait_for_css(&format!(
        "[data-testid=tool-card][data-tool={tool}][data-status={status}]"
    ))
    .await
    .unwrap();
}

/// Waits until the turn ended.
pub(crate) async fn idle(app: &App) {
    app.wait_for(
        "the turn to end",
        "return document.querySelector('[data-testid=turn-status]')?.dataset.running === 'false';",
        json!([]),
    )
    .await
    .unwrap();
}

/// How many approval dialogs are open.
pub(crate) async fn dialogs(app: &App) -> u64 {
    app.eval(
        "return document.querySelectorAll('[data-testid=approval-dialog]').length;",
        json!([]),
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap()
}

/// Waits until no approval dialog shows (`why`: what the wait is for, in a timeout's message).
pub(crate) async fn no_dialog(app: &App, why: &str) {
    app.wait_for(
        why,
        "return !document.querySelector('[data-testid=approval-dialog]');",
        json!([]),
    )
    .await
    .unwrap();
}

pub(crate) fn write_call(id: &str, path: &str, content: &str) -> Turn {
    Turn::tool_calls(vec![ToolCall::new(
        id,
        "write_file",
        json!({"path": path, "content": content}),
    )])
}

pub(crate) fn after_tool(id: &str) -> Expect {
    Expect::new().last_role("tool").last_tool_call_id(id)
}

/// A reply streamed slowly: three pieces with pauses between them.
fn slow_reply() -> Turn {
    serde_json::from_value(json!({
        "expect": {"last_role": "user", "last_contains": "hello", "tools_include": ["write_file"]},
        "reply": {"type": "completion", "events": [
            {"text": "Hello from the **scripted** model."},
            {"delay_ms": 700},
            {"text": " Streaming works"},
            {"delay_ms": 700},
            {"text": " — end of reply."}
        ]}
    }))
    .unwrap()
}

#[tokio::test]
async fn a_reply_streams_and_writes_wait_for_the_users_answer() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        slow_reply(),
        write_call("call_w1", "notes/hello.txt", "hi from the model\n")
            .expect(Expect::new().last_contains("write a note")),
        Turn::text("I wrote notes/hello.txt.").expect(after_tool("call_w1")),
        write_call("call_w2", "denied.txt", "should not exist\n")
            .expect(Expect::new().last_contains("another file")),
        Turn::text("Understood, I will leave denied.txt alone.").expect(
            after_tool("call_w2")
                .last_contains("[denied]")
                .last_contains("not today"),
        ),
    ])
    .await;
    let mut app = rig.launch("chat-stream-approve", true).await;

    // 1. The reply streams in: its first piece shows while the rest is still coming.
    send(&app, "hello").await;
    let partial = assistant_says(&app, "scripted").await;
    assert!(!partial.contains("end of reply"), "{partial}");
    let bold = app
        .eval(
            "return document.querySelector('[data-testid=chat-message][data-role=assistant] strong')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(bold, "scripted", "Markdown is rendered");
    app.screenshot("reply-streaming").await.unwrap();
    assistant_says(&app, "end of reply").await;
    idle(&app).await;
    app.screenshot("reply-complete").await.unwrap();

    // 2. write_file asks; the dialog shows the diff; Allow once writes, and the tree shows it.
    send(&app, "please write a note").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    let dialog = app
        .eval(
            "return document.querySelector('[data-testid=approval-dialog]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    let dialog = dialog.as_str().unwrap();
    assert!(dialog.contains("write_file"), "{dialog}");
    assert!(
        dialog.contains("hi from the model"),
        "the diff is shown: {dialog}"
    );
    card(&app, "write_file", "awaiting_approval").await;
    // The dialog and the card are linked by the call's id, and by nothing else.
    let ids = app
        .eval(
            "return [document.querySelector('[data-testid=approval-dialog]').dataset.callId,\
             document.querySelector('[data-testid=tool-card][data-status=awaiting_approval]').dataset.callId];",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(ids[0], ids[1], "dialog and card name the same call: {ids}");
    assert!(
        ids[0].as_str().is_some_and(|id| !id.is_empty()),
        "the call id is set: {ids}"
    );
    assert!(
        !rig.root().join("notes/hello.txt").exists(),
        "nothing written before the answer"
    );
    app.screenshot("approval-diff").await.unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    card(&app, "write_file", "ok").await;
    assistant_says(&app, "I wrote notes/hello.txt.").await;
    assert_eq!(
        std::fs::read_to_string(rig.root().join("notes/hello.txt")).unwrap(),
        "hi from the model\n"
    );
    app.wait_for_css("[data-testid=tree] [data-path=notes]")
        .await
        .unwrap();
    idle(&app).await;
    app.screenshot("allowed-once-written").await.unwrap();

    // 3. Deny with a reason: the disk is untouched and the model reads the reason.
    send(&app, "write another file").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.fill("[data-testid=approval-dialog] .reason input", "not today")
        .await
        .unwrap();
    app.click("[data-testid=deny]").await.unwrap();
    card(&app, "write_file", "denied").await;
    assistant_says(&app, "I will leave denied.txt alone").await;
    assert!(!rig.root().join("denied.txt").exists());
    idle(&app).await;
    app.screenshot("denied").await.unwrap();
    rig.verify();
    app.quit().await.unwrap();
}

#[tokio::test]
async fn allowing_for_the_session_skips_the_next_dialog_until_a_new_session() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        // Both in notes/: "allow for this session" covers the folder the dialog names.
        write_call("call_a", "notes/a.txt", "a\n"),
        write_call("call_b", "notes/b.txt", "b\n").expect(after_tool("call_a")),
        Turn::text("Wrote a.txt and b.txt.").expect(after_tool("call_b")),
        write_call("call_c", "notes/c.txt", "c\n").expect(Expect::new().message_count(2)),
        Turn::text("Wrote c.txt.").expect(after_tool("call_c")),
    ])
    .await;
    let mut app = rig.launch("chat-session-approval", true).await;

    send(&app, "write a and b").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-session]").await.unwrap();
    assistant_says(&app, "Wrote a.txt and b.txt.").await;
    idle(&app).await;
    assert_eq!(dialogs(&app).await, 0);
    assert!(rig.root().join("notes/a.txt").is_file() && rig.root().join("notes/b.txt").is_file());
    app.screenshot("second-write-not-asked").await.unwrap();

    // The audit log says why the second call ran without a dialog.
    let store = rig.store().await;
    let project = store.projects().find(rig.root()).await.unwrap().unwrap();
    let audit = store
        .audit()
        .list(project.id, &AuditFilter::default())
        .await
        .unwrap();
    let decisions: Vec<Value> = audit
        .iter()
        .rev()
        .map(|entry| {
            let record = serde_json::to_value(entry).unwrap();
            json!([
                record["arguments"]["path"],
                record["decision"]["kind"],
                record["decision"]["by"]
            ])
        })
        .collect();
    assert_eq!(
        decisions,
        [
            json!(["notes/a.txt", "allowed_for_session", "user"]),
            json!(["notes/b.txt", "allowed_for_session", "session_grant"]),
        ],
        "{audit:?}"
    );

    // A new session asks again.
    app.click("[data-testid=session-new]").await.unwrap();
    app.wait_for_css("[data-testid=chat-empty]").await.unwrap();
    send(&app, "write c").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.screenshot("new-session-asks-again").await.unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Wrote c.txt.").await;
    assert!(rig.root().join("notes/c.txt").is_file());
    let sessions = store.sessions().list(project.id).await.unwrap();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    rig.verify();
    app.quit().await.unwrap();
}

#[tokio::test]
async fn the_model_asks_the_user_a_question_with_options() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "call_q",
            "ask_user",
            json!({"question": "Which **colour** should the button be?", "options": ["red", "blue"]}),
        )]),
        Turn::text("Blue it is.").expect(after_tool("call_q").last_contains("blue")),
    ])
    .await;
    let mut app = rig.launch("chat-ask-user", true).await;
    send(&app, "style the button").await;
    app.wait_for_css("[data-testid=question-dialog]")
        .await
        .unwrap();
    let options = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=question-dialog] .options button')].map(b => b.textContent.trim());",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(options, json!(["red", "blue"]));
    app.screenshot("question").await.unwrap();
    // From the keyboard: the answer field has the focus; Shift+Tab reaches the last option,
    // "blue", and Space presses it.
    app.wait_for(
        "the answer field to have the focus",
        "return document.activeElement?.tagName === 'TEXTAREA';",
        json!([]),
    )
    .await
    .unwrap();
    app.press_shifted(&[crate::webdriver::Key::TAB])
        .await
        .unwrap();
    assert_eq!(app.focused().await.unwrap(), "BUTTON:blue");
    app.press(&[crate::webdriver::Key::SPACE]).await.unwrap();
    card(&app, "ask_user", "ok").await;
    assistant_says(&app, "Blue it is.").await;
    idle(&app).await;
    app.screenshot("answered").await.unwrap();
    rig.verify();
    app.quit().await.unwrap();
}

fn process_alive(pid: i32) -> bool {
    // Reaped or gone: no /proc entry; a zombie is dead for our purpose.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                != Some("Z")
        })
        .unwrap_or(false)
}

/// The pid of a running process whose command line is exactly `argv`.
fn find_process(argv: &[&str]) -> Option<i32> {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|arg| [arg.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (cmdline == wanted && process_alive(pid)).then_some(pid)
        })
}

#[tokio::test]
async fn stop_ends_a_long_command_and_the_next_message_works() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "call_sleep",
            "run_command",
            json!({"command": "echo started > sleeper.started; exec sleep 120.4242"}),
        )]),
        Turn::text("Still here after the stop.").expect(
            Expect::new()
                .last_role("user")
                .last_contains("are you there"),
        ),
    ])
    .await;
    let store = rig.store().await;
    let project = store.projects().open(rig.root()).await.unwrap();
    let mut policies = store.policies().load(project.id).await.unwrap();
    policies.set("run_command", gantry_tools::Policy::Ask);
    store.policies().save(project.id, &policies).await.unwrap();
    drop(store);
    let mut app = rig.launch("chat-stop", true).await;
    send(&app, "run something long").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    // The command runs in the sandbox's own PID namespace, where `$$` is not the host's pid:
    // find the sleep by its unique command line among the host's processes.
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid: i32 = loop {
        if let Some(pid) = find_process(&["sleep", "120.4242"]) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(rig.root().join("sleeper.started").exists());
    card(&app, "run_command", "running").await;
    assert!(process_alive(pid));
    app.wait_for_css("[data-testid=chat-stop]").await.unwrap();
    app.screenshot("command-running").await.unwrap();

    let stopped = Instant::now();
    app.click("[data-testid=chat-stop]").await.unwrap();
    while process_alive(pid) {
        assert!(
            stopped.elapsed() < Duration::from_secs(5),
            "sleep (pid {pid}) still runs after Stop"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let killed_after = stopped.elapsed();
    card(&app, "run_command", "cancelled").await;
    idle(&app).await;
    // One short note says the turn stopped, not one per reply plus a notice.
    let notes = app
        .eval(
            "return document.querySelectorAll('[data-role=assistant] .stopped, [data-testid=chat-notice][data-notice=cancelled]').length;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(notes, 1, "one 'stopped' note");
    app.screenshot("stopped").await.unwrap();

    // The session goes on: the next message gets an answer.
    send(&app, "are you there?").await;
    assistant_says(&app, "Still here after the stop.").await;
    rig.verify();
    crate::scenarios::report(
        "chat-stop",
        &format!(
            "Stop click to the command's process gone: {}",
            ms(killed_after)
        ),
    );
    app.quit().await.unwrap();
}

/// The sessions in the list: (id, title, current).
async fn session_list(app: &App) -> Vec<(String, String, bool)> {
    let value = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=session-item]')].map(e => [\
               e.dataset.sessionId,\
               e.querySelector('[data-testid=session-title]')?.textContent.trim() ?? '',\
               e.dataset.current === 'true']);",
            json!([]),
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn sessions_are_renamed_deleted_and_restored_after_a_restart() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::text("First answer."),
        Turn::text("Second answer.").expect(Expect::new().message_count(2)),
    ])
    .await;
    let app = rig.launch("chat-sessions", true).await;
    send(&app, "first question").await;
    assistant_says(&app, "First answer.").await;
    idle(&app).await;
    app.click("[data-testid=session-new]").await.unwrap();
    app.wait_for_css("[data-testid=chat-empty]").await.unwrap();
    send(&app, "second question").await;
    assistant_says(&app, "Second answer.").await;
    idle(&app).await;
    app.wait_for(
        "two sessions titled by their first message",
        "return document.querySelectorAll('[data-testid=session-item]').length === 2 &&\
           [...document.querySelectorAll('[data-testid=session-title]')].some(e => e.textContent.includes('second question'));",
        json!([]),
    )
    .await
    .unwrap();
    let sessions = session_list(&app).await;
    assert_eq!(sessions[0].1, "second question");
    assert!(sessions[0].2, "the newest is current: {sessions:?}");
    let first_id = sessions[1].0.clone();
    let second_id = sessions[0].0.clone();

    // Rename the first session.
    let item = format!("[data-testid=session-item][data-session-id='{first_id}']");
    app.click(&format!("{item} [data-testid=session-rename]"))
        .await
        .unwrap();
    app.wait_for_css("[data-testid=session-rename-input]")
        .await
        .unwrap();
    app.eval(
        "const input = document.querySelector('[data-testid=session-rename-input]');\
         input.value = 'Renamed first';\
         input.dispatchEvent(new Event('input', {bubbles: true}));\
         input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for(
        "the new title",
        "return [...document.querySelectorAll('[data-testid=session-title]')].some(e => e.textContent.trim() === 'Renamed first');",
        json!([]),
    )
    .await
    .unwrap();
    app.quit().await.unwrap();

    // Restart on the same database: the sessions and the transcript are back.
    let mut app = rig.launch("chat-sessions", false).await;
    app.wait_for(
        "the restored sessions",
        "return document.querySelectorAll('[data-testid=session-item]').length === 2;",
        json!([]),
    )
    .await
    .unwrap();
    // Renaming does not move a session up: the one talked in last stays on top and is the one
    // continued after the restart.
    let restored = session_list(&app).await;
    assert_eq!(
        restored
            .iter()
            .map(|(id, title, current)| (id.as_str(), title.as_str(), *current))
            .collect::<Vec<_>>(),
        [
            (second_id.as_str(), "second question", true),
            (first_id.as_str(), "Renamed first", false)
        ]
    );
    assistant_says(&app, "Second answer.").await;
    let users: Value = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=chat-message][data-role=user]')].map(e => e.textContent.trim());",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(users, json!(["second question"]));
    app.click(&item).await.unwrap();
    assistant_says(&app, "First answer.").await;
    app.screenshot("restored-after-restart").await.unwrap();

    // Delete it: gone from the list and from the database.
    app.click(&format!("{item} [data-testid=session-delete]"))
        .await
        .unwrap();
    app.click("[data-testid=session-delete-confirm]")
        .await
        .unwrap();
    app.wait_for(
        "one session left",
        "return document.querySelectorAll('[data-testid=session-item]').length === 1;",
        json!([]),
    )
    .await
    .unwrap();
    let store = rig.store().await;
    let project = store.projects().find(rig.root()).await.unwrap().unwrap();
    let left = store.sessions().list(project.id).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].title, "second question");
    app.screenshot("deleted").await.unwrap();
    app.quit().await.unwrap();

    // The welcome screen lists the project as recent.
    let mut app = App::launch_with_data("chat-sessions", &[], rig.data.path(), false)
        .await
        .unwrap();
    let path = rig.fixture.arg();
    app.wait_for_css(&format!("[data-testid=recent-project][data-path='{path}']"))
        .await
        .unwrap();
    app.screenshot("recent-projects").await.unwrap();
    app.quit().await.unwrap();
    rig.verify();
}

#[tokio::test]
async fn a_provider_key_goes_to_the_keychain_and_to_the_provider_only() {
    if !enabled() {
        return;
    }
    let keychain = gantry_test_gate::env_flag(
        "GANTRY_TEST_KEYRING",
        "scripts/with-keyring sets it, with a private keychain",
    );
    if !gantry_test_gate::should_run(gantry_test_gate::Gate::Keyring, keychain) {
        return;
    }
    let _serial = SERIAL.lock().await;
    const KEY: &str = "sk-e2e-secret-4242";
    let rig = ChatRig::new(vec![
        Turn::text("Authenticated hello."),
        Turn::text("Anonymous hello.").expect(Expect::new().last_contains("after the removal")),
    ])
    .await;
    let mut app = rig.launch("settings-key", true).await;
    // The button is enabled once the provider settings (and the keychain's answer) arrived.
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-dialog]")
        .await
        .unwrap();
    app.fill("[data-testid=settings-name]", "keyed-e2e")
        .await
        .unwrap();
    app.fill("[data-testid=settings-base-url]", &rig.provider.base_url())
        .await
        .unwrap();
    app.fill("[data-testid=settings-model]", "scripted-model")
        .await
        .unwrap();
    app.fill("[data-testid=settings-api-key]", KEY)
        .await
        .unwrap();
    // Test connection asks the provider for its models, with the typed key.
    app.click("[data-testid=settings-test]").await.unwrap();
    let result = app
        .wait_for(
            "the connection test's result",
            "return document.querySelector('[data-testid=settings-test-result]')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        result.as_str().unwrap().contains("1 model listed"),
        "{result}"
    );
    assert_eq!(
        rig.provider
            .requests()
            .last()
            .unwrap()
            .header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    app.screenshot("settings-filled").await.unwrap();
    app.click("[data-testid=settings-save]").await.unwrap();
    app.wait_for(
        "the new provider in the title bar",
        "return document.querySelector('[data-testid=provider-summary]')?.textContent.includes('keyed-e2e') &&\
           !document.querySelector('[data-testid=settings-dialog]');",
        json!([]),
    )
    .await
    .unwrap();

    // The key is in the OS keychain (the real Secret Service), under service gantry.
    let lookup = std::process::Command::new("secret-tool")
        .args(["lookup", "service", "gantry", "username", "keyed-e2e"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&lookup.stdout).trim(), KEY);

    // The provider receives it as a bearer token.
    send(&app, "hello with a key").await;
    assistant_says(&app, "Authenticated hello.").await;
    idle(&app).await;
    let requests = rig.provider.chat_requests();
    assert_eq!(
        requests.last().unwrap().header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );

    // Reopened, the panel says a key is stored and never shows it.
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-key-state][data-state=stored]")
        .await
        .unwrap();
    let page = app
        .eval("return document.documentElement.outerHTML;", json!([]))
        .await
        .unwrap();
    assert!(
        !page.as_str().unwrap().contains(KEY),
        "the key is not in the page"
    );
    app.screenshot("key-stored").await.unwrap();

    // Remove key: gone from the keychain, and the provider gets no key any more.
    app.click("[data-testid=settings-remove-key]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-key-state][data-state=missing]")
        .await
        .unwrap();
    let lookup = std::process::Command::new("secret-tool")
        .args(["lookup", "service", "gantry", "username", "keyed-e2e"])
        .output()
        .unwrap();
    assert!(
        !lookup.status.success() && lookup.stdout.is_empty(),
        "the key is still in the keychain: {lookup:?}"
    );
    app.screenshot("key-removed").await.unwrap();
    app.close_with_escape("settings-dialog").await.unwrap();
    send(&app, "hello after the removal").await;
    assistant_says(&app, "Anonymous hello.").await;
    idle(&app).await;
    assert_eq!(
        rig.provider
            .chat_requests()
            .last()
            .unwrap()
            .header("authorization"),
        None,
        "no key is sent once it was removed"
    );
    app.quit().await.unwrap();

    // Nothing of the key in the database files.
    for entry in std::fs::read_dir(rig.data.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes
                    .windows(KEY.len())
                    .any(|window| window == KEY.as_bytes()),
                "{} holds the key",
                path.display()
            );
        }
    }
    rig.verify();
}
