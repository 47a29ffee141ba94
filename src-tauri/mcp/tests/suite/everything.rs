//! The official server-everything over stdio and streamable HTTP: listing, calling, levels,
//! approvals.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gantry_mcp::{ServerState, TransportConfig};
use gantry_tools::{
    ApprovalDecision, FixedApprover, ObservationKind, PermissionLevel, Policy, ToolManager,
    ToolSource,
};
use serde_json::json;

use super::support::*;

/// The checks both transports must pass.
async fn lists_and_calls(manager: &ToolManager, server: &str) {
    let echo = format!("mcp__{server}__echo");
    let tools = manager.tools();
    let info = tools.iter().find(|tool| tool.name == echo).unwrap();
    assert_eq!(info.level, PermissionLevel::Safe);
    assert_eq!(info.policy, Policy::Auto);
    assert_eq!(
        info.source,
        ToolSource::Mcp {
            server: server.to_owned()
        }
    );
    let schema = manager.get(&echo).unwrap().parameters().clone();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["message"]));

    let obs = manager
        .dispatch(
            &echo,
            json!({"message": "hello from gantry"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert_eq!(obs.text, "Echo: hello from gantry");

    // Loosely typed model output is coerced against the server's schema like a built-in's.
    let sum = format!("mcp__{server}__get-sum");
    let obs = manager
        .dispatch(
            &sum,
            r#"{"a": "2", "b": 3}"#,
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert!(obs.text.contains('5'), "{}", obs.text);

    let obs = manager
        .dispatch(
            &format!("mcp__{server}__get-tiny-image"),
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert!(
        obs.text.contains("[image: image/png, ") && obs.text.contains(" bytes]"),
        "{}",
        obs.text
    );

    let obs = manager
        .dispatch(
            &format!("mcp__{server}__get-resource-links"),
            json!({"count": 2}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert!(obs.text.contains("[resource: demo://"), "{}", obs.text);

    let obs = manager
        .dispatch(
            &format!("mcp__{server}__get-resource-reference"),
            json!({"resourceType": "Text", "resourceId": 1}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert!(
        obs.text.contains("This is a plaintext resource"),
        "{}",
        obs.text
    );

    // An error result (the server's own validation) is an error observation.
    let obs = manager
        .dispatch(
            &sum,
            json!({"a": [1], "b": {"x": 1}}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_ne!(obs.kind, ObservationKind::Ok, "{}", obs.text);
}

#[tokio::test]
async fn stdio_lists_and_calls_with_levels_from_annotations() {
    let (_dir, manager) = manager();
    let mut config = everything_stdio("everything");
    if let TransportConfig::Stdio { env, .. } = &mut config.transport {
        env.insert(
            "GANTRY_TEST_SECRET".into(),
            "${GANTRY_TEST_HOME:-fallback}/x".into(),
        );
    }
    let hub = hub(&manager, vec![config]);
    let status = connected(hub.server("everything").unwrap()).await;
    assert!(status.pid.is_some());
    assert!(status.tools.len() >= 10, "{status:#?}");
    lists_and_calls(&manager, "everything").await;

    // readOnlyHint: false and destructiveHint: false is SENSITIVE, which asks.
    let toggle = "mcp__everything__toggle-simulated-logging";
    assert_eq!(
        manager.get(toggle).unwrap().level(),
        PermissionLevel::Sensitive
    );
    assert_eq!(manager.policy(toggle).unwrap(), Policy::Ask);

    // ${VAR:-default} in env reached the server.
    let obs = manager
        .dispatch(
            "mcp__everything__get-env",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert!(
        obs.text.contains("\"GANTRY_TEST_SECRET\": \"fallback/x\""),
        "{}",
        obs.text
    );

    hub.shutdown().await;
    assert!(
        manager
            .tool_names()
            .iter()
            .all(|name| !name.starts_with("mcp__"))
    );
    assert_eq!(hub.statuses()[0].state, ServerState::Stopped);
}

/// The server sees the allowlist and its configured `env`, nothing else of Gantry's.
#[tokio::test]
async fn a_stdio_server_gets_an_allowlisted_environment_plus_its_own_env() {
    // Variables cargo and nextest set for this test process: present here, never passed on.
    let inherited: Vec<String> = std::env::vars()
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("CARGO_") || name.starts_with("NEXTEST"))
        .collect();
    assert!(
        !inherited.is_empty(),
        "the test runner sets CARGO_* variables"
    );
    let (_dir, manager) = manager();
    let mut config = everything_stdio("envcheck");
    if let TransportConfig::Stdio { env, .. } = &mut config.transport {
        env.insert("CONFIGURED_FOR_TEST".into(), "given".into());
    }
    let hub = hub(&manager, vec![config]);
    connected(hub.server("envcheck").unwrap()).await;
    let obs = manager
        .dispatch(
            "mcp__envcheck__get-env",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    let start = obs.text.find('{').unwrap();
    let env: serde_json::Value = serde_json::from_str(&obs.text[start..]).unwrap();
    let env = env.as_object().unwrap();
    assert_eq!(env["CONFIGURED_FOR_TEST"], "given");
    // The session bus is blocked, never the real address: the keyring is out of reach.
    assert_eq!(env["DBUS_SESSION_BUS_ADDRESS"], gantry_tools::DBUS_BLOCKED);
    assert!(!env.contains_key("XDG_RUNTIME_DIR"));
    assert_eq!(env["PATH"].as_str(), std::env::var("PATH").ok().as_deref());
    for name in &inherited {
        assert!(!env.contains_key(name), "{name} leaked to the server");
    }
    for name in env.keys() {
        assert!(
            gantry_mcp::child_env::is_passed(name)
                || name == "CONFIGURED_FOR_TEST"
                || name == gantry_tools::DBUS_SESSION
                // Set by node itself or by the shell-less spawn.
                || name == "NODE_UNIQUE_ID",
            "{name} should not reach the server"
        );
    }
    hub.shutdown().await;
}

#[tokio::test]
async fn a_sensitive_mcp_tool_goes_through_the_approver() {
    let dir = tempfile::tempdir().unwrap();
    let denied = Arc::new(ToolManager::new(dir.path()).unwrap());
    let allowed = Arc::new(
        ToolManager::new(dir.path())
            .unwrap()
            .with_approver(Arc::new(FixedApprover(ApprovalDecision::AllowOnce))),
    );
    let toggle = "mcp__everything__toggle-simulated-logging";
    let hub_denied = hub(&denied, vec![everything_stdio("everything")]);
    let hub_allowed = hub(&allowed, vec![everything_stdio("everything")]);
    connected(hub_denied.server("everything").unwrap()).await;
    connected(hub_allowed.server("everything").unwrap()).await;

    let obs = denied
        .dispatch(toggle, json!({}), &gantry_tools::CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied, "{}", obs.text);
    assert!(obs.text.starts_with("[denied]"), "{}", obs.text);

    let obs = allowed
        .dispatch(toggle, json!({}), &gantry_tools::CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert!(obs.text.to_lowercase().contains("logging"), "{}", obs.text);

    hub_denied.shutdown().await;
    hub_allowed.shutdown().await;
}

#[tokio::test]
async fn streamable_http_lists_and_calls() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let entry = npm_server("server-everything");
    let mut server = tokio::process::Command::new("node")
        .arg(&entry)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    eventually("server-everything listening", || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    })
    .await;

    // The server's side of the connection: every request as it arrived.
    let proxy = RecordingProxy::start(port).await;
    let (_dir, manager) = manager();
    let mut config = everything_stdio("remote");
    config.transport = TransportConfig::Http {
        url: format!("http://127.0.0.1:{}/mcp", proxy.port),
        headers: BTreeMap::from([
            (
                "Authorization".to_owned(),
                "Bearer ${GANTRY_TEST_TOKEN:-t0ken}".to_owned(),
            ),
            ("X-Gantry-Test".to_owned(), "yes".to_owned()),
        ]),
    };
    let hub = hub(&manager, vec![config]);
    let status = connected(hub.server("remote").unwrap()).await;
    assert_eq!(status.pid, None);
    lists_and_calls(&manager, "remote").await;
    hub.shutdown().await;
    // Every request the server got carried the configured headers, the variable expanded.
    let requests = proxy.request_lines();
    assert!(
        requests.len() >= 3,
        "initialize, list and call at least: {requests:?}"
    );
    let authorization = proxy.header_values("authorization");
    assert_eq!(
        authorization.len(),
        requests.len(),
        "one Authorization per request: {requests:?} {authorization:?}"
    );
    assert!(
        authorization.iter().all(|value| value == "Bearer t0ken"),
        "{authorization:?}"
    );
    assert_eq!(
        proxy.header_values("x-gantry-test").len(),
        requests.len(),
        "the extra header on every request"
    );
    let _ = server.start_kill();
    let _ = tokio::time::timeout(Duration::from_secs(5), server.wait()).await;
}

#[tokio::test]
async fn the_filesystem_server_works_with_its_annotations() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("notes.txt"), "first line\n").unwrap();
    let manager = Arc::new(ToolManager::new(project.path()).unwrap());
    let entry = npm_server("server-filesystem");
    let root = project.path().canonicalize().unwrap();
    let config = stdio(
        "fs",
        "node",
        &[entry.to_str().unwrap(), root.to_str().unwrap()],
    );
    let hub = hub(&manager, vec![config]);
    connected(hub.server("fs").unwrap()).await;
    let read = "mcp__fs__read_text_file";
    assert_eq!(manager.get(read).unwrap().level(), PermissionLevel::Safe);
    let path = root.join("notes.txt");
    let obs = manager
        .dispatch(
            read,
            json!({"path": path.to_str().unwrap()}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert!(obs.text.contains("first line"), "{}", obs.text);
    // Writing is not read-only: it asks (and nobody is there to approve).
    let write = manager.get("mcp__fs__write_file").unwrap();
    assert_ne!(write.level(), PermissionLevel::Safe);
    hub.shutdown().await;
}
