//! Dispatch overhead: the cost of `ToolManager::dispatch` around a SAFE no-op tool.
//!
//! Run with `cargo bench -p gantry-tools --bench dispatch`. The figure is everything Gantry adds
//! to a call: lookup, JSON parsing, coercion against the schema, deserialising, the permission
//! gate, timing and the audit record (no-op sink). The aim is under 5 µs per call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use gantry_tools::{ToolManager, ToolResult, tool};
use schemars::JsonSchema;
use serde::Deserialize;

fn ten() -> u32 {
    10
}

#[derive(Deserialize, JsonSchema)]
struct NoopArgs {
    /// A path, as most tools take.
    path: String,
    /// A number with a default.
    #[serde(default = "ten")]
    limit: u32,
}

/// Does nothing.
#[tool]
async fn noop(args: NoopArgs) -> ToolResult {
    Ok(if args.limit > 0 {
        args.path.into()
    } else {
        String::new().into()
    })
}

fn measure(
    runtime: &tokio::runtime::Runtime,
    manager: &ToolManager,
    arguments: &str,
    calls: u32,
) -> Duration {
    runtime.block_on(async {
        let started = Instant::now();
        for _ in 0..calls {
            let observation = manager
                .dispatch("noop", arguments, &gantry_tools::CallContext::detached())
                .await;
            assert!(observation.is_ok());
        }
        started.elapsed()
    })
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path()).unwrap();
    manager.register(Noop).unwrap();
    let calls = 200_000;
    let cases = [
        ("typed arguments", r#"{"path": "src/main.rs", "limit": 5}"#),
        (
            "coerced arguments",
            r#"{"path": "src/main.rs", "limit": "5"}"#,
        ),
        ("defaults", r#"{"path": "src/main.rs"}"#),
    ];
    println!("dispatch overhead, SAFE no-op tool, {calls} calls each");
    for (label, arguments) in cases {
        measure(&runtime, &manager, arguments, calls / 10); // warm up
        let best = (0..5)
            .map(|_| measure(&runtime, &manager, arguments, calls))
            .min()
            .unwrap();
        let per_call = best.as_secs_f64() * 1e6 / f64::from(calls);
        println!("  {label:<18} {per_call:.2} µs/call (best of 5)");
    }
}
