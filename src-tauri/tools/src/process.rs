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
//! [`ProcessGroup`] owns such a child. Dropping it kills the whole group with `SIGKILL`, which is
//! what makes cancellation work: the [`crate::ToolManager`] cancels a call by *dropping* the
//! tool's future, so cleanup must happen in `Drop`, synchronously (`killpg` is one syscall).
//! The leader is then reaped by a detached task so it does not linger as a zombie; the group's
//! other members were reparented to init (or the nearest subreaper), which reaps them.
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
use tokio::process::{Child, Command};

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
    async fn signalling_a_group_that_is_gone_is_not_an_error() {
        let mut command = Command::new("true");
        let mut group = ProcessGroup::spawn(&mut command).unwrap();
        assert!(group.wait().await.unwrap().success());
        assert!(group.try_wait().unwrap().is_some());
        group.signal(Signal::TERM).unwrap();
    }
}
