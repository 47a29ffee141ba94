//! Search speed: glob_search and grep_search against fd and ripgrep, and against the seed's
//! Python way, side by side on one generated corpus.
//!
//! Run with `cargo bench -p gantry-tools --bench search`. Needs `rg` (Debian package ripgrep),
//! `fdfind` (fd-find) and `python3` on PATH. Settings (environment):
//! - `GANTRY_SEARCH_CORPUS`: where the corpus lives (default `$TMPDIR/gantry-search-corpus`); it
//!   is generated once and reused while its version marker matches;
//! - `GANTRY_SEARCH_FILES`: number of files (default 60,000, about 1 GB);
//! - `GANTRY_SEARCH_RUNS`: timed runs per tool (default 11; Python gets
//!   `GANTRY_SEARCH_PYTHON_RUNS`, default 3).
//!
//! The corpus is deterministic (a seeded generator): source-like text in many languages under
//! `src/`, about 2% binary files (a NUL in the header), hidden files, a `.gitignore` excluding
//! `/generated/` and `*.log`, and vendor directories (node_modules, target, build, dist,
//! __pycache__, .venv) full of matches that must not count. It is a git repository as far as
//! the `ignore` crate, rg and fd are concerned (a `.git` directory), so all three honour the
//! `.gitignore`.
//!
//! Before timing, each pair is checked to count the same thing: grep_search's total matching
//! lines and files against the sum of `rg --count` and its number of files; glob_search's total
//! against the number of paths fd prints; the Python script against both. The page cache is
//! warmed by one untimed run of ours and of the reference tool. Runs are interleaved (one of
//! each per round) so that load from other users of the machine hits every side alike, and
//! both wall time and CPU time (user + system, from `/proc/self/stat`: our process's own, the
//! children's for rg, fd and Python) are recorded. The table shows medians and the ratios
//! ours/rg, ours/fd and python/ours for both.
//!
//! Our side is the real tool call, `ToolManager::dispatch` on a multi-threaded tokio runtime,
//! output rendered; the references are processes whose output is piped back and counted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gantry_tools::{ToolManager, builtin::register_builtins};

/// Bump when the generator changes: a corpus with another marker is regenerated.
const CORPUS_VERSION: &str = "gantry-search-corpus v1";
/// A token the generated text never forms by chance; the literal searched for.
const LITERAL: &str = "PROTOCOL_VIOLATION";
/// The regex searched for: no literal prefix, an inner literal (`_id`).
const REGEX: &str = r"\w+_id\s*=\s*\d+";
/// The vendor directories of the corpus (a subset of `walk::VENDOR_DIRS`).
const VENDOR: &[&str] = &[
    "node_modules",
    "target",
    "build",
    "dist",
    "__pycache__",
    ".venv",
];
/// Everything rg and fd must be told to skip to match `walk::VENDOR_DIRS`.
const ALL_VENDOR: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    "dist",
    "build",
];

const WORDS: &[&str] = &[
    "fn", "let", "mut", "pub", "struct", "impl", "return", "if", "else", "for", "while", "match",
    "self", "Some", "None", "Ok", "Err", "String", "Vec", "usize", "u64", "config", "value",
    "result", "buffer", "index", "count", "handler", "request", "response", "parse", "render",
    "update", "client", "server", "token", "cache", "entry", "path", "file", "line", "error",
    "state", "node", "item", "key", "map", "list", "user", "session", "async", "await", "def",
    "class", "import", "from", "const", "var", "function", "this", "new", "true", "false", "null",
    "len", "push", "get", "set", "insert", "remove", "clone", "into", "iter", "next", "data",
    "name", "size", "offset", "limit", "query", "table", "row", "column", "width", "height",
];
const SEPARATORS: &[&str] = &[
    " ", " ", " ", "(", ")", ", ", ".", " = ", "::", "; ", " { ", " }",
];
const EXTENSIONS: &[(&str, u32)] = &[
    ("rs", 25),
    ("py", 20),
    ("ts", 15),
    ("js", 10),
    ("go", 10),
    ("md", 10),
    ("json", 5),
    ("txt", 5),
];

/// splitmix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `1/n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// What kind of file to write, and whether the tools should see it.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Searchable text.
    Text,
    /// Text in a vendor directory or ignored by .gitignore: must not be found.
    Hidden,
    /// Binary: must not be searched.
    Binary,
}

struct Corpus {
    root: PathBuf,
    files: u64,
    bytes: u64,
    /// Lines holding [`LITERAL`] in searchable text files (known from generation).
    literal_lines: u64,
}

/// Appends source-like text of about `size` bytes; returns the number of lines with LITERAL.
fn text(rng: &mut Rng, out: &mut Vec<u8>, size: usize) -> u64 {
    let mut literal_lines = 0;
    while out.len() < size {
        let indent = rng.below(7) * 2;
        out.extend(std::iter::repeat_n(b' ', indent));
        if rng.one_in(900) {
            let _ = write!(out, "return Err({LITERAL}({}));", rng.pick(WORDS));
            literal_lines += 1;
        } else if rng.one_in(350) {
            let _ = write!(out, "let {}_id = {};", rng.pick(WORDS), rng.below(100_000));
        } else {
            let words = 2 + rng.below(10);
            for i in 0..words {
                if i > 0 {
                    out.extend_from_slice(rng.pick(SEPARATORS).as_bytes());
                }
                out.extend_from_slice(rng.pick(WORDS).as_bytes());
            }
        }
        out.push(b'\n');
    }
    literal_lines
}

fn binary(rng: &mut Rng, out: &mut Vec<u8>, size: usize) {
    out.extend_from_slice(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    while out.len() < size {
        if rng.one_in(500) {
            let _ = writeln!(out, "{LITERAL} user_id = 7");
        } else {
            out.push((rng.next() & 0xff) as u8);
        }
    }
}

fn pick_extension(rng: &mut Rng) -> &'static str {
    let total: u32 = EXTENSIONS.iter().map(|(_, w)| w).sum();
    let mut roll = rng.below(total as usize) as u32;
    for (ext, weight) in EXTENSIONS {
        if roll < *weight {
            return ext;
        }
        roll -= weight;
    }
    "txt"
}

fn generate(root: &Path, files: usize) -> Corpus {
    let _ = fs::remove_dir_all(root);
    fs::create_dir_all(root.join(".git/objects/ab")).unwrap();
    fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(
        root.join(".git/objects/ab/cdef"),
        format!("{LITERAL} user_id = 1\n"),
    )
    .unwrap();
    fs::write(root.join(".gitignore"), "/generated/\n*.log\n").unwrap();
    let mut rng = Rng(0x5EED_CAFE);
    let mut corpus = Corpus {
        root: root.to_path_buf(),
        files: 3,
        bytes: 0,
        literal_lines: 0,
    };
    let mut buffer = Vec::with_capacity(1 << 20);
    for n in 0..files {
        let roll = rng.below(1000);
        let (dir, kind, ext) = if roll < 20 {
            (format!("assets/a{:02}", rng.below(40)), Kind::Binary, "png")
        } else if roll < 50 {
            let vendor = rng.pick(VENDOR);
            let nested = if rng.one_in(2) { "src/m00/" } else { "" };
            (
                format!("{nested}{vendor}/pkg{:02}/lib", rng.below(30)),
                Kind::Hidden,
                "js",
            )
        } else if roll < 65 {
            (
                format!("generated/g{:02}", rng.below(20)),
                Kind::Hidden,
                "rs",
            )
        } else if roll < 80 {
            (
                format!("src/m{:02}/s{:02}", rng.below(30), rng.below(45)),
                Kind::Hidden,
                "log",
            )
        } else if roll < 85 {
            (format!(".config/c{:02}", rng.below(10)), Kind::Text, "toml")
        } else {
            (
                format!("src/m{:02}/s{:02}", rng.below(30), rng.below(45)),
                Kind::Text,
                pick_extension(&mut rng),
            )
        };
        let size = if rng.one_in(2000) {
            1_000_000 + rng.below(3_000_000)
        } else {
            1_000 + rng.below(31_000)
        };
        buffer.clear();
        let literal = match kind {
            Kind::Binary => {
                binary(&mut rng, &mut buffer, size.min(64_000));
                0
            }
            _ => text(&mut rng, &mut buffer, size),
        };
        if kind == Kind::Text {
            corpus.literal_lines += literal;
        }
        let dir = root.join(dir);
        fs::create_dir_all(&dir).unwrap();
        let mut file =
            BufWriter::new(fs::File::create(dir.join(format!("f{n:06}.{ext}"))).unwrap());
        file.write_all(&buffer).unwrap();
        corpus.files += 1;
        corpus.bytes += buffer.len() as u64;
    }
    corpus
}

/// The corpus at `root`, generated unless a complete one with the same version is there.
fn corpus(root: &Path, files: usize) -> Corpus {
    let marker = root.join(".gantry-corpus");
    let wanted = format!("{CORPUS_VERSION} files={files}\n");
    if let Ok(text) = fs::read_to_string(&marker)
        && let Some(rest) = text.strip_prefix(&wanted)
    {
        let numbers: Vec<u64> = rest
            .split_whitespace()
            .filter_map(|kv| kv.split_once('=').and_then(|(_, v)| v.parse().ok()))
            .collect();
        if let [count, bytes, literal] = numbers[..] {
            return Corpus {
                root: root.to_path_buf(),
                files: count,
                bytes,
                literal_lines: literal,
            };
        }
    }
    eprintln!("generating the corpus in {} ...", root.display());
    let started = Instant::now();
    let corpus = generate(root, files);
    fs::write(
        &marker,
        format!(
            "{wanted}count={} bytes={} literal={}\n",
            corpus.files, corpus.bytes, corpus.literal_lines
        ),
    )
    .unwrap();
    eprintln!("  done in {:.1} s", started.elapsed().as_secs_f64());
    corpus
}

const PYTHON: &str = r#"
# The seed's approach, straightforwardly: Path.rglob / Path.glob, a skip list, and re.search
# line by line. The skip list holds the vendor directories plus what the corpus's .gitignore
# excludes (/generated/, *.log), so it searches exactly the files the tools search.
import re, sys
from pathlib import Path

SKIP = {".git", "node_modules", "target", "__pycache__", ".venv", "venv", ".tox", "dist",
        "build", "generated"}

def skipped(rel):
    return any(part in SKIP for part in rel.parts[:-1]) or rel.suffix == ".log"

def grep(root, pattern):
    rx = re.compile(pattern)
    total = files = 0
    for f in sorted(root.rglob("*")):
        if skipped(f.relative_to(root)) or not f.is_file():
            continue
        data = f.read_bytes()
        if b"\0" in data:
            continue
        hits = 0
        for line in data.decode("utf-8", "replace").splitlines():
            if rx.search(line):
                hits += 1
        if hits:
            total += hits
            files += 1
    print(total, files)

def glob(root, pattern):
    found = sorted(p for p in root.glob(pattern)
                   if not skipped(p.relative_to(root)) and p.is_file())
    print(len(found), 0)

mode, root, pattern = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
(grep if mode == "grep" else glob)(root, pattern)
"#;

/// What one run counted: (total, files) — matching lines and files for grep, paths for glob.
type Counts = (u64, u64);

fn run_command(program: &str, args: &[String]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "{program} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn rg_counts(root: &Path, pattern: &str) -> Counts {
    let mut args: Vec<String> = ["--no-config", "--count", "--hidden", "--no-messages"]
        .map(String::from)
        .to_vec();
    for dir in ALL_VENDOR {
        args.push("-g".into());
        args.push(format!("!{dir}"));
    }
    args.push("-e".into());
    args.push(pattern.into());
    args.push(root.display().to_string());
    let out = run_command("rg", &args);
    out.lines().fold((0, 0), |(total, files), line| {
        let count: u64 = line.rsplit_once(':').unwrap().1.parse().unwrap();
        (total + count, files + 1)
    })
}

fn fd_counts(root: &Path, glob: Option<&str>) -> Counts {
    let mut args: Vec<String> = ["--type", "f", "--hidden", "--color", "never"]
        .map(String::from)
        .to_vec();
    for dir in ALL_VENDOR {
        args.push("--exclude".into());
        args.push((*dir).into());
    }
    match glob {
        Some(glob) => {
            args.push("--glob".into());
            args.push(glob.into());
        }
        None => args.push(".".into()),
    }
    args.push(root.display().to_string());
    let out = run_command("fdfind", &args);
    (out.lines().count() as u64, 0)
}

fn python_counts(script: &Path, mode: &str, root: &Path, pattern: &str) -> Counts {
    let out = run_command(
        "python3",
        &[
            script.display().to_string(),
            mode.into(),
            root.display().to_string(),
            pattern.into(),
        ],
    );
    let mut numbers = out.split_whitespace().map(|n| n.parse().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Reads `[grep: ... | s/total matches in files files]` or `[glob: ... | s/total files]`.
fn header_counts(text: &str) -> Counts {
    let header = text.lines().next().unwrap();
    let after = header.rsplit_once(" | ").unwrap().1;
    let (_, rest) = after.split_once('/').unwrap();
    let mut words = rest.split_whitespace();
    let total = words.next().unwrap().parse().unwrap();
    let files = match (words.next(), words.next(), words.next()) {
        (Some("matches"), Some("in"), Some(files)) => files.parse().unwrap(),
        _ => 0,
    };
    (total, files)
}

fn ours(
    runtime: &tokio::runtime::Runtime,
    manager: &ToolManager,
    tool: &str,
    args: &str,
) -> Counts {
    runtime.block_on(async {
        let obs = manager
            .dispatch(tool, args, &gantry_tools::CallContext::detached())
            .await;
        assert!(obs.is_ok(), "{}", obs.text);
        header_counts(&obs.text)
    })
}

/// CPU time (user + system) used so far by this process (all threads) and by its waited-for
/// children, from `/proc/self/stat`. On a shared machine CPU time is steadier than wall time.
fn cpu_times(ticks_per_second: f64) -> (Duration, Duration) {
    let stat = fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the `(comm)`: state is field 3, so utime (14) is at index 11.
    let fields: Vec<f64> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    let seconds = |ticks: f64| Duration::from_secs_f64(ticks / ticks_per_second);
    (
        seconds(fields[11] + fields[12]),
        seconds(fields[13] + fields[14]),
    )
}

/// One side of a comparison.
struct Contender<'a> {
    name: &'static str,
    /// Runs in a child process (its CPU time is the children's).
    child: bool,
    /// Timed runs wanted.
    runs: usize,
    /// Whether an untimed warm-up run comes first.
    warm_up: bool,
    run: Box<dyn FnMut() -> Counts + 'a>,
}

/// Medians of one contender's runs.
#[derive(Clone, Copy)]
struct Measured {
    wall: Duration,
    cpu: Duration,
    counts: Counts,
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// Runs the contenders interleaved (one run of each per round, so a burst of load from other
/// users of the machine hits all of them alike) and returns each one's median wall and CPU
/// time. Warm-up runs (untimed) come first; every run must count the same as the first.
fn race(contenders: &mut [Contender<'_>], ticks: f64) -> Vec<Measured> {
    let mut counts: Vec<Option<Counts>> = vec![None; contenders.len()];
    for (contender, counted) in contenders.iter_mut().zip(&mut counts) {
        if contender.warm_up {
            *counted = Some((contender.run)());
        }
    }
    let rounds = contenders.iter().map(|c| c.runs).max().unwrap_or(0);
    let mut walls = vec![Vec::new(); contenders.len()];
    let mut cpus = vec![Vec::new(); contenders.len()];
    for round in 0..rounds {
        for (i, contender) in contenders.iter_mut().enumerate() {
            if round >= contender.runs {
                continue;
            }
            let (own_before, children_before) = cpu_times(ticks);
            let started = Instant::now();
            let got = (contender.run)();
            let wall = started.elapsed();
            let (own_after, children_after) = cpu_times(ticks);
            let cpu = if contender.child {
                children_after - children_before
            } else {
                own_after - own_before
            };
            let expected = *counts[i].get_or_insert(got);
            assert_eq!(
                got, expected,
                "{}: counts changed between runs",
                contender.name
            );
            walls[i].push(wall);
            cpus[i].push(cpu);
        }
    }
    walls
        .into_iter()
        .zip(cpus)
        .zip(counts)
        .map(|((wall, cpu), counts)| Measured {
            wall: median(wall),
            cpu: median(cpu),
            counts: counts.unwrap_or_default(),
        })
        .collect()
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

struct Row {
    case: String,
    reference_name: &'static str,
    ours: Measured,
    reference: Measured,
    python: Measured,
}

fn main() {
    let files = env_number("GANTRY_SEARCH_FILES", 60_000);
    let runs = env_number("GANTRY_SEARCH_RUNS", 11);
    let python_runs = env_number("GANTRY_SEARCH_PYTHON_RUNS", 3);
    let root = std::env::var_os("GANTRY_SEARCH_CORPUS").map_or_else(
        || std::env::temp_dir().join("gantry-search-corpus"),
        PathBuf::from,
    );
    let corpus = corpus(&root, files);
    let script = root.with_extension("py");
    fs::write(&script, PYTHON).unwrap();
    let ticks: f64 = run_command("getconf", &["CLK_TCK".into()])
        .trim()
        .parse()
        .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let manager = ToolManager::new(&corpus.root).unwrap();
    register_builtins(&manager).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "corpus: {} — {} files, {:.2} GB ({} lines hold the literal in searchable files); {cores} cores",
        corpus.root.display(),
        corpus.files,
        corpus.bytes as f64 / 1e9,
        corpus.literal_lines,
    );
    println!(
        "medians of {runs} interleaved runs ({python_runs} for Python) after a warm-up run of \
         ours and the reference; wall time, and CPU time (user+sys) in parentheses\n"
    );

    let json = |s: &str| serde_json::to_string(s).unwrap();
    let mut rows = Vec::new();
    let cases: [(&str, &str, &'static str, Option<&str>); 4] = [
        ("grep literal", LITERAL, "rg", None),
        ("grep regex", REGEX, "rg", None),
        ("glob", "**/*.rs", "fd", Some("*.rs")),
        ("glob all files", "**/*", "fd", None),
    ];
    for (label, pattern, reference_name, fd_glob) in cases {
        let grep = reference_name == "rg";
        let tool = if grep { "grep_search" } else { "glob_search" };
        let args = format!("{{\"pattern\": {}}}", json(pattern));
        let (manager, runtime, corpus_root, script) = (&manager, &runtime, &corpus.root, &script);
        let mut contenders = [
            Contender {
                name: tool,
                child: false,
                runs,
                warm_up: true,
                run: Box::new(move || ours(runtime, manager, tool, &args)),
            },
            Contender {
                name: reference_name,
                child: true,
                runs,
                warm_up: true,
                run: Box::new(move || {
                    if grep {
                        rg_counts(corpus_root, pattern)
                    } else {
                        fd_counts(corpus_root, fd_glob)
                    }
                }),
            },
            Contender {
                name: "python",
                child: true,
                runs: python_runs,
                // The other two warmed the page cache; a Python run is long enough to time.
                warm_up: false,
                run: Box::new(move || {
                    python_counts(
                        script,
                        if grep { "grep" } else { "glob" },
                        corpus_root,
                        pattern,
                    )
                }),
            },
        ];
        let measured = race(&mut contenders, ticks);
        let [ours, reference, python] = [measured[0], measured[1], measured[2]];
        assert_eq!(
            ours.counts, reference.counts,
            "{label}: {tool} and {reference_name} count differently"
        );
        assert_eq!(
            ours.counts, python.counts,
            "{label}: {tool} and Python count differently"
        );
        if pattern == LITERAL {
            assert_eq!(
                ours.counts.0, corpus.literal_lines,
                "literal lines vs the generator"
            );
        }
        rows.push(Row {
            case: format!("{label} `{pattern}`"),
            reference_name,
            ours,
            reference,
            python,
        });
    }

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let ratio = |a: Duration, b: Duration| ms(a) / ms(b).max(1e-9);
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| case | counted | ours ms | reference ms | python ms | ours/reference | python/ours |"
    );
    let _ = writeln!(table, "|---|---|---:|---:|---:|---:|---:|");
    for row in &rows {
        let (total, files) = row.ours.counts;
        let counted = if files > 0 {
            format!("{total} lines in {files} files")
        } else {
            format!("{total} files")
        };
        let _ = writeln!(
            table,
            "| {} | {counted} | {:.0} ({:.0}) | {} {:.0} ({:.0}) | {:.0} ({:.0}) | {:.2} ({:.2}) | {:.1} ({:.1}) |",
            row.case,
            ms(row.ours.wall),
            ms(row.ours.cpu),
            row.reference_name,
            ms(row.reference.wall),
            ms(row.reference.cpu),
            ms(row.python.wall),
            ms(row.python.cpu),
            ratio(row.ours.wall, row.reference.wall),
            ratio(row.ours.cpu, row.reference.cpu),
            ratio(row.python.wall, row.ours.wall),
            ratio(row.python.cpu, row.ours.cpu),
        );
    }
    print!("{table}");
}
