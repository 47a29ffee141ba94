//! Where the time of opening a big project goes, on the engine's side.
//!
//! A project of `--files` files (default 100,000, in 1,000 folders of 100) is opened `--runs`
//! times (default 7) through [`Window::show_folder`], as the welcome screen does, and its root
//! listed as the tree does; between runs it is closed. Reported: the open (store, policies, tools,
//! checkpoints, chat; the watcher starts in the background), the root's listing, and how long
//! after the open the watcher runs (it walks the shown folders once). The rest of the figure
//! the end-to-end suite reports (100 to 235 ms at the median from the click to the first rows) is
//! the webview's. The reference, measured side by side, is one full walk of the project: what an
//! eager tree would cost before showing anything.
//!
//! Run with `cargo bench -p gantry-engine --bench open` (`-- --files 20000` for a quick look).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_engine::events::RecordingSink;
use gantry_engine::project::service::ListDirRequest;
use gantry_engine::{ProjectService, Service, Settings, Window};
use gantry_store::Store;

fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1)?.parse().ok()
}

fn main() {
    let files = arg("--files").unwrap_or(100_000);
    let runs = arg("--runs").unwrap_or(7);
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    for n in 0..files {
        let dir = root.join(format!("pkg{:03}/mod{}", n / 1000, n / 100 % 10));
        if n % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{:03}.rs", n % 100)), "x").unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let sink = Arc::new(RecordingSink::default());
        let state = Window::of_new_app(sink.clone(), Settings::default(), store);
        let (mut opens, mut lists, mut watching) = (Vec::new(), Vec::new(), Vec::new());
        for run in 0..runs {
            let started = Instant::now();
            state.show_folder(root.clone()).await.unwrap();
            opens.push(started.elapsed());
            let listed = Instant::now();
            assert!(
                ProjectService::of(&state)
                    .unwrap()
                    .list_dir(ListDirRequest {
                        path: String::new(),
                    })
                    .await
                    .unwrap()
                    .len()
                    >= 100
            );
            lists.push(listed.elapsed());
            while sink.named("tree:status").len() <= run {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            watching.push(started.elapsed());
            state.close_folder();
            // Closing stops the watcher in the background; let it finish before the next run.
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        let walk = Instant::now();
        let walked = gantry_tools::walk::project_walker(&root).build().count();
        let walk = walk.elapsed();
        println!("a project of {files} files, opened {runs} times:");
        println!("  open_project: {}", summary(&mut opens));
        println!("  list_dir(\"\") after it: {}", summary(&mut lists));
        println!(
            "  open_project -> the watcher runs: {}",
            summary(&mut watching)
        );
        println!(
            "  reference, one full walk ({walked} entries): {}; open + listing / walk = {:.2}",
            ms(walk),
            (median(&opens) + median(&lists)).as_secs_f64() / walk.as_secs_f64()
        );
    });
}

fn median(sorted: &[Duration]) -> Duration {
    sorted[sorted.len() / 2]
}

fn summary(samples: &mut [Duration]) -> String {
    samples.sort();
    let p95 = samples[((samples.len() as f64 - 1.0) * 0.95).round() as usize];
    format!("median {}, p95 {}", ms(median(samples)), ms(p95))
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}
