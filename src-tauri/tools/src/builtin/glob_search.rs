//! glob_search: find files by a glob over their paths.
//!
//! The model's usual first move in an unknown project is "where are the `*.rs` files?". The
//! answer must be the files a person would call the project's (the [`crate::walk`] rule:
//! ignore files and vendor directories), complete in its count even when only a page of it is
//! shown, and fast on a big tree: the walk is `ignore`'s parallel walker, and each walker thread
//! keeps only the [`MAX_SHOWN`] first paths in listing order (a bounded heap) plus counts, so
//! memory stays flat however many files match.
//!
//! Semantics, for the model and for the tests:
//! - The pattern is matched against each file's path relative to `path`, `/`-separated. `*`,
//!   `?` and `[...]` never cross a `/`; `**` spans directories (`**/*.rs` matches `main.rs` and
//!   `src/a/b.rs`); `{a,b}` alternates; a leading `./` is ignored. So `*.rs` means the files
//!   directly in `path`, as in a shell or Python's `Path.glob`. When such a slash-free pattern
//!   finds nothing but `**/{pattern}` would, the output says so in one extra line.
//! - Only regular files are listed (no directories, no symlinks: the walk does not follow them).
//!   Hidden files are included.
//! - `path` must be a directory; a file is an error that names its directory instead (listing
//!   one file is not a search, and guessing would hide the model's mistake). An explicit
//!   `path` is searched even if it is ignored or a vendor directory; below it the usual rules
//!   apply.
//! - Output: `[glob: {pattern} in {path} | {shown}/{total} files]`, then one path per line,
//!   sorted by [`path_order`], then `... and {n} more (narrow the pattern)` when cut.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use globset::{Candidate, GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::DirEntry;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::walk::{
    FileVisitor, StopFlag, path_order, relative_to, run_blocking_walk, unusable_path, visit_files,
};
use crate::{ToolContext, ToolError, ToolOutput, ToolResult, tool};

/// How many paths the output lists.
pub const MAX_SHOWN: usize = 50;

fn dot() -> String {
    ".".to_owned()
}

/// Arguments of glob_search.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobSearchArgs {
    /// Glob matched against file paths relative to `path`: `**/*.rs` (any depth), `src/*.ts`,
    /// `**/test_*.{py,pyi}`. `*` stays within one directory; `**` crosses directories.
    pub pattern: String,
    /// Directory to search in, relative to the project root.
    #[serde(default = "dot")]
    pub path: String,
}

/// Find files whose path matches a glob pattern (e.g. `**/*.rs`), listed relative to `path` and
/// sorted; files ignored by .gitignore and vendor directories (node_modules, target, .git, ...)
/// are skipped. Shows at most 50 paths and the total count.
#[tool]
pub async fn glob_search(ctx: &ToolContext, args: GlobSearchArgs) -> ToolResult {
    let resolved = ctx
        .resolve(&args.path)
        .map_err(|error| ToolError::new(error.to_string()))?;
    let metadata =
        std::fs::metadata(resolved.path()).map_err(|error| unusable_path(&args.path, &error))?;
    if !metadata.is_dir() {
        let parent = resolved
            .relative()
            .rsplit_once('/')
            .map_or(".", |(parent, _)| parent);
        return Err(ToolError::new(format!(
            "path '{}' is a file; glob_search needs a directory (e.g. path '{parent}')",
            args.path
        )));
    }
    let query = GlobQuery::new(&args.pattern)?;
    let dir = resolved.path().to_path_buf();
    let found = run_blocking_walk(ctx.cancel_token(), move |stop| query.run(&dir, stop))
        .await
        .map_err(|error| ToolError::new(error.to_string()))?;
    Ok(render(&args.pattern, resolved.relative(), &found))
}

/// A compiled pattern, plus its `**/` variant when the pattern has no `/` (for the hint).
/// Each is a one-glob [`GlobSet`] rather than a `GlobMatcher`: a set picks a cheap strategy
/// (`**/*.rs` becomes an extension lookup) where a matcher always runs a regex.
struct GlobQuery {
    matcher: GlobSet,
    anywhere: Option<GlobSet>,
}

impl GlobQuery {
    fn new(pattern: &str) -> Result<Self, ToolError> {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        if pattern.is_empty() {
            return Err(ToolError::new(
                "invalid glob pattern: the pattern is empty (try '**/*')",
            ));
        }
        let compile = |text: &str| {
            let invalid =
                |error: globset::Error| ToolError::new(format!("invalid glob pattern: {error}"));
            let glob = GlobBuilder::new(text)
                .literal_separator(true)
                .build()
                .map_err(invalid)?;
            GlobSetBuilder::new().add(glob).build().map_err(invalid)
        };
        let matcher = compile(pattern)?;
        let anywhere = if pattern.contains('/') || pattern.starts_with("**") {
            None
        } else {
            Some(compile(&format!("**/{pattern}"))?)
        };
        Ok(Self { matcher, anywhere })
    }

    /// Walks `dir` and returns the first [`MAX_SHOWN`] matches in order, and the counts.
    fn run(&self, dir: &Path, stop: &StopFlag) -> Found {
        let shared = Mutex::new(Found::default());
        visit_files(dir, stop, || Visitor {
            query: self,
            dir,
            shared: &shared,
            first: BinaryHeap::new(),
            total: 0,
            deeper: 0,
        });
        let mut found = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
        found.paths.sort_by(|a, b| path_order(a, b));
        found.paths.truncate(MAX_SHOWN);
        found
    }
}

/// What a walk found.
#[derive(Debug, Default)]
struct Found {
    /// The first paths in listing order (at most [`MAX_SHOWN`] once merged and cut).
    paths: Vec<String>,
    /// Every matching file.
    total: u64,
    /// Files the `**/` variant of a slash-free pattern matches below the top level.
    deeper: u64,
}

/// One walker thread's share: its first paths (a max-heap, so the last one is at the top and
/// is the one to drop) and its counts; merged into `shared` when the thread is done.
struct Visitor<'a> {
    query: &'a GlobQuery,
    dir: &'a Path,
    shared: &'a Mutex<Found>,
    first: BinaryHeap<Listed>,
    total: u64,
    deeper: u64,
}

impl FileVisitor for Visitor<'_> {
    fn file(&mut self, entry: &DirEntry) {
        let Some(relative) = relative_to(entry.path(), self.dir) else {
            return;
        };
        let candidate = Candidate::from_bytes(relative.as_bytes());
        if self.query.matcher.is_match_candidate(&candidate) {
            self.total += 1;
            let wanted = self.first.len() < MAX_SHOWN
                || self
                    .first
                    .peek()
                    .is_some_and(|last| path_order(&relative, &last.0) == Ordering::Less);
            if wanted {
                self.first.push(Listed(relative.into_owned()));
                if self.first.len() > MAX_SHOWN {
                    self.first.pop();
                }
            }
        } else if let Some(anywhere) = &self.query.anywhere
            && anywhere.is_match_candidate(&candidate)
        {
            self.deeper += 1;
        }
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.total += self.total;
        shared.deeper += self.deeper;
        shared
            .paths
            .extend(std::mem::take(&mut self.first).into_iter().map(|l| l.0));
    }
}

/// A path ordered by [`path_order`].
#[derive(Debug, PartialEq, Eq)]
struct Listed(String);

impl Ord for Listed {
    fn cmp(&self, other: &Self) -> Ordering {
        path_order(&self.0, &other.0)
    }
}

impl PartialOrd for Listed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn render(pattern: &str, display_path: &str, found: &Found) -> ToolOutput {
    let shown = found.paths.len();
    let mut text = format!(
        "[glob: {pattern} in {display_path} | {shown}/{} files]",
        found.total
    );
    for path in &found.paths {
        text.push('\n');
        text.push_str(path);
    }
    let more = found.total.saturating_sub(shown as u64);
    if more > 0 {
        text.push_str(&format!("\n... and {more} more (narrow the pattern)"));
    }
    if found.total == 0 && found.deeper > 0 {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        text.push_str(&format!(
            "\n(nothing matches directly in {display_path}; '**/{pattern}' matches {} files in subdirectories)",
            found.deeper
        ));
    }
    ToolOutput::text(text).with_truncated(more > 0)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use crate::{ObservationKind, ToolManager};

    fn project(files: &[&str]) -> (tempfile::TempDir, ToolManager) {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, "x\n").unwrap();
        }
        let manager = ToolManager::new(dir.path()).unwrap();
        super::super::register_builtins(&manager).unwrap();
        (dir, manager)
    }

    async fn glob(manager: &ToolManager, arguments: &str) -> (ObservationKind, String) {
        let obs = manager
            .dispatch("glob_search", arguments, &crate::call::test_call())
            .await;
        (obs.kind, obs.text)
    }

    fn write(root: &Path, file: &str, text: &str) {
        fs::write(root.join(file), text).unwrap();
    }

    #[tokio::test]
    async fn lists_matching_files_sorted_with_the_exact_format() {
        let (_dir, manager) = project(&[
            "src/main.rs",
            "src/a-b.rs",
            "src/a/b.rs",
            "lib.rs",
            "README.md",
            ".hidden/x.rs",
        ]);
        assert_eq!(
            glob(&manager, r#"{"pattern": "**/*.rs"}"#).await,
            (
                ObservationKind::Ok,
                "[glob: **/*.rs in . | 5/5 files]\n.hidden/x.rs\nlib.rs\nsrc/a/b.rs\nsrc/a-b.rs\nsrc/main.rs"
                    .to_owned()
            )
        );
    }

    #[tokio::test]
    async fn results_are_relative_to_path_and_the_header_shows_it() {
        let (_dir, manager) = project(&["src/main.rs", "src/util/mod.rs", "other.rs"]);
        assert_eq!(
            glob(&manager, r#"{"pattern": "**/*.rs", "path": "./src/"}"#)
                .await
                .1,
            "[glob: **/*.rs in src | 2/2 files]\nmain.rs\nutil/mod.rs"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "util/*", "path": "src"}"#)
                .await
                .1,
            "[glob: util/* in src | 1/1 files]\nutil/mod.rs"
        );
    }

    #[tokio::test]
    async fn star_stays_in_one_directory_and_the_hint_points_to_double_star() {
        let (_dir, manager) = project(&["a.rs", "src/b.rs", "src/c/d.rs"]);
        assert_eq!(
            glob(&manager, r#"{"pattern": "*.rs"}"#).await.1,
            "[glob: *.rs in . | 1/1 files]\na.rs"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "*.rs", "path": "src/c/.."}"#)
                .await
                .1,
            "[glob: *.rs in src | 1/1 files]\nb.rs"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "*/*.rs"}"#).await.1,
            "[glob: */*.rs in . | 1/1 files]\nsrc/b.rs"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "d.rs"}"#).await.1,
            "[glob: d.rs in . | 0/0 files]\n(nothing matches directly in .; '**/d.rs' matches 1 files in subdirectories)"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "*.py"}"#).await.1,
            "[glob: *.py in . | 0/0 files]"
        );
    }

    #[tokio::test]
    async fn braces_classes_and_leading_dot_slash() {
        let (_dir, manager) = project(&["a.ts", "b.tsx", "c.js", "d1.txt", "d2.txt", "dx.txt"]);
        assert_eq!(
            glob(&manager, r#"{"pattern": "*.{ts,tsx}"}"#).await.1,
            "[glob: *.{ts,tsx} in . | 2/2 files]\na.ts\nb.tsx"
        );
        assert_eq!(
            glob(&manager, r#"{"pattern": "./d[0-9].txt"}"#).await.1,
            "[glob: ./d[0-9].txt in . | 2/2 files]\nd1.txt\nd2.txt"
        );
    }

    #[tokio::test]
    async fn more_than_fifty_are_cut_with_the_count_and_the_first_fifty_in_order() {
        let names: Vec<String> = (0..120)
            .map(|i| format!("d{}/f{i:03}.txt", i % 7))
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let (_dir, manager) = project(&refs);
        let obs = manager
            .dispatch(
                "glob_search",
                r#"{"pattern": "**/*.txt"}"#,
                &crate::call::test_call(),
            )
            .await;
        assert!(obs.truncated);
        let lines: Vec<&str> = obs.text.lines().collect();
        assert_eq!(lines[0], "[glob: **/*.txt in . | 50/120 files]");
        assert_eq!(lines[51], "... and 70 more (narrow the pattern)");
        assert_eq!(lines.len(), 52);
        let mut expected = names.clone();
        expected.sort_by(|a, b| crate::walk::path_order(a, b));
        assert_eq!(
            lines[1..51],
            expected[..50]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()[..]
        );
    }

    #[tokio::test]
    async fn gitignored_files_and_vendor_directories_are_skipped() {
        let (dir, manager) = project(&[
            "keep.js",
            "src/app.js",
            "node_modules/pkg/index.js",
            "sub/node_modules/x.js",
            "target/debug/gen.js",
            "dist/bundle.js",
            "build/out.js",
            ".git/hooks/pre-commit.js",
            "__pycache__/m.js",
            ".venv/lib.js",
            "venv/lib.js",
            ".tox/t.js",
            "generated/big.js",
            "src/skip.log.js",
        ]);
        write(dir.path(), ".gitignore", "generated/\n*.log.js\n");
        assert_eq!(
            glob(&manager, r#"{"pattern": "**/*.js"}"#).await.1,
            "[glob: **/*.js in . | 2/2 files]\nkeep.js\nsrc/app.js"
        );
        // The root .gitignore applies to a search below it too.
        assert_eq!(
            glob(&manager, r#"{"pattern": "**", "path": "src"}"#)
                .await
                .1,
            "[glob: ** in src | 1/1 files]\napp.js"
        );
        // An explicit path into a vendor directory is searched.
        assert_eq!(
            glob(
                &manager,
                r#"{"pattern": "**/*.js", "path": "node_modules"}"#
            )
            .await
            .1,
            "[glob: **/*.js in node_modules | 1/1 files]\npkg/index.js"
        );
    }

    #[tokio::test]
    async fn directories_and_symlinks_are_not_listed() {
        let (dir, manager) = project(&["real/file.txt"]);
        std::os::unix::fs::symlink("real/file.txt", dir.path().join("link.txt")).unwrap();
        std::os::unix::fs::symlink("real", dir.path().join("linkdir")).unwrap();
        fs::create_dir_all(dir.path().join("empty.txt")).unwrap();
        assert_eq!(
            glob(&manager, r#"{"pattern": "**/*"}"#).await.1,
            "[glob: **/* in . | 1/1 files]\nreal/file.txt"
        );
    }

    #[tokio::test]
    async fn every_error_path() {
        let (dir, manager) = project(&["src/main.rs"]);
        std::os::unix::fs::symlink("/etc", dir.path().join("etc_link")).unwrap();
        let cases = [
            (
                r#"{"pattern": "*", "path": "../"}"#,
                "[error] path '../' is outside the project",
            ),
            (
                r#"{"pattern": "*", "path": "/etc"}"#,
                "[error] path '/etc' is outside the project",
            ),
            (
                r#"{"pattern": "*", "path": "etc_link"}"#,
                "[error] path 'etc_link' is outside the project",
            ),
            (
                r#"{"pattern": "*", "path": "missing"}"#,
                "[error] path 'missing' does not exist",
            ),
            (
                r#"{"pattern": "*", "path": "src/main.rs/x"}"#,
                "[error] path 'src/main.rs/x' does not exist",
            ),
            (
                r#"{"pattern": "*", "path": "src/main.rs"}"#,
                "[error] path 'src/main.rs' is a file; glob_search needs a directory (e.g. path 'src')",
            ),
            (
                r#"{"pattern": "a[", "path": "."}"#,
                "[error] invalid glob pattern: error parsing glob 'a[': unclosed character class; missing ']'",
            ),
            (
                r#"{"pattern": ""}"#,
                "[error] invalid glob pattern: the pattern is empty (try '**/*')",
            ),
            (
                r#"{"pattern": "*", "path": ""}"#,
                "[error] path is empty (use '.' for the project root)",
            ),
        ];
        for (arguments, expected) in cases {
            assert_eq!(
                glob(&manager, arguments).await,
                (ObservationKind::Error, expected.to_owned()),
                "{arguments}"
            );
        }
        let (kind, text) = glob(&manager, r#"{"path": "."}"#).await;
        assert_eq!(kind, ObservationKind::BadArguments, "{text}");
    }

    #[tokio::test]
    async fn a_cancelled_turn_stops_the_search() {
        let (dir, _manager) = project(&["a.txt"]);
        let cancel = tokio_util::sync::CancellationToken::new();
        cancel.cancel();
        let ctx = crate::ToolContext::new(std::sync::Arc::new(
            crate::ProjectRoot::new(dir.path()).unwrap(),
        ))
        .with_cancel(cancel);
        let args = super::GlobSearchArgs {
            pattern: "**".into(),
            path: ".".into(),
        };
        let error = super::glob_search(&ctx, args).await.unwrap_err();
        assert_eq!(error.message(), "the search was cancelled");
    }

    #[tokio::test]
    async fn the_schema_requires_only_the_pattern() {
        let (_dir, manager) = project(&[]);
        let tool = manager.get("glob_search").unwrap();
        assert_eq!(
            tool.parameters()["required"],
            serde_json::json!(["pattern"])
        );
        assert_eq!(tool.parameters()["properties"]["path"]["default"], ".");
        assert_eq!(tool.level(), crate::PermissionLevel::Safe);
    }
}
