//! Everything a sandboxed command starts ends with the call: background jobs, `setsid`
//! daemons, on exit, timeout and cancellation.

use std::path::Path;
use std::time::{Duration, Instant};

use gantry_tools::ObservationKind;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::support::{Fixture, assert_stays_for};

/// A background loop appending a line to `beat` every 50 ms, detached with `setsid`.
const HEARTBEAT: &str =
    "setsid sh -c 'while :; do echo . >> beat; sleep 0.05; done' > /dev/null 2>&1 &";

/// How long a background child that would write 0.6 s after its command started is watched for
/// a late write, once the call ended and the heartbeat stopped.
const LATE_WRITE_WINDOW: Duration = Duration::from_millis(800);

/// The size of `file`, 0 when missing.
fn size(file: &Path) -> u64 {
    std::fs::metadata(file).map(|meta| meta.len()).unwrap_or(0)
}

/// True when `file` stops growing within `limit` (no growth for 300 ms).
async fn stops_growing(file: &Path, limit: Duration) -> bool {
    let start = Instant::now();
    let mut last = size(file);
    let mut still_since = Instant::now();
    while start.elapsed() < limit {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = size(file);
        if now != last {
            last = now;
            still_since = Instant::now();
        } else if still_since.elapsed() >= Duration::from_millis(300) {
            return true;
        }
    }
    false
}

#[tokio::test]
async fn a_background_child_does_not_outlive_the_call_nor_write_outside_after_it() {
    let fx = Fixture::new();
    let script = format!(
        "{HEARTBEAT}\n\
         (exec 2>/dev/null; sleep 0.6; echo late > late.txt; echo late > '{outside}/late') > /dev/null &\n\
         sleep 0.2; echo started",
        outside = fx.outside.display()
    );
    let obs = fx.run(&script).await;
    assert!(obs.text.ends_with("\nstarted\n"), "{}", obs.text);
    assert!(size(&fx.project.join("beat")) > 0, "the heartbeat ran");
    assert!(stops_growing(&fx.project.join("beat"), Duration::from_secs(3)).await);
    assert_stays_for(LATE_WRITE_WINDOW, || {
        assert!(!fx.project.join("late.txt").exists());
        assert!(!fx.outside.join("late").exists());
    })
    .await;
}

#[tokio::test]
async fn a_timeout_asks_the_command_inside_to_stop_then_ends_the_sandbox() {
    let fx = Fixture::new();
    let command = format!(
        "{HEARTBEAT} trap 'echo stopping; exit 1' TERM; echo started; while :; do sleep 0.05; done"
    );
    let obs = fx
        .manager
        .dispatch(
            "run_command",
            json!({"command": command, "timeout": 1}),
            &fx.call(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert!(
        obs.text.starts_with("[timeout after 1s]\nstarted\n") && obs.text.ends_with("stopping\n"),
        "{:?}",
        obs.text
    );
    assert!(stops_growing(&fx.project.join("beat"), Duration::from_secs(3)).await);
}

#[tokio::test]
async fn cancelling_the_call_ends_every_process_in_the_sandbox() {
    let fx = Fixture::new();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let beat = fx.project.join("beat");
    let watcher = {
        let beat = beat.clone();
        tokio::spawn(async move {
            while size(&beat) == 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            trigger.cancel();
            Instant::now()
        })
    };
    let obs = fx
        .manager
        .dispatch(
            "run_command",
            json!({"command": format!("{HEARTBEAT} sleep 1000"), "timeout": 600}),
            &fx.call().with_cancel(cancel),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Cancelled);
    let cancelled_at = watcher.await.unwrap();
    assert!(stops_growing(&beat, Duration::from_secs(3)).await);
    eprintln!("cancel to quiet: {:?}", cancelled_at.elapsed());
}
