//! The window's language and its progress lines: the UI reads in Simplified Chinese when the
//! system's language is Chinese, switches to English from Settings at once and remembers that
//! across a restart; and a running turn says what it waits for (the model, with the seconds, or
//! the user's approval).

use serde_json::{Value, json};

use gantry_scripted_provider::Turn;

use crate::app::App;
use crate::chat::{ChatRig, idle, send, write_call};
use crate::fixture::Fixture;
use crate::{SERIAL, enabled};

/// A Chinese system, as `LANG` and `LANGUAGE` say it to GTK and WebKitGTK.
const CHINESE_SYSTEM: &[(&str, &str)] = &[("LANG", "zh_CN.UTF-8"), ("LANGUAGE", "zh_CN:zh")];

async fn text(app: &App, css: &str) -> String {
    let value = app
        .eval(
            "return document.querySelector(arguments[0])?.textContent.trim() ?? null;",
            json!([css]),
        )
        .await
        .unwrap();
    value.as_str().unwrap_or_default().to_owned()
}

async fn document_language(app: &App) -> Value {
    app.eval("return document.documentElement.lang;", json!([]))
        .await
        .unwrap()
}

/// Starts the app on the project `arg` on a Chinese system and waits for the chat.
async fn open_on_a_chinese_system(scenario: &str, arg: &str, data: &std::path::Path) -> App {
    let app = App::launch_with_env(scenario, &[arg], data, false, CHINESE_SYSTEM)
        .await
        .unwrap();
    app.wait_for_css("[data-testid=chat-empty]").await.unwrap();
    app
}

/// Opens the Settings dialog.
async fn open_settings(app: &App) {
    app.click("[data-testid=settings-open]:not([disabled])")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=settings-language]")
        .await
        .unwrap();
}

/// Opens a panel with its title-bar button, waits for it, screenshots it, and closes it with Esc.
async fn look_at_panel(app: &mut App, button: &str, panel: &str, label: &str) -> String {
    app.click(&format!("[data-testid={button}]")).await.unwrap();
    app.wait_for_css(&format!("[data-testid={panel}]"))
        .await
        .unwrap();
    let title = text(app, &format!("[data-testid={panel}] h2")).await;
    app.screenshot(label).await.unwrap();
    app.close_with_escape(panel).await.unwrap();
    title
}

/// Chooses `value` in the open Settings dialog's language control.
async fn choose_language(app: &App, value: &str) {
    app.eval(
        "const select = document.querySelector('[data-testid=settings-language]');\
         select.value = arguments[0];\
         select.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([value]),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn the_window_speaks_chinese_on_a_chinese_system_and_english_once_chosen() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let data = crate::fixture::data_dir();
    let scenario = "language";

    // The welcome screen first: the system's language, nothing chosen.
    let mut app = App::launch_with_env(scenario, &[], data.path(), true, CHINESE_SYSTEM)
        .await
        .unwrap();
    app.wait_for_css("[data-testid=welcome]").await.unwrap();
    assert_eq!(document_language(&app).await, "zh-CN");
    assert_eq!(
        text(&app, "[data-testid=open-folder]").await,
        "打开项目文件夹…"
    );
    app.screenshot("welcome-zh").await.unwrap();
    app.quit().await.unwrap();

    // A project: the title bar, the chat's empty state and the tree in Chinese.
    let arg = fixture.arg();
    let mut app = open_on_a_chinese_system(scenario, &arg, data.path()).await;
    assert_eq!(text(&app, "[data-testid=tools-open]").await, "工具");
    assert_eq!(text(&app, "[data-testid=chat-empty] h2").await, "新对话");
    app.wait_for_css("[data-testid=tree][data-watching=true] [data-path]")
        .await
        .unwrap();
    app.screenshot("project-zh").await.unwrap();
    assert_eq!(
        look_at_panel(&mut app, "tools-open", "tools-panel", "tools-zh").await,
        "工具"
    );
    assert!(
        look_at_panel(&mut app, "audit-open", "audit-view", "audit-zh")
            .await
            .contains("审计"),
    );
    assert_eq!(
        look_at_panel(&mut app, "mcp-open", "mcp-panel", "mcp-zh").await,
        "MCP 服务器"
    );

    // Chosen in Settings: English at once, the dialog included.
    open_settings(&app).await;
    app.screenshot("settings-zh").await.unwrap();
    choose_language(&app, "en").await;
    app.wait_for(
        "the title bar in English",
        "return document.querySelector('[data-testid=tools-open]')?.textContent.trim() === 'Tools';",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(document_language(&app).await, "en");
    assert_eq!(text(&app, "[data-testid=settings-save]").await, "Save");
    app.screenshot("settings-english-chosen").await.unwrap();
    let store = gantry_store::Store::open(data.path().join(gantry_store::DATABASE_FILE))
        .await
        .unwrap();
    crate::app::wait_for_setting(&store, "ui.language", "the choice to be kept", |text| {
        text == "en"
    })
    .await;
    app.quit().await.unwrap();

    // Remembered: still English after a restart on the same Chinese system.
    let mut app = open_on_a_chinese_system(scenario, &arg, data.path()).await;
    assert_eq!(text(&app, "[data-testid=chat-empty] h2").await, "New chat");
    assert_eq!(document_language(&app).await, "en");

    // "System" again: back to Chinese.
    open_settings(&app).await;
    choose_language(&app, "system").await;
    app.wait_for(
        "the title bar in Chinese again",
        "return document.querySelector('[data-testid=tools-open]')?.textContent.trim() === '工具';",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("system-again").await.unwrap();
    app.quit().await.unwrap();
}

#[tokio::test]
async fn a_running_turn_says_what_it_waits_for() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    // The model takes three seconds to say anything, then asks to write a file.
    let slow: Turn = serde_json::from_value(json!({
        "reply": {"type": "completion", "events": [
            {"delay_ms": 3000},
            {"text": "Thought about it."}
        ]}
    }))
    .unwrap();
    let rig = ChatRig::new(vec![
        slow,
        write_call("call_p1", "progress.txt", "done\n"),
        Turn::text("Left it alone."),
    ])
    .await;
    let mut app = rig.launch("turn-progress", true).await;

    send(&app, "take your time").await;
    let waiting = app
        .wait_for(
            "the turn line to count the seconds spent waiting for the model",
            "const line = document.querySelector('[data-testid=turn-activity]');\
             const elapsed = document.querySelector('[data-testid=turn-elapsed]');\
             return line?.dataset.activity === 'waiting_for_model' && elapsed\
               ? line.textContent.trim() + ' ' + elapsed.textContent.trim() : null;",
            json!([]),
        )
        .await
        .unwrap();
    let waiting = waiting.as_str().unwrap();
    assert!(
        waiting.starts_with("Waiting for the model… · ") && waiting.ends_with(" s"),
        "{waiting}"
    );
    app.screenshot("waiting-for-the-model").await.unwrap();
    idle(&app).await;

    send(&app, "write progress.txt").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    assert_eq!(
        text(&app, "[data-testid=turn-activity]").await,
        "Waiting for your approval of write_file"
    );
    app.screenshot("waiting-for-approval").await.unwrap();
    app.click("[data-testid=deny]").await.unwrap();
    idle(&app).await;
    assert!(!rig.root().join("progress.txt").exists());
    rig.verify();
    app.quit().await.unwrap();
}
