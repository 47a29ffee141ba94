//! Running the real binary, always with a data folder of its own and never near the user's
//! keychain.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// The result of one run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// Runs `gantry-cli args...` in `cwd` with `stdin` piped in (never a terminal) and a throwaway
/// data folder.
pub fn gantry(cwd: &Path, args: &[&str], stdin: &str) -> Run {
    let data = tempfile::tempdir().unwrap();
    run(cwd, data.path(), false, args, stdin, &[])
}

/// A project folder and a data folder that last for several runs.
pub struct Sandbox {
    pub project: TempDir,
    pub data: TempDir,
    keyring: bool,
}

impl Sandbox {
    /// Runs see no keychain: their D-Bus address leads nowhere.
    pub fn new() -> Self {
        Self {
            project: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
            keyring: false,
        }
    }

    /// Runs use the private keychain of `scripts/with-keyring`; `None` (the test does not run)
    /// without `GANTRY_TEST_KEYRING=1`, a failure then when `GANTRY_REQUIRE_KEYRING=1`.
    pub fn with_keyring() -> Option<Self> {
        let available = gantry_test_gate::env_flag(
            "GANTRY_TEST_KEYRING",
            "scripts/with-keyring sets it, with a private keychain",
        );
        if !gantry_test_gate::should_run(gantry_test_gate::Gate::Keyring, available) {
            return None;
        }
        Some(Self {
            keyring: true,
            ..Self::new()
        })
    }

    /// The project folder as an argument.
    pub fn root(&self) -> &str {
        self.project.path().to_str().unwrap()
    }

    /// The database file.
    pub fn database(&self) -> PathBuf {
        self.data.path().join("gantry.db")
    }

    /// Runs `gantry-cli args...` in the project folder.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        self.run_env(args, stdin, &[])
    }

    /// [`Self::run`] with more environment variables.
    pub fn run_env(&self, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
        run(
            self.project.path(),
            self.data.path(),
            self.keyring,
            args,
            stdin,
            env,
        )
    }

    /// Every byte of the database files (main file, WAL, shared memory).
    pub fn database_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for entry in std::fs::read_dir(self.data.path()).unwrap() {
            bytes.extend(std::fs::read(entry.unwrap().path()).unwrap());
        }
        bytes
    }
}

fn run(
    cwd: &Path,
    data: &Path,
    keyring: bool,
    args: &[&str],
    stdin: &str,
    env: &[(&str, &str)],
) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gantry-cli"));
    command
        .args(args)
        .current_dir(cwd)
        .env_remove("GANTRY_LOG")
        .env("GANTRY_DATA_DIR", data)
        // The user-wide MCP file is read from here: never the real user's.
        .env("XDG_CONFIG_HOME", cwd.join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !keyring {
        let nowhere = format!("unix:path={}", data.join("no-bus").display());
        command.env("DBUS_SESSION_BUS_ADDRESS", nowhere);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("gantry-cli starts");
    // A command that doesn't read stdin may exit first; its closed pipe is not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap().into()
}

/// True when `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// The entry point of the official server-everything, installed by
/// `npm ci --prefix tests/fixtures/mcp-servers` (scripts/test-all does), run with `node`.
pub fn server_everything() -> PathBuf {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/mcp-servers/node_modules/@modelcontextprotocol")
        .join("server-everything/dist/index.js");
    assert!(
        entry.exists(),
        "{} is missing: run `npm ci --prefix tests/fixtures/mcp-servers`",
        entry.display()
    );
    entry
}

/// A user-wide MCP config (read from `cwd/.config`, see [`Sandbox::run`]) whose server `ev` is
/// server-everything, with its `echo` tool made DANGEROUS (so disabled until enabled).
pub fn everything_with_dangerous_echo(cwd: &Path) {
    let dir = cwd.join(".config/gantry");
    std::fs::create_dir_all(&dir).unwrap();
    let config = serde_json::json!({"mcpServers": {"ev": {
        "command": "node",
        "args": [server_everything().to_str().unwrap(), "stdio"],
        "tools": {"echo": {"level": "dangerous"}}
    }}});
    std::fs::write(dir.join("mcp.json"), config.to_string()).unwrap();
}
