//! The whole process tree lives and dies with the command.

use std::fs;
use std::process::Stdio;
use std::time::Duration;

use gantry_sandbox::{Signal, signal_inside};

use super::support::Fixture;

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
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!outside.exists(), "the background child wrote outside");
    assert!(
        !project.exists(),
        "the background child outlived the command"
    );

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
    tokio::time::sleep(Duration::from_millis(500)).await;
    let group = format!("-{}", child.id().unwrap());
    let killed = std::process::Command::new("kill")
        .args(["-TERM", "--", &group])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().await.unwrap();
    assert_eq!(status.code(), None, "{status:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let ticks = fs::read_to_string(fx.project.join("ticks")).unwrap();
    assert!(!ticks.is_empty());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        fs::read_to_string(fx.project.join("ticks")).unwrap(),
        ticks,
        "a process inside outlived bubblewrap"
    );
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

    let child = start(&fx);
    let pid = child.id().unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(signal_inside(pid, Signal::TERM).unwrap());
    let output = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ready\ngot-term\n");

    // A signal to bubblewrap itself is not passed on: the command ends without its trap.
    let child = start(&fx);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let pid = child.id().unwrap().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    let output = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(output.status.code(), None, "{output:?}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "ready\n");
}
