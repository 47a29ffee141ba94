//! Applying a configuration change: unchanged servers keep running, changed ones restart,
//! removed ones stop, and servers switched off for the project stay off.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use gantry_mcp::{HubSettings, McpHub, MemoryTrust, ServerState};
use gantry_tools::ToolManager;
use serde_json::{Value, json};

use super::support::*;

fn settings(user_file: &Path, disabled: &[&str]) -> HubSettings {
    let mut settings = HubSettings::new(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(user_file.to_owned());
    settings.options = fast_options();
    settings.disabled_servers = disabled.iter().map(|name| (*name).to_owned()).collect();
    settings
}

fn write(path: &Path, servers: Value) {
    std::fs::write(
        path,
        serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap(),
    )
    .unwrap();
}

fn server(args: &[&str]) -> Value {
    json!({"command": test_server(), "args": args})
}

fn pid(hub: &McpHub, name: &str) -> u32 {
    hub.server(name)
        .unwrap()
        .status()
        .pid
        .unwrap_or_else(|| panic!("{name} has no pid"))
}

fn has_tool(manager: &ToolManager, name: &str) -> bool {
    manager.get(name).is_some()
}

async fn all_connected(hub: &McpHub, names: &[&str]) {
    for name in names {
        connected(hub.server(name).unwrap()).await;
    }
}

#[tokio::test]
async fn a_reload_keeps_unchanged_servers_running_and_restarts_changed_ones() {
    let (dir, manager) = manager();
    let file = dir.path().join("mcp.json");
    write(
        &file,
        json!({
            "same": server(&["--same"]),
            "changed": server(&["--before"]),
            "removed": server(&[]),
            "toggled": server(&[]),
        }),
    );
    let hub = McpHub::start(Arc::clone(&manager), settings(&file, &[]))
        .await
        .unwrap();
    all_connected(&hub, &["same", "changed", "removed", "toggled"]).await;
    let (same, changed, removed, toggled) = (
        pid(&hub, "same"),
        pid(&hub, "changed"),
        pid(&hub, "removed"),
        pid(&hub, "toggled"),
    );

    write(
        &file,
        json!({
            "same": server(&["--same"]),
            "changed": server(&["--after"]),
            "toggled": server(&[]),
            "added": server(&[]),
        }),
    );
    let reloaded = hub.reload(settings(&file, &["toggled"])).await.unwrap();
    // The unchanged server never stopped: same process, tools registered all along.
    let status = reloaded.server("same").unwrap().status();
    assert_eq!(status.state, ServerState::Connected);
    assert_eq!(status.pid, Some(same));
    assert!(alive(same));
    assert!(has_tool(&manager, "mcp__same__echo"));
    // Removed and switched-off servers are gone with their tools, their processes reaped.
    assert!(reloaded.server("removed").is_none());
    assert!(!has_tool(&manager, "mcp__removed__echo"));
    assert!(reaped(removed), "the removed server's process is gone");
    let status = reloaded.server("toggled").unwrap().status();
    assert_eq!(status.state, ServerState::Disabled);
    assert_eq!(status.pid, None);
    assert!(!has_tool(&manager, "mcp__toggled__echo"));
    assert!(reaped(toggled));
    assert_eq!(
        reloaded.disabled_here(),
        &BTreeSet::from(["toggled".to_owned()])
    );
    // The changed one is a new process; the added one starts.
    all_connected(&reloaded, &["changed", "added"]).await;
    assert_ne!(pid(&reloaded, "changed"), changed);
    assert!(reaped(changed));
    assert!(has_tool(&manager, "mcp__changed__echo"));
    assert!(has_tool(&manager, "mcp__added__echo"));
    let names: Vec<String> = reloaded.statuses().into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["same", "changed", "toggled", "added"]);

    // The old hub handed its servers over: shutting it down stops nothing.
    hub.shutdown().await;
    drop(hub);
    assert!(alive(same));
    assert_eq!(
        reloaded.server("same").unwrap().status().state,
        ServerState::Connected
    );

    // A file that no longer parses: the error, and the running hub stays as it was.
    std::fs::write(&file, "{\"mcpServers\": {\"same\": {\"command\": 1}}}").unwrap();
    let error = reloaded.reload(settings(&file, &[])).await.unwrap_err();
    assert!(
        error.to_string().contains("key 'mcpServers.same.command'"),
        "{error}"
    );
    assert_eq!(pid(&reloaded, "same"), same);
    assert!(has_tool(&manager, "mcp__added__echo"));

    // Switched on again: it starts, and the others still don't move.
    write(
        &file,
        json!({
            "same": server(&["--same"]),
            "changed": server(&["--after"]),
            "toggled": server(&[]),
            "added": server(&[]),
        }),
    );
    let added = pid(&reloaded, "added");
    let again = reloaded.reload(settings(&file, &[])).await.unwrap();
    connected(again.server("toggled").unwrap()).await;
    assert!(has_tool(&manager, "mcp__toggled__echo"));
    assert_eq!(pid(&again, "same"), same);
    assert_eq!(pid(&again, "added"), added);

    let pids: Vec<u32> = again.statuses().iter().filter_map(|s| s.pid).collect();
    assert_eq!(pids.len(), 4);
    again.shutdown().await;
    for pid in pids {
        assert!(reaped(pid), "{pid} outlived the shutdown");
    }
    assert!(
        manager
            .tool_names()
            .iter()
            .all(|name| !name.starts_with("mcp__")),
        "{:?}",
        manager.tool_names()
    );
}

#[tokio::test]
async fn servers_switched_off_for_the_project_never_start() {
    let (dir, manager) = manager();
    let file = dir.path().join("mcp.json");
    write(&file, json!({"on": server(&[]), "off": server(&[])}));
    let hub = McpHub::start(Arc::clone(&manager), settings(&file, &["off"]))
        .await
        .unwrap();
    hub.wait_started(WAIT).await;
    assert_eq!(
        hub.server("on").unwrap().status().state,
        ServerState::Connected
    );
    let off = hub.server("off").unwrap().status();
    assert_eq!(off.state, ServerState::Disabled);
    assert_eq!(off.pid, None);
    assert!(off.tools.is_empty());
    assert!(!has_tool(&manager, "mcp__off__echo"));
    // Restart leaves it off.
    hub.restart("off").unwrap();
    assert_eq!(
        hub.server("off").unwrap().status().state,
        ServerState::Disabled
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn an_approval_survives_a_reload_and_a_changed_project_file_waits_again() {
    let (project, manager) = manager();
    let project_file = project.path().join(".mcp.json");
    write(&project_file, json!({"proj": server(&["--one"])}));
    let mut first = settings(&project.path().join("none.json"), &[]);
    first.project_root = Some(project.path().to_owned());
    let hub = McpHub::start(Arc::clone(&manager), first.clone())
        .await
        .unwrap();
    assert_eq!(
        hub.server("proj").unwrap().status().state,
        ServerState::Untrusted
    );
    hub.approve_project().await.unwrap();
    connected(hub.server("proj").unwrap()).await;
    let approved = pid(&hub, "proj");

    // Same file, same approval (the settings share the trust store): kept running.
    let again = hub.reload(first.clone()).await.unwrap();
    assert_eq!(pid(&again, "proj"), approved);

    // The file changed: its approval no longer holds, so the server stops and waits.
    write(&project_file, json!({"proj": server(&["--two"])}));
    let changed = again.reload(first).await.unwrap();
    assert_eq!(
        changed.server("proj").unwrap().status().state,
        ServerState::Untrusted
    );
    assert!(reaped(approved));
    changed.shutdown().await;
}
