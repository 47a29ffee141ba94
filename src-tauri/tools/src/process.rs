//! Child processes that lead a process group of their own and never outlive their owner.
//!
//! A shell command is rarely one process: `sh -c 'make && ./server &'` starts a shell, the
//! shell starts `make`, `make` starts compilers, and a background job may still run after the
//! shell has exited. Killing only the process Gantry spawned (what tokio's `kill_on_drop` does)
//! leaves all of those running, still holding the output pipe and still touching the project.
//! So the command is started as the leader of a new process group (`setpgid(0, 0)` in the
//! child, through the safe `Command::process_group(0)`), and every process it starts — unless
//! it deliberately leaves with `setsid`/`setpgid` — stays in that group and is reached by one
//! `killpg`.
//!
//! The same holds for an MCP server: `npx some-server` is `npx`, then `node`, and stopping only
//! `npx` would leave the server running. gantry-mcp therefore starts its stdio servers as
//! process groups too, taking the leader's pipes with [`ProcessGroup::take_stdin`] and friends.
//!
//! [`ProcessGroup`] owns such a child. Dropping it kills the whole group with `SIGKILL`, which is
//! what makes cancellation work: the [`crate::ToolManager`] cancels a call by *dropping* the
//! tool's future, so cleanup must happen in `Drop`, synchronously (`killpg` is one syscall).
//! The leader is then reaped by a detached task so it does not linger as a zombie; the group's
//! other members were reparented to init (or the nearest subreaper), which reaps them. An owner
//! that wants a polite ending signals the group itself first ([`ProcessGroup::signal`] with
//! [`Signal::TERM`], then [`ProcessGroup::wait`] with a timeout); `Drop` is the backstop.
//!
//! # Limits
//!
//! - A process that calls `setsid` or `setpgid` (daemons, `setsid cmd`, `git gc --auto`
//!   detaching) leaves the group and is not killed.
//! - A member that runs as another user (a setuid program such as `sudo`) may refuse the
//!   signal; `killpg` succeeds if any member could be signalled.
//! - The group is signalled by number. The number stays reserved while any member lives, or
//!   while the unreaped leader does; once all of them are gone it could in principle be reused,
//!   which would need the PID space to wrap in the moment between the last member's death and
//!   the owner's final `killpg`.

use std::io;
use std::process::ExitStatus;

use rustix::process::{Pid, kill_process_group};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

pub use rustix::process::Signal;

/// A spawned process leading its own process group; dropping it kills the whole group.
#[derive(Debug)]
pub struct ProcessGroup {
    /// `None` only while being dropped.
    child: Option<Child>,
    pgid: Pid,
}

impl ProcessGroup {
    /// Spawns `command` as the leader of a new process group (overriding any process group
    /// and `kill_on_drop` setting it had).
    pub fn spawn(command: &mut Command) -> io::Result<Self> {
        command.process_group(0).kill_on_drop(false);
        let mut child = command.spawn()?;
        // The leader's pid is the group's id. Never accept 1 or less: `kill(-1, sig)` would
        // signal every process the user owns.
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .filter(|&raw| raw > 1)
            .and_then(Pid::from_raw);
        match pgid {
            Some(pgid) => Ok(Self {
                child: Some(child),
                pgid,
            }),
            None => {
                // Cannot happen for a freshly spawned child; kill what we can and refuse.
                let _ = child.start_kill();
                Err(io::Error::other(
                    "the spawned process has no usable process id",
                ))
            }
        }
    }

    /// The leader's process id (which is also the group's id).
    pub fn id(&self) -> u32 {
        self.pgid.as_raw_pid().unsigned_abs()
    }

    /// The write end of the leader's stdin, if the command set `Stdio::piped()` for it and it
    /// was not taken yet. Dropping it closes the leader's stdin.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.as_mut().and_then(|child| child.stdin.take())
    }

    /// The read end of the leader's stdout, if the command set `Stdio::piped()` for it and it
    /// was not taken yet.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.as_mut().and_then(|child| child.stdout.take())
    }

    /// The read end of the leader's stderr, if the command set `Stdio::piped()` for it and it
    /// was not taken yet.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.as_mut().and_then(|child| child.stderr.take())
    }

    /// Sends `signal` to every process in the group. A group with no process left is not an
    /// error.
    pub fn signal(&self, signal: Signal) -> io::Result<()> {
        match kill_process_group(self.pgid, signal) {
            Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// Waits for the leader to exit and reaps it; other members may still run. Cancel safe,
    /// and returns the same status when called again.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self.child.as_mut() {
            Some(child) => child.wait().await,
            None => Err(io::Error::other("the process was already released")),
        }
    }

    /// The leader's exit status if it has exited (reaping it), without waiting.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        match self.child.as_mut() {
            Some(child) => child.try_wait(),
            None => Ok(None),
        }
    }
}

/// The conventional name of a signal number ("SIGKILL" for 9), for messages such as "was killed
/// by signal 9 (SIGKILL)"; `None` for real-time signals and numbers that name no signal. The
/// numbers come from the platform (through [`Signal`]), so they are right wherever Gantry runs.
pub fn signal_name(number: i32) -> Option<&'static str> {
    let signal = Signal::from_named_raw(number)?;
    SIGNAL_NAMES
        .iter()
        .find(|(known, _)| *known == signal)
        .map(|(_, name)| *name)
}

/// The signals [`signal_name`] knows: the POSIX set plus the common extensions.
const SIGNAL_NAMES: &[(Signal, &str)] = &[
    (Signal::HUP, "SIGHUP"),
    (Signal::INT, "SIGINT"),
    (Signal::QUIT, "SIGQUIT"),
    (Signal::ILL, "SIGILL"),
    (Signal::TRAP, "SIGTRAP"),
    (Signal::ABORT, "SIGABRT"),
    (Signal::BUS, "SIGBUS"),
    (Signal::FPE, "SIGFPE"),
    (Signal::KILL, "SIGKILL"),
    (Signal::USR1, "SIGUSR1"),
    (Signal::SEGV, "SIGSEGV"),
    (Signal::USR2, "SIGUSR2"),
    (Signal::PIPE, "SIGPIPE"),
    (Signal::ALARM, "SIGALRM"),
    (Signal::TERM, "SIGTERM"),
    (Signal::CHILD, "SIGCHLD"),
    (Signal::CONT, "SIGCONT"),
    (Signal::STOP, "SIGSTOP"),
    (Signal::TSTP, "SIGTSTP"),
    (Signal::TTIN, "SIGTTIN"),
    (Signal::TTOU, "SIGTTOU"),
    (Signal::URG, "SIGURG"),
    (Signal::XCPU, "SIGXCPU"),
    (Signal::XFSZ, "SIGXFSZ"),
    (Signal::VTALARM, "SIGVTALRM"),
    (Signal::PROF, "SIGPROF"),
    (Signal::WINCH, "SIGWINCH"),
    (Signal::IO, "SIGIO"),
    (Signal::SYS, "SIGSYS"),
    #[cfg(any(target_os = "linux", target_os = "android"))]
    (Signal::POWER, "SIGPWR"),
];

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if let Err(error) = self.signal(Signal::KILL) {
            tracing::warn!(pgid = self.id(), %error, "could not kill a command's process group");
        }
        let Some(mut child) = self.child.take() else {
            return;
        };
        if matches!(child.try_wait(), Ok(Some(_))) {
            return;
        }
        // SIGKILL is not instantaneous: reap the leader once it is gone. Outside a runtime (or
        // while it shuts down) tokio's own orphan queue reaps it on a best-effort basis.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = child.wait().await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use super::*;

    async fn reaped_within(pid: u32, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if !Path::new(&format!("/proc/{pid}")).exists() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        false
    }

    #[tokio::test]
    async fn the_child_leads_its_own_group_and_dropping_kills_and_reaps_it() {
        let mut command = Command::new("sleep");
        command.arg("1000");
        let group = ProcessGroup::spawn(&mut command).unwrap();
        let pid = group.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
        // Fields after the name: state, ppid, pgrp.
        assert_eq!(fields[2], pid.to_string(), "{stat}");
        drop(group);
        assert!(reaped_within(pid, Duration::from_millis(500)).await);
    }

    #[tokio::test]
    async fn the_leaders_pipes_can_be_taken_once() {
        use std::process::Stdio;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};

        let mut command = Command::new("sh");
        command
            .args(["-c", "read line; echo \"out $line\"; echo err >&2"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut group = ProcessGroup::spawn(&mut command).unwrap();
        let mut stdin = group.take_stdin().unwrap();
        let mut stdout = group.take_stdout().unwrap();
        let mut stderr = group.take_stderr().unwrap();
        assert!(group.take_stdin().is_none());
        assert!(group.take_stdout().is_none());
        assert!(group.take_stderr().is_none());
        stdin.write_all(b"hello\n").await.unwrap();
        drop(stdin);
        let mut out = String::new();
        stdout.read_to_string(&mut out).await.unwrap();
        let mut err = String::new();
        stderr.read_to_string(&mut err).await.unwrap();
        assert_eq!((out.as_str(), err.as_str()), ("out hello\n", "err\n"));
        assert!(group.wait().await.unwrap().success());
    }

    #[tokio::test]
    async fn a_terminated_group_reports_the_signal_by_name() {
        use std::os::unix::process::ExitStatusExt;

        let mut command = Command::new("sleep");
        command.arg("1000");
        let mut group = ProcessGroup::spawn(&mut command).unwrap();
        group.signal(Signal::TERM).unwrap();
        let status = group.wait().await.unwrap();
        let number = status.signal().unwrap();
        assert_eq!(number, Signal::TERM.as_raw());
        assert_eq!(signal_name(number), Some("SIGTERM"));
    }

    #[test]
    fn signals_have_their_conventional_names() {
        assert_eq!(signal_name(9), Some("SIGKILL"));
        assert_eq!(signal_name(15), Some("SIGTERM"));
        assert_eq!(signal_name(2), Some("SIGINT"));
        assert_eq!(signal_name(Signal::ALARM.as_raw()), Some("SIGALRM"));
        assert_eq!(signal_name(Signal::CHILD.as_raw()), Some("SIGCHLD"));
        assert_eq!(signal_name(0), None);
        assert_eq!(signal_name(-3), None);
        assert_eq!(signal_name(1000), None);
    }

    #[tokio::test]
    async fn signalling_a_group_that_is_gone_is_not_an_error() {
        let mut command = Command::new("true");
        let mut group = ProcessGroup::spawn(&mut command).unwrap();
        assert!(group.wait().await.unwrap().success());
        assert!(group.try_wait().unwrap().is_some());
        group.signal(Signal::TERM).unwrap();
    }
}
