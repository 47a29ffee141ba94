//! A local server: a program Gantry starts, speaking JSON-RPC on its stdin and stdout.
//!
//! The command, arguments, environment and working folder are expanded (`${VAR}`) at start; the
//! program runs with an empty environment plus an allowlist (see [`crate::child_env`]) in its own
//! process group, so that ending it ends everything it started. Its stdout passes through a
//! filter that stops at the first line that is not JSON (a server that logs to stdout breaks the
//! protocol's framing), and its stderr is kept for error messages. Ending a process is polite
//! first (stdin closed, then SIGTERM to the group) and firm after a grace period (SIGKILL); its
//! exit status is put in words for the user.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use gantry_tools::process::{ProcessGroup, Signal, signal_name};
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdout;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::client::ClientSide;
use super::{Ending, Running, Shared};
use crate::errors::connect_sentence;
use crate::expand::{Lookup, expand, expand_map};

/// The longest stdout line accepted from a server (one JSON-RPC message).
const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;

/// A started process, as far as the supervisor cares.
pub(super) struct ChildProcess {
    /// The process and its group.
    pub(super) group: ProcessGroup,
    /// Copies its stderr into the server's tail; ends with the output.
    pub(super) stderr_task: JoinHandle<()>,
    /// Why the stdout filter disconnected it, should it.
    pub(super) garbage: oneshot::Receiver<String>,
}

/// Starts the program and completes the MCP handshake over its stdio.
#[allow(clippy::too_many_arguments)]
pub(super) async fn connect_stdio(
    shared: &Arc<Shared>,
    client: ClientSide,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&str>,
    lookup: &dyn Lookup,
) -> Result<(Running, ChildProcess), Ending> {
    let fatal = |error: crate::expand::ExpandError| Ending::fatal(error.to_string());
    let program = expand(command, "command", lookup).map_err(fatal)?;
    let args = args
        .iter()
        .enumerate()
        .map(|(index, arg)| expand(arg, &format!("args[{index}]"), lookup))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fatal)?;
    let env = expand_map(env, "env", lookup).map_err(fatal)?;
    let base = shared.config.origin.base_dir();
    let program = resolve_program(&program, &base);
    let mut command_line = tokio::process::Command::new(&program);
    // An empty environment plus an allowlist and the configured `env` (see `child_env`):
    // Gantry's secrets do not leak into every server.
    command_line
        .args(&args)
        .env_clear()
        .envs(crate::child_env::current_server_environment(&env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match cwd {
        Some(dir) => {
            let dir = expand(dir, "cwd", lookup).map_err(fatal)?;
            command_line.current_dir(base.join(dir));
        }
        None if matches!(
            shared.config.origin,
            crate::config::ConfigOrigin::Project { .. }
        ) =>
        {
            command_line.current_dir(&base);
        }
        None => {}
    }
    // Its own process group, so shutdown can end everything it started (`npx` starts
    // grandchildren).
    shared.stderr.new_attempt();
    let mut group = ProcessGroup::spawn(&mut command_line)
        .map_err(|error| Ending::fatal(format!("cannot start '{}': {error}", program.display())))?;
    let pid = group.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (group.take_stdin(), group.take_stdout(), group.take_stderr())
    else {
        let _ = group.signal(Signal::KILL);
        let _ = group.wait().await;
        return Err(Ending::fatal("the server's stdio could not be set up"));
    };
    shared.lock().pid = Some(pid);
    shared.bump();
    let stderr_task = tokio::spawn(shared.stderr.clone().drain(stderr));
    let (garbage_tx, mut garbage) = oneshot::channel();
    let (protocol_in, filter_out) = tokio::io::duplex(64 * 1024);
    tokio::spawn(filter_stdout(stdout, filter_out, garbage_tx));
    let timeout = shared.startup_timeout();
    let handshake = tokio::time::timeout(timeout, client.serve((protocol_in, stdin)));
    let failure = tokio::select! {
        biased;
        () = shared.shutdown.cancelled() => Ending::fatal("Gantry is shutting down"),
        Ok(garbage) = &mut garbage => Ending::fatal(garbage),
        status = group.wait() => Ending::retry(match status {
            Ok(status) => format!("{} during start-up", describe_exit(status)),
            Err(error) => format!("could not be watched: {error}"),
        }),
        result = handshake => match result {
            Ok(Ok(running)) => {
                return Ok((running, ChildProcess { group, stderr_task, garbage }));
            }
            Ok(Err(error)) => {
                // The process usually explains a failed handshake by exiting: prefer its status.
                match tokio::time::timeout(Duration::from_millis(500), group.wait()).await {
                    Ok(Ok(status)) => Ending::retry(format!("{} during start-up", describe_exit(status))),
                    _ => match garbage.try_recv() {
                        Ok(garbage) => Ending::fatal(garbage),
                        Err(_) => Ending::retry(format!("the MCP handshake failed: {}", connect_sentence(&error))),
                    },
                }
            }
            Err(_) => Ending::retry(format!(
                "did not finish start-up within {} s",
                timeout.as_secs_f64()
            )),
        },
    };
    end_process(&mut group, Duration::ZERO).await;
    let _ = tokio::time::timeout(Duration::from_millis(500), stderr_task).await;
    Err(failure)
}

/// A command with a `/` in it is a path, relative to the config's base folder; a bare name is
/// looked up on `PATH`.
fn resolve_program(program: &str, base: &Path) -> PathBuf {
    let path = Path::new(program);
    if program.contains('/') && path.is_relative() {
        base.join(path)
    } else {
        path.to_path_buf()
    }
}

/// Copies the server's stdout to the protocol, one line at a time, and stops at the first line
/// that is not JSON (reporting it on `garbage`): a server that prints anything else on stdout
/// breaks the protocol's framing, and guessing around it would hide the bug.
async fn filter_stdout(
    stdout: ChildStdout,
    mut out: tokio::io::DuplexStream,
    garbage: oneshot::Sender<String>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() as u64 > MAX_LINE_BYTES {
            let _ = garbage
                .send("wrote a line of more than 16 MiB to stdout; Gantry disconnected it".into());
            break;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(text).is_err() {
            let shown = gantry_tools::text::excerpt(&String::from_utf8_lossy(text), 80);
            let _ = garbage.send(format!(
                "wrote something that is not JSON-RPC to stdout ({shown:?}); Gantry disconnected it (MCP servers must log to stderr)"
            ));
            break;
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        if out.write_all(&line).await.is_err() {
            break;
        }
    }
}

/// Ends a server process and its group: waits `grace` for it to exit (stdin is closed), then
/// sends SIGTERM to the group and waits `grace` again, then SIGKILL; always reaps the leader and
/// kills whatever is left in its group. Returns its exit status when known.
pub(super) async fn end_process(group: &mut ProcessGroup, grace: Duration) -> Option<ExitStatus> {
    let mut status = match tokio::time::timeout(grace, group.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => None,
    };
    if status.is_none() {
        let _ = group.signal(Signal::TERM);
        status = match tokio::time::timeout(grace, group.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => None,
        };
    }
    if status.is_none() {
        let _ = group.signal(Signal::KILL);
        status = group.wait().await.ok();
    }
    // Grandchildren that outlived the leader (a group with nobody left is not an error).
    let _ = group.signal(Signal::KILL);
    status
}

/// "exited with status 3", "was killed by signal 9 (SIGKILL)".
pub(super) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(signal) => match signal_name(signal) {
            Some(name) => format!("was killed by signal {signal} ({name})"),
            None => format!("was killed by signal {signal}"),
        },
        None => format!("exited ({status})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn exits_are_described() {
        let status = tokio::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "exited with status 3");
        let status = tokio::process::Command::new("sh")
            .args(["-c", "kill -9 $$"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "was killed by signal 9 (SIGKILL)");
        let status = tokio::process::Command::new("sh")
            .args(["-c", "kill -TERM $$"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "was killed by signal 15 (SIGTERM)");
    }

    #[test]
    fn relative_programs_resolve_against_the_base() {
        let base = Path::new("/project");
        assert_eq!(
            resolve_program("./bin/server", base),
            Path::new("/project/./bin/server")
        );
        assert_eq!(resolve_program("npx", base), Path::new("npx"));
        assert_eq!(resolve_program("/usr/bin/x", base), Path::new("/usr/bin/x"));
    }
}
