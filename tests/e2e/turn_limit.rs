//! The app's limit on turns running at once, set in the Settings dialog of the real window:
//! lowered to one, a second session's turn queues (the session list says so) behind a turn that
//! waits for an approval; raised to two, the queued turn starts at once, without the first
//! ending. The limit is stored for the next start.

use std::time::Duration;

use gantry_scripted_provider::{Expect, Turn};
use serde_json::json;

use crate::app::{App, assert_stays_for, wait_for_setting};
use crate::chat::{ChatRig, after_tool, assistant_says, card, idle, no_dialog, send, write_call};
use crate::{SERIAL, enabled};

/// How long the queued turn is watched, nothing having freed a place, for a start it must not
/// make.
const STAYS_QUEUED: Duration = Duration::from_millis(500);

/// Opens Settings, enters `max` as the turn limit and waits until it is saved (and so in force:
/// kept for the next start too).
async fn set_limit(rig: &ChatRig, app: &mut App, max: u32) {
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-turn-limit][data-ready=true]")
        .await
        .unwrap();
    app.eval(
        "const box = document.querySelector('[data-testid=settings-turn-limit]');\
         box.value = String(arguments[0]);\
         box.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([max]),
    )
    .await
    .unwrap();
    // Saved (the backend applies it as it saves it).
    let store = rig.store().await;
    wait_for_setting(&store, "turns.max", "the limit to be saved", |saved| {
        saved == max.to_string()
    })
    .await;
    app.screenshot(&format!("settings-limit-{max}"))
        .await
        .unwrap();
    assert!(
        app.eval(
            "return document.querySelector('[data-testid=settings-turn-limit-error]');",
            json!([])
        )
        .await
        .unwrap()
        .is_null(),
        "no error"
    );
    app.close_with_escape("settings-dialog").await.unwrap();
}

/// The session id of the session shown in the list as current.
async fn current_session(app: &App) -> String {
    let value = app
        .wait_for(
            "the current session in the list",
            "return document.querySelector('[data-testid=session-item] [aria-current=true]')\
               ?.closest('[data-testid=session-item]')?.dataset.sessionId ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_queues_under_the_limit_set_in_settings_and_starts_when_it_is_raised() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_a", "notes/a.txt", "from session A\n")
            .expect(Expect::new().last_contains("first session")),
        Turn::text("Session B answered.").expect(Expect::new().last_contains("second session")),
        Turn::text("Session A wrote notes/a.txt.").expect(after_tool("call_a")),
    ])
    .await;
    let mut app = rig.launch("turn-limit", true).await;
    set_limit(&rig, &mut app, 1).await;

    // Session A takes the one place, and keeps it while it waits for an approval.
    send(&app, "write a note, first session").await;
    card(&app, "write_file", "awaiting_approval").await;
    let first = current_session(&app).await;

    // Session B's turn queues behind it: the list says so.
    app.click("[data-testid=session-new]").await.unwrap();
    no_dialog(&app, "A's dialog to step aside").await;
    send(&app, "say hello, second session").await;
    let queued = "[data-testid=session-item] [data-testid=session-activity][data-activity=queued]";
    app.wait_for_css(queued).await.unwrap();
    let second = app
        .eval(
            "return document.querySelector(arguments[0])\
               .closest('[data-testid=session-item]').dataset.sessionId;",
            json!([queued]),
        )
        .await
        .unwrap();
    assert_ne!(second, json!(first), "the queued one is B");
    app.screenshot("b-queued").await.unwrap();
    // It stays queued: nothing frees the place.
    assert_stays_for(STAYS_QUEUED, async || {
        assert!(
            !app.eval(
                "return !document.querySelector(arguments[0]);",
                json!([queued])
            )
            .await
            .unwrap()
            .as_bool()
            .unwrap(),
            "B is still queued"
        );
    })
    .await;

    // Raised to two, B starts at once and answers, while A still waits.
    set_limit(&rig, &mut app, 2).await;
    assistant_says(&app, "Session B answered.").await;
    idle(&app).await;
    let waiting = format!(
        "[data-testid=session-item][data-session-id='{first}'] [data-testid=session-activity][data-activity=waiting]"
    );
    app.wait_for_css(&waiting).await.unwrap();
    assert!(!rig.root().join("notes/a.txt").exists(), "A has not run on");

    // A is allowed and ends too.
    app.click(&format!(
        "[data-testid=session-item][data-session-id='{first}'] .session-open"
    ))
    .await
    .unwrap();
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Session A wrote notes/a.txt.").await;
    idle(&app).await;

    app.quit().await.unwrap();
    rig.verify();
}
