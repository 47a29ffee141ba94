//! What checkpoints cost, as ratios against the same calls without them, on a large project.
//!
//! 1. A project of `--files` small source files (default 100,000, in folders of 100), opened
//!    twice: with checkpoints (the engine's `open_tools`) and without (a bare `ToolManager` with
//!    the same built-in tools). Same folder, same tools, same approvals.
//! 2. The first command with checkpoints: the baseline snapshot (every file read once, stored
//!    once).
//! 3. `write_file` of a 4 KiB file, and `run_command` (`true`, and one that appends to a file):
//!    `--runs` calls each (default 20), alternating with and without checkpoints; medians and
//!    fastest runs compared.
//! 4. Store growth: 1,000 edits (edit_file, one line each) of a 100 KB text file, with the
//!    blobs' size on disk and the index rows.
//!
//! Run with `cargo bench -p gantry-engine --bench checkpoints` (add `-- --files 20000 --runs 5`
//! for a quick look).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_engine::project::open::{People, open_tools};
use gantry_store::{NewMessage, Role, Store};
use gantry_tools::{
    ApprovalDecision, CallContext, FixedApprover, ObservationKind, ToolManager, ToolSession,
    builtin,
};
use serde_json::{Value, json};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let files = arg("--files").unwrap_or(100_000);
    let runs = arg("--runs").unwrap_or(20);
    let edits = arg("--edits").unwrap_or(1_000);

    // In memory where there is a tmpfs (making 100,000 files on a shared disk is slow and
    // fills it); the snapshot's walks hit the page cache either way.
    let shm = Path::new("/dev/shm");
    let base = tempfile::Builder::new()
        .prefix("gantry-checkpoints-bench-")
        .tempdir_in(if shm.is_dir() {
            shm
        } else {
            Path::new("/var/tmp")
        })
        .unwrap();
    let project = base.path().join("project");
    let started = Instant::now();
    make_project(&project, files);
    println!(
        "project: {files} files of ~1 KiB in {} folders, made in {:.1} s",
        files.div_ceil(100),
        started.elapsed().as_secs_f64()
    );

    // The floor of any stat snapshot: the project walk alone, with one lstat per file.
    let walks: Vec<Duration> = (0..3).map(|_| bare_walk(&project)).collect();
    println!(
        "the project walk alone (ignore rules, one lstat per file): {:.1} ms (fastest of 3)",
        ms(fastest(&walks))
    );

    let store = Store::open(base.path().join("data/gantry.db"))
        .await
        .unwrap();
    let people = People {
        approver: Some(Arc::new(FixedApprover(ApprovalDecision::AllowOnce))),
        prompter: None,
    };
    let opened = open_tools(store.clone(), &project, people).await.unwrap();
    opened.manager.enable("run_command").unwrap();
    let checkpoints = opened.checkpoints.clone();
    let with = Arc::new(opened.manager);
    let session = store
        .sessions()
        .create(opened.project.id, "bench", None)
        .await
        .unwrap();
    let user = store
        .sessions()
        .append_message(session.id, &NewMessage::text(Role::User, "bench"))
        .await
        .unwrap();
    checkpoints.begin_turn(&session.id.to_string(), user.ordinal);
    let recorded = Arc::new(ToolSession::new(session.id.to_string()));

    let without = ToolManager::new(&project)
        .unwrap()
        .with_approver(Arc::new(FixedApprover(ApprovalDecision::AllowOnce)));
    builtin::register_builtins(&without).unwrap();
    without.enable("run_command").unwrap();
    let without = Arc::new(without);
    let detached = Arc::new(ToolSession::new("no-checkpoints"));

    let call = |tools: &Arc<ToolManager>, session: &Arc<ToolSession>, tool: &str, args: Value| {
        let (tools, session, tool) = (Arc::clone(tools), Arc::clone(session), tool.to_owned());
        async move {
            let context = CallContext::new("bench", session);
            let at = Instant::now();
            let observation = tools.dispatch(&tool, args, &context).await;
            assert_eq!(observation.kind, ObservationKind::Ok, "{observation:?}");
            at.elapsed()
        }
    };

    let baseline = call(&with, &recorded, "run_command", json!({"command": "true"})).await;
    println!(
        "first command with checkpoints (baseline: every file read and stored once): {:.2} s, \
         blobs {:.1} MiB",
        baseline.as_secs_f64(),
        mib(checkpoints.used_bytes().await)
    );

    println!("{runs} runs of each; with / without checkpoints = ratio (+ difference):");
    let body = "fn f() { let x = 1 + 2; println!(\"{x}\"); } // some source text\n".repeat(64);
    let mut cases: Vec<(String, Vec<Duration>, Vec<Duration>)> = Vec::new();
    let commands = [
        (
            "run_command `true`",
            "run_command",
            json!({"command": "true"}),
        ),
        (
            "run_command appending to a file",
            "run_command",
            json!({"command": "echo more >> pkg001/f000.rs"}),
        ),
    ];
    let write = (
        "write_file (4 KiB)",
        "write_file",
        json!({"path": "pkg000/written.rs", "content": body}),
    );
    let mut measure = async |label: String, tool: &str, args: &Value| {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for run in 0..runs {
            // Each write differs, so each is a real change to record.
            let args = with_run(args, run);
            a.push(call(&with, &recorded, tool, args.clone()).await);
            b.push(call(&without, &detached, tool, args).await);
        }
        cases.push((label, a, b));
    };
    measure(write.0.to_owned(), write.1, &write.2).await;
    for (name, tool, args) in &commands {
        measure(format!("{name}, no watcher (gantry-cli)"), tool, args).await;
    }
    // The app runs the project's watcher: the snapshot before a command reads what it reported.
    let root = project.clone();
    let debounce = Duration::from_millis(50);
    let (watcher, mut reports) =
        tokio::task::spawn_blocking(move || gantry_watch::TreeWatcher::start(root, debounce))
            .await
            .unwrap()
            .unwrap();
    checkpoints.watch_started(debounce);
    let forwarded = checkpoints.clone();
    let forward = tokio::spawn(async move {
        while let Some(change) = reports.recv().await {
            forwarded.watched(&[change]);
        }
    });
    call(&with, &recorded, "run_command", json!({"command": "true"})).await;
    let walks = checkpoints.full_walks();
    for (name, tool, args) in &commands {
        measure(format!("{name}, with the watcher (app)"), tool, args).await;
    }
    println!(
        "  (walks of the whole project with the watcher: {} for {} commands)",
        checkpoints.full_walks() - walks,
        2 * runs
    );
    for (name, with, without) in &cases {
        println!("  {name}");
        for (label, pick) in [
            ("median", median as fn(&[Duration]) -> Duration),
            ("fastest", fastest),
        ] {
            let (with, without) = (pick(with), pick(without));
            println!(
                "    {label:<8} {:>9.2} ms / {:>9.2} ms = {:>6.2}x  (+{:.2} ms)",
                ms(with),
                ms(without),
                with.as_secs_f64() / without.as_secs_f64(),
                ms(with.saturating_sub(without))
            );
        }
    }

    // Store growth: 1,000 one-line edits of a 100 KB text file.
    let before = checkpoints.used_bytes().await;
    let rows_before = store.checkpoints().count(opened.project.id).await.unwrap();
    let text = prose(100_000);
    std::fs::write(project.join("pkg002/long.txt"), &text).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = Instant::now();
    for edit in 0..edits {
        let index = (edit * 7919) % lines.len();
        let old = lines[index].clone();
        let new = format!("{old} [{edit}]");
        call(
            &with,
            &recorded,
            "edit_file",
            json!({"path": "pkg002/long.txt", "old_string": old, "new_string": new}),
        )
        .await;
        lines[index] = new;
    }
    let took = at.elapsed();
    let grown = checkpoints.used_bytes().await - before;
    let rows = store.checkpoints().count(opened.project.id).await.unwrap() - rows_before;
    println!(
        "{edits} edits of a {} KB text file: {:.1} ms per edit, blobs +{:.1} MiB \
         ({:.1} KiB per edit, {:.0}% of the file's size), {rows} index rows",
        text.len() / 1000,
        ms(took) / edits as f64,
        mib(grown),
        grown as f64 / 1024.0 / edits as f64,
        grown as f64 / edits as f64 / text.len() as f64 * 100.0
    );
    checkpoints.watch_stopped();
    tokio::task::spawn_blocking(move || drop(watcher))
        .await
        .unwrap();
    forward.await.unwrap();
    let data_blobs = directory_size(checkpoints.blobs().dir());
    println!(
        "checkpoint folder on disk: {:.1} MiB (after the baseline and everything above)",
        mib(data_blobs)
    );
}

/// `args` made unique for run `run` (different content, so every write is a change).
fn with_run(args: &Value, run: usize) -> Value {
    let mut args = args.clone();
    if let Some(content) = args
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_owned)
    {
        args["content"] = Value::String(format!("{content}// run {run}\n"));
    }
    args
}

/// How long walking the project with Gantry's walk rules takes, with one `lstat` per file.
fn bare_walk(root: &Path) -> Duration {
    struct Count(usize);
    impl gantry_tools::walk::FileVisitor for Count {
        fn file(&mut self, entry: &ignore::DirEntry) {
            if entry.metadata().is_ok() {
                self.0 += 1;
            }
        }
    }
    let at = Instant::now();
    gantry_tools::walk::visit_files(root, &gantry_tools::walk::StopFlag::default(), || Count(0));
    at.elapsed()
}

/// `files` files of ~1 KiB source text, 100 per folder.
fn make_project(root: &Path, files: usize) {
    let line = "pub fn helper(value: u32) -> u32 { value.wrapping_mul(2654435761) } // text\n";
    for n in 0..files {
        let folder = root.join(format!("pkg{:03}", n / 100));
        if n % 100 == 0 {
            std::fs::create_dir_all(&folder).unwrap();
        }
        let body = format!("// file {n}\n{}", line.repeat(13));
        std::fs::write(folder.join(format!("f{:03}.rs", n % 100)), body).unwrap();
    }
}

/// About `bytes` of varied English-like text, one short sentence per line (unique lines).
fn prose(bytes: usize) -> String {
    const WORDS: &[&str] = &[
        "the", "agent", "reads", "a", "file", "and", "writes", "its", "change", "back", "while",
        "gantry", "keeps", "every", "version", "so", "that", "nothing", "is", "lost", "when",
        "user", "asks", "to", "undo", "what", "turn", "did", "project", "folder",
    ];
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut out = String::with_capacity(bytes + 100);
    let mut line = 0;
    while out.len() < bytes {
        out.push_str(&format!("{line:05} "));
        for _ in 0..8 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            out.push_str(WORDS[(state % WORDS.len() as u64) as usize]);
            out.push(' ');
        }
        out.push_str(".\n");
        line += 1;
    }
    out
}

fn directory_size(dir: &Path) -> u64 {
    let mut total = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            total += directory_size(&entry.path());
        } else if let Ok(metadata) = entry.metadata() {
            total += metadata.len();
        }
    }
    total
}

fn median(samples: &[Duration]) -> Duration {
    let mut samples = samples.to_vec();
    samples.sort();
    samples[samples.len() / 2]
}

fn fastest(samples: &[Duration]) -> Duration {
    samples.iter().copied().min().unwrap()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0
}

/// The value after `name` on the command line (cargo bench adds `--bench`, which is skipped).
fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|arg| arg == name)?;
    args.get(at + 1)?.parse().ok()
}
