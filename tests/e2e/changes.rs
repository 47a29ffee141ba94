//! Checkpoints in the real window: a turn edits two files and runs a command that creates a
//! third; the Changes panel lists the three; one hunk is reverted, then the whole turn (and the
//! revert undone); a file the user edited by hand is reported as a conflict instead of being
//! overwritten; "Edit and resend" takes the files and the transcript back and sends the edited
//! message.

use serde_json::json;

use gantry_scripted_provider::{ToolCall, Turn};
use gantry_tools::Policy;

use crate::app::App;
use crate::chat::{ChatRig, assistant_says, idle, send};
use crate::{SERIAL, enabled};

/// The notes file the turn edits in two places far apart (two hunks).
fn notes() -> String {
    (1..=40).map(|n| format!("note {n}\n")).collect()
}

fn edited_notes() -> String {
    notes()
        .replace("note 2\n", "note two\n")
        .replace("note 38\n", "note thirty-eight\n")
}

fn read(rig: &ChatRig, path: &str) -> Option<String> {
    std::fs::read_to_string(rig.root().join(path)).ok()
}

/// The paths the Changes panel lists, in order.
async fn listed(app: &App) -> Vec<String> {
    serde_json::from_value(
        app.eval(
            "return [...document.querySelectorAll('[data-testid=changes-panel] [data-testid=change-files] > [data-testid=change-file]')].map(e => e.dataset.path);",
            json!([]),
        )
        .await
        .unwrap(),
    )
    .unwrap()
}

/// Waits until the panel lists exactly `paths`.
async fn wait_listed(app: &App, paths: &[&str]) {
    app.wait_for(
        &format!("the Changes panel to list {paths:?}"),
        "return JSON.stringify([...document.querySelectorAll('[data-testid=changes-panel] [data-testid=change-files] > [data-testid=change-file]')].map(e => e.dataset.path)) === arguments[0];",
        json!([serde_json::to_string(paths).unwrap()]),
    )
    .await
    .unwrap();
}

/// Scrolls the element `css` into the middle of its panel, then clicks it (WebKitWebDriver does
/// not scroll inside an overflowing dialog by itself).
pub(crate) async fn click(app: &App, css: &str) {
    app.wait_for_css(css).await.unwrap();
    app.eval(
        "document.querySelector(arguments[0]).scrollIntoView({block: 'center'});",
        json!([css]),
    )
    .await
    .unwrap();
    app.click(css).await.unwrap();
}

/// Waits until the file at `path` holds `text` (`None`: until it is gone).
async fn wait_file(rig: &ChatRig, path: &str, text: Option<&str>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while read(rig, path).as_deref() != text {
        assert!(
            std::time::Instant::now() < deadline,
            "{path} is {:?}, not {text:?}",
            read(rig, path)
        );
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

#[tokio::test]
async fn a_turns_changes_are_listed_reverted_by_hunk_and_turn_and_rewound() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::tool_calls(vec![
            ToolCall::new(
                "call_write",
                "write_file",
                json!({"path": "notes.txt", "content": edited_notes()}),
            ),
            ToolCall::new(
                "call_edit",
                "edit_file",
                json!({"path": "src/lib.rs", "old_string": "pub mod util;", "new_string": "pub mod util;\npub mod extra;"}),
            ),
            ToolCall::new(
                "call_command",
                "run_command",
                json!({"command": "cp docs/guide.md made.md"}),
            ),
        ]),
        Turn::text("Done: notes, lib and a copy of the guide."),
        Turn::tool_calls(vec![ToolCall::new(
            "call_small",
            "write_file",
            json!({"path": "notes.txt", "content": "just one note\n"}),
        )]),
        Turn::text("Smaller this time."),
    ])
    .await;
    std::fs::write(rig.root().join("notes.txt"), notes()).unwrap();
    let lib = read(&rig, "src/lib.rs").unwrap();
    {
        let store = rig.store().await;
        let project = store.projects().open(rig.root()).await.unwrap();
        let mut policies = store.policies().load(project.id).await.unwrap();
        for tool in ["write_file", "edit_file", "run_command"] {
            policies.set(tool, Policy::Auto);
        }
        store.policies().save(project.id, &policies).await.unwrap();
    }
    let mut app = rig.launch("changes", true).await;
    send(&app, "change the project").await;
    assistant_says(&app, "Done: notes").await;
    idle(&app).await;
    assert_eq!(read(&rig, "notes.txt").unwrap(), edited_notes());
    assert_eq!(read(&rig, "made.md").unwrap(), "# Guide\n");

    // The panel lists the three files the turn changed.
    app.wait_for(
        "the Changes button to count three files",
        "return document.querySelector('[data-testid=changes-open]')?.dataset.count === '3';",
        json!([]),
    )
    .await
    .unwrap();
    click(&app, "[data-testid=changes-open]").await;
    wait_listed(&app, &["made.md", "notes.txt", "src/lib.rs"]).await;
    app.eval(
        "document.querySelectorAll('[data-testid=change-file] details').forEach(d => { d.open = true; });",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("three-files").await.unwrap();

    // Revert the second hunk of the notes: the first change stays.
    click(&app, "[data-testid=change-file][data-path='notes.txt'] [data-testid=change-hunk][data-index='1'] [data-testid=revert-hunk]").await;
    let one_hunk = notes().replace("note 2\n", "note two\n");
    wait_file(&rig, "notes.txt", Some(&one_hunk)).await;
    app.wait_for_css("[data-testid=changes-done]")
        .await
        .unwrap();
    app.screenshot("hunk-reverted").await.unwrap();

    // Revert the whole turn: every file as it was, every card "reverted".
    click(&app, "[data-testid=changes-tab-turns]").await;
    click(
        &app,
        "[data-testid=change-turn][data-number='1'] [data-testid=revert-turn]",
    )
    .await;
    wait_file(&rig, "made.md", None).await;
    wait_file(&rig, "notes.txt", Some(&notes())).await;
    wait_file(&rig, "src/lib.rs", Some(&lib)).await;
    app.wait_for(
        "three tool cards marked reverted",
        "return document.querySelectorAll('[data-testid=tool-reverted]').length === 3;",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("turn-reverted").await.unwrap();

    // Undo that revert: the turn's files come back (the hunk revert stays).
    click(&app, "[data-testid=changes-undo]").await;
    wait_file(&rig, "notes.txt", Some(&one_hunk)).await;
    wait_file(&rig, "made.md", Some("# Guide\n")).await;
    app.wait_for(
        "no card marked reverted",
        "return document.querySelectorAll('[data-testid=tool-reverted]').length === 0;",
        json!([]),
    )
    .await
    .unwrap();

    // The user edits the notes by hand: reverting them reports the conflict, writes nothing.
    std::fs::write(rig.root().join("notes.txt"), "my own notes\n").unwrap();
    click(&app, "[data-testid=changes-tab-session]").await;
    click(
        &app,
        "[data-testid=change-file][data-path='notes.txt'] [data-testid=revert-file]",
    )
    .await;
    app.wait_for_css(
        "[data-testid=conflict-file][data-path='notes.txt'][data-reason='edited_since']",
    )
    .await
    .unwrap();
    app.screenshot("conflict").await.unwrap();
    assert_eq!(read(&rig, "notes.txt").unwrap(), "my own notes\n");
    click(&app, "[data-testid=conflict-cancel]").await;
    app.close_with_escape("changes-panel").await.unwrap();

    // Edit and resend from the first message: the same conflict is asked about in the chat;
    // overwriting rewinds the files and the transcript, and the edited message is sent.
    click(
        &app,
        "[data-testid=user-message][data-user-index='0'] [data-testid=edit-message]",
    )
    .await;
    app.fill(
        "[data-testid=edit-message-input]",
        "change the project, but smaller",
    )
    .await
    .unwrap();
    click(&app, "[data-testid=edit-message-send]").await;
    app.wait_for_css(
        "[data-testid=user-message] [data-testid=conflict-file][data-path='notes.txt']",
    )
    .await
    .unwrap();
    app.screenshot("resend-conflict").await.unwrap();
    assert_eq!(read(&rig, "notes.txt").unwrap(), "my own notes\n");
    click(
        &app,
        "[data-testid=user-message] [data-testid=conflict-overwrite]",
    )
    .await;
    assistant_says(&app, "Smaller this time.").await;
    idle(&app).await;
    assert_eq!(read(&rig, "notes.txt").unwrap(), "just one note\n");
    assert_eq!(read(&rig, "made.md"), None);
    assert_eq!(read(&rig, "src/lib.rs").unwrap(), lib);
    let users = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=chat-message][data-role=user]')].map(e => e.textContent);",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(users, json!(["change the project, but smaller"]));
    assert!(
        !assistant_texts(&app)
            .await
            .iter()
            .any(|text| text.contains("Done: notes")),
        "the old answer left the transcript"
    );
    app.wait_for_css("[data-testid=message-versions]")
        .await
        .unwrap();
    app.screenshot("resent").await.unwrap();
    let changes = {
        click(&app, "[data-testid=changes-open]").await;
        wait_listed(&app, &["notes.txt"]).await;
        listed(&app).await
    };
    assert_eq!(changes, ["notes.txt"]);
    rig.verify();
    app.quit().await.unwrap();
}

async fn assistant_texts(app: &App) -> Vec<String> {
    serde_json::from_value(
        app.eval(
            "return [...document.querySelectorAll('[data-testid=chat-message][data-role=assistant]')].map(e => e.textContent);",
            json!([]),
        )
        .await
        .unwrap(),
    )
    .unwrap()
}
