//! A command wrapped in bubblewrap, ready to be started by the caller's own spawning code.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::Path;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::Command;

use crate::mounts::SANDBOX_TMP;
use crate::secrets::REMOVED_ENV;
use crate::spawner;

/// A sandboxed command: bubblewrap with the policy's options, then the program.
///
/// Start it with [`SandboxedCommand::spawn_with`], giving the closure that spawns it (set
/// stdin/stdout/stderr there, put it in a process group, keep the child): the closure runs on
/// the sandbox's spawner thread (see the crate docs for why). Do not change the program, its
/// arguments, its environment or its working directory.
#[derive(Debug)]
pub struct SandboxedCommand {
    command: Command,
}

impl SandboxedCommand {
    pub(crate) fn new(
        bwrap: &Path,
        options: Vec<OsString>,
        program: &OsStr,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
    ) -> Self {
        let mut command = Command::new(bwrap);
        command
            .args(options)
            .arg("--")
            .arg(program)
            .args(args)
            // bubblewrap's own folder; the command's is `--chdir`.
            .current_dir("/")
            .env_clear()
            .envs(sandbox_env(env));
        Self { command }
    }

    /// The full command line and environment (bubblewrap's), for logs and tests.
    pub fn as_std(&self) -> &std::process::Command {
        self.command.as_std()
    }

    /// Runs `spawn` with the command on the sandbox's spawner thread and returns what it
    /// returns, typically the spawned child (or a process group owning it). Blocks the calling
    /// thread until `spawn` has returned, which takes as long as a `fork` and `exec`. Inside a
    /// tokio runtime, the runtime is entered on the spawner thread, so `Command::spawn` works.
    pub fn spawn_with<T, F>(self, spawn: F) -> io::Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Command) -> io::Result<T> + Send + 'static,
    {
        let mut command = self.command;
        spawner::run(move || spawn(&mut command))?
    }
}

/// The command's environment: the caller's, without the variables that name hidden sockets,
/// and with `TMPDIR` at the session's temporary folder.
fn sandbox_env(env: Vec<(OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = env
        .into_iter()
        .filter(|(key, _)| key != "TMPDIR" && !REMOVED_ENV.iter().any(|removed| key == removed))
        .collect();
    env.push(("TMPDIR".into(), SANDBOX_TMP.into()));
    env
}

/// Sends `signal` to the processes inside the sandbox started as `bwrap_pid` (the id of the
/// spawned child). Returns `false` when the sandbox has no process left.
///
/// Bubblewrap does not pass signals on, and the sandbox is a session of its own
/// (`--new-session`), so a signal to the caller's process group reaches bubblewrap only, which
/// dies of it and takes the whole sandbox along with `SIGKILL`. To let a command end politely
/// (a test runner printing its summary on `SIGTERM`), signal the process group inside first
/// with this, then the caller's group.
pub fn signal_inside(bwrap_pid: u32, signal: Signal) -> io::Result<bool> {
    let children = fs::read_to_string(format!("/proc/{bwrap_pid}/task/{bwrap_pid}/children"));
    let children = match children {
        Ok(children) => children,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if Path::new(&format!("/proc/{bwrap_pid}")).exists() {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "this kernel does not list a process's children (CONFIG_PROC_CHILDREN)",
                ));
            }
            return Ok(false);
        }
        Err(error) => return Err(error),
    };
    // Bubblewrap's only child leads the sandbox's session and process group.
    let leader = children
        .split_whitespace()
        .filter_map(|pid| pid.parse::<i32>().ok())
        .filter(|&pid| pid > 1)
        .find_map(Pid::from_raw);
    let Some(leader) = leader else {
        return Ok(false);
    };
    match kill_process_group(leader, signal) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::SRCH) => Ok(false),
        Err(error) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_sockets_leave_the_environment_and_tmpdir_points_inside() {
        let env = sandbox_env(vec![
            (
                "DBUS_SESSION_BUS_ADDRESS".into(),
                "unix:path=/run/user/1/bus".into(),
            ),
            ("SSH_AUTH_SOCK".into(), "/tmp/ssh".into()),
            ("TMPDIR".into(), "/var/tmp".into()),
            ("PATH".into(), "/usr/bin".into()),
        ]);
        assert_eq!(
            env,
            vec![
                ("PATH".into(), "/usr/bin".into()),
                ("TMPDIR".into(), "/tmp".into())
            ]
        );
    }

    #[test]
    fn a_process_that_is_not_there_has_nothing_inside() {
        assert!(!signal_inside(u32::MAX / 2, Signal::TERM).unwrap());
    }
}
