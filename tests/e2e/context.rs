//! Putting context into a message, on the real window: a file mentioned with `@` (completed
//! from the engine's index, accepted with Enter) reaches the model as read_file shows it, a
//! pasted PNG reaches it as an `image_url` part, and a project command expands before sending.
//! The scripted provider checks each request.

use gantry_scripted_provider::{Expect, Turn};
use serde_json::{Value, json};

use crate::chat::{ChatRig, assistant_says, idle, send};
use crate::{SERIAL, enabled};

/// A 2×2 red PNG.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==";

/// The last user message of the last chat request the provider received.
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
    app.eval(
        "const input = document.querySelector('[data-testid=chat-input]');\
         input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true}));",
        json!([]),
    )
    .await
    .unwrap();
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
    rig.verify();
    app.quit().await.unwrap();
}
