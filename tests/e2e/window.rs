//! The chat's window: compaction at the threshold (the scripted provider checks the summary
//! request and that the next request carries the summary instead of the earlier messages), the
//! context gauge, and code blocks highlighted with a copy button.

use gantry_scripted_provider::{Expect, Turn};
use serde_json::json;

use crate::chat::{ChatRig, assistant_says, idle, send};
use crate::{SERIAL, enabled};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_triggers_at_the_threshold_and_the_next_request_carries_the_summary() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let long = format!(
        "Please remember this text. {}",
        "lorem ipsum ".repeat(2_700)
    );
    let rig = ChatRig::new(vec![
        Turn::text("Ack: a long text.").expect(Expect::new().last_contains("Please remember")),
        Turn::text("NOTES-E2E: the user pasted a long lorem ipsum text to remember.").expect(
            Expect::new()
                .last_role("user")
                .last_contains("Summarise the conversation so far")
                .any_contains("Please remember")
                .absent("/tools"),
        ),
        Turn::text("Continuing from the notes.").expect(
            Expect::new()
                .message_count(2)
                .last_contains("what next")
                .any_contains("NOTES-E2E"),
        ),
    ])
    .await;
    // 30% of the scripted provider's 32,000 tokens: the long text passes it.
    rig.store()
        .await
        .settings()
        .set("chat.compact_at_percent", "30")
        .await
        .unwrap();
    let mut app = rig.launch("chat-compaction", true).await;

    send(&app, &long).await;
    assistant_says(&app, "Ack: a long text.").await;
    idle(&app).await;
    let percent = app
        .wait_for(
            "the gauge to show the long text",
            "const g = document.querySelector('[data-testid=context-gauge]');\
             return g && Number(g.dataset.percent) >= 30 ? g.dataset.level : null;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(percent, "full", "past the threshold, the gauge says so");
    let meter = app
        .eval(
            "const m = document.querySelector('[role=meter]');\
             return [m.getAttribute('aria-valuetext'), m.getAttribute('aria-label')];",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        meter[0]
            .as_str()
            .unwrap()
            .contains("% of the context window used"),
        "{meter}"
    );
    app.screenshot("gauge-full").await.unwrap();

    // The next message compacts first: the summary shows, the earlier messages fold above it.
    send(&app, "what next?").await;
    assistant_says(&app, "Continuing from the notes.").await;
    idle(&app).await;
    let summary = app
        .eval(
            "return document.querySelector('[data-testid=summary-message]')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(summary.as_str().unwrap().contains("NOTES-E2E"), "{summary}");
    let folded = app
        .eval(
            "const d = document.querySelector('[data-testid=earlier-messages]');\
             return [d.querySelector('summary').textContent, d.open];",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(folded, json!(["Earlier messages (2)", false]));
    app.screenshot("compacted").await.unwrap();
    app.quit().await.unwrap();
    rig.verify();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_block_is_highlighted_and_copyable() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![Turn::text(
        "Here it is:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nDone.",
    )])
    .await;
    let mut app = rig.launch("chat-highlight", true).await;
    send(&app, "show me main").await;
    assistant_says(&app, "Done.").await;
    idle(&app).await;
    let keyword = app
        .wait_for(
            "the code block to be highlighted",
            "return document.querySelector('[data-role=assistant] pre code .hljs-keyword')?.textContent ?? null;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(keyword, "fn");
    let colour = app
        .eval(
            "const k = document.querySelector('[data-role=assistant] pre code .hljs-keyword');\
             const c = k.closest('code');\
             return getComputedStyle(k).color !== getComputedStyle(c).color;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(colour, true, "the keyword has its own colour");
    let label = app
        .eval(
            "return document.querySelector('[data-testid=copy-code]').getAttribute('aria-label');",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(label, "Copy code");
    app.click("[data-testid=copy-code]").await.unwrap();
    app.wait_for(
        "the copy button to say it copied",
        "return document.querySelector('[data-testid=copy-code]')?.textContent === 'Copied' || null;",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("copied").await.unwrap();
    app.quit().await.unwrap();
    rig.verify();
}
