//! Servers misbehaving: crashes, hangs, garbage, refusals, and shutdown leaving nothing behind.

use std::sync::Arc;
use std::time::Duration;

use gantry_mcp::{McpHub, McpOptions, ServerState, TransportConfig};
use gantry_tools::{ObservationKind, PermissionLevel, Policy};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::*;

/// Sends SIGKILL to one process (the server, not its group), as a crash would end it.
fn sigkill(pid: u32) {
    assert!(pid > 1, "refusing to signal pid {pid}");
    let status = std::process::Command::new("kill")
        .args(["-s", "KILL", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -s KILL {pid}: {status}");
}

#[tokio::test]
async fn a_crash_fails_the_call_in_flight_at_once_and_the_server_comes_back() {
    let (_dir, manager) = manager();
    let hub = hub(&manager, vec![faulty("faulty", &[])]);
    let server = hub.server("faulty").unwrap();
    let before = connected(server).await;
    let pid = before.pid.unwrap();

    let calling = {
        let manager = Arc::clone(&manager);
        tokio::spawn(async move {
            manager
                .dispatch(
                    "mcp__faulty__hang",
                    json!({}),
                    &gantry_tools::CallContext::detached(),
                )
                .await
        })
    };
    eventually("the call is in flight", || {
        server
            .status()
            .stderr_tail
            .iter()
            .any(|line| line == "hanging")
    })
    .await;
    let killed_at = std::time::Instant::now();
    sigkill(pid);
    let obs = calling.await.unwrap();
    assert!(killed_at.elapsed() < Duration::from_secs(5));
    assert_eq!(obs.kind, ObservationKind::Error);
    assert!(
        obs.text.starts_with(
            "[error] MCP server 'faulty' is not running: was killed by signal 9 (SIGKILL)"
        ),
        "{}",
        obs.text
    );
    assert!(
        obs.text.contains("last lines of its stderr:\n"),
        "{}",
        obs.text
    );
    assert!(obs.text.contains("\n  hanging"), "{}", obs.text);

    // It is restarted and lists its tools again; calls work.
    let after = server
        .wait_for(WAIT, |s| {
            s.state == ServerState::Connected && s.restarts >= 1
        })
        .await
        .unwrap();
    assert_ne!(after.pid, Some(pid));
    assert!(reaped(pid));
    let obs = manager
        .dispatch(
            "mcp__faulty__echo",
            json!({"text": "back"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!((obs.kind, obs.text.as_str()), (ObservationKind::Ok, "back"));
    hub.shutdown().await;
}

#[tokio::test]
async fn a_killed_server_errors_cleanly_until_it_is_back() {
    let (_dir, manager) = manager();
    let options = McpOptions {
        restart_backoff: Duration::from_millis(800),
        ..fast_options()
    };
    let hub = McpHub::from_configs(
        Arc::clone(&manager),
        vec![(everything_stdio("everything"), true)],
        options,
    );
    let server = hub.server("everything").unwrap();
    let pid = connected(server).await.pid.unwrap();
    sigkill(pid);
    failed(server).await;
    let obs = manager
        .dispatch(
            "mcp__everything__echo",
            json!({"message": "anyone?"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert!(
        obs.text.starts_with(
            "[error] MCP server 'everything' is not running: was killed by signal 9 (SIGKILL)"
        ),
        "{}",
        obs.text
    );
    server
        .wait_for(WAIT, |s| {
            s.state == ServerState::Connected && s.restarts == 1
        })
        .await
        .unwrap();
    let obs = manager
        .dispatch(
            "mcp__everything__echo",
            json!({"message": "again"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    assert_eq!(obs.text, "Echo: again");
    hub.shutdown().await;
    assert!(reaped(pid));
}

#[tokio::test]
async fn a_server_exiting_during_a_call_reports_its_status_and_stderr() {
    let (_dir, manager) = manager();
    let hub = hub(&manager, vec![faulty("faulty", &[])]);
    connected(hub.server("faulty").unwrap()).await;
    let obs = manager
        .dispatch(
            "mcp__faulty__crash",
            json!({"code": 3}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert!(
        obs.text
            .starts_with("[error] MCP server 'faulty' is not running: exited with status 3"),
        "{}",
        obs.text
    );
    assert!(
        obs.text.contains("crashing on purpose with status 3"),
        "{}",
        obs.text
    );
    hub.shutdown().await;
}

#[tokio::test]
async fn a_hanging_call_times_out_and_the_server_is_told() {
    let (_dir, manager) = manager();
    let mut config = faulty("faulty", &[]);
    config.call_timeout = Some(Duration::from_millis(500));
    let hub = hub(&manager, vec![config]);
    let server = hub.server("faulty").unwrap();
    connected(server).await;
    let started = std::time::Instant::now();
    let obs = manager
        .dispatch(
            "mcp__faulty__hang",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(obs.kind, ObservationKind::Error);
    assert_eq!(
        obs.text,
        "[error] MCP server 'faulty' did not answer 'hang' within 0.5 s; Gantry cancelled the call"
    );
    eventually("the server got notifications/cancelled", || {
        server
            .status()
            .stderr_tail
            .iter()
            .any(|line| line == "hang was cancelled by the client")
    })
    .await;
    // The server is fine and still serves.
    let obs = manager
        .dispatch(
            "mcp__faulty__echo",
            json!({"text": "still here"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.text, "still here");

    // Cancelling the turn cancels the call on the server too.
    let cancel = CancellationToken::new();
    let calling = {
        let manager = Arc::clone(&manager);
        let cancel = cancel.clone();
        tokio::spawn(async move {
            manager
                .dispatch(
                    "mcp__faulty__hang",
                    json!({}),
                    &gantry_tools::CallContext::detached().with_cancel(cancel.clone()),
                )
                .await
        })
    };
    eventually("the second hang is in flight", || {
        server
            .status()
            .stderr_tail
            .iter()
            .filter(|line| *line == "hanging")
            .count()
            == 2
    })
    .await;
    cancel.cancel();
    assert_eq!(calling.await.unwrap().kind, ObservationKind::Cancelled);
    eventually("the server got the second cancellation", || {
        server
            .status()
            .stderr_tail
            .iter()
            .filter(|line| *line == "hang was cancelled by the client")
            .count()
            == 2
    })
    .await;
    assert_eq!(server.status().state, ServerState::Connected);
    hub.shutdown().await;
}

#[tokio::test]
async fn garbage_on_stdout_disconnects_with_a_clear_status() {
    let (_dir, manager) = manager();
    let hub = hub(
        &manager,
        vec![
            faulty("midway", &[]),
            faulty("banner", &["--garbage-at-start"]),
        ],
    );
    let midway = hub.server("midway").unwrap();
    let pid = connected(midway).await.pid.unwrap();
    let obs = manager
        .dispatch(
            "mcp__midway__garbage",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    // The garbage comes before the answer: the call fails, the server is disconnected.
    assert_eq!(obs.kind, ObservationKind::Error, "{}", obs.text);
    let (reason, status) = failed(midway).await;
    assert!(
        reason.contains("wrote something that is not JSON-RPC to stdout (\"this is not json\")"),
        "{reason}"
    );
    assert!(obs.text.contains("not JSON-RPC"), "{}", obs.text);
    assert_eq!(status.restarts, 0);
    assert!(reaped(pid));

    let (reason, _) = failed(hub.server("banner").unwrap()).await;
    assert!(
        reason.contains("not JSON-RPC to stdout (\"Starting test server..."),
        "{reason}"
    );

    // The user can try again.
    hub.restart("midway").unwrap();
    connected(midway).await;
    hub.shutdown().await;
}

#[tokio::test]
async fn servers_that_cannot_start_fail_alone_with_a_reason() {
    let (_dir, manager) = manager();
    let mut sse = everything_stdio("legacy");
    sse.transport = TransportConfig::Sse {
        url: "http://127.0.0.1:9/sse".into(),
    };
    let mut unset = faulty("needs-token", &["${GANTRY_TEST_SURELY_UNSET_VAR}"]);
    unset.name = "needs-token".into();
    let hub = hub(
        &manager,
        vec![
            faulty("refuses", &["--exit-at-start", "2"]),
            stdio("missing", "/no/such/mcp-server", &[]),
            sse,
            unset,
            everything_stdio("fine"),
        ],
    );
    let started = std::time::Instant::now();
    hub.wait_started(WAIT).await;
    assert!(started.elapsed() < Duration::from_secs(20));

    let (reason, status) = failed(hub.server("refuses").unwrap()).await;
    assert!(
        reason.starts_with("exited with status 2 during start-up"),
        "{reason}"
    );
    assert!(
        status
            .stderr_tail
            .iter()
            .any(|l| l == "refusing to start: missing configuration"),
        "{status:#?}"
    );
    let (reason, _) = failed(hub.server("missing").unwrap()).await;
    assert!(
        reason.starts_with("cannot start '/no/such/mcp-server': "),
        "{reason}"
    );
    let (reason, _) = failed(hub.server("legacy").unwrap()).await;
    assert!(
        reason.starts_with("server 'legacy' uses the legacy SSE transport"),
        "{reason}"
    );
    let (reason, _) = failed(hub.server("needs-token").unwrap()).await;
    assert_eq!(
        reason,
        "environment variable GANTRY_TEST_SURELY_UNSET_VAR is not set (used in args[0])"
    );
    connected(hub.server("fine").unwrap()).await;

    // A failing start is retried with backoff, then given up on.
    let status = hub
        .server("refuses")
        .unwrap()
        .wait_for(WAIT, |s| {
            matches!(&s.state, ServerState::Failed { reason } if reason.contains("gave up after 4 attempts"))
        })
        .await
        .unwrap();
    assert_eq!(status.restarts, 3);
    hub.shutdown().await;
}

#[tokio::test]
async fn annotations_set_levels_unless_the_user_did() {
    let (_dir, manager) = manager();
    let mut overridden = faulty("strict", &[]);
    overridden.level = Some(PermissionLevel::Sensitive);
    overridden
        .tool_levels
        .insert("plain".into(), PermissionLevel::Safe);
    let hub = hub(&manager, vec![faulty("faulty", &[]), overridden]);
    connected(hub.server("faulty").unwrap()).await;
    connected(hub.server("strict").unwrap()).await;
    let level = |name: &str| manager.get(name).unwrap().level();
    assert_eq!(level("mcp__faulty__echo"), PermissionLevel::Safe);
    assert_eq!(level("mcp__faulty__plain"), PermissionLevel::Sensitive);
    assert_eq!(level("mcp__faulty__wipe"), PermissionLevel::Dangerous);
    assert_eq!(
        manager.policy("mcp__faulty__wipe").unwrap(),
        Policy::Disabled
    );
    let obs = manager
        .dispatch(
            "mcp__faulty__wipe",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Disabled);
    // The user's server level is not lowered by readOnlyHint; a per-tool level wins.
    assert_eq!(level("mcp__strict__echo"), PermissionLevel::Sensitive);
    assert_eq!(level("mcp__strict__plain"), PermissionLevel::Safe);
    assert_eq!(level("mcp__strict__wipe"), PermissionLevel::Sensitive);
    hub.shutdown().await;
}

#[tokio::test]
async fn list_changed_updates_the_registry_and_stale_listings_lose() {
    let (_dir, manager) = manager();
    let mut config = faulty("faulty", &[]);
    if let TransportConfig::Stdio { env, .. } = &mut config.transport {
        // The second listing is answered late, with the tools as they were when it was asked.
        env.insert("TESTSERVER_LIST_DELAYS_MS".into(), "0,1500,0".into());
    }
    let hub = hub(&manager, vec![config]);
    let server = hub.server("faulty").unwrap();
    connected(server).await;
    assert!(manager.get("mcp__faulty__b").is_none());

    let obs = manager
        .dispatch(
            "mcp__faulty__add_tool",
            json!({"name": "b"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    assert_eq!(obs.text, "added b");
    eventually("the slow listing started", || {
        server
            .status()
            .stderr_tail
            .iter()
            .any(|l| l == "list 2 started")
    })
    .await;
    manager
        .dispatch(
            "mcp__faulty__add_tool",
            json!({"name": "c"}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    eventually("the newer listing landed", || {
        manager.get("mcp__faulty__c").is_some()
    })
    .await;
    // Wait for the stale answer to arrive; it must not take `c` away.
    server.wait_for(WAIT, |s| s.listings >= 3).await.unwrap();
    assert!(manager.get("mcp__faulty__c").is_some());
    assert!(manager.get("mcp__faulty__b").is_some());
    let status = server.status();
    assert!(
        status.tools.iter().any(|t| t.remote_name == "c"),
        "{status:#?}"
    );
    assert!(status.stderr_tail.iter().any(|l| l == "list 2 answered"));
    hub.shutdown().await;
}

#[tokio::test]
async fn shutdown_leaves_no_process_behind() {
    let (_dir, manager) = manager();
    let hub = hub(
        &manager,
        vec![faulty("faulty", &[]), everything_stdio("everything")],
    );
    let faulty_pid = connected(hub.server("faulty").unwrap()).await.pid.unwrap();
    let everything_pid = connected(hub.server("everything").unwrap())
        .await
        .pid
        .unwrap();
    let obs = manager
        .dispatch(
            "mcp__faulty__spawn_sleeper",
            json!({}),
            &gantry_tools::CallContext::detached(),
        )
        .await;
    let sleeper: u32 = obs.text.parse().unwrap_or_else(|_| panic!("{}", obs.text));
    assert!(alive(sleeper) && alive(faulty_pid) && alive(everything_pid));
    assert!(group_members(faulty_pid).contains(&sleeper));

    hub.shutdown().await;
    for pid in [faulty_pid, everything_pid] {
        assert!(reaped(pid), "{pid} is still in the process table");
        assert!(
            group_members(pid).is_empty(),
            "group {pid} has {:?}",
            group_members(pid)
        );
    }
    // The grandchild was killed with its group (its parent is not Gantry, so init reaps it).
    eventually("the grandchild is gone", || !alive(sleeper)).await;
    for status in hub.statuses() {
        assert_eq!(status.state, ServerState::Stopped);
        assert_eq!(status.pid, None);
    }
    assert!(manager.tool_names().is_empty());
}
