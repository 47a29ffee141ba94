//! Sessions of one project running at once in the real window: a turn waits for an approval in
//! one session while the user starts another; each session's dialog shows only while that
//! session is shown, the session list marks the one that waits, and answering one leaves the
//! other's question pending.

use gantry_scripted_provider::{Expect, Turn};
use serde_json::json;

use crate::chat::{ChatRig, after_tool, assistant_says, card, idle, send, write_call};
use crate::{SERIAL, enabled};

/// How many approval dialogs show, and the call each is for.
async fn shown_dialog(app: &crate::app::App) -> Vec<String> {
    let value = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=approval-dialog]')]\
               .map(e => e.dataset.callId);",
            json!([]),
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_wait_for_approvals_at_once_and_each_dialog_stays_with_its_session() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_a", "notes/a.txt", "from session A\n")
            .expect(Expect::new().last_contains("first session")),
        write_call("call_b", "notes/b.txt", "from session B\n")
            .expect(Expect::new().last_contains("second session")),
        Turn::text("Session B wrote notes/b.txt.").expect(after_tool("call_b")),
        Turn::text("Session A wrote notes/a.txt.").expect(after_tool("call_a")),
    ])
    .await;
    let mut app = rig.launch("parallel-sessions", true).await;

    // Session A asks to write, and waits.
    send(&app, "write a note, first session").await;
    card(&app, "write_file", "awaiting_approval").await;
    assert_eq!(shown_dialog(&app).await, ["call_a"]);
    let first = app
        .eval(
            "return document.querySelector('[data-testid=session-item] [aria-current=true]')\
               ?.closest('[data-testid=session-item]')?.dataset.sessionId ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    let first = first
        .as_str()
        .expect("the first session is listed")
        .to_owned();

    // A fresh chat: A's turn goes on waiting; its dialog is not shown over the new chat, and
    // the list says A waits.
    app.click("[data-testid=session-new]").await.unwrap();
    app.wait_for(
        "A's dialog to step aside",
        "return !document.querySelector('[data-testid=approval-dialog]');",
        json!([]),
    )
    .await
    .unwrap();
    let badge = format!(
        "[data-testid=session-item][data-session-id='{first}'] [data-testid=session-activity][data-activity=waiting]"
    );
    app.wait_for_css(&badge).await.unwrap();

    // Session B asks too: its own dialog shows; A still waits.
    send(&app, "write a note, second session").await;
    app.wait_for(
        "B's dialog",
        "return document.querySelector('[data-testid=approval-dialog]')?.dataset.callId === 'call_b';",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("b-asks-a-waits").await.unwrap();
    assert_eq!(shown_dialog(&app).await, ["call_b"]);
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Session B wrote notes/b.txt.").await;
    idle(&app).await;
    assert!(rig.root().join("notes/b.txt").exists());
    assert!(
        !rig.root().join("notes/a.txt").exists(),
        "answering B decided nothing for A"
    );
    app.wait_for_css(&badge).await.unwrap();

    // Back to A: its dialog is there, still pending; allowing it ends A's turn.
    app.click(&format!(
        "[data-testid=session-item][data-session-id='{first}'] .session-open"
    ))
    .await
    .unwrap();
    app.wait_for(
        "A's dialog again",
        "return document.querySelector('[data-testid=approval-dialog]')?.dataset.callId === 'call_a';",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("back-to-a").await.unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Session A wrote notes/a.txt.").await;
    idle(&app).await;
    assert_eq!(
        std::fs::read_to_string(rig.root().join("notes/a.txt")).unwrap(),
        "from session A\n"
    );
    app.wait_for(
        "no session marked any more",
        "return !document.querySelector('[data-testid=session-activity]');",
        json!([]),
    )
    .await
    .unwrap();
    app.quit().await.unwrap();
    rig.verify();
}
