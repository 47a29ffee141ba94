//! What the engine's tests share for time: waiting for what must happen, and watching for what
//! must not.
//!
//! A test that sleeps a fixed time and then looks once is flaky both ways on a loaded machine:
//! what must happen may not have happened yet, and what must not happen may not have had its
//! chance. So what must happen is polled until it holds, with a deadline ([`eventually`]), and
//! what must not happen is watched throughout a named window, failing at the first look that
//! sees it ([`stays_for`]) — after waiting for the event it is measured against, where there
//! is one.

use std::time::{Duration, Instant};

/// How long a test waits for something that must happen before it fails.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// How often a waited-for or watched condition is looked at.
const POLL: Duration = Duration::from_millis(10);

/// Polls `holds` until it is true; fails naming `what` (what was awaited) once [`DEADLINE`]
/// has passed. `holds` may assert, to fail at once on what rules the wait out.
pub async fn eventually(what: &str, mut holds: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !holds() {
        assert!(Instant::now() < deadline, "waited {DEADLINE:?} for {what}");
        tokio::time::sleep(POLL).await;
    }
}

/// Looks at `holds` over and over for all of `window`, failing at the first look where it is
/// false, with `what` (what must stay true) and how far into the window that was.
pub async fn stays_for(window: Duration, what: &str, mut holds: impl FnMut() -> bool) {
    let start = Instant::now();
    loop {
        let looked = start.elapsed();
        assert!(holds(), "{what}: no longer so {looked:?} into {window:?}");
        if looked >= window {
            return;
        }
        tokio::time::sleep(POLL).await;
    }
}
