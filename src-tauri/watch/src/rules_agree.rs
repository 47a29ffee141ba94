//! Holds [`crate::rules::IgnoreRules`] to the answers of `gantry_tools::walk::project_walker`.
//!
//! The walker is the rule; the matcher restates it for paths that may be gone. Here both judge
//! every path of a tree built to hit the corners (nearer files overriding farther ones, `.ignore`
//! over `.gitignore`, anchored and directory-only patterns, `**`, whitelists inside hidden
//! directories, vendor directories at any depth, links), and must agree on each.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gantry_tools::walk::project_walker;

use crate::rules::IgnoreRules;

const FILES: &[(&str, &str)] = &[
    (
        ".gitignore",
        "*.log\n!keep.log\n/secret/\nout/\ndocs/**/*.tmp\n/anchored.txt\ngen/\nnested/deep/\n\
         *.o\n!important.o\n[Bb]uild-*\n",
    ),
    (".ignore", "!force.o\n"),
    (".git/info/exclude", "*.local\n"),
    (".git/HEAD", "ref: refs/heads/main\n"),
    (".env.example", "A=1\n"),
    (".github/workflows/ci.yml", "on: push\n"),
    ("keep.log", ""),
    ("debug.log", ""),
    ("a.o", ""),
    ("important.o", ""),
    ("force.o", ""),
    ("settings.local", ""),
    ("anchored.txt", ""),
    ("secret/key.pem", ""),
    ("out", "a file named like an ignored directory\n"),
    ("sub/out/x.txt", ""),
    ("gen/.gitignore", "!*\n"),
    ("gen/a.rs", ""),
    ("docs/a.tmp", ""),
    ("docs/x/y/b.tmp", ""),
    ("docs/readme.md", ""),
    ("nested/deep/z.txt", ""),
    ("nested/z.txt", ""),
    ("Build-x/a.txt", ""),
    ("build-y", ""),
    ("dist", "a file named like a vendor directory\n"),
    ("node_modules/pkg/index.js", ""),
    ("web/node_modules/x.js", ""),
    ("web/app.ts", ""),
    ("target/debug/app", ""),
    ("src/.gitignore", "*.rs.bk\n/local-only\n!debug.log\n"),
    ("src/.ignore", "*.gen\n"),
    ("src/lib.rs", ""),
    ("src/lib.rs.bk", ""),
    ("src/debug.log", ""),
    ("src/trace.log", ""),
    ("src/local-only", ""),
    ("src/sub/local-only", ""),
    ("src/sub/x.gen", ""),
    ("src/secret/x.rs", ""),
    ("src/anchored.txt", ""),
    ("src/build/out.txt", ""),
    ("with space/naïve.txt", ""),
];

/// Builds the corner-case project; returns it with its canonical root.
fn corner_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in FILES {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("src"), root.join("src-link")).unwrap();
        std::os::unix::fs::symlink("/", root.join("web/to-root")).unwrap();
    }
    (dir, root)
}

/// Every path under `dir` (relative to `root`) with whether it is a directory, descending into
/// everything (ignored or not) but never through a link.
fn every_path(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, bool)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let is_dir = entry.file_type().unwrap().is_dir();
        let rel = entry.path().strip_prefix(root).unwrap().to_path_buf();
        out.push((rel, is_dir));
        if is_dir {
            every_path(root, &entry.path(), out);
        }
    }
}

#[test]
fn the_matcher_agrees_with_the_walker_on_every_path() {
    let (_dir, root) = corner_project();
    let shown: BTreeSet<PathBuf> = project_walker(&root)
        .build()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.depth() > 0)
        .map(|entry| entry.path().strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    let mut all = Vec::new();
    every_path(&root, &root, &mut all);
    // The fixture must really exercise both answers.
    assert!(shown.len() >= 20, "{shown:?}");
    assert!(all.len() - shown.len() >= 25, "too few hidden paths");

    let mut rules = IgnoreRules::new(root.clone());
    let disagreements: Vec<String> = all
        .iter()
        .filter(|(rel, is_dir)| rules.is_visible(rel, *is_dir) != shown.contains(rel))
        .map(|(rel, is_dir)| {
            format!(
                "{} (dir: {is_dir}): walker shows it: {}",
                rel.display(),
                shown.contains(rel)
            )
        })
        .collect();
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn the_fixture_hides_and_shows_what_its_comments_say() {
    let (_dir, root) = corner_project();
    let mut rules = IgnoreRules::new(root);
    for shown in [
        "keep.log",
        "important.o",
        "force.o",
        "out",
        "dist",
        "src/debug.log",
        "src/sub/local-only",
        "src/secret/x.rs",
        "src/anchored.txt",
        ".github/workflows/ci.yml",
        ".env.example",
        "src-link",
    ] {
        assert!(
            rules.is_visible(Path::new(shown), false),
            "{shown} should be shown"
        );
    }
    for hidden in [
        "debug.log",
        "a.o",
        "settings.local",
        "anchored.txt",
        "secret/key.pem",
        "sub/out/x.txt",
        "gen/a.rs",
        "docs/a.tmp",
        "docs/x/y/b.tmp",
        "nested/deep/z.txt",
        "build-y",
        "web/node_modules/x.js",
        "src/lib.rs.bk",
        "src/trace.log",
        "src/local-only",
        "src/sub/x.gen",
        "src/build/out.txt",
    ] {
        assert!(
            !rules.is_visible(Path::new(hidden), false),
            "{hidden} should be hidden"
        );
    }
}
