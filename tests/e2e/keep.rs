//! Finding and keeping what was said, in the real app: a write's card restored after a restart
//! with its diff and who decided, a search that finds a message in another session and opens it
//! there, and a session exported to a file (the debug build's `GANTRY_E2E_SAVE_PATH` stands in
//! for the native save dialog, which WebDriver cannot drive).

use gantry_scripted_provider::{Expect, Turn};
use serde_json::{Value, json};

use crate::app::App;
use crate::chat::{ChatRig, after_tool, assistant_says, card, idle, send, write_call};
use crate::{SERIAL, enabled};

/// What the write's card shows: status, who decided (text and `data-by`), duration, and the
/// diff once its details are open.
async fn write_card(app: &App) -> Value {
    let card = "[data-testid=tool-card][data-tool=write_file]";
    let open = app
        .eval(
            "return document.querySelector(arguments[0]).dataset.open === 'true';",
            json!([card]),
        )
        .await
        .unwrap();
    if open != json!(true) {
        app.click(&format!("{card} [data-testid=tool-line]"))
            .await
            .unwrap();
    }
    app.wait_for_css(&format!("{card} [data-testid=diff]"))
        .await
        .unwrap();
    app.eval(
        "const card = document.querySelector(arguments[0]);\
         const decider = card.querySelector('[data-testid=tool-decider]');\
         return {\
           status: card.dataset.status,\
           decider: decider?.textContent.trim() ?? null,\
           by: decider?.dataset.by ?? null,\
           duration: card.querySelector('.duration')?.textContent.trim() ?? null,\
           diff: card.querySelector('[data-testid=diff]').textContent,\
         };",
        json!([card]),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_restored_write_keeps_its_diff_and_who_decided() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call(
            "call_keep",
            "notes/kept.txt",
            "kept line one\nkept line two\n",
        )
        .expect(Expect::new().last_contains("write the note")),
        Turn::text("I wrote notes/kept.txt.").expect(after_tool("call_keep")),
    ])
    .await;
    let mut app = rig.launch("keep-restored-card", true).await;
    send(&app, "please write the note").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    card(&app, "write_file", "ok").await;
    assistant_says(&app, "I wrote notes/kept.txt.").await;
    idle(&app).await;
    let live = write_card(&app).await;
    assert_eq!(live["status"], "ok", "{live}");
    assert_eq!(live["by"], "user", "the user decided: {live}");
    assert!(
        live["decider"]
            .as_str()
            .is_some_and(|text| !text.is_empty()),
        "{live}"
    );
    assert!(live["duration"].as_str().is_some(), "{live}");
    assert!(
        live["diff"]
            .as_str()
            .is_some_and(|diff| diff.contains("kept line two")),
        "{live}"
    );
    app.screenshot("live").await.unwrap();
    app.quit().await.unwrap();

    // After a restart the card is rebuilt from the store: the same chip, duration and diff.
    let mut app = rig.launch("keep-restored-card", false).await;
    card(&app, "write_file", "ok").await;
    let restored = write_card(&app).await;
    assert_eq!(restored, live, "the restored card is the live one");
    app.screenshot("restored").await.unwrap();
    app.quit().await.unwrap();
    rig.verify();
}

/// The sessions in the list: (id, current).
async fn sessions(app: &App) -> Vec<(String, bool)> {
    let value = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=session-item]')]\
               .map(e => [e.dataset.sessionId, e.dataset.current === 'true']);",
            json!([]),
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

async fn search(app: &App, text: &str) {
    app.fill("[data-testid=session-search-input]", text)
        .await
        .unwrap();
}

#[tokio::test]
async fn search_finds_a_message_in_another_session_and_opens_it() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::text("They cross the river in the dry season."),
        Turn::text("Filler reply one."),
        Turn::text("Second session answer.").expect(Expect::new().message_count(2)),
    ])
    .await;
    let mut app = rig.launch("keep-search", true).await;
    send(&app, "tell me about the zebra migration").await;
    assistant_says(&app, "They cross").await;
    idle(&app).await;
    send(&app, "and something unrelated").await;
    assistant_says(&app, "Filler reply one.").await;
    idle(&app).await;
    app.click("[data-testid=session-new]").await.unwrap();
    app.wait_for_css("[data-testid=chat-empty]").await.unwrap();
    send(&app, "a question about penguins").await;
    assistant_says(&app, "Second session answer.").await;
    idle(&app).await;
    app.wait_for(
        "two sessions",
        "return document.querySelectorAll('[data-testid=session-item]').length === 2;",
        json!([]),
    )
    .await
    .unwrap();
    let listed = sessions(&app).await;
    let (second_id, first_id) = (listed[0].0.clone(), listed[1].0.clone());
    assert!(listed[0].1, "the new session is current: {listed:?}");

    // "zebra" is in the first session only: one hit, its title and the word marked.
    search(&app, "zebra").await;
    app.wait_for_css("[data-testid=session-hit]").await.unwrap();
    let hits = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=session-hit]')].map(e => ({\
               session: e.dataset.sessionId, ordinal: e.dataset.ordinal,\
               text: e.textContent, marked: [...e.querySelectorAll('mark')].map(m => m.textContent)}));",
            json!([]),
        )
        .await
        .unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0]["session"], json!(first_id), "{hits:?}");
    assert_eq!(
        hits[0]["ordinal"], "0",
        "the user's first message: {hits:?}"
    );
    let text = hits[0]["text"].as_str().unwrap();
    assert!(text.contains("tell me about the zebra migration"), "{text}");
    assert_eq!(hits[0]["marked"], json!(["zebra"]), "{hits:?}");
    app.screenshot("hits").await.unwrap();

    // Choosing it opens the first session with that message marked.
    app.click("[data-testid=session-hit]").await.unwrap();
    let found = app
        .wait_for(
            "the found message marked",
            "return document.querySelector('[data-testid=chat-message][data-found=true]')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        found.as_str().unwrap().contains("zebra migration"),
        "{found}"
    );
    let listed = sessions(&app).await;
    assert_eq!(
        listed,
        [(second_id, false), (first_id, true)],
        "the hit's session is open"
    );
    let marked = app
        .eval(
            "return document.querySelectorAll('[data-found=true]').length;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(marked, 1, "one message is marked");
    app.screenshot("opened").await.unwrap();

    // A word found nowhere says so.
    search(&app, "okapi").await;
    app.wait_for_css("[data-testid=session-search-empty]")
        .await
        .unwrap();
    app.quit().await.unwrap();
    rig.verify();
}

#[tokio::test]
async fn export_writes_the_session_as_markdown_and_json() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_x", "export-me.txt", "exported content\n")
            .expect(Expect::new().last_contains("export test")),
        Turn::text("Done writing export-me.txt.").expect(after_tool("call_x")),
    ])
    .await;
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("session-export");
    let arg = rig.fixture.arg();
    let target_text = target.to_str().unwrap();
    let mut app = App::launch_with_env(
        "keep-export",
        &[arg.as_str()],
        rig.data.path(),
        true,
        &[("GANTRY_E2E_SAVE_PATH", target_text)],
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=chat-input]").await.unwrap();
    send(&app, "an export test, please").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Done writing export-me.txt.").await;
    idle(&app).await;
    let item = "[data-testid=session-item][data-current=true]";

    // Markdown: the turns, and the tool call folded with its arguments, result and diff.
    app.click(&format!("{item} [data-testid=session-export]"))
        .await
        .unwrap();
    app.click("[data-testid=session-export-md]").await.unwrap();
    app.wait_for_css("[data-testid=session-exported]")
        .await
        .unwrap();
    app.screenshot("exported").await.unwrap();
    let markdown = std::fs::read_to_string(&target).unwrap();
    assert!(
        markdown.starts_with("# an export test, please\n"),
        "{markdown}"
    );
    for part in [
        "### User\n\nan export test, please\n",
        "### Assistant\n\nDone writing export-me.txt.\n",
        "<details>\n<summary>Tool call <code>write_file</code>",
        "\"path\": \"export-me.txt\"",
        "+exported content",
        "</details>",
    ] {
        assert!(markdown.contains(part), "{part:?} in:\n{markdown}");
    }

    // JSON: the stored messages, the tool message with its outcome.
    app.click("[data-testid=session-export-close]")
        .await
        .unwrap();
    app.click(&format!("{item} [data-testid=session-export]"))
        .await
        .unwrap();
    app.click("[data-testid=session-export-json]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=session-exported]")
        .await
        .unwrap();
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(json["format"], "gantry-session");
    let messages = json["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|message| message["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"], "{json}");
    let tool = &messages[2];
    assert_eq!(tool["toolCallId"], "call_x", "{tool}");
    assert!(
        tool["outcome"]["diff"]
            .as_str()
            .is_some_and(|diff| diff.contains("+exported content")),
        "{tool}"
    );
    app.quit().await.unwrap();
    rig.verify();
}
