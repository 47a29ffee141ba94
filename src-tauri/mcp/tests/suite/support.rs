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

/// A TCP proxy on loopback in front of a server: what clients send passes through unchanged and
/// is kept, so a test reads the HTTP requests — headers included — as the server received them.
pub struct RecordingProxy {
    /// The port clients connect to.
    pub port: u16,
    /// Each connection's bytes from the client, in order.
    received: Arc<std::sync::Mutex<Vec<Vec<u8>>>>,
    task: tokio::task::JoinHandle<()>,
}

impl RecordingProxy {
    /// Listens on a free loopback port and forwards every connection to `upstream`.
    pub async fn start(upstream: u16) -> Self {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                else {
                    continue;
                };
                let slot = {
                    let mut all = kept.lock().unwrap();
                    all.push(Vec::new());
                    all.len() - 1
                };
                let kept = kept.clone();
                tokio::spawn(async move {
                    let (mut client_read, mut client_write) = client.into_split();
                    let (mut server_read, mut server_write) = server.into_split();
                    let upward = async {
                        let mut buffer = vec![0u8; 16 * 1024];
                        loop {
                            let read = match client_read.read(&mut buffer).await {
                                Ok(0) | Err(_) => break,
                                Ok(read) => read,
                            };
                            kept.lock().unwrap()[slot].extend_from_slice(&buffer[..read]);
                            if server_write.write_all(&buffer[..read]).await.is_err() {
                                break;
                            }
                        }
                        let _ = server_write.shutdown().await;
                    };
                    let downward = async {
                        let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                        let _ = client_write.shutdown().await;
                    };
                    tokio::join!(upward, downward);
                });
            }
        });
        Self {
            port,
            received,
            task,
        }
    }

    /// The request lines (`POST /mcp HTTP/1.1`) the server received.
    pub fn request_lines(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|line| {
                ["GET ", "POST ", "DELETE "]
                    .iter()
                    .any(|method| line.starts_with(method))
                    && line.ends_with(" HTTP/1.1")
            })
            .collect()
    }

    /// The values of header `name` (any case) in every request the server received.
    pub fn header_values(&self, name: &str) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_owned())
            })
            .collect()
    }

    fn lines(&self) -> Vec<String> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .flat_map(|bytes| {
                String::from_utf8_lossy(bytes)
                    .split("\r\n")
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

impl Drop for RecordingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}
