//! Putting context into a message, on the real window: a file mentioned with `@` (completed
//! from the engine's index, accepted with Enter) reaches the model as read_file shows it, a
//! pasted PNG reaches it as an `image_url` part, and a project command expands before sending;
//! the open list passes axe and works from the keyboard, and a resent or retried message keeps
//! what it attached.
//! The scripted provider checks each request.

use gantry_scripted_provider::{Expect, Turn};
use serde_json::{Value, json};

use crate::a11y::check_page;
use crate::app::App;
use crate::changes::click;
use crate::chat::{ChatRig, assistant_says, idle, send};
use crate::webdriver::Key;
use crate::{SERIAL, enabled};

/// A 2×2 red PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

/// The last user message of the last chat request the provider received.
/// Puts `text` in the open edit box and sends it.
async fn edit_and_send(app: &App, text: &str) {
    app.fill("[data-testid=edit-message-input]", text)
        .await
        .unwrap();
    click(app, "[data-testid=edit-message-send]").await;
}

fn last_user_message(rig: &ChatRig) -> Value {
    let requests = rig.provider.chat_requests();
    let body = requests
        .last()
        .and_then(|request| request.body.clone())
        .unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn mentions_images_and_project_commands_reach_the_model() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::text("It prints an image tag.").expect(
            Expect::new()
                .last_contains("what does this print?")
                .last_contains("[file: src/main.rs | lines 1-4/4]")
                .last_contains("3:     println!"),
        ),
        Turn::text("A red square.").expect(Expect::new().last_contains("what colour is it?")),
        Turn::text("Reviewed.").expect(Expect::new().last_contains("Review src/lib.rs for bugs.")),
        Turn::text("Still an image tag.").expect(
            Expect::new()
                .last_contains("what does it print now?")
                .last_contains("[file: src/main.rs | lines 1-4/4]"),
        ),
        Turn::text("Retried.").expect(
            Expect::new()
                .last_contains("what does it print now?")
                .last_contains("[file: src/main.rs | lines 1-4/4]"),
        ),
        Turn::text("Without the file.").expect(Expect::new().last_contains("no file this time")),
    ])
    .await;
    let commands = rig.root().join(".gantry/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "# Review a file\n\nReview $ARGUMENTS for bugs.\n",
    )
    .unwrap();
    let mut app = rig.launch("chat-context", true).await;

    // 1. @ completes from the project's index (asked again until the first walk is done).
    app.wait_for(
        "src/main.rs offered after @main",
        "const input = document.querySelector('[data-testid=chat-input]');\
         if (input.value !== '@main') { input.focus(); input.value = '@main'; input.setSelectionRange(5, 5); }\
         input.dispatchEvent(new Event('input', {bubbles: true}));\
         return document.querySelector(\"[role=listbox] [role=option][data-value='src/main.rs']\") !== null;",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("mention-completion").await.unwrap();
    // The open list reads to assistive technology (axe: WCAG A/AA) and works from the keyboard:
    // real key presses move the highlight, Esc closes it keeping the text, typing opens it again
    // and Enter takes the highlighted file.
    let findings = check_page(&app).await;
    assert!(
        findings.contrast.is_empty() && findings.other.is_empty(),
        "the completion list: {findings:?}"
    );
    let highlighted = "const input = document.querySelector('[data-testid=chat-input]');\
         const id = input.getAttribute('aria-activedescendant');\
         return id === null ? null : document.getElementById(id)?.dataset.value ?? 'missing';";
    let first = app.eval(highlighted, json!([])).await.unwrap();
    assert_eq!(first, "src/main.rs");
    let offered = app
        .eval(
            "return document.querySelectorAll('[data-testid=completion-option]').length;",
            json!([]),
        )
        .await
        .unwrap();
    app.press(&[Key::ARROW_DOWN]).await.unwrap();
    let second = app.eval(highlighted, json!([])).await.unwrap();
    if offered.as_u64().unwrap() > 1 {
        assert_ne!(second, first, "ArrowDown moves the highlight");
    }
    app.press(&[Key::ARROW_UP]).await.unwrap();
    assert_eq!(app.eval(highlighted, json!([])).await.unwrap(), first);
    app.press_escape().await.unwrap();
    app.wait_for(
        "Esc to close the list and keep the text",
        "return document.querySelector('[data-testid=completion-list]') === null\
             && document.querySelector('[data-testid=chat-input]').value === '@main';",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(app.focused().await.unwrap(), "chat-input");
    app.press(&[Key::BACKSPACE]).await.unwrap();
    app.type_text("n").await.unwrap();
    app.wait_for_css("[role=listbox] [role=option][aria-selected=true][data-value='src/main.rs']")
        .await
        .unwrap();
    app.press(&[Key::ENTER]).await.unwrap();
    app.wait_for_css("[data-testid=attach-chip][data-kind=mention]")
        .await
        .unwrap();
    send(&app, "what does this print?").await;
    assistant_says(&app, "image tag").await;
    idle(&app).await;
    app.wait_for_css("[data-testid=message-attachment][data-kind=file]")
        .await
        .unwrap();
    let user = last_user_message(&rig);
    assert!(user["content"].is_string(), "no image, plain text: {user}");

    // 2. A pasted PNG goes through prepare_image, shows as a chip, and is sent as an image part.
    app.eval(
        "const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));\
         const file = new File([bytes], 'red.png', {type: 'image/png'});\
         const paste = new Event('paste', {bubbles: true, cancelable: true});\
         Object.defineProperty(paste, 'clipboardData', {value: {files: [file]}});\
         document.querySelector('[data-testid=chat-input]').dispatchEvent(paste);",
        json!([PNG_BASE64]),
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=attach-chip][data-kind=image]")
        .await
        .unwrap();
    app.screenshot("image-chip").await.unwrap();
    send(&app, "what colour is it?").await;
    assistant_says(&app, "red square").await;
    idle(&app).await;
    let user = last_user_message(&rig);
    assert_eq!(user["content"][0]["type"], "text", "{user}");
    assert_eq!(user["content"][1]["type"], "image_url", "{user}");
    let url = user["content"][1]["image_url"]["url"].as_str().unwrap();
    assert_eq!(url, format!("data:image/png;base64,{PNG_BASE64}"));
    app.wait_for_css("[data-testid=message-attachment][data-kind=image] img")
        .await
        .unwrap();

    // 3. A project command expands with its arguments.
    send(&app, "/review src/lib.rs").await;
    assistant_says(&app, "Reviewed.").await;
    idle(&app).await;
    app.screenshot("command-expanded").await.unwrap();

    // 4. Edit and resend keeps what the message attached; Retry too; a chip removed while
    //    editing is not sent.
    click(
        &app,
        "[data-testid=user-message][data-user-index='0'] [data-testid=edit-message]",
    )
    .await;
    app.wait_for_css("[data-testid=edit-attachment][data-kind=file]")
        .await
        .unwrap();
    app.screenshot("edit-with-attachment").await.unwrap();
    edit_and_send(&app, "what does it print now?").await;
    assistant_says(&app, "Still an image tag.").await;
    idle(&app).await;
    app.wait_for_css("[data-testid=message-attachment][data-kind=file]")
        .await
        .unwrap();
    click(&app, "[data-testid=retry-turn]").await;
    assistant_says(&app, "Retried.").await;
    idle(&app).await;
    click(
        &app,
        "[data-testid=user-message][data-user-index='0'] [data-testid=edit-message]",
    )
    .await;
    click(&app, "[data-testid=edit-attachment-remove]").await;
    app.wait_for(
        "the removed chip to go",
        "return document.querySelector('[data-testid=edit-attachment]') === null;",
        json!([]),
    )
    .await
    .unwrap();
    edit_and_send(&app, "no file this time").await;
    assistant_says(&app, "Without the file.").await;
    idle(&app).await;
    let user = last_user_message(&rig);
    assert!(!user.to_string().contains("[file:"), "{user}");
    rig.verify();
    app.quit().await.unwrap();
}
