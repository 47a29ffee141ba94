//! Measures what the issue asks of the project tree, on the real file system.
//!
//! 1. End-to-end watcher latency: from the system call that creates, renames or deletes a file to
//!    the matching `TreeChange` arriving on the channel, over `--ops` operations (default 100)
//!    with the app's 50 ms debounce. Requirement: within 200 ms.
//! 2. Lazy listing: `children("")` at the root of a generated tree of `--files` files (default
//!    100,000) against one full walk of the same tree with `gantry_tools::walk::project_walker`
//!    (the reference: what an eager tree would cost), as a ratio. Also the time to start a
//!    watcher on that tree, which walks the shown directories once.
//!
//! 3. The watcher's cost on that tree: inotify watches held and resident memory added by its
//!    start; and, past a cap of one watch, what polling the shown folders costs instead.
//!
//! Run with `cargo bench -p gantry-watch` (add `-- --files 20000 --ops 30` for a quick run, and
//! `--fanout 22` for some 10,000 directories instead of some 1,000).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use gantry_watch::{ProjectTree, TreeChange, TreeWatcher};
use tokio::sync::mpsc::UnboundedReceiver;

const DEBOUNCE: Duration = Duration::from_millis(50);

fn main() {
    let files = arg("--files").unwrap_or(100_000);
    let ops = arg("--ops").unwrap_or(100);
    let fanout = arg("--fanout").unwrap_or(10);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    runtime.block_on(latency(ops));
    listing(files, fanout);
}

/// The value after `name` on the command line (cargo bench adds `--bench`, which is skipped).
fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|arg| arg == name)?;
    args.get(at + 1)?.parse().ok()
}

async fn latency(ops: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    let (_watcher, mut changes) = TreeWatcher::start(&root, DEBOUNCE).unwrap();
    let mut samples = Vec::with_capacity(ops);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for op in 0..ops {
        // Start each operation at an arbitrary point of the debouncer's tick, as real edits do,
        // rather than in step with the previous event's delivery.
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        tokio::time::sleep(Duration::from_micros((seed >> 33) % 25_000)).await;
        let n = op / 3;
        let (a, b) = (format!("src/file{n}.rs"), format!("src/moved{n}.rs"));
        let at = Instant::now();
        let expected = match op % 3 {
            0 => {
                std::fs::write(root.join(&a), "fn f() {}\n").unwrap();
                TreeChange::Created {
                    path: a,
                    is_dir: false,
                }
            }
            1 => {
                std::fs::rename(root.join(&a), root.join(&b)).unwrap();
                TreeChange::Renamed {
                    from: a,
                    to: b,
                    is_dir: false,
                }
            }
            _ => {
                std::fs::remove_file(root.join(&b)).unwrap();
                TreeChange::Removed {
                    path: b,
                    is_dir: false,
                }
            }
        };
        wait_for(&mut changes, &expected).await;
        samples.push(at.elapsed());
    }
    samples.sort();
    println!(
        "watcher latency, {ops} operations (create/rename/delete), {} ms debounce: \
         median {}, p95 {}, min {}, max {}",
        DEBOUNCE.as_millis(),
        ms(percentile(&samples, 50)),
        ms(percentile(&samples, 95)),
        ms(samples[0]),
        ms(samples[samples.len() - 1]),
    );
}

async fn wait_for(changes: &mut UnboundedReceiver<TreeChange>, expected: &TreeChange) {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), changes.recv()).await {
            Ok(Some(change)) if change == *expected => return,
            Ok(Some(_)) => {}
            other => panic!("waiting for {expected:?}: {other:?}"),
        }
    }
}

fn listing(files: usize, fanout: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let made = Instant::now();
    let dirs = generate(&root, files, fanout);
    println!(
        "generated {files} shown files in {dirs} directories (+ 5000 under node_modules/) in {}",
        ms(made.elapsed())
    );

    let tree = ProjectTree::new(&root).unwrap();
    let list_root = median_of(51, || {
        assert!(tree.children("").unwrap().len() > 10);
    });
    let list_leaf = median_of(51, || {
        assert!(!tree.children("d0/d0/d0").unwrap().is_empty());
    });
    let walk = median_of(5, || {
        let seen = gantry_tools::walk::project_walker(&root).build().count();
        assert!(seen > files);
    });
    println!(
        "children(\"\") median {}, children of a {}-file leaf median {}; full walk median {}; \
         root listing / full walk = 1/{:.0}",
        ms(list_root),
        files / fanout.pow(3),
        ms(list_leaf),
        ms(walk),
        walk.as_secs_f64() / list_root.as_secs_f64()
    );

    let rss_before = rss_kib();
    let started = Instant::now();
    let (watcher, _changes) = TreeWatcher::start(&root, DEBOUNCE).unwrap();
    let start = started.elapsed();
    let watches = inotify_watches();
    let rss_after = rss_kib();
    let stopping = Instant::now();
    drop(watcher);
    println!(
        "TreeWatcher::start on that tree (one walk, {} watches) {}; drop {}",
        dirs + 1,
        ms(start),
        ms(stopping.elapsed())
    );
    println!(
        "the watcher's cost: {watches} inotify watches held (counted in /proc/self/fdinfo), \
         resident memory +{} KiB (VmRSS {rss_before} -> {rss_after} KiB)",
        rss_after.saturating_sub(rss_before)
    );
    polling(&root);
}

/// What polling costs when a limit leaves folders unwatched: a watcher capped at one watch (the
/// root) on the same tree, with 256 leaf folders shown (the most it polls), timed per poll
/// interval through the time a change in the last shown folder takes to arrive.
fn polling(root: &Path) {
    let options = gantry_watch::WatchOptions {
        max_watches: Some(1),
        poll_interval: Duration::from_millis(200),
        ..gantry_watch::WatchOptions::new(DEBOUNCE)
    };
    let started = Instant::now();
    let (watcher, mut changes) = TreeWatcher::start_with_options(root, &options).unwrap();
    let start = started.elapsed();
    let limit = watcher.limit().borrow().clone().unwrap();
    let shown: Vec<String> = (0..256)
        .map(|n| format!("d{}/d{}/d{}", n % 10, (n / 10) % 10, n / 100))
        .collect();
    for dir in &shown {
        watcher.shown(dir);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut samples = Vec::new();
    for n in 0..10 {
        let dir = &shown[(n * 37) % shown.len()];
        let path = format!("{dir}/polled{n}.rs");
        let at = Instant::now();
        std::fs::write(root.join(&path), "x").unwrap();
        runtime.block_on(wait_for(
            &mut changes,
            &TreeChange::Created {
                path,
                is_dir: false,
            },
        ));
        samples.push(at.elapsed());
    }
    samples.sort();
    let cpu = process_cpu();
    std::thread::sleep(Duration::from_secs(2));
    let cpu_per_s = (process_cpu() - cpu) / 2.0;
    drop(watcher);
    println!(
        "past a cap of 1 watch: start {} ({} watched, {} polled while shown); 256 shown folders \
         polled every 200 ms: a change arrives in median {}, p95 {}; CPU {:.1} % of a core",
        ms(start),
        limit.watched,
        limit.unwatched,
        ms(percentile(&samples, 50)),
        ms(percentile(&samples, 95)),
        cpu_per_s * 100.0
    );
}

/// This process's resident memory, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// This process's CPU time (user + system), in seconds.
fn process_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let Some(rest) = stat.rfind(')').map(|at| &stat[at + 2..]) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// The inotify watches this process holds (one `inotify wd:` line each in its fds' fdinfo).
fn inotify_watches() -> usize {
    let Ok(fds) = std::fs::read_dir("/proc/self/fdinfo") else {
        return 0;
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_to_string(fd.path()).ok())
        .map(|info| {
            info.lines()
                .filter(|line| line.starts_with("inotify wd:"))
                .count()
        })
        .sum()
}

/// Writes `files` files under `root`: `fanout`^3 leaf directories three levels down sharing them
/// evenly, the remainder and a few more at the root, and a `node_modules/` that the tree must not
/// pay for. Returns the number of shown directories below the root.
fn generate(root: &Path, files: usize, fanout: usize) -> usize {
    let leaves = fanout.pow(3);
    let per_leaf = files / leaves;
    for a in 0..fanout {
        for b in 0..fanout {
            for c in 0..fanout {
                let leaf = root.join(format!("d{a}/d{b}/d{c}"));
                std::fs::create_dir_all(&leaf).unwrap();
                for f in 0..per_leaf {
                    std::fs::write(leaf.join(format!("file{f}.rs")), "x").unwrap();
                }
            }
        }
    }
    for f in 0..files - per_leaf * leaves + 20 {
        std::fs::write(root.join(format!("root{f}.txt")), "x").unwrap();
    }
    let vendor = root.join("node_modules/pkg");
    std::fs::create_dir_all(&vendor).unwrap();
    for f in 0..5000 {
        std::fs::write(vendor.join(format!("m{f}.js")), "x").unwrap();
    }
    fanout + fanout.pow(2) + leaves
}

fn median_of(runs: usize, mut run: impl FnMut()) -> Duration {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let at = Instant::now();
            run();
            at.elapsed()
        })
        .collect();
    samples.sort();
    percentile(&samples, 50)
}

/// The `pct`th percentile of sorted samples (nearest rank).
fn percentile(sorted: &[Duration], pct: usize) -> Duration {
    let rank = (sorted.len() * pct).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}
