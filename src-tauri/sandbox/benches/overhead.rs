//! What the sandbox costs a command, as a ratio against the same command run directly.
//!
//! 1. `true`: the fixed cost of building the policy's mounts and starting bubblewrap (with the
//!    network off, which also makes a network namespace, and on).
//! 2. A "cargo check-like" command over 200 source files (4 KiB each), writing one output per
//!    file into `target/`: once as 200 processes (`cat` per file, like a build calling a
//!    compiler per unit), once as one process reading and writing them all (`cp`).
//!
//! Each case alternates sandboxed and direct runs (`--runs`, default 40 of each) and compares
//! medians, and the fastest runs (less sensitive to other work on the machine). Run with
//! `cargo bench -p gantry-sandbox --bench overhead` (add `-- --runs 10` for a quick look).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gantry_sandbox::{Sandbox, SandboxPolicy, SessionTemp};

const FILES: usize = 200;

fn main() {
    let runs = arg("--runs").unwrap_or(40);
    let started = Instant::now();
    let sandbox = match Sandbox::probe().sandbox() {
        Ok(sandbox) => sandbox,
        Err(reason) => {
            eprintln!("{reason}");
            std::process::exit(1);
        }
    };
    println!(
        "probe (once per process): {:.1} ms, bubblewrap {} at {}",
        ms(started.elapsed()),
        sandbox.version(),
        sandbox.bwrap().display()
    );

    let base = tempfile::Builder::new()
        .prefix("gantry-sandbox-bench-")
        .tempdir_in("/var/tmp")
        .unwrap();
    let project = base.path().join("project");
    let home = base.path().join("home");
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let line = "fn f() { let x = 1 + 2; println!(\"{x}\"); } // some source text\n";
    let body = line.repeat(4096 / line.len());
    for n in 0..FILES {
        std::fs::write(project.join(format!("src/unit{n}.rs")), &body).unwrap();
    }
    let temp = SessionTemp::new().unwrap();
    let offline = SandboxPolicy::new(&project, &temp, &home);
    let online = offline.clone().with_network(true);

    println!("{runs} runs of each; sandboxed / direct = ratio (+ difference):");
    let case = |name: &str, policy: &SandboxPolicy, script: &str| {
        let (sandboxed, direct) = measure(sandbox, policy, &project, &home, script, runs);
        println!("  {name}");
        for (label, pick) in [
            ("median", median as fn(&[Duration]) -> Duration),
            ("fastest", fastest),
        ] {
            let (sandboxed, direct) = (pick(&sandboxed), pick(&direct));
            println!(
                "    {label:<8} {:>8.2} ms / {:>8.2} ms = {:>5.2}x  (+{:.2} ms)",
                ms(sandboxed),
                ms(direct),
                sandboxed.as_secs_f64() / direct.as_secs_f64(),
                ms(sandboxed.saturating_sub(direct))
            );
        }
    };
    case("true (network off)", &offline, "true");
    case("true (network on)", &online, "true");
    case(
        "200 files, a process each (cat > target/)",
        &offline,
        "rm -rf target && mkdir -p target/out && for f in src/*.rs; do \
         cat \"$f\" > \"target/out/${f##*/}.o\"; done",
    );
    case(
        "200 files, one process (cp -> target/)",
        &offline,
        "rm -rf target && mkdir -p target/out && cp src/*.rs target/out/",
    );
}

/// Wall times of `sh -c script` in the sandbox (including building the command) and directly,
/// alternating.
fn measure(
    sandbox: &Sandbox,
    policy: &SandboxPolicy,
    project: &Path,
    home: &Path,
    script: &str,
    runs: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), "/usr/bin:/bin".into()),
        ("HOME".into(), home.into()),
    ];
    let mut sandboxed = Vec::with_capacity(runs);
    let mut direct = Vec::with_capacity(runs);
    for _ in 0..runs {
        let at = Instant::now();
        let status = sandbox
            .command(policy, "/bin/sh", ["-c", script], env.clone(), project)
            .unwrap()
            .spawn_with(|command| {
                command
                    .as_std_mut()
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .status()
            })
            .unwrap();
        sandboxed.push(at.elapsed());
        assert!(status.success());

        let at = Instant::now();
        let status = Command::new("/bin/sh")
            .args(["-c", script])
            .current_dir(project)
            .env_clear()
            .envs(env.clone())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        direct.push(at.elapsed());
        assert!(status.success());
    }
    (sandboxed, direct)
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

/// The value after `name` on the command line (cargo bench adds `--bench`, which is skipped).
fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|arg| arg == name)?;
    args.get(at + 1)?.parse().ok()
}
