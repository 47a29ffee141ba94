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
//! Without `GANTRY_E2E` each test prints `SKIPPED` and passes, so `cargo test` on a machine without
//! a display stays green — unless `GANTRY_REQUIRE_E2E=1`, which makes that a failure;
//! `scripts/test-all` sets both (see the gantry-test-gate crate). Screenshots of each key step go to
//! `tests/screenshots/<scenario>/`, measurements to `tests/screenshots/<scenario>/metrics.txt`.
//! The scenarios run one at a time (a lock here for `cargo test`, a test group for nextest), so
//! timings are not skewed by a second app on the same two cores.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod a11y;
mod app;
mod changes;
mod chat;
mod config;
mod context;
mod fixture;
mod keep;
mod keyboard;
mod language;
mod long_session;
mod mcp;
mod mcp_edit;
mod models;
mod notifications;
mod panels;
mod parallel;
mod rules;
mod scenarios;
mod streaming;
mod timing;
mod turn_limit;
mod webdriver;
mod window;
mod windows;

use std::time::Duration;

/// Serialises the scenarios within one test process.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// True when the end-to-end suite should run; prints why not otherwise (and fails when
/// `GANTRY_REQUIRE_E2E=1`).
fn enabled() -> bool {
    if std::env::var_os("GANTRY_E2E").is_none() {
        return gantry_test_gate::should_run(
            gantry_test_gate::Gate::E2e,
            Err(
                "GANTRY_E2E is not set: run the suite with GANTRY_E2E=1 under a display \
                 (scripts/test-all does: xvfb-run -a scripts/with-keyring ...)"
                    .into(),
            ),
        );
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
