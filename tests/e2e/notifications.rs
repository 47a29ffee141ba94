//! Desktop notifications: the test owns `org.freedesktop.Notifications` on the private session
//! bus the app shares (scripts/with-keyring starts it), takes the keyboard focus away from the
//! window with a second X window (ImageMagick's `display`, focused with `xdotool`: Xvfb runs no
//! window manager), and checks what the app sends while it is out of sight, and that a click
//! (`ActionInvoked` with the `default` action) brings the window back on that session.

use std::collections::HashMap;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use gantry_scripted_provider::{Expect, ToolCall, Turn};
use serde_json::json;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use zbus::message::Header;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

use crate::app::{App, wait_for_setting};
use crate::chat::{ChatRig, after_tool, assistant_says, idle, send, write_call};
use crate::{SERIAL, enabled};

const PATH: &str = "/org/freedesktop/Notifications";

/// One `Notify` call the daemon received.
#[derive(Debug, Clone)]
struct Notified {
    id: u32,
    app_name: String,
    summary: String,
    body: String,
    actions: Vec<String>,
    /// The unique bus name of the caller.
    sender: String,
}

/// A notification server, as a desktop runs one (it shows nothing; it records).
struct Daemon {
    received: UnboundedSender<Notified>,
    closed: UnboundedSender<u32>,
    next_id: AtomicU32,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Daemon {
    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        #[zbus(header)] header: Header<'_>,
        app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let sender = header
            .sender()
            .map(|name| name.to_string())
            .unwrap_or_default();
        let _ = self.received.send(Notified {
            id,
            app_name,
            summary,
            body,
            actions,
            sender,
        });
        id
    }

    /// `body-markup` on purpose: the app must then escape what it sends.
    fn get_capabilities(&self) -> Vec<String> {
        ["actions", "body", "body-markup"]
            .map(str::to_owned)
            .to_vec()
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "gantry-e2e".into(),
            "gantry".into(),
            "1.0".into(),
            "1.2".into(),
        )
    }

    async fn close_notification(
        &self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        let _ = self.closed.send(id);
        Self::notification_closed(&emitter, id, 3).await?;
        Ok(())
    }

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;

    #[zbus(signal)]
    async fn notification_closed(
        emitter: &SignalEmitter<'_>,
        id: u32,
        reason: u32,
    ) -> zbus::Result<()>;
}

/// The daemon on the session bus, and what it received.
struct NotificationServer {
    connection: zbus::Connection,
    received: UnboundedReceiver<Notified>,
    closed: UnboundedReceiver<u32>,
}

impl NotificationServer {
    async fn start() -> Self {
        let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").unwrap_or_default();
        assert!(
            !bus.is_empty(),
            "no private session bus: run the e2e suite under scripts/with-keyring"
        );
        let (sender, received) = unbounded_channel();
        let (closer, closed) = unbounded_channel();
        let daemon = Daemon {
            received: sender,
            closed: closer,
            next_id: AtomicU32::new(0),
        };
        let connection = zbus::connection::Builder::session()
            .unwrap()
            .name("org.freedesktop.Notifications")
            .unwrap()
            .serve_at(PATH, daemon)
            .unwrap()
            .build()
            .await
            .expect("owning org.freedesktop.Notifications on the session bus");
        Self {
            connection,
            received,
            closed,
        }
    }

    /// The next notification the app withdrew (`CloseNotification`), within `timeout`.
    async fn next_closed(&mut self, timeout: Duration) -> u32 {
        tokio::time::timeout(timeout, self.closed.recv())
            .await
            .expect("a notification withdrawn in time")
            .expect("the daemon runs")
    }

    /// The next notification, within `timeout`.
    async fn next(&mut self, timeout: Duration) -> Notified {
        tokio::time::timeout(timeout, self.received.recv())
            .await
            .expect("a notification in time")
            .expect("the daemon runs")
    }

    /// Fails if a notification arrives within `quiet`.
    async fn none_within(&mut self, quiet: Duration) {
        if let Ok(Some(notified)) = tokio::time::timeout(quiet, self.received.recv()).await {
            panic!("no notification was expected, got {notified:?}");
        }
    }

    /// The user clicks notification `id`.
    async fn click(&self, id: u32) {
        let daemon = self
            .connection
            .object_server()
            .interface::<_, Daemon>(PATH)
            .await
            .unwrap();
        Daemon::action_invoked(daemon.signal_emitter(), id, "default")
            .await
            .unwrap();
    }

    /// The process id behind a bus name (the bus daemon knows it).
    async fn pid_of(&self, name: &str) -> u32 {
        let bus = zbus::fdo::DBusProxy::new(&self.connection).await.unwrap();
        bus.get_connection_unix_process_id(name.try_into().unwrap())
            .await
            .unwrap()
    }
}

/// A small X window that takes the keyboard focus from the app's, as a user switching to
/// another program does.
struct FocusThief {
    child: Child,
    window: String,
}

impl FocusThief {
    async fn start() -> Self {
        let title = format!("gantry-e2e-focus-{}", std::process::id());
        let child = Command::new("display")
            .args([
                "-title",
                &title,
                "-geometry",
                "64x64+1200+700",
                "-size",
                "64x64",
                "xc:gray",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ImageMagick's display (Debian package imagemagick)");
        let window = find_window(&["--name", &format!("^{title}$")]).await;
        Self { child, window }
    }

    /// Takes the focus.
    fn take_focus(&self) {
        focus(&self.window);
    }
}

impl Drop for FocusThief {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first visible X window `xdotool search ARGS` finds (waiting for it to map).
async fn find_window(args: &[&str]) -> String {
    for _ in 0..200 {
        let output = Command::new("xdotool")
            .args(["search", "--onlyvisible"])
            .args(args)
            .output()
            .expect("xdotool (Debian package xdotool)");
        let found = String::from_utf8_lossy(&output.stdout);
        if let Some(window) = found.lines().next() {
            return window.trim().to_owned();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no X window for xdotool search {args:?}");
}

/// Gives `window` the keyboard focus, and waits until it has it.
fn focus(window: &str) {
    let status = Command::new("xdotool")
        .args(["windowfocus", "--sync", window])
        .status()
        .unwrap();
    assert!(status.success(), "xdotool windowfocus {window}");
}

/// The X window that has the keyboard focus.
fn focused_window() -> String {
    let output = Command::new("xdotool")
        .arg("getwindowfocus")
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The app's process id (the `gantry` among the driver's descendants).
fn gantry_pid(app: &App) -> u32 {
    app.processes()
        .into_iter()
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|name| name.trim() == "gantry")
        })
        .expect("the gantry process")
}

/// Waits until the window shows session `title` (its item is the current one).
async fn shows_session(app: &App, title: &str) {
    app.wait_for(
        &format!("the session {title:?} to be shown"),
        "const item = document.querySelector('[data-testid=session-item][data-current=true]');\
         return item !== null && item.textContent.includes(arguments[0]);",
        json!([title]),
    )
    .await
    .unwrap();
}

const FIRST: &str = "Fix <b>the</b> build & test";
/// The session's title as the body carries it: escaped for a server that reads markup.
const FIRST_ESCAPED: &str = "Fix &lt;b&gt;the&lt;/b&gt; build &amp; test";

#[tokio::test]
async fn out_of_sight_a_turn_notifies_and_the_click_shows_its_session() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let mut server = NotificationServer::start().await;
    let rig = ChatRig::new(vec![
        Turn::text("First answer.").expect(Expect::new().last_contains("build & test")),
        Turn::text("Second answer.").expect(Expect::new().last_contains("second")),
        write_call("call_n1", "notes/n.txt", "hi\n")
            .expect(Expect::new().last_contains("write a note")),
        Turn::text("Wrote notes/n.txt.").expect(after_tool("call_n1")),
        Turn::tool_calls(vec![ToolCall::new(
            "call_q1",
            "ask_user",
            json!({"question": "Which colour?", "options": ["red", "blue"]}),
        )])
        .expect(Expect::new().last_contains("ask me")),
        Turn::text("Blue it is.").expect(after_tool("call_q1").last_contains("blue")),
        Turn::error(
            401,
            "Incorrect API key provided: sk-proj-abc123XYZ456def789ghi",
        )
        .expect(Expect::new().last_contains("fail")),
        Turn::text("Quiet answer.").expect(Expect::new().last_contains("quiet")),
    ])
    .await;
    let mut app = rig.launch("notifications", true).await;
    let project = rig
        .root()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let pid = gantry_pid(&app);
    let window = find_window(&["--pid", &pid.to_string(), "--name", "^Gantry$"]).await;
    let thief = FocusThief::start().await;

    // 1. The user looks at the window and its session: no notification.
    focus(&window);
    send(&app, FIRST).await;
    assistant_says(&app, "First answer.").await;
    idle(&app).await;
    server.none_within(Duration::from_millis(1500)).await;

    // 2. Another program has the focus: the turn's end is notified, by the app, in English,
    //    with the session's title as plain text.
    thief.take_focus();
    send(&app, "second").await;
    assistant_says(&app, "Second answer.").await;
    idle(&app).await;
    let finished = server.next(Duration::from_secs(10)).await;
    assert_eq!(finished.app_name, "Gantry");
    assert_eq!(finished.summary, project);
    assert_eq!(finished.body, format!("“{FIRST_ESCAPED}” finished."));
    assert_eq!(
        finished.actions.first().map(String::as_str),
        Some("default")
    );
    assert_eq!(
        server.pid_of(&finished.sender).await,
        pid,
        "the notification came from the app, on the test's bus"
    );
    app.screenshot("unfocused-turn-finished").await.unwrap();

    // 3. A fresh chat is shown; the click brings the window forward on the notified session.
    app.click("[data-testid=session-new]").await.unwrap();
    app.wait_for(
        "a fresh chat",
        "return document.querySelector('[data-testid=session-item][data-current=true]') === null;",
        json!([]),
    )
    .await
    .unwrap();
    server.click(finished.id).await;
    shows_session(&app, "Fix").await;
    assistant_says(&app, "Second answer.").await;
    for _ in 0..100 {
        if focused_window() == window {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(focused_window(), window, "the click focused the window");
    app.screenshot("clicked-shows-session").await.unwrap();

    // 4. Out of sight again, an approval is waited for: notified with the tool's name; then
    //    the turn's end.
    thief.take_focus();
    send(&app, "write a note").await;
    let approval = server.next(Duration::from_secs(10)).await;
    assert_eq!(
        approval.body,
        format!("“{FIRST_ESCAPED}” waits for your approval: write_file")
    );
    app.click("[data-testid=allow-once]").await.unwrap();
    // Answered: the notification asking for it is withdrawn.
    assert_eq!(
        server.next_closed(Duration::from_secs(10)).await,
        approval.id
    );
    assistant_says(&app, "Wrote notes/n.txt.").await;
    idle(&app).await;
    let finished = server.next(Duration::from_secs(10)).await;
    assert_eq!(finished.body, format!("“{FIRST_ESCAPED}” finished."));

    // 5. In Chinese once the UI is: a question is waited for, then the turn's end; then a
    //    failure.
    focus(&window);
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-language]")
        .await
        .unwrap();
    app.eval(
        "const select = document.querySelector('[data-testid=settings-language]');\
         select.value = 'zh-CN';\
         select.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for(
        "the UI in Chinese",
        "return document.documentElement.lang === 'zh-CN';",
        json!([]),
    )
    .await
    .unwrap();
    app.close_with_escape("settings-dialog").await.unwrap();
    thief.take_focus();
    send(&app, "ask me").await;
    let question = server.next(Duration::from_secs(10)).await;
    assert_eq!(
        question.body,
        format!("“{FIRST_ESCAPED}”向你提了一个问题。")
    );
    app.wait_for_css("[data-testid=question-dialog]")
        .await
        .unwrap();
    app.eval(
        "[...document.querySelectorAll('[data-testid=question-dialog] .options button')]\
           .find(b => b.textContent.trim() === 'blue').click();",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(
        server.next_closed(Duration::from_secs(10)).await,
        question.id
    );
    assistant_says(&app, "Blue it is.").await;
    idle(&app).await;
    let finished = server.next(Duration::from_secs(10)).await;
    assert_eq!(finished.body, format!("“{FIRST_ESCAPED}”已完成。"));

    // A failure says why (`scripted answered HTTP 401: Incorrect API key provided: …`), without
    // what looks like a key.
    send(&app, "fail now").await;
    let failed = server.next(Duration::from_secs(10)).await;
    let prefix = format!("“{FIRST_ESCAPED}”失败：");
    assert!(failed.body.starts_with(&prefix), "{}", failed.body);
    assert!(
        failed.body.contains("HTTP 401: Incorrect API key provided"),
        "{}",
        failed.body
    );
    assert!(!failed.body.contains("sk-proj"), "{}", failed.body);
    idle(&app).await;

    // 6. Turned off in Settings: nothing more, and the choice is stored.
    focus(&window);
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-notifications][data-ready=true]:checked")
        .await
        .unwrap();
    app.click("[data-testid=settings-notifications]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-notifications]:not(:checked)")
        .await
        .unwrap();
    app.screenshot("settings-notifications-off").await.unwrap();
    app.close_with_escape("settings-dialog").await.unwrap();
    let store = rig.store().await;
    let stored = wait_for_setting(
        &store,
        "notifications.enabled",
        "the switch to be saved",
        |_| true,
    )
    .await;
    assert_eq!(stored, "false");
    thief.take_focus();
    send(&app, "quiet").await;
    assistant_says(&app, "Quiet answer.").await;
    idle(&app).await;
    server.none_within(Duration::from_millis(1500)).await;

    rig.verify();
    app.quit().await.unwrap();
}
