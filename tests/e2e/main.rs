//! End-to-end tests of the Gantry desktop app: the real debug binary (`CARGO_BIN_EXE_gantry`) in a
//! real WebKitGTK window, driven through WebKitWebDriver (Debian's webkit2gtk-driver) with
//! `TAURI_WEBVIEW_AUTOMATION=true`, the way a person uses it: clicks, then what the window shows.
//! No mocked backend: the commands, the engine, the watcher and the file system are real.
//!
//! Run with `GANTRY_E2E=1` under a display and a private session bus:
//!
//! ```sh
//! GANTRY_E2E=1 xvfb-run -a dbus-run-session -- cargo nextest run -p gantry --test e2e
//! ```
//!
//! Without `GANTRY_E2E` each test prints a note and passes, so `cargo test` on a machine without
//! a display stays green; `scripts/test-all` sets it. Screenshots of each key step go to
//! `tests/screenshots/<scenario>/`, measurements to `tests/screenshots/<scenario>/metrics.txt`.
//! The scenarios run one at a time (a lock here for `cargo test`, a test group for nextest), so
//! timings are not skewed by a second app on the same two cores.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod app;
mod changes;
mod chat;
mod fixture;
mod language;
mod mcp;
mod mcp_edit;
mod panels;
mod scenarios;
mod webdriver;

use std::time::Duration;

/// Serialises the scenarios within one test process.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// True when the end-to-end suite should run; prints why not otherwise.
fn enabled() -> bool {
    if std::env::var_os("GANTRY_E2E").is_none() {
        eprintln!(
            "note: end-to-end test skipped; run it with GANTRY_E2E=1 under a display \
             (scripts/test-all does: xvfb-run -a dbus-run-session -- ...)"
        );
        return false;
    }
    assert!(
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some(),
        "GANTRY_E2E is set but there is no display: run under xvfb-run -a dbus-run-session"
    );
    true
}

/// Median and 95th percentile of `samples` (sorted in place).
fn percentiles(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| {
        let index = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[index.min(samples.len() - 1)]
    };
    (at(0.5), at(0.95))
}

/// Milliseconds with one decimal.
fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}
