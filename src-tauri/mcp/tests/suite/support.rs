//! Shared helpers: servers, managers, configs, process checks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gantry_mcp::{
    ConfigOrigin, McpHub, McpOptions, McpServerHandle, ServerConfig, ServerState, ServerStatus,
    TransportConfig,
};
use gantry_tools::ToolManager;

/// The npm fixtures folder (installed by `npm ci --prefix tests/fixtures/mcp-servers`).
pub fn npm_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mcp-servers")
}

/// The entry point of an official server, or a panic saying how to install it.
pub fn npm_server(package: &str) -> PathBuf {
    let entry = npm_fixtures()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    assert!(
        entry.exists(),
        "{} is missing: run `npm ci --prefix tests/fixtures/mcp-servers` (scripts/test-all does)",
        entry.display()
    );
    entry
}

/// The crate's own test server.
pub fn test_server() -> String {
    env!("CARGO_BIN_EXE_gantry-mcp-testserver").to_owned()
}

/// Short timeouts so failures show quickly.
pub fn fast_options() -> McpOptions {
    McpOptions {
        startup_timeout: Duration::from_secs(20),
        call_timeout: Duration::from_secs(20),
        restart_backoff: Duration::from_millis(50),
        max_restart_backoff: Duration::from_millis(400),
        max_restarts: 3,
        stable_after: Duration::from_secs(60),
        shutdown_grace: Duration::from_millis(1500),
    }
}

/// How long tests wait for a state.
pub const WAIT: Duration = Duration::from_secs(30);

/// A project folder and a manager for it.
pub fn manager() -> (tempfile::TempDir, Arc<ToolManager>) {
    let dir = tempfile::tempdir().unwrap();
    let manager = Arc::new(ToolManager::new(dir.path()).unwrap());
    (dir, manager)
}

/// A stdio server config.
pub fn stdio(name: &str, command: &str, args: &[&str]) -> ServerConfig {
    ServerConfig {
        name: name.to_owned(),
        origin: ConfigOrigin::User {
            path: PathBuf::from("/test/mcp.json"),
        },
        transport: TransportConfig::Stdio {
            command: command.to_owned(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            env: BTreeMap::new(),
            cwd: None,
        },
        disabled: false,
        level: None,
        tool_levels: BTreeMap::new(),
        call_timeout: None,
        startup_timeout: None,
    }
}

/// server-everything over stdio.
pub fn everything_stdio(name: &str) -> ServerConfig {
    let entry = npm_server("server-everything");
    stdio(name, "node", &[entry.to_str().unwrap(), "stdio"])
}

/// The test server. Its fault tools carry no annotations (so they would ask); the config makes
/// them SAFE, as a user would with per-tool levels.
pub fn faulty(name: &str, args: &[&str]) -> ServerConfig {
    let mut config = stdio(name, &test_server(), args);
    for tool in ["crash", "hang", "garbage", "add_tool", "spawn_sleeper"] {
        config
            .tool_levels
            .insert(tool.to_owned(), gantry_tools::PermissionLevel::Safe);
    }
    config
}

/// A hub with these trusted servers.
pub fn hub(manager: &Arc<ToolManager>, configs: Vec<ServerConfig>) -> McpHub {
    McpHub::from_configs(
        Arc::clone(manager),
        configs.into_iter().map(|config| (config, true)).collect(),
        fast_options(),
    )
}

/// Waits for `connected`, panicking with the status otherwise.
pub async fn connected(server: &McpServerHandle) -> ServerStatus {
    server
        .wait_for(WAIT, |status| status.state == ServerState::Connected)
        .await
        .unwrap_or_else(|status| panic!("server did not connect: {status:#?}"))
}

/// Waits for `failed`, returning the reason.
pub async fn failed(server: &McpServerHandle) -> (String, ServerStatus) {
    let status = server
        .wait_for(WAIT, |status| {
            matches!(status.state, ServerState::Failed { .. })
        })
        .await
        .unwrap_or_else(|status| panic!("server did not fail: {status:#?}"));
    match &status.state {
        ServerState::Failed { reason } => (reason.clone(), status),
        _ => unreachable!(),
    }
}

/// True while a process with this pid exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// True when no process table entry at all is left for this pid (exited and reaped).
pub fn reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Live (non-zombie) processes whose process group is `group`.
pub fn group_members(group: u32) -> Vec<u32> {
    let mut members = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return members;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // state ppid pgrp ...
        if fields.first() != Some(&"Z") && fields.get(2) == Some(&group.to_string().as_str()) {
            members.push(pid);
        }
    }
    members
}

/// Polls `check` until it holds or `WAIT` passes.
pub async fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for: {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
