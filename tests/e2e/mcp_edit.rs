//! Changing MCP servers in the panel: a server added through the form connects and its tools
//! appear; a syntax error typed in the JSON tab shows with its line and leaves the file alone;
//! Disable stops a server in this project only (and survives a restart of the app); and Import
//! from Claude Desktop copies the chosen servers from Claude's configuration.

use std::path::Path;

use gantry_store::Store;
use serde_json::{Value, json};

use crate::app::App;
use crate::fixture::Fixture;
use crate::mcp::{npm_server, server_state, write_json};
use crate::scenarios::invoke;
use crate::{SERIAL, enabled};

/// The text of the element matching `css`, once it has some containing `part`.
async fn text_with(app: &App, css: &str, part: &str) -> String {
    let value = app
        .wait_for(
            &format!("{css} to say {part}"),
            "const text = document.querySelector(arguments[0])?.textContent ?? '';\
             return text.includes(arguments[1]) ? text : null;",
            json!([css, part]),
        )
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

/// The names of the project's tools, as the backend lists them.
async fn tool_names(app: &App) -> Vec<String> {
    let tools = invoke(app, "list_tools", json!({})).await;
    tools["ok"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

async fn open_mcp(app: &App) {
    app.click("[data-testid=mcp-open]").await.unwrap();
    app.wait_for_css("[data-testid=mcp-panel]").await.unwrap();
}

async fn close_mcp(app: &App) {
    app.close_with_escape("mcp-panel").await.unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn mcp_servers_are_added_edited_switched_off_per_project_and_imported() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let project = Fixture::new();
    let other = Fixture::new();
    let data = crate::fixture::data_dir();
    // The second project was opened before, so the welcome screen lists it.
    let store = Store::open(data.path().join(gantry_store::DATABASE_FILE))
        .await
        .unwrap();
    store.projects().open(&other.root).await.unwrap();
    store.close().await;
    let user_file = data.path().join("config/gantry/mcp.json");
    let everything = npm_server("server-everything");
    let filesystem = npm_server("server-filesystem");
    // Claude Desktop's configuration, with a key of Claude's own.
    let claude_entry = json!({"command": "node", "args": [filesystem, other.root]});
    write_json(
        &data.path().join("config/Claude/claude_desktop_config.json"),
        &json!({
            "globalShortcut": "Ctrl+Alt+Space",
            "mcpServers": {"claude-files": claude_entry}
        }),
    );

    let scenario = "mcp-edit";
    let arg = project.arg();
    let mut app = App::launch_with_data(scenario, &[arg.as_str()], data.path(), true)
        .await
        .unwrap();
    open_mcp(&app).await;
    let empty = text_with(&app, "[data-testid=mcp-empty]", "No MCP servers yet").await;
    assert!(empty.contains("Import from Claude Desktop"), "{empty}");
    app.screenshot("no-servers-yet").await.unwrap();

    // Add a server through the form.
    app.click("[data-testid=mcp-add]").await.unwrap();
    app.fill("[data-testid=mcp-form-name]", "everything")
        .await
        .unwrap();
    app.fill("[data-testid=mcp-form-command]", "node")
        .await
        .unwrap();
    app.fill(
        "[data-testid=mcp-form-args]",
        &format!("{}\nstdio", everything.display()),
    )
    .await
    .unwrap();
    app.fill("[data-testid=mcp-form-env]", "GREETING=hello")
        .await
        .unwrap();
    app.screenshot("add-server-form").await.unwrap();
    app.click("[data-testid=mcp-save]").await.unwrap();
    server_state(&app, "everything", "connected").await;
    assert_eq!(
        read_json(&user_file),
        json!({"mcpServers": {"everything": {
            "command": "node",
            "args": [everything, "stdio"],
            "env": {"GREETING": "hello"}
        }}})
    );
    let tools = tool_names(&app).await;
    assert!(
        tools.iter().any(|name| name == "mcp__everything__echo"),
        "{tools:?}"
    );
    app.screenshot("added-and-connected").await.unwrap();

    // Edit it as JSON with a syntax error: the error names the line; the file is untouched.
    let before = std::fs::read(&user_file).unwrap();
    app.click("[data-testid=mcp-server][data-name=everything] [data-testid=mcp-edit]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=mcp-editor][data-tab=form]")
        .await
        .unwrap();
    app.click("[data-testid=mcp-tab-json]").await.unwrap();
    app.wait_for_css("[data-testid=mcp-editor][data-tab=json]")
        .await
        .unwrap();
    let json_text = app
        .eval(
            "return document.querySelector('[data-testid=mcp-json]').value;",
            json!([]),
        )
        .await
        .unwrap();
    let json_text = json_text.as_str().unwrap();
    assert!(json_text.contains("\"command\": \"node\""), "{json_text}");
    let broken = json_text.replace("\"command\": \"node\"", "\"command\" \"node\"");
    let broken_line = broken
        .lines()
        .position(|line| line.contains("\"command\" \"node\""))
        .unwrap()
        + 1;
    app.fill("[data-testid=mcp-json]", &broken).await.unwrap();
    app.click("[data-testid=mcp-save]").await.unwrap();
    let error = text_with(&app, "[data-testid=mcp-editor-error]", "pasted JSON").await;
    assert!(
        error.starts_with(&format!("MCP config pasted JSON:{broken_line}:")),
        "the error names the line ({broken_line}): {error}"
    );
    assert!(error.contains("not valid JSON"), "{error}");
    // The editor stays open with the text as typed.
    let kept = app
        .eval(
            "return document.querySelector('[data-testid=mcp-json]').value;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(kept.as_str(), Some(broken.as_str()));
    assert_eq!(std::fs::read(&user_file).unwrap(), before);
    app.screenshot("json-syntax-error").await.unwrap();
    app.click("[data-testid=mcp-cancel]").await.unwrap();

    // Disable it in this project: stopped, its tools leave the Tools panel.
    app.click("[data-testid=mcp-server][data-name=everything] [data-testid=mcp-toggle][data-action=disable]")
        .await
        .unwrap();
    server_state(&app, "everything", "disabled").await;
    text_with(
        &app,
        "[data-testid=mcp-server][data-name=everything]",
        "disabled in this project",
    )
    .await;
    app.screenshot("disabled-in-this-project").await.unwrap();
    close_mcp(&app).await;
    app.click("[data-testid=tools-open]").await.unwrap();
    app.wait_for_css("[data-testid=tools-panel] [data-testid=tool-row][data-tool=read_file]")
        .await
        .unwrap();
    let rows = app
        .eval(
            "return document.querySelectorAll('[data-testid=tool-row][data-tool^=mcp__everything__]').length;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(rows, json!(0), "the disabled server's tools are gone");
    assert!(
        !tool_names(&app)
            .await
            .iter()
            .any(|name| name.starts_with("mcp__everything__")),
    );
    // The user's file is not the place for a per-project choice.
    assert_eq!(std::fs::read(&user_file).unwrap(), before);
    app.quit().await.unwrap();

    // After a restart the project still has it off.
    let mut app = App::launch_with_data(scenario, &[arg.as_str()], data.path(), false)
        .await
        .unwrap();
    open_mcp(&app).await;
    server_state(&app, "everything", "disabled").await;
    app.screenshot("still-disabled-after-restart")
        .await
        .unwrap();
    close_mcp(&app).await;

    // The other project starts it.
    app.switch_to_recent(&other.arg()).await.unwrap();
    open_mcp(&app).await;
    server_state(&app, "everything", "connected").await;
    app.screenshot("other-project-starts-it").await.unwrap();

    // Import from Claude Desktop.
    app.click("[data-testid=mcp-import-open]").await.unwrap();
    app.wait_for_css("[data-testid=mcp-import-server][data-name=claude-files] input:checked")
        .await
        .unwrap();
    let intro = text_with(
        &app,
        "[data-testid=mcp-import]",
        "claude_desktop_config.json",
    )
    .await;
    assert!(intro.contains("config/gantry/mcp.json"), "{intro}");
    app.screenshot("import-from-claude-desktop").await.unwrap();
    app.click("[data-testid=mcp-import-submit]").await.unwrap();
    server_state(&app, "claude-files", "connected").await;
    server_state(&app, "everything", "connected").await;
    let file = read_json(&user_file);
    assert_eq!(file["mcpServers"]["claude-files"], claude_entry);
    assert!(file.get("globalShortcut").is_none(), "{file}");
    assert_eq!(
        file["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["everything", "claude-files"]
    );
    app.screenshot("imported-and-connected").await.unwrap();
    app.quit().await.unwrap();
}
