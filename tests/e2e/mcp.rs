//! The MCP servers panel with the official servers from the npm registry: a user-wide server
//! connects while a broken one shows "failed" with its stderr, a project `.mcp.json` waits for
//! the user's trust showing what it would run, Restart starts a server again, and closing the
//! app leaves no server process behind.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app::App;
use crate::fixture::Fixture;
use crate::scenarios::invoke;
use crate::{SERIAL, enabled};

/// The entry point of an official MCP server installed in tests/fixtures/mcp-servers.
pub(crate) fn npm_server(package: &str) -> PathBuf {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mcp-servers/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        entry.exists(),
        "{} is missing: run `npm ci --prefix tests/fixtures/mcp-servers` (scripts/test-all does)",
        entry.display()
    );
    entry
}

pub(crate) fn write_json(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// The panel as the backend reports it.
pub(crate) async fn panel(app: &App) -> Value {
    let answer = invoke(app, "mcp_servers", json!({})).await;
    answer["ok"].clone()
}

pub(crate) async fn server_state(app: &App, name: &str, state: &str) {
    app.wait_for_css(&format!(
        "[data-testid=mcp-server][data-name={name}][data-state={state}]"
    ))
    .await
    .unwrap();
}

fn alive(pid: u64) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::test]
async fn mcp_servers_connect_wait_for_trust_restart_and_stop_with_the_app() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let fixture = Fixture::new();
    let data = crate::fixture::data_dir();
    let everything = npm_server("server-everything");
    write_json(
        &data.path().join("config/gantry/mcp.json"),
        &json!({"mcpServers": {
            "everything": {"command": "node", "args": [everything, "stdio"]},
            // A server that cannot start: it says why on stderr and exits.
            "broken": {"command": "node", "args": [
                "-e", "console.error('boom: BROKEN_TOKEN is not set'); process.exit(1)"
            ]}
        }}),
    );
    let filesystem = npm_server("server-filesystem");
    write_json(
        &fixture.root.join(".mcp.json"),
        &json!({"mcpServers": {"files": {"command": "node", "args": [filesystem, "."]}}}),
    );
    let arg = fixture.arg();
    let mut app = App::launch_with_data("mcp-panel", &[arg.as_str()], data.path(), true)
        .await
        .unwrap();
    app.click("[data-testid=mcp-open]").await.unwrap();
    app.wait_for_css("[data-testid=mcp-panel]").await.unwrap();
    server_state(&app, "everything", "connected").await;
    server_state(&app, "files", "untrusted").await;
    // The broken one shows "failed" with its stderr, and does not stop the others.
    let stderr = app
        .wait_for(
            "the broken server failed with its stderr",
            "const server = document.querySelector('[data-testid=mcp-server][data-name=broken][data-state=failed]');\
             const text = server?.querySelector('[data-testid=mcp-stderr]')?.textContent ?? '';\
             return text.includes('boom') ? text : null;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        stderr.as_str().unwrap().contains("BROKEN_TOKEN is not set"),
        "{stderr}"
    );
    // The title bar's MCP button says so too, without opening the panel.
    app.wait_for_css("[data-testid=mcp-open][data-glance=failed]")
        .await
        .unwrap();
    app.screenshot("broken-server-failed").await.unwrap();
    let request = app
        .eval(
            "return document.querySelector('[data-testid=mcp-trust-request]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        request.as_str().unwrap().contains("server-filesystem"),
        "the trust step shows what would run: {request}"
    );
    let tools = invoke(&app, "list_tools", json!({})).await;
    let names: Vec<&str> = tools["ok"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&"mcp__everything__echo"), "{names:?}");
    assert!(
        !names.iter().any(|name| name.starts_with("mcp__files__")),
        "untrusted: {names:?}"
    );
    app.screenshot("untrusted-project-file").await.unwrap();

    // Trust: the project's server starts and its tools join.
    app.click("[data-testid=mcp-trust]").await.unwrap();
    server_state(&app, "files", "connected").await;
    let tools = invoke(&app, "list_tools", json!({})).await;
    assert!(
        tools["ok"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"]
                .as_str()
                .is_some_and(|name| name.starts_with("mcp__files__"))),
        "{tools}"
    );

    // Restart: a new process.
    let pid_of = |panel: &Value, name: &str| {
        panel["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|server| server["name"] == name)
            .and_then(|server| server["pid"].as_u64())
    };
    let before = pid_of(&panel(&app).await, "everything").expect("a running server has a pid");
    app.click("[data-testid=mcp-server][data-name=everything] [data-testid=mcp-restart]")
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let now = panel(&app).await;
        if let Some(pid) = pid_of(&now, "everything")
            && pid != before
            && now["servers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|server| server["name"] == "everything" && server["state"] == "connected")
        {
            break pid;
        }
        assert!(Instant::now() < deadline, "no restart: {now}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!alive(before), "the old process is gone");
    server_state(&app, "everything", "connected").await;
    app.screenshot("connected-after-trust-and-restart")
        .await
        .unwrap();
    let files = pid_of(&panel(&app).await, "files").unwrap();

    // Closing the app stops every server.
    app.quit().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(after) || alive(files) {
        assert!(
            Instant::now() < deadline,
            "MCP servers outlived the app (everything {after}: {}, files {files}: {})",
            alive(after),
            alive(files)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
