//! The app driven from the keyboard only, with real key presses (WebDriver key actions: keydown
//! and keyup events with their default actions, as a keyboard gives them): a user sends a
//! message, Tabs to Deny and presses Enter (the call is denied, nothing is written), Tabs to
//! "Allow for this session" and presses Space (the grant is listed in the Tools panel), and
//! closes panels with Esc. And an Enter meant for the chat box (held, or pressed again at once)
//! does not approve the call the model makes next.

use std::time::{Duration, Instant};

use gantry_scripted_provider::{Expect, Turn};
use serde_json::json;

use crate::app::{App, assert_stays_for, wait_for_setting};
use crate::chat::{ChatRig, after_tool, assistant_says, card, dialogs, idle, write_call};
use crate::webdriver::Key;
use crate::{SERIAL, enabled, ms};

/// How long the approval dialog is watched, once armed, for an early press that counted after
/// all.
const WATCHED_AFTER_ARMING: Duration = Duration::from_millis(500);

/// Moves the focus to the chat box with Tab, types `text` and presses Enter.
async fn type_and_send(app: &App, text: &str) {
    app.wait_for(
        "the chat to be idle",
        "return document.querySelector('[data-testid=turn-status]')?.dataset.running === 'false';",
        json!([]),
    )
    .await
    .unwrap();
    app.tab_to("chat-input", 60).await.unwrap();
    app.type_text(text).await.unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
}

/// Waits for the approval dialog to accept an allowing key press.
async fn armed_dialog(app: &App) {
    app.wait_for_css("[data-testid=approval-dialog][data-armed=true]")
        .await
        .unwrap();
}

/// The file tree's height in pixels, as its section says.
async fn tree_height(app: &App) -> u64 {
    app.eval(
        "return Number(document.querySelector('[data-testid=tree-section]').dataset.height);",
        json!([]),
    )
    .await
    .unwrap()
    .as_u64()
    .unwrap()
}

/// The `data-testid` of the focused element.
async fn focus(app: &App) -> String {
    app.focused().await.unwrap()
}

#[tokio::test]
async fn a_keyboard_user_denies_with_enter_allows_for_the_session_with_space_and_closes_panels_with_esc()
 {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_k1", "kb/denied.txt", "should not exist\n")
            .expect(Expect::new().last_contains("first write")),
        Turn::text("I left kb/denied.txt alone.")
            .expect(after_tool("call_k1").last_contains("[denied]")),
        write_call("call_k2", "kb/allowed.txt", "allowed for the session\n")
            .expect(Expect::new().last_contains("second write")),
        Turn::text("I wrote kb/allowed.txt.").expect(after_tool("call_k2")),
    ])
    .await;
    let mut app = rig.launch("keyboard", true).await;
    app.wait_for_css("[data-testid=tree][data-loaded=true] [data-path]")
        .await
        .unwrap();

    // Send a message; the dialog opens with the focus on Allow once.
    type_and_send(&app, "first write").await;
    armed_dialog(&app).await;
    assert_eq!(focus(&app).await, "allow-once");
    // Tab, Tab: Allow for this session, then Deny; Enter presses Deny.
    app.press(&[Key::TAB]).await.unwrap();
    assert_eq!(focus(&app).await, "allow-session");
    app.press(&[Key::TAB]).await.unwrap();
    assert_eq!(focus(&app).await, "deny");
    // Shift+Tab goes back, Tab forth again.
    app.press_shifted(&[Key::TAB]).await.unwrap();
    assert_eq!(focus(&app).await, "allow-session");
    app.press(&[Key::TAB]).await.unwrap();
    assert_eq!(focus(&app).await, "deny");
    app.screenshot("deny-focused").await.unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
    card(&app, "write_file", "denied").await;
    assistant_says(&app, "I left kb/denied.txt alone.").await;
    assert!(
        !rig.root().join("kb/denied.txt").exists(),
        "Enter on Deny denied: nothing written"
    );
    let chip = app
        .eval(
            "return document.querySelector('[data-testid=tool-card][data-status=denied] [data-testid=tool-decider]')?.textContent.trim();",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(chip, "you: denied");
    idle(&app).await;
    // The focus went back where it was: the chat box.
    assert_eq!(focus(&app).await, "chat-input");

    // Again: Tab once to "Allow for this session", and Space.
    type_and_send(&app, "second write").await;
    armed_dialog(&app).await;
    app.press(&[Key::TAB]).await.unwrap();
    assert_eq!(focus(&app).await, "allow-session");
    app.screenshot("allow-session-focused").await.unwrap();
    app.press(&[Key::SPACE]).await.unwrap();
    assistant_says(&app, "I wrote kb/allowed.txt.").await;
    assert_eq!(
        std::fs::read_to_string(rig.root().join("kb/allowed.txt")).unwrap(),
        "allowed for the session\n"
    );
    idle(&app).await;

    // The Tools panel, reached with Tab and opened with Enter, lists the grant; Esc closes it.
    let presses = app.tab_to("tools-open", 80).await.unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
    app.wait_for_css("[data-testid=session-grant][data-tool=write_file]")
        .await
        .unwrap();
    app.screenshot("grant-listed").await.unwrap();
    app.press(&[Key::ESCAPE]).await.unwrap();
    app.wait_for(
        "the Tools panel to close",
        "return !document.querySelector('[data-testid=tools-panel]');",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(
        focus(&app).await,
        "tools-open",
        "the focus returns to the button"
    );

    // The audit log and Settings close with Esc too; the menu opens with Enter and closes with Esc.
    for (button, panel) in [
        ("audit-open", "audit-view"),
        ("settings-open", "settings-dialog"),
    ] {
        app.tab_to(button, 20).await.unwrap();
        app.press(&[Key::ENTER]).await.unwrap();
        app.wait_for_css(&format!("[data-testid={panel}]"))
            .await
            .unwrap();
        app.press(&[Key::ESCAPE]).await.unwrap();
        app.wait_for(
            &format!("the {panel} to close"),
            "return !document.querySelector(`[data-testid=${arguments[0]}]`);",
            json!([panel]),
        )
        .await
        .unwrap();
    }
    app.tab_to("project-menu", 20).await.unwrap();
    app.press(&[Key::ARROW_DOWN]).await.unwrap();
    app.wait_for_css("[data-testid=project-close]")
        .await
        .unwrap();
    assert_eq!(focus(&app).await, "project-new-window", "the first item");
    app.press(&[Key::ARROW_DOWN]).await.unwrap();
    assert_eq!(focus(&app).await, "project-config");
    app.press(&[Key::ARROW_DOWN]).await.unwrap();
    assert_eq!(focus(&app).await, "project-close");
    app.press(&[Key::ESCAPE]).await.unwrap();
    app.wait_for(
        "the menu to close",
        "return !document.querySelector('[data-testid=project-close]');",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(focus(&app).await, "project-menu");

    // The file tree's splitter: two presses of Arrow Up make the tree taller; folded with its
    // heading's button. Both are remembered after a restart.
    let before = tree_height(&app).await;
    app.tab_to("tree-splitter", 40).await.unwrap();
    app.press(&[Key::ARROW_UP, Key::ARROW_UP]).await.unwrap();
    let after = tree_height(&app).await;
    assert_eq!(after, before + 48, "two steps of 24 px");
    app.screenshot("tree-taller").await.unwrap();
    rig.verify();
    let store = rig.store().await;
    let taller = after.to_string();
    wait_for_setting(
        &store,
        "ui.tree.height",
        "the tree's height to be kept",
        |text| text == taller,
    )
    .await;
    app.quit().await.unwrap();

    let mut app = rig.launch("keyboard", false).await;
    app.wait_for_css("[data-testid=tree-section][data-open=true]")
        .await
        .unwrap();
    assert_eq!(tree_height(&app).await, after, "the height is remembered");
    app.tab_to("tree-toggle", 40).await.unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
    app.wait_for_css("[data-testid=tree-section][data-open=false]")
        .await
        .unwrap();
    app.screenshot("tree-folded").await.unwrap();
    wait_for_setting(
        &store,
        "ui.tree.open",
        "the folded tree to be kept",
        |text| text == "false",
    )
    .await;
    app.quit().await.unwrap();
    let app = rig.launch("keyboard", false).await;
    app.wait_for_css("[data-testid=tree-section][data-open=false]")
        .await
        .unwrap();
    app.quit().await.unwrap();
    crate::scenarios::report(
        "keyboard",
        &format!("Tab presses from the chat box to the Tools button: {presses}"),
    );
}

#[tokio::test]
async fn an_enter_meant_for_the_chat_box_does_not_approve_the_next_call() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_early", "early.txt", "approved on purpose\n")
            .expect(Expect::new().last_contains("quick")),
        Turn::text("Wrote early.txt.").expect(after_tool("call_early")),
    ])
    .await;
    let mut app = rig.launch("keyboard-early-enter", true).await;
    app.tab_to("chat-input", 60).await.unwrap();
    app.type_text("quick").await.unwrap();
    // Enter goes down in the chat box (it sends) and stays down while the model answers.
    app.session.hold_key(Key::ENTER).await.unwrap();
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    let shown = Instant::now();
    // The held key's next keydown (a repeat), then a second quick press: neither counts.
    app.press(&[Key::ENTER]).await.unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
    let pressed_after = shown.elapsed();
    assert!(
        pressed_after < Duration::from_millis(700),
        "the presses must land before the dialog's delay ends; took {}",
        ms(pressed_after)
    );
    // Neither counts: the dialog waits through its delay (it arms, or is gone if a press
    // counted) and a while after it, and nothing is written.
    let armed = app
        .wait_for(
            "the dialog to arm, or to go",
            "const dialog = document.querySelector('[data-testid=approval-dialog]');\
             return dialog ? dialog.dataset.armed === 'true' : 'gone';",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(armed, json!(true), "the dialog still waits for a decision");
    assert_stays_for(WATCHED_AFTER_ARMING, async || {
        assert_eq!(
            dialogs(&app).await,
            1,
            "the dialog still waits for a decision"
        );
        assert!(!rig.root().join("early.txt").exists(), "nothing approved");
    })
    .await;
    app.screenshot("still-asking").await.unwrap();

    // A fresh press, now that the dialog has been shown a moment, approves.
    app.press(&[Key::ENTER]).await.unwrap();
    assistant_says(&app, "Wrote early.txt.").await;
    assert_eq!(
        std::fs::read_to_string(rig.root().join("early.txt")).unwrap(),
        "approved on purpose\n"
    );
    rig.verify();
    crate::scenarios::report(
        "keyboard-early-enter",
        &format!(
            "dialog shown to the end of the two early presses: {}",
            ms(pressed_after)
        ),
    );
    app.quit().await.unwrap();
}
