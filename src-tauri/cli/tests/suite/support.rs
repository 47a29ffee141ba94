//! Running the real binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

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

/// Runs `gantry-cli args...` in `cwd` with `stdin` piped in (never a terminal).
pub fn gantry(cwd: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GANTRY_LOG")
        // The user-wide MCP file is read from here: never the real user's.
        .env("XDG_CONFIG_HOME", cwd.join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gantry-cli starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap().into()
}
