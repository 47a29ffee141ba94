//! Reading the files, and the gate on project files.

use std::sync::Arc;

use gantry_mcp::{
    ConfigError, HubSettings, McpHub, MemoryTrust, ProjectTrust, ServerState, TransportSummary,
};
use serde_json::json;

use super::support::*;

fn settings(trust: Arc<dyn ProjectTrust>) -> HubSettings {
    let mut settings = HubSettings::new(trust);
    settings.user_file = None;
    settings.options = fast_options();
    settings
}

fn write_json(path: &std::path::Path, value: &serde_json::Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

#[tokio::test]
async fn a_malformed_file_is_an_error_naming_file_line_and_key() {
    let (dir, manager) = manager();
    let file = dir.path().join("mcp.json");
    std::fs::write(
        &file,
        "{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"x\",\n      \"env\": [\"A=1\"]\n    }\n  }\n}\n",
    )
    .unwrap();
    let mut settings = settings(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(file.clone());
    let error = McpHub::start(manager, settings).await.unwrap_err();
    assert_eq!(
        error,
        ConfigError::Invalid {
            file: file.clone(),
            line: 5,
            key: "mcpServers.x.env".into(),
            message: "expected an object of strings".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "MCP config {}:5: key 'mcpServers.x.env': expected an object of strings",
            file.display()
        )
    );
}

#[tokio::test]
async fn user_servers_start_with_warnings_for_unknown_keys() {
    let (dir, manager) = manager();
    let file = dir.path().join("mcp.json");
    write_json(
        &file,
        &json!({"mcpServers": {
            "faulty": {"command": test_server(), "alwaysAllow": []},
            "off": {"command": test_server(), "disabled": true}
        }}),
    );
    let mut settings = settings(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(file);
    let hub = McpHub::start(Arc::clone(&manager), settings).await.unwrap();
    assert_eq!(hub.warnings().len(), 1);
    assert!(hub.warnings()[0].contains("unknown key 'alwaysAllow' ignored"));
    hub.wait_started(WAIT).await;
    let statuses = hub.statuses();
    assert_eq!(statuses[0].state, ServerState::Connected);
    assert_eq!(statuses[1].state, ServerState::Disabled);
    assert!(statuses[1].tools.is_empty());
    hub.shutdown().await;
    // A disabled server stays "disabled", never "stopped".
    assert_eq!(hub.statuses()[1].state, ServerState::Disabled);
}

#[tokio::test]
async fn project_servers_wait_for_approval_of_that_exact_file() {
    let (project, manager) = manager();
    let file = project.path().join(".mcp.json");
    write_json(
        &file,
        &json!({"mcpServers": {"proj": {"command": test_server(), "args": ["--flag-for-show"]}}}),
    );
    let trust = Arc::new(MemoryTrust::new());

    // Not approved: listed with its command, never started, no tools.
    let mut first = settings(trust.clone());
    first.project_root = Some(project.path().to_owned());
    let hub = McpHub::start(Arc::clone(&manager), first).await.unwrap();
    hub.wait_started(WAIT).await;
    let status = &hub.statuses()[0];
    assert_eq!(status.state, ServerState::Untrusted);
    assert_eq!(status.pid, None);
    assert_eq!(
        status.transport,
        TransportSummary::Stdio {
            command: test_server(),
            args: vec!["--flag-for-show".into()]
        }
    );
    assert!(manager.tool_names().is_empty());

    // Approving starts it, with its annotations trusted.
    hub.approve_project().await.unwrap();
    connected(hub.server("proj").unwrap()).await;
    assert_eq!(
        manager.get("mcp__proj__echo").unwrap().level(),
        gantry_tools::PermissionLevel::Safe
    );
    hub.shutdown().await;

    // The approval is remembered for this content...
    let mut again = settings(trust.clone());
    again.project_root = Some(project.path().to_owned());
    let hub = McpHub::start(Arc::clone(&manager), again).await.unwrap();
    connected(hub.server("proj").unwrap()).await;
    hub.shutdown().await;

    // ...and invalidated when the file changes.
    write_json(
        &file,
        &json!({"mcpServers": {"proj": {"command": test_server(), "args": ["--changed"]}}}),
    );
    let mut changed = settings(trust.clone());
    changed.project_root = Some(project.path().to_owned());
    let hub = McpHub::start(Arc::clone(&manager), changed).await.unwrap();
    hub.wait_started(WAIT).await;
    assert_eq!(hub.statuses()[0].state, ServerState::Untrusted);
    hub.shutdown().await;

    // --trust-project-mcp: this run only.
    let mut once = settings(trust.clone());
    once.project_root = Some(project.path().to_owned());
    once.trust_project_for_this_run = true;
    let hub = McpHub::start(Arc::clone(&manager), once).await.unwrap();
    connected(hub.server("proj").unwrap()).await;
    hub.shutdown().await;
    let sha = gantry_mcp::config::sha256_hex(&std::fs::read(&file).unwrap());
    assert!(!trust.is_trusted(project.path(), &file, &sha).await);
}

#[tokio::test]
async fn the_users_entry_wins_a_name_clash_with_the_project() {
    let (project, manager) = manager();
    let user_file = project.path().join("user-mcp.json");
    write_json(
        &user_file,
        &json!({"mcpServers": {"same": {"command": test_server()}}}),
    );
    write_json(
        &project.path().join(".mcp.json"),
        &json!({"mcpServers": {"same": {"command": "/bin/false"}}}),
    );
    let mut settings = settings(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(user_file);
    settings.project_root = Some(project.path().to_owned());
    let hub = McpHub::start(Arc::clone(&manager), settings).await.unwrap();
    assert_eq!(hub.statuses().len(), 1);
    assert!(
        hub.warnings()
            .iter()
            .any(|w| w.contains("server 'same' is also in the user's file")),
        "{:?}",
        hub.warnings()
    );
    connected(hub.server("same").unwrap()).await;
    hub.shutdown().await;
}

#[tokio::test]
async fn a_changed_in_project_script_asks_again_after_trusting() {
    use std::os::unix::fs::PermissionsExt;
    let (project, manager) = manager();
    let script = project.path().join("tools/server.sh");
    let write_script = |extra: &str| {
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(
            &script,
            format!("#!/bin/sh\n{extra}\nexec '{}' \"$@\"\n", test_server()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write_script("# first version");
    write_json(
        &project.path().join(".mcp.json"),
        &json!({"mcpServers": {"local": {"command": "./tools/server.sh"}}}),
    );
    let trust = Arc::new(MemoryTrust::new());
    let start = || {
        let mut settings = settings(trust.clone());
        settings.project_root = Some(project.path().to_owned());
        McpHub::start(Arc::clone(&manager), settings)
    };

    // Trusted with the first version: it starts, and the trust step named the script.
    let hub = start().await.unwrap();
    hub.wait_started(WAIT).await;
    assert_eq!(hub.statuses()[0].state, ServerState::Untrusted);
    let review = hub.project_review().unwrap();
    assert_eq!(review.servers[0].files.len(), 1);
    assert_eq!(review.servers[0].files[0].path, "tools/server.sh");
    hub.approve_project().await.unwrap();
    connected(hub.server("local").unwrap()).await;

    // The script changes while the server runs: a restart refuses to run the new content.
    write_script("echo changed >&2");
    hub.restart("local").unwrap();
    let failed = hub
        .server("local")
        .unwrap()
        .wait_for(WAIT, |status| {
            matches!(status.state, ServerState::Failed { .. })
        })
        .await
        .unwrap();
    let ServerState::Failed { reason } = &failed.state else {
        unreachable!()
    };
    assert!(
        reason.contains("tools/server.sh changed since you trusted"),
        "{reason}"
    );
    hub.shutdown().await;

    // A fresh start: the .mcp.json is the same, but the approval no longer holds.
    let hub = start().await.unwrap();
    hub.wait_started(WAIT).await;
    assert_eq!(hub.statuses()[0].state, ServerState::Untrusted);
    hub.approve_project().await.unwrap();
    connected(hub.server("local").unwrap()).await;
    hub.shutdown().await;
}
