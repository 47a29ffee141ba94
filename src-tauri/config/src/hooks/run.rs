//! Running one command hook (spec §1.1 "Config schema", "Environment passed to hooks").
//!
//! A hook is the user's program, so it runs as the agents it comes from run it: outside the
//! command sandbox, in the project folder, with the input JSON on stdin. Its environment is
//! Gantry's with every secret removed (the same scrubbing as run_command's: secret names and
//! values, Gantry's own variables, the session bus) plus `CLAUDE_PROJECT_DIR` and
//! `GANTRY_PROJECT_DIR`. The shell form runs `bash -c COMMAND` (`sh -c` where there is no
//! bash), where the shell expands `$CLAUDE_PROJECT_DIR` itself; the exec form (`args`) runs the
//! program directly, with `${CLAUDE_PROJECT_DIR}` substituted in the program and its arguments.
//! The hook leads its own process group: at its timeout, or when the caller gives up on it, the
//! whole group is killed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use gantry_tools::process::ProcessGroup;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

use super::Hook;

/// The most of a hook's stdout and stderr kept (each); the rest is read and dropped.
pub const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// Where and with what a hook runs.
#[derive(Debug, Clone)]
pub struct RunEnv {
    /// The project folder: the hook's working folder and `CLAUDE_PROJECT_DIR`.
    pub project_dir: PathBuf,
    /// The whole environment the hook gets.
    pub env: Vec<(OsString, OsString)>,
}

impl RunEnv {
    /// This process's environment without secrets ([`gantry_tools::scrubbed_environment`]),
    /// plus the project's variables.
    pub fn scrubbed(project_dir: &Path) -> Self {
        Self::with_base(project_dir, gantry_tools::scrubbed_environment())
    }

    /// `base` (already scrubbed) plus `CLAUDE_PROJECT_DIR` and `GANTRY_PROJECT_DIR`.
    pub fn with_base(project_dir: &Path, base: Vec<(OsString, OsString)>) -> Self {
        let mut env: Vec<(OsString, OsString)> = base
            .into_iter()
            .filter(|(name, _)| name != "CLAUDE_PROJECT_DIR" && name != "GANTRY_PROJECT_DIR")
            .collect();
        env.push(("CLAUDE_PROJECT_DIR".into(), project_dir.into()));
        env.push(("GANTRY_PROJECT_DIR".into(), project_dir.into()));
        Self {
            project_dir: project_dir.to_owned(),
            env,
        }
    }
}

/// What one run of a hook gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// The exit code; `None` when it did not exit on its own (timeout, signal, not started).
    pub exit_code: Option<i32>,
    /// Its stdout (lossy UTF-8, at most [`MAX_OUTPUT_BYTES`]).
    pub stdout: String,
    /// Its stderr (likewise).
    pub stderr: String,
    /// True when it was killed at its timeout.
    pub timed_out: bool,
    /// Why it could not be started.
    pub start_error: Option<String>,
    /// How long it ran.
    pub duration: Duration,
}

/// Runs `hook` with `input` on its stdin and waits for it (at most its timeout).
pub async fn run_hook(hook: &Hook, input: &Value, env: &RunEnv) -> HookRun {
    let started = Instant::now();
    let timeout = hook.effective_timeout();
    let mut run = match spawn(hook, env) {
        Ok(group) => finish(group, input, timeout).await,
        Err(error) => HookRun {
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            timed_out: false,
            start_error: Some(error.to_string()),
            duration: Duration::ZERO,
        },
    };
    run.duration = started.elapsed();
    run
}

fn spawn(hook: &Hook, env: &RunEnv) -> std::io::Result<ProcessGroup> {
    let project = env.project_dir.to_string_lossy();
    let substitute = |text: &str| text.replace("${CLAUDE_PROJECT_DIR}", &project);
    let build = |program: &str, args: Vec<String>| {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&env.project_dir)
            .env_clear()
            .envs(env.env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    match &hook.args {
        Some(args) => ProcessGroup::spawn(&mut build(
            &substitute(&hook.command),
            args.iter().map(|arg| substitute(arg)).collect(),
        )),
        None => {
            let shell_args = vec!["-c".to_owned(), hook.command.clone()];
            match ProcessGroup::spawn(&mut build("bash", shell_args.clone())) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    ProcessGroup::spawn(&mut build("sh", shell_args))
                }
                other => other,
            }
        }
    }
}

async fn finish(mut group: ProcessGroup, input: &Value, timeout: Duration) -> HookRun {
    let stdin = group.take_stdin();
    let stdout = group.take_stdout();
    let stderr = group.take_stderr();
    let payload = serde_json::to_vec(input).unwrap_or_default();
    let write = async move {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its stdin closes the pipe: not an error.
            let _ = stdin.write_all(&payload).await;
            let _ = stdin.shutdown().await;
        }
    };
    let work = async {
        let ((), out, err, status) = tokio::join!(
            write,
            read_capped(stdout),
            read_capped(stderr),
            group.wait()
        );
        (out, err, status)
    };
    match tokio::time::timeout(timeout, work).await {
        Ok((stdout, stderr, status)) => HookRun {
            exit_code: status.ok().and_then(|status| status.code()),
            stdout,
            stderr,
            timed_out: false,
            start_error: None,
            duration: Duration::ZERO,
        },
        Err(_elapsed) => {
            // Dropping the group kills every process in it.
            drop(group);
            HookRun {
                exit_code: None,
                stdout: String::new(),
                stderr: String::new(),
                timed_out: true,
                start_error: None,
                duration: Duration::ZERO,
            }
        }
    }
}

/// Reads `pipe` to its end, keeping at most [`MAX_OUTPUT_BYTES`].
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut pipe) = pipe else {
        return String::new();
    };
    let mut kept = Vec::new();
    let mut buffer = [0_u8; 8192];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(read) => {
                let room = MAX_OUTPUT_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..read.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
pub(crate) mod tests;
