//! grep_search: find the lines of project files that match a regex.
//!
//! This is ripgrep's engine used as a library: `ignore`'s parallel walker (the [`crate::walk`]
//! rule: ignore files and vendor directories), `grep-regex` for the matcher (with `\n` as the
//! line terminator, which lets the searcher scan whole buffers instead of line by line) and
//! `grep-searcher` for reading, binary detection and line numbering. What is ours is the shape
//! of the answer and keeping it cheap:
//!
//! - The count is exact: every matching *line* is counted (ripgrep's `--count` semantics; a line
//!   with three matches counts once), and `{files}` is the number of files with a match.
//! - Only [`MAX_SHOWN`] lines are shown, the first ones by (path, line). Each walker thread keeps
//!   a bounded heap of files (with at most [`MAX_SHOWN`] lines each) and drops the last file
//!   once the others already hold enough lines; the heaps are merged and sorted at the end. A
//!   file whose path cannot make it into the thread's page is searched by a searcher that only
//!   counts (no line numbers, no text), which is most files on a big tree.
//! - Binary files — a NUL byte anywhere, checked as the searcher reads (after transcoding a
//!   UTF-16 file with a BOM, as ripgrep does) — are skipped as a whole: none of their lines are
//!   counted or shown. (ripgrep's `--count` keeps the matches it saw before the NUL; on files
//!   with a NUL early, in a header, the two agree.)
//! - Paths in the output are relative to the project root (what read_file takes), whatever
//!   `path` is. `include` is a glob on the file name (`*.rs`, `*.{ts,tsx}`); when it contains a
//!   `/` it is matched against the path relative to `path` instead (`src/**/*.rs` with path
//!   `.`). An explicitly named file is always searched.
//! - Output: `[grep: {pattern} | {shown}/{total} matches in {files} files]`, then
//!   `{relpath}:{line}: {text}` lines, then `... and {n} more matches` when cut. A line longer
//!   than [`MAX_LINE_CHARS`] characters is cut with read_file's marker
//!   (`[... line cut: 2000 of {n} characters shown]`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::DirEntry;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::beneath::open_listed_file;
use crate::text::{MAX_LINE_CHARS, line_cut_marker};
use crate::walk::{
    FileVisitor, StopFlag, path_order, relative_to, run_blocking_walk, unusable_path, visit_files,
};
use crate::{ProjectRoot, ToolContext, ToolError, ToolOutput, ToolResult, tool};

/// How many matching lines the output shows.
pub const MAX_SHOWN: usize = 50;

fn dot() -> String {
    ".".to_owned()
}

fn all_files() -> String {
    "*".to_owned()
}

/// Arguments of grep_search.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepSearchArgs {
    /// Regular expression (Rust/ripgrep syntax) matched against each line, e.g. `fn \w+_test`
    /// or `TODO|FIXME`. Escape regex characters to search for them literally (`foo\(`).
    pub pattern: String,
    /// File or directory to search, relative to the project root.
    #[serde(default = "dot")]
    pub path: String,
    /// Only search files whose name matches this glob, e.g. `*.rs` or `*.{ts,tsx}`; a glob with
    /// a `/` is matched against the path relative to `path`.
    #[serde(default = "all_files")]
    pub include: String,
    /// Match without regard to letter case.
    #[serde(default)]
    pub case_insensitive: bool,
}

/// Search file contents for a regex and list matching lines as `path:line: text`, sorted by
/// path and line, paths relative to the project root. Skips binary files, .gitignore'd files and
/// vendor directories (node_modules, target, .git, ...). Shows at most 50 lines and the total.
#[tool]
pub async fn grep_search(ctx: &ToolContext, args: GrepSearchArgs) -> ToolResult {
    let resolved = ctx
        .resolve(&args.path)
        .map_err(|error| ToolError::new(error.to_string()))?;
    std::fs::metadata(resolved.path()).map_err(|error| unusable_path(&args.path, &error))?;
    let query = GrepQuery::new(&args)?;
    let start = resolved.path().to_path_buf();
    let root = ctx.project().clone();
    let found = run_blocking_walk(ctx.cancel_token(), move |stop| {
        query.run(&root, &start, stop)
    })
    .await
    .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(render(&args.pattern, &found))
}

/// Which files to search, by name or by path below the search start.
/// (A one-glob [`GlobSet`] picks a cheap strategy, e.g. an extension lookup for `*.rs`.)
enum Include {
    All,
    Name(GlobSet),
    Path(GlobSet),
}

/// A compiled search.
struct GrepQuery {
    matcher: RegexMatcher,
    include: Include,
}

impl GrepQuery {
    fn new(args: &GrepSearchArgs) -> Result<Self, ToolError> {
        let matcher = RegexMatcherBuilder::new()
            .case_insensitive(args.case_insensitive)
            .line_terminator(Some(b'\n'))
            .build(&args.pattern)
            .map_err(|error| ToolError::new(format!("invalid regex: {error}")))?;
        let include = args.include.trim();
        let include = if include.is_empty() || include == "*" {
            Include::All
        } else {
            let invalid =
                |error: globset::Error| ToolError::new(format!("invalid include glob: {error}"));
            let glob = GlobBuilder::new(include.strip_prefix("./").unwrap_or(include))
                .literal_separator(true)
                .build()
                .map_err(invalid)?;
            let glob = GlobSetBuilder::new().add(glob).build().map_err(invalid)?;
            if include.contains('/') {
                Include::Path(glob)
            } else {
                Include::Name(glob)
            }
        };
        Ok(Self { matcher, include })
    }

    /// Searches `start` (a file or directory under `root`).
    fn run(&self, root: &ProjectRoot, start: &Path, stop: &StopFlag) -> Found {
        let shared = Mutex::new(Merged::default());
        visit_files(start, stop, || Visitor::new(self, root, start, &shared));
        let merged = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
        merged.finish()
    }

    fn includes(&self, entry: &DirEntry, start: &Path) -> bool {
        match &self.include {
            Include::All => true,
            // An explicitly named file is searched whatever its name.
            _ if entry.depth() == 0 => true,
            Include::Name(glob) => glob.is_match(entry.file_name()),
            Include::Path(glob) => relative_to(entry.path(), start)
                .is_some_and(|relative| glob.is_match(relative.as_ref())),
        }
    }
}

/// The answer: the lines to show, in order, and the counts.
#[derive(Debug, Default)]
struct Found {
    /// `(root-relative path, line)`, at most [`MAX_SHOWN`].
    lines: Vec<(String, Line)>,
    /// Matching lines in all files.
    total: u64,
    /// Files with at least one matching line.
    files: u64,
}

/// What the walker threads hand in.
#[derive(Debug, Default)]
struct Merged {
    hits: Vec<FileHits>,
    total: u64,
    files: u64,
}

impl Merged {
    fn finish(mut self) -> Found {
        self.hits.sort();
        let lines = self
            .hits
            .into_iter()
            .flat_map(|file| {
                let path = file.path;
                file.lines.into_iter().map(move |line| (path.clone(), line))
            })
            .take(MAX_SHOWN)
            .collect();
        Found {
            lines,
            total: self.total,
            files: self.files,
        }
    }
}

/// One file's matches: the count, and its first lines (at most [`MAX_SHOWN`]) when the file
/// may be shown. Ordered by path only (one entry per file).
#[derive(Debug)]
struct FileHits {
    path: String,
    lines: Vec<Line>,
}

/// A matching line as shown.
#[derive(Debug)]
struct Line {
    /// 1-based.
    number: u64,
    /// The line's text (see [`line_text`]).
    text: String,
    /// True when the text was cut.
    cut: bool,
}

impl PartialEq for FileHits {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for FileHits {}

impl Ord for FileHits {
    fn cmp(&self, other: &Self) -> Ordering {
        path_order(&self.path, &other.path)
    }
}

impl PartialOrd for FileHits {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A thread's first files by path that together hold at least [`MAX_SHOWN`] lines (when that
/// many were found): the global first [`MAX_SHOWN`] lines are among the union of these.
#[derive(Default)]
struct FirstFiles {
    /// Max-heap: the last file by path is on top, the one to drop.
    heap: BinaryHeap<FileHits>,
    /// Lines held in `heap`.
    lines: usize,
}

impl FirstFiles {
    /// True when a file at `path` could still be part of the page.
    fn wants(&self, path: &str) -> bool {
        self.lines < MAX_SHOWN
            || self
                .heap
                .peek()
                .is_some_and(|last| path_order(path, &last.path) == Ordering::Less)
    }

    fn insert(&mut self, hits: FileHits) {
        self.lines += hits.lines.len();
        self.heap.push(hits);
        while let Some(last) = self.heap.peek() {
            if self.lines - last.lines.len() < MAX_SHOWN {
                break;
            }
            self.lines -= last.lines.len();
            self.heap.pop();
        }
    }
}

/// One walker thread: its own matcher and searchers, its first files and its counts, merged
/// into `shared` when the thread is done.
struct Visitor<'a> {
    query: &'a GrepQuery,
    matcher: RegexMatcher,
    /// Listed by path, but every file is opened below the root's descriptor.
    root: &'a ProjectRoot,
    start: &'a Path,
    shared: &'a Mutex<Merged>,
    /// Reports line numbers: for files that may be shown.
    numbered: Searcher,
    /// Counts only: for files that cannot be shown.
    counting: Searcher,
    first: FirstFiles,
    total: u64,
    files: u64,
}

impl<'a> Visitor<'a> {
    fn new(
        query: &'a GrepQuery,
        root: &'a ProjectRoot,
        start: &'a Path,
        shared: &'a Mutex<Merged>,
    ) -> Self {
        let searcher = |line_number: bool| {
            SearcherBuilder::new()
                .line_terminator(grep_matcher::LineTerminator::byte(b'\n'))
                .line_number(line_number)
                .binary_detection(BinaryDetection::quit(b'\0'))
                .build()
        };
        Self {
            query,
            matcher: query.matcher.clone(),
            root,
            start,
            shared,
            numbered: searcher(true),
            counting: searcher(false),
            first: FirstFiles::default(),
            total: 0,
            files: 0,
        }
    }
}

impl FileVisitor for Visitor<'_> {
    fn file(&mut self, entry: &DirEntry) {
        if !self.query.includes(entry, self.start) {
            return;
        }
        // The listing is by path; the open is below the root's descriptor, so a folder swapped
        // for a symlink out since it was listed is not followed.
        let (Some(relative), Ok(below)) = (
            relative_to(entry.path(), self.root.path()),
            entry.path().strip_prefix(self.root.path()),
        ) else {
            return;
        };
        let file = match open_listed_file(self.root.dir_fd(), below) {
            Ok((file, _)) => file,
            Err(error) => {
                tracing::debug!(path = %entry.path().display(), %error, "grep_search skips a file");
                return;
            }
        };
        let result = if self.first.wants(&relative) {
            let mut sink = Collect::default();
            self.numbered
                .search_file(&self.matcher, &file, &mut sink)
                .map(|()| {
                    (!sink.binary && sink.count > 0).then(|| {
                        self.first.insert(FileHits {
                            path: relative.into_owned(),
                            lines: sink.lines,
                        });
                        sink.count
                    })
                })
        } else {
            let mut sink = Count::default();
            self.counting
                .search_file(&self.matcher, &file, &mut sink)
                .map(|()| (!sink.binary && sink.count > 0).then_some(sink.count))
        };
        match result {
            Ok(Some(count)) => {
                self.total += count;
                self.files += 1;
            }
            Ok(None) => {}
            Err(error) => {
                tracing::debug!(path = %entry.path().display(), %error, "grep_search skips a file");
            }
        }
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.total += self.total;
        shared.files += self.files;
        shared
            .hits
            .extend(std::mem::take(&mut self.first.heap).into_vec());
    }
}

/// Counts matching lines; notes binary data (and stops there).
#[derive(Default)]
struct Count {
    count: u64,
    binary: bool,
}

impl Sink for Count {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, _: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// Counts matching lines and keeps the first [`MAX_SHOWN`] with their numbers and text.
#[derive(Default)]
struct Collect {
    count: u64,
    binary: bool,
    lines: Vec<Line>,
}

impl Sink for Collect {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        if self.lines.len() < MAX_SHOWN {
            let (text, cut) = line_text(found.bytes());
            self.lines.push(Line {
                number: found.line_number().unwrap_or_default(),
                text,
                cut,
            });
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// A matched line as shown: without its line ending, invalid UTF-8 replaced, and cut after
/// [`MAX_LINE_CHARS`] characters (then the flag is true).
fn line_text(bytes: &[u8]) -> (String, bool) {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        None => (text.into_owned(), false),
        Some((end, _)) => {
            let total = MAX_LINE_CHARS + text[end..].chars().count();
            let marker = line_cut_marker(MAX_LINE_CHARS, total);
            (format!("{}{marker}", &text[..end]), true)
        }
    }
}

fn render(pattern: &str, found: &Found) -> ToolOutput {
    let shown = found.lines.len();
    let mut text = format!(
        "[grep: {pattern} | {shown}/{} matches in {} files]",
        found.total, found.files
    );
    for (path, line) in &found.lines {
        text.push_str(&format!("\n{path}:{}: {}", line.number, line.text));
    }
    let more = found.total.saturating_sub(shown as u64);
    if more > 0 {
        text.push_str(&format!("\n... and {more} more matches"));
    }
    let long_line = found.lines.iter().any(|(_, line)| line.cut);
    ToolOutput::text(text).with_truncated(more > 0 || long_line)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use crate::{ObservationKind, ToolManager};

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, ToolManager) {
        let dir = tempfile::tempdir().unwrap();
        for (file, text) in files {
            write(dir.path(), file, text.as_bytes());
        }
        let manager = ToolManager::new(dir.path()).unwrap();
        super::super::register_builtins(&manager).unwrap();
        (dir, manager)
    }

    fn write(root: &Path, file: &str, bytes: &[u8]) {
        let path = root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    async fn grep(manager: &ToolManager, arguments: &str) -> (ObservationKind, String) {
        let obs = manager
            .dispatch("grep_search", arguments, &crate::call::test_call())
            .await;
        (obs.kind, obs.text)
    }

    #[tokio::test]
    async fn matching_lines_sorted_by_path_then_line_in_the_exact_format() {
        let (_dir, manager) = project(&[
            (
                "src/main.rs",
                "fn main() {\n    helper();\n}\nfn helper() {}\n",
            ),
            ("src/a-b.rs", "fn x() {}\n"),
            ("src/a/b.rs", "// nothing\nfn y() {}\r\n"),
            ("README.md", "no match here\n"),
        ]);
        assert_eq!(
            grep(&manager, r#"{"pattern": "^fn \\w+"}"#).await,
            (
                ObservationKind::Ok,
                "[grep: ^fn \\w+ | 4/4 matches in 3 files]\n\
                 src/a/b.rs:2: fn y() {}\n\
                 src/a-b.rs:1: fn x() {}\n\
                 src/main.rs:1: fn main() {\n\
                 src/main.rs:4: fn helper() {}"
                    .to_owned()
            )
        );
    }

    #[tokio::test]
    async fn lines_are_counted_not_occurrences() {
        let (_dir, manager) = project(&[("a.txt", "foo foo foo\nbar\nfoo\n")]);
        assert_eq!(
            grep(&manager, r#"{"pattern": "foo"}"#).await.1,
            "[grep: foo | 2/2 matches in 1 files]\na.txt:1: foo foo foo\na.txt:3: foo"
        );
    }

    #[tokio::test]
    async fn paths_are_root_relative_whatever_path_is() {
        let (_dir, manager) = project(&[
            ("src/lib.rs", "needle\n"),
            ("src/deep/x.rs", "a\nneedle\n"),
            ("other.rs", "needle\n"),
        ]);
        assert_eq!(
            grep(&manager, r#"{"pattern": "needle", "path": "src"}"#)
                .await
                .1,
            "[grep: needle | 2/2 matches in 2 files]\nsrc/deep/x.rs:2: needle\nsrc/lib.rs:1: needle"
        );
        // A file as path: just that file.
        assert_eq!(
            grep(
                &manager,
                r#"{"pattern": "needle", "path": "./src/deep/x.rs"}"#
            )
            .await
            .1,
            "[grep: needle | 1/1 matches in 1 files]\nsrc/deep/x.rs:2: needle"
        );
    }

    #[tokio::test]
    async fn no_match_is_a_header_alone() {
        let (_dir, manager) = project(&[("a.txt", "abc\n")]);
        assert_eq!(
            grep(&manager, r#"{"pattern": "xyz"}"#).await,
            (
                ObservationKind::Ok,
                "[grep: xyz | 0/0 matches in 0 files]".to_owned()
            )
        );
    }

    #[tokio::test]
    async fn more_than_fifty_shows_the_first_fifty_and_an_exact_total() {
        // 30 files of 7 matching lines each, written in an order unrelated to the sort.
        let mut files = Vec::new();
        for i in (0..30).rev() {
            let text: String = (1..=10)
                .map(|n| {
                    if n % 3 == 0 {
                        format!("other {n}\n")
                    } else {
                        format!("hit {n}\n")
                    }
                })
                .collect();
            files.push((format!("d{}/f{i:02}.txt", i % 4), text));
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_dir, manager) = project(&refs);
        let obs = manager
            .dispatch(
                "grep_search",
                r#"{"pattern": "hit"}"#,
                &crate::call::test_call(),
            )
            .await;
        assert!(obs.truncated);
        let lines: Vec<&str> = obs.text.lines().collect();
        assert_eq!(lines[0], "[grep: hit | 50/210 matches in 30 files]");
        assert_eq!(lines[51], "... and 160 more matches");
        assert_eq!(lines.len(), 52);
        let mut paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        paths.sort_by(|a, b| crate::walk::path_order(a, b));
        let expected: Vec<String> = paths
            .iter()
            .flat_map(|p| {
                [1, 2, 4, 5, 7, 8, 10]
                    .into_iter()
                    .map(move |n| format!("{p}:{n}: hit {n}"))
            })
            .take(50)
            .collect();
        assert_eq!(lines[1..51], expected[..]);
    }

    #[tokio::test]
    async fn one_file_with_many_matches_is_cut_too() {
        let text: String = (1..=500).map(|n| format!("line {n}\n")).collect();
        let (_dir, manager) = project(&[("big.txt", &text), ("a.txt", "line zero\n")]);
        let (_, out) = grep(&manager, r#"{"pattern": "^line"}"#).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "[grep: ^line | 50/501 matches in 2 files]");
        assert_eq!(lines[1], "a.txt:1: line zero");
        assert_eq!(lines[2], "big.txt:1: line 1");
        assert_eq!(lines[50], "big.txt:49: line 49");
        assert_eq!(lines[51], "... and 451 more matches");
    }

    #[tokio::test]
    async fn include_filters_by_name_or_by_path() {
        let (_dir, manager) = project(&[
            ("src/a.rs", "x\n"),
            ("src/b.ts", "x\n"),
            ("src/c.tsx", "x\n"),
            ("src/sub/d.rs", "x\n"),
            ("e.rs", "x\n"),
        ]);
        let files = |out: String| -> Vec<String> {
            out.lines()
                .skip(1)
                .map(|l| l.split(':').next().unwrap().to_owned())
                .collect()
        };
        assert_eq!(
            files(
                grep(&manager, r#"{"pattern": "x", "include": "*.rs"}"#)
                    .await
                    .1
            ),
            ["e.rs", "src/a.rs", "src/sub/d.rs"]
        );
        assert_eq!(
            files(
                grep(&manager, r#"{"pattern": "x", "include": "*.{ts,tsx}"}"#)
                    .await
                    .1
            ),
            ["src/b.ts", "src/c.tsx"]
        );
        assert_eq!(
            files(
                grep(&manager, r#"{"pattern": "x", "include": "src/*.rs"}"#)
                    .await
                    .1
            ),
            ["src/a.rs"]
        );
        assert_eq!(
            files(
                grep(
                    &manager,
                    r#"{"pattern": "x", "include": "sub/**", "path": "src"}"#
                )
                .await
                .1
            ),
            ["src/sub/d.rs"]
        );
        assert_eq!(
            files(
                grep(&manager, r#"{"pattern": "x", "include": "*"}"#)
                    .await
                    .1
            )
            .len(),
            5
        );
        // An explicitly named file is searched whatever include says.
        assert_eq!(
            files(
                grep(
                    &manager,
                    r#"{"pattern": "x", "include": "*.py", "path": "e.rs"}"#
                )
                .await
                .1
            ),
            ["e.rs"]
        );
    }

    #[tokio::test]
    async fn case_insensitive_is_optional() {
        let (_dir, manager) = project(&[("a.txt", "Error\nerror\nERROR\n")]);
        assert_eq!(
            grep(&manager, r#"{"pattern": "error"}"#).await.1,
            "[grep: error | 1/1 matches in 1 files]\na.txt:2: error"
        );
        assert_eq!(
            grep(
                &manager,
                r#"{"pattern": "error", "case_insensitive": true}"#
            )
            .await
            .1,
            "[grep: error | 3/3 matches in 1 files]\na.txt:1: Error\na.txt:2: error\na.txt:3: ERROR"
        );
        // Loosely typed model output is coerced.
        assert!(
            grep(
                &manager,
                r#"{"pattern": "error", "case_insensitive": "true"}"#
            )
            .await
            .1
            .starts_with("[grep: error | 3/3")
        );
    }

    #[tokio::test]
    async fn binary_ignored_and_vendor_files_are_skipped() {
        let (dir, manager) = project(&[
            ("keep.txt", "needle\n"),
            ("node_modules/p/i.js", "needle\n"),
            ("a/target/x.txt", "needle\n"),
            (".git/config", "needle\n"),
            ("dist/d.txt", "needle\n"),
            ("build/b.txt", "needle\n"),
            ("__pycache__/c.txt", "needle\n"),
            (".venv/v.txt", "needle\n"),
            ("venv/v.txt", "needle\n"),
            (".tox/t.txt", "needle\n"),
            ("logs/l.txt", "needle\n"),
            ("x.log", "needle\n"),
            (".hidden/h.txt", "needle\n"),
            (".gitignore", "logs/\n*.log\n"),
        ]);
        write(
            dir.path(),
            "bin/tool",
            b"\x7fELF\x02\x01\x01\x00needle\nneedle\n",
        );
        // NUL after a matching line in the same buffer: still binary, nothing counted.
        write(dir.path(), "late.bin", b"needle\nmore text\x00needle\n");
        assert_eq!(
            grep(&manager, r#"{"pattern": "needle"}"#).await.1,
            "[grep: needle | 2/2 matches in 2 files]\n.hidden/h.txt:1: needle\nkeep.txt:1: needle"
        );
    }

    #[tokio::test]
    async fn long_lines_are_cut_and_invalid_utf8_replaced() {
        let long = format!("needle{}\n", "é".repeat(2_500));
        let (dir, manager) = project(&[("long.txt", &long)]);
        write(dir.path(), "latin1.txt", b"caf\xe9 needle\n");
        let obs = manager
            .dispatch(
                "grep_search",
                r#"{"pattern": "needle"}"#,
                &crate::call::test_call(),
            )
            .await;
        assert!(obs.truncated);
        let lines: Vec<&str> = obs.text.lines().collect();
        assert_eq!(lines[1], "latin1.txt:1: caf\u{fffd} needle");
        let expected = format!(
            "long.txt:1: needle{} [... line cut: 2000 of 2506 characters shown]",
            "é".repeat(1_994)
        );
        assert_eq!(lines[2], expected);
    }

    #[tokio::test]
    async fn every_error_path() {
        let (dir, manager) = project(&[("a.txt", "x\n")]);
        std::os::unix::fs::symlink("/etc", dir.path().join("etc_link")).unwrap();
        let cases = [
            (
                r#"{"pattern": "x", "path": "../"}"#,
                "[error] path '../' is outside the project",
            ),
            (
                r#"{"pattern": "x", "path": "/etc/passwd"}"#,
                "[error] path '/etc/passwd' is outside the project",
            ),
            (
                r#"{"pattern": "x", "path": "etc_link/passwd"}"#,
                "[error] path 'etc_link/passwd' is outside the project",
            ),
            (
                r#"{"pattern": "x", "path": "missing/dir"}"#,
                "[error] path 'missing/dir' does not exist",
            ),
            (
                r#"{"pattern": "x", "path": "a.txt/b"}"#,
                "[error] path 'a.txt/b' does not exist",
            ),
            (
                r#"{"pattern": "x", "include": "a["}"#,
                "[error] invalid include glob: error parsing glob 'a[': unclosed character class; missing ']'",
            ),
            (
                r#"{"pattern": "a\nb"}"#,
                "[error] invalid regex: the literal \"\\n\" is not allowed in a regex",
            ),
        ];
        for (arguments, expected) in cases {
            assert_eq!(
                grep(&manager, arguments).await,
                (ObservationKind::Error, expected.to_owned()),
                "{arguments}"
            );
        }
        let (kind, text) = grep(&manager, r#"{"pattern": "fn("}"#).await;
        assert_eq!(kind, ObservationKind::Error);
        assert!(
            text.starts_with("[error] invalid regex: regex parse error:")
                && text.contains("unclosed group"),
            "{text}"
        );
        let (kind, _) = grep(&manager, r#"{"path": "."}"#).await;
        assert_eq!(kind, ObservationKind::BadArguments);
    }

    #[tokio::test]
    async fn a_cancelled_turn_stops_the_search() {
        let (dir, _manager) = project(&[("a.txt", "x\n")]);
        let cancel = tokio_util::sync::CancellationToken::new();
        cancel.cancel();
        let ctx = crate::ToolContext::new(std::sync::Arc::new(
            crate::ProjectRoot::new(dir.path()).unwrap(),
        ))
        .with_cancel(cancel);
        let args = super::GrepSearchArgs {
            pattern: "x".into(),
            path: ".".into(),
            include: "*".into(),
            case_insensitive: false,
        };
        let error = super::grep_search(&ctx, args).await.unwrap_err();
        assert_eq!(error.message(), "the search was cancelled");
    }

    #[tokio::test]
    async fn the_schema_requires_only_the_pattern() {
        let (_dir, manager) = project(&[]);
        let tool = manager.get("grep_search").unwrap();
        let parameters = tool.parameters();
        assert_eq!(parameters["required"], serde_json::json!(["pattern"]));
        assert_eq!(parameters["properties"]["include"]["default"], "*");
        assert_eq!(
            parameters["properties"]["case_insensitive"]["type"],
            "boolean"
        );
        assert_eq!(tool.level(), crate::PermissionLevel::Safe);
    }

    #[test]
    fn the_first_files_keep_enough_lines_and_no_more() {
        use super::{FileHits, FirstFiles, Line};
        let hits = |path: &str, n: u64| FileHits {
            path: path.to_owned(),
            lines: (1..=n)
                .map(|number| Line {
                    number,
                    text: String::new(),
                    cut: false,
                })
                .collect(),
        };
        let mut first = FirstFiles::default();
        first.insert(hits("m", 30));
        first.insert(hits("z", 30));
        assert!(
            first.wants("y") && !first.wants("zz"),
            "z is needed, a later file is not"
        );
        first.insert(hits("a", 25));
        // a (25) + m (30) hold 55 >= 50: z is dropped.
        assert_eq!(first.heap.len(), 2);
        assert!(!first.wants("n") && first.wants("l"));
        first.insert(hits("b", 50));
        let mut kept: Vec<String> = first.heap.into_iter().map(|h| h.path).collect();
        kept.sort();
        assert_eq!(kept, ["a", "b"]);
    }
}
