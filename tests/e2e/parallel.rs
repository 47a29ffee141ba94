//! Sessions of one project running at once in the real window, as tabs: a turn waits for an
//! approval in one tab while the user starts another; each tab's dialog shows only while that
//! tab is shown, a hidden tab shows that it waits (or runs), answering one leaves the other's
//! question pending, a hidden tab's Stop stops its turn alone, and the tabs come back after a
//! restart.

use std::time::Duration;

use gantry_scripted_provider::{Completion, Expect, Turn};
use serde_json::json;

use crate::app::App;
use crate::chat::{ChatRig, after_tool, assistant_says, card, idle, no_dialog, send, write_call};
use crate::{SERIAL, enabled};

/// How many approval dialogs show, and the call each is for.
async fn shown_dialog(app: &App) -> Vec<String> {
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

/// The tabs, left to right: each one's session id (empty for the fresh chat), whether it is
/// shown, and what it does.
async fn tabs(app: &App) -> Vec<(String, bool, String)> {
    let value = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=session-tab]')]\
               .map(e => [e.dataset.sessionId, e.dataset.shown === 'true', e.dataset.activity]);",
            json!([]),
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// The tabs' session ids, left to right.
async fn tab_ids(app: &App) -> Vec<String> {
    tabs(app).await.into_iter().map(|(id, _, _)| id).collect()
}

/// The id of the session shown.
async fn shown_session(app: &App) -> String {
    let value = app
        .wait_for(
            "a shown session",
            "return document.querySelector('[data-testid=session-tab][data-shown=true]')\
               ?.dataset.sessionId || null;",
            json!([]),
        )
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

/// The tab of session `id` (`part`: a selector inside it, or "" for the tab itself).
fn tab(id: &str, part: &str) -> String {
    format!("[data-testid=session-tab][data-session-id='{id}'] {part}")
        .trim_end()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_wait_for_approvals_at_once_each_dialog_stays_with_its_tab_and_tabs_come_back() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_a", "notes/a.txt", "from session A\n")
            .expect(Expect::new().last_contains("first session")),
        write_call("call_b", "notes/b.txt", "from session B\n")
            .expect(Expect::new().last_contains("second session")),
        // B's answer takes a while: B runs in its hidden tab while A is answered.
        Turn::from(
            Completion::new()
                .delay(Duration::from_millis(2500))
                .text("Session B wrote notes/b.txt."),
        )
        .expect(after_tool("call_b")),
        Turn::text("Session A wrote notes/a.txt.").expect(after_tool("call_a")),
        Turn::hang().expect(Expect::new().last_contains("third session")),
    ])
    .await;
    let mut app = rig.launch("parallel-sessions", true).await;

    // Tab A asks to write, and waits.
    send(&app, "write a note, first session").await;
    card(&app, "write_file", "awaiting_approval").await;
    assert_eq!(shown_dialog(&app).await, ["call_a"]);
    let first = shown_session(&app).await;

    // A new tab: A's turn goes on waiting; its dialog is not shown over the new chat, and both
    // A's tab and the session list say A waits.
    app.click("[data-testid=session-tab-new]").await.unwrap();
    no_dialog(&app, "A's dialog to step aside").await;
    app.wait_for_css(&tab(&first, "")).await.unwrap();
    app.wait_for_css(&format!(
        "[data-testid=session-tab][data-session-id='{first}'][data-activity=waiting]"
    ))
    .await
    .unwrap();
    app.wait_for_css(&format!(
        "[data-testid=session-item][data-session-id='{first}'] [data-testid=session-activity][data-activity=waiting]"
    ))
    .await
    .unwrap();
    assert_eq!(
        tabs(&app).await,
        [
            (first.clone(), false, "waiting".to_owned()),
            (String::new(), true, "idle".to_owned())
        ]
    );

    // Tab B asks too: its own dialog shows; A still waits.
    send(&app, "write a note, second session").await;
    app.wait_for(
        "B's dialog",
        "return document.querySelector('[data-testid=approval-dialog]')?.dataset.callId === 'call_b';",
        json!([]),
    )
    .await
    .unwrap();
    let second = shown_session(&app).await;
    assert_ne!(first, second);
    app.screenshot("b-asks-a-waits").await.unwrap();
    assert_eq!(shown_dialog(&app).await, ["call_b"]);
    assert_eq!(
        tabs(&app).await,
        [
            (first.clone(), false, "waiting".to_owned()),
            (second.clone(), true, "waiting".to_owned())
        ],
        "the fresh chat's tab became B's"
    );
    app.click("[data-testid=allow-once]").await.unwrap();
    card(&app, "write_file", "ok").await;
    assert!(rig.root().join("notes/b.txt").exists());
    assert!(
        !rig.root().join("notes/a.txt").exists(),
        "answering B decided nothing for A"
    );

    // Back to A by its tab while B's answer is on its way: A's dialog is there, still
    // pending; B's hidden tab shows it runs.
    app.click(&tab(&first, "[data-testid=session-tab-open]"))
        .await
        .unwrap();
    app.wait_for(
        "A's dialog again",
        "return document.querySelector('[data-testid=approval-dialog]')?.dataset.callId === 'call_a';",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for_css(&format!(
        "[data-testid=session-tab][data-session-id='{second}'][data-activity=running] .spinner"
    ))
    .await
    .unwrap();
    app.screenshot("back-to-a-b-runs").await.unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Session A wrote notes/a.txt.").await;
    idle(&app).await;
    assert_eq!(
        std::fs::read_to_string(rig.root().join("notes/a.txt")).unwrap(),
        "from session A\n"
    );
    // B ended in its hidden tab.
    app.wait_for_css(&format!(
        "[data-testid=session-tab][data-session-id='{second}'][data-activity=idle]"
    ))
    .await
    .unwrap();
    app.click(&tab(&second, "[data-testid=session-tab-open]"))
        .await
        .unwrap();
    assistant_says(&app, "Session B wrote notes/b.txt.").await;

    // A third tab whose turn hangs, stopped from A's tab by its own Stop: only it stops.
    app.click("[data-testid=session-tab-new]").await.unwrap();
    send(&app, "wait forever, third session").await;
    app.wait_for(
        "the third turn to run",
        "return document.querySelector('[data-testid=session-tab][data-shown=true]')\
           ?.dataset.activity === 'running';",
        json!([]),
    )
    .await
    .unwrap();
    let third = shown_session(&app).await;
    app.click(&tab(&first, "[data-testid=session-tab-open]"))
        .await
        .unwrap();
    app.click(&tab(&third, "[data-testid=session-tab-stop]"))
        .await
        .unwrap();
    app.wait_for_css(&format!(
        "[data-testid=session-tab][data-session-id='{third}'][data-activity=idle]"
    ))
    .await
    .unwrap();
    assert_eq!(shown_session(&app).await, first, "Stop did not switch tabs");
    app.wait_for(
        "no session marked any more",
        "return !document.querySelector('[data-testid=session-activity]');",
        json!([]),
    )
    .await
    .unwrap();
    let open = vec![first.clone(), second.clone(), third.clone()];
    assert_eq!(tab_ids(&app).await, open);
    app.quit().await.unwrap();

    // After a restart the tabs are back in their order; Ctrl+W closes the shown one and the
    // next tab is shown.
    let mut app = rig.launch("parallel-sessions", false).await;
    app.wait_for(
        "the remembered tabs",
        "return document.querySelectorAll('[data-testid=session-tab]').length === 3;",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(tab_ids(&app).await, open);
    let shown = shown_session(&app).await;
    app.click(&tab(&shown, "[data-testid=session-tab-open]"))
        .await
        .unwrap();
    app.eval(
        "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', \
           {key: 'w', ctrlKey: true, bubbles: true, cancelable: true}));",
        json!([]),
    )
    .await
    .unwrap();
    app.wait_for(
        "one tab fewer",
        "return document.querySelectorAll('[data-testid=session-tab]').length === 2;",
        json!([]),
    )
    .await
    .unwrap();
    let left = tab_ids(&app).await;
    assert!(!left.contains(&shown), "{left:?}");
    assert!(left.contains(&shown_session(&app).await));
    app.screenshot("tabs-after-restart").await.unwrap();
    app.quit().await.unwrap();
    rig.verify();
}
