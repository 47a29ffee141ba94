//! read_file at the end of a 2 GiB file: peak memory and time, next to `sed` and `tail`.
//!
//! Run with `cargo bench -p gantry-tools --bench read_file` (about 2 GiB of free disk space is
//! needed; the file goes to `GANTRY_BENCH_DIR` or the system temp directory and is removed at
//! the end). The file is generated text, ~64-byte numbered lines. Each reader runs in its own
//! process under `/usr/bin/time` so peak resident memory (max RSS) is measured the same way for
//! all three:
//!
//! - **read_file**: this binary re-run as a child, one `ToolManager::dispatch` of read_file with
//!   `offset = total - 199`, `limit = 200` — streams the whole file once, keeps 200 lines.
//! - **sed -n 'a,bp'**: the reference with the same access pattern (reads everything from the
//!   start, prints a range).
//! - **tail -n 200**: seeks from the end, so it is far faster; it shows the floor for memory,
//!   and read_file can't seek because it has to number the lines.
//!
//! The aim: read_file's peak RSS stays within a few MiB of a process that reads nothing, i.e.
//! O(window), not O(file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use gantry_tools::{ToolManager, builtin};

const FILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, file, offset] = args.as_slice()
        && flag == "--child"
    {
        child(Path::new(file), offset.parse().unwrap());
        return;
    }
    parent();
}

/// `VmHWM` (peak resident set) of this process, in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn child(file: &Path, offset: usize) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let manager = ToolManager::new(file.parent().unwrap()).unwrap();
    builtin::register_builtins(&manager).unwrap();
    let before = peak_rss_kib();
    let arguments = serde_json::json!({
        "path": file.file_name().unwrap().to_str().unwrap(),
        "offset": offset,
        "limit": 200,
    });
    let started = Instant::now();
    let observation = runtime.block_on(manager.dispatch(
        "read_file",
        arguments,
        &gantry_tools::CallContext::detached(),
    ));
    let elapsed = started.elapsed();
    assert!(observation.is_ok(), "{}", observation.text);
    let header = observation.text.lines().next().unwrap_or_default();
    let last = observation.text.lines().last().unwrap_or_default();
    eprintln!(
        "child: VmHWM before the call {before} KiB, after {} KiB; call {:.2?}\nchild: {header}\nchild: last line shown: {last}",
        peak_rss_kib(),
        elapsed
    );
}

/// Generates ~2 GiB of numbered lines; returns the line count.
fn generate(path: &Path) -> usize {
    let mut block = String::new();
    let mut block_lines = 0usize;
    while block.len() < (4 << 20) - 128 {
        block_lines += 1;
        block.push_str(&format!(
            "{block_lines:08} lorem ipsum dolor sit amet, consectetur adipiscing elit\n"
        ));
    }
    let mut file = File::create(path).unwrap();
    let blocks = FILE_BYTES / block.len() as u64;
    for _ in 0..blocks {
        file.write_all(block.as_bytes()).unwrap();
    }
    file.sync_all().unwrap();
    block_lines * blocks as usize
}

/// Runs `program args` under `/usr/bin/time`; returns (max RSS KiB, wall seconds).
fn measure(program: &str, args: &[&str]) -> (u64, f64) {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "TIME %M %e", program])
        .args(args)
        .stdout(std::process::Stdio::null())
        .output()
        .expect("/usr/bin/time runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for line in stderr.lines().filter(|l| l.starts_with("child:")) {
        println!("  {line}");
    }
    let report = stderr
        .lines()
        .find_map(|l| l.strip_prefix("TIME "))
        .unwrap_or_else(|| panic!("no report from {program}: {stderr}"));
    let mut fields = report.split_whitespace();
    let rss = fields.next().unwrap().parse().unwrap();
    let seconds = fields.next().unwrap().parse().unwrap();
    (rss, seconds)
}

fn parent() {
    if !Path::new("/usr/bin/time").exists() {
        println!("read_file bench skipped: /usr/bin/time is not installed");
        return;
    }
    let base = std::env::var_os("GANTRY_BENCH_DIR")
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from);
    let dir = tempfile::tempdir_in(base).unwrap();
    let path = dir.path().join("huge.log");
    let generating = Instant::now();
    let total = generate(&path);
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "generated {} ({:.2} GiB, {total} lines) in {:.1?}",
        path.display(),
        size as f64 / f64::from(1 << 30),
        generating.elapsed()
    );
    let offset = total - 199;
    let me = std::env::current_exe().unwrap();
    let file = path.to_str().unwrap();
    let range = format!("{offset},{total}p");

    // Warm the page cache so every reader sees the same (cached) file.
    measure("cat", &[file]);
    let rows = [
        (
            "read_file (offset total-199, limit 200)",
            measure(
                me.to_str().unwrap(),
                &["--child", file, &offset.to_string()],
            ),
        ),
        (
            "sed -n 'a,bp' (reads the whole file too)",
            measure("sed", &["-n", &range, file]),
        ),
        (
            "tail -n 200 (seeks from the end)",
            measure("tail", &["-n", "200", file]),
        ),
    ];
    println!("\n{:<44} {:>14} {:>10}", "reader", "peak RSS", "wall");
    for (name, (rss, seconds)) in &rows {
        println!(
            "{name:<44} {:>10.1} MiB {seconds:>9.2}s",
            *rss as f64 / 1024.0
        );
    }
    let (ours, ours_s) = rows[0].1;
    let (sed, sed_s) = rows[1].1;
    println!(
        "\nread_file / sed: peak RSS x{:.2}, time x{:.2}",
        ours as f64 / sed as f64,
        ours_s / sed_s.max(0.01)
    );
}
