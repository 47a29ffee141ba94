//! The whole process tree lives and dies with the command.

use std::fs;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use gantry_sandbox::{Signal, signal_inside};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStdout};

use super::support::{Fixture, WAIT, assert_stays_for, eventually};

/// How long a background child that would write half a second after its command started is
/// watched for a late write, once the command has exited.
const LATE_WRITE_WINDOW: Duration = Duration::from_millis(1500);

/// No tick for this long (the loop ticks every 50 ms): the processes that ticked are gone.
const TICKS_QUIET: Duration = Duration::from_millis(200);

/// How long the ticks are watched for one more, once they stopped.
const NO_TICK_WINDOW: Duration = Duration::from_millis(500);

#[tokio::test]
async fn a_background_child_cannot_write_after_the_command_exits() {
    let fx = Fixture::new();
    let (outside, project) = (fx.outside.join("late"), fx.project.join("late"));
    let script = format!(
        "(sleep 0.5; echo x > '{}'; echo x > '{}') & echo started",
        outside.display(),
        project.display()
    );
    let ran = fx.run(&script).await;
    assert_eq!(ran.ok(), "started\n", "{ran:#?}");
    assert_stays_for(LATE_WRITE_WINDOW, || {
        assert!(!outside.exists(), "the background child wrote outside");
        assert!(
            !project.exists(),
            "the background child outlived the command"
        );
    })
    .await;

    // The control: waiting for the child, its write inside lands and the one outside fails.
    let ran = fx.run(&format!("{script}; wait")).await;
    assert!(ran.stderr.contains("Read-only file system"), "{ran:#?}");
    assert!(project.exists());
    assert!(!outside.exists());
}

/// As gantry-tools' `run_command` does it: bubblewrap leads a process group of its own, and a
/// timeout signals that group (here with `SIGTERM`, which bubblewrap does not pass on): the
/// processes inside, in a session of their own, die with bubblewrap all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signalling_bubblewraps_process_group_ends_every_process_inside() {
    let fx = Fixture::new();
    let command = fx.command(
        &fx.policy(),
        &fx.project,
        "(while :; do echo t >> ticks; sleep 0.05; done) & wait",
    );
    let mut child = command
        .spawn_with(|command| {
            command
                .stdin(Stdio::null())
                .process_group(0)
                .kill_on_drop(true);
            command.spawn()
        })
        .unwrap();
    let ticks = || fs::read_to_string(fx.project.join("ticks")).unwrap_or_default();
    eventually("the processes inside to tick", || !ticks().is_empty()).await;
    let group = format!("-{}", child.id().unwrap());
    let killed = std::process::Command::new("kill")
        .args(["-TERM", "--", &group])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), None, "{status:?}");
    // The processes inside get their end from bubblewrap's a moment after it is reaped: wait
    // until the ticks stop, then watch that none comes.
    let mut last = (ticks(), Instant::now());
    eventually("the processes inside to end with bubblewrap", || {
        let now = ticks();
        if now != last.0 {
            last = (now, Instant::now());
        }
        last.1.elapsed() >= TICKS_QUIET
    })
    .await;
    let ticked = last.0;
    assert!(!ticked.is_empty());
    assert_stays_for(NO_TICK_WINDOW, || {
        assert_eq!(ticks(), ticked, "a process inside outlived bubblewrap");
    })
    .await;
}

/// Takes the command's stdout and waits until it printed `ready` (its trap is set).
async fn ready(mut child: Child) -> (Child, BufReader<ChildStdout>) {
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(WAIT, stdout.read_line(&mut line))
        .await
        .expect("the command never printed ready")
        .unwrap();
    assert_eq!(line, "ready\n");
    (child, stdout)
}

/// Waits (at most 10 s) for the command to end: its exit status and what it printed after `ready`.
async fn ended(mut child: Child, mut stdout: BufReader<ChildStdout>) -> (ExitStatus, String) {
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).await.unwrap();
        (child.wait().await.unwrap(), rest)
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn signal_inside_lets_a_command_end_politely() {
    let fx = Fixture::new();
    let script = "trap 'echo got-term; exit 3' TERM; echo ready; sleep 30 & wait";
    let start = |fx: &Fixture| {
        fx.command(&fx.policy(), &fx.project, script)
            .spawn_with(|command| {
                command
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .kill_on_drop(true);
                command.spawn()
            })
            .unwrap()
    };

    let (child, stdout) = ready(start(&fx)).await;
    let pid = child.id().unwrap();
    assert!(signal_inside(pid, Signal::TERM).unwrap());
    let (status, rest) = ended(child, stdout).await;
    assert_eq!(status.code(), Some(3), "{status:?}");
    assert_eq!(rest, "got-term\n");

    // A signal to bubblewrap itself is not passed on: the command ends without its trap.
    let (child, stdout) = ready(start(&fx)).await;
    let pid = child.id().unwrap().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    let (status, rest) = ended(child, stdout).await;
    assert_eq!(status.code(), None, "{status:?}");
    assert_eq!(rest, "");
}
