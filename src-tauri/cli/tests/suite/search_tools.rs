//! `gantry-cli tools call glob_search | grep_search` on a temp project, through the real binary.

use std::fs;
use std::path::Path;

use super::support::{Run, gantry};

/// A small project: sources, a .gitignore, vendor directories and a binary file.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        ("src/main.rs", b"fn main() {\n    run();\n}\n"),
        ("src/lib.rs", b"pub fn run() {}\n// TODO: more\n"),
        ("src/util/mod.rs", b"pub fn helper() {}\n"),
        ("README.md", b"# Demo\nTODO: docs\n"),
        (".gitignore", b"generated/\n*.log\n"),
        ("generated/out.rs", b"fn generated() {}\n"),
        ("debug.log", b"TODO: ignored\n"),
        ("node_modules/pkg/index.js", b"// TODO: vendor\n"),
        ("target/debug/build.rs", b"fn built() {}\n"),
        ("assets/logo.bin", b"\x89PNG\r\n\x1a\n\x00\x00TODO\n"),
    ];
    for (name, bytes) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    dir
}

fn call(root: &Path, tool: &str, arguments: &str) -> Run {
    gantry(root, &["tools", "call", tool, arguments], "")
}

#[test]
fn glob_lists_project_files_in_the_exact_format() {
    let dir = project();
    let run = call(dir.path(), "glob_search", r#"{"pattern": "**/*.rs"}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[glob: **/*.rs in . | 3/3 files]\nsrc/lib.rs\nsrc/main.rs\nsrc/util/mod.rs\n"
    );
}

#[test]
fn glob_below_a_directory_lists_relative_to_it() {
    let dir = project();
    let run = call(
        dir.path(),
        "glob_search",
        r#"{"pattern": "*.rs", "path": "src"}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[glob: *.rs in src | 2/2 files]\nlib.rs\nmain.rs\n"
    );
}

#[test]
fn glob_cuts_after_fifty() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..75 {
        fs::write(dir.path().join(format!("f{i:02}.txt")), "").unwrap();
    }
    let run = call(dir.path(), "glob_search", r#"{"pattern": "*.txt"}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 52);
    assert_eq!(lines[0], "[glob: *.txt in . | 50/75 files]");
    assert_eq!(lines[1], "f00.txt");
    assert_eq!(lines[50], "f49.txt");
    assert_eq!(lines[51], "... and 25 more (narrow the pattern)");
}

#[test]
fn grep_finds_lines_with_root_relative_paths() {
    let dir = project();
    let run = call(dir.path(), "grep_search", r#"{"pattern": "TODO"}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[grep: TODO | 2/2 matches in 2 files]\nREADME.md:2: TODO: docs\nsrc/lib.rs:2: // TODO: more\n"
    );
    let run = call(
        dir.path(),
        "grep_search",
        r#"{"pattern": "^pub fn \\w+", "path": "src/util", "include": "*.rs"}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[grep: ^pub fn \\w+ | 1/1 matches in 1 files]\nsrc/util/mod.rs:1: pub fn helper() {}\n"
    );
}

#[test]
fn grep_case_insensitive_and_cut_after_fifty() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (1..=60)
        .map(|n| {
            if n % 2 == 0 {
                format!("Hit {n}\n")
            } else {
                format!("hit {n}\n")
            }
        })
        .collect();
    fs::write(dir.path().join("a.txt"), text).unwrap();
    let run = call(
        dir.path(),
        "grep_search",
        r#"{"pattern": "hit", "case_insensitive": true}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "[grep: hit | 50/60 matches in 1 files]");
    assert_eq!(lines[1], "a.txt:1: hit 1");
    assert_eq!(lines[2], "a.txt:2: Hit 2");
    assert_eq!(lines[50], "a.txt:50: Hit 50");
    assert_eq!(lines[51], "... and 10 more matches");
    assert_eq!(lines.len(), 52);
}

#[test]
fn errors_are_observations_and_exit_one() {
    let dir = project();
    let cases = [
        (
            "glob_search",
            r#"{"pattern": "*", "path": "../.."}"#,
            "[error] path '../..' is outside the project\n",
        ),
        (
            "grep_search",
            r#"{"pattern": "x", "path": "/etc"}"#,
            "[error] path '/etc' is outside the project\n",
        ),
        (
            "glob_search",
            r#"{"pattern": "*", "path": "nope"}"#,
            "[error] path 'nope' does not exist\n",
        ),
        (
            "grep_search",
            r#"{"pattern": "x", "path": "nope.rs"}"#,
            "[error] path 'nope.rs' does not exist\n",
        ),
        (
            "glob_search",
            r#"{"pattern": "*", "path": "src/main.rs"}"#,
            "[error] path 'src/main.rs' is a file; glob_search needs a directory (e.g. path 'src')\n",
        ),
        (
            "glob_search",
            r#"{"pattern": "{a"}"#,
            "[error] invalid glob pattern: error parsing glob '{a': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)\n",
        ),
        (
            "grep_search",
            r#"{"pattern": "x", "include": "[z"}"#,
            "[error] invalid include glob: error parsing glob '[z': unclosed character class; missing ']'\n",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let run = call(dir.path(), tool, arguments);
        assert_eq!(run.code, 1, "{tool} {arguments}: {}", run.stderr);
        assert_eq!(run.stdout, expected, "{tool} {arguments}");
    }
    let run = call(dir.path(), "grep_search", r#"{"pattern": "(unclosed"}"#);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("[error] invalid regex: regex parse error:")
            && run.stdout.contains("error: unclosed group"),
        "{}",
        run.stdout
    );
}

#[test]
fn both_tools_are_listed_as_safe_and_auto() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["tools", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    for name in ["glob_search", "grep_search"] {
        let row = run
            .stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} listed"));
        assert!(row.contains("safe") && row.contains("auto"), "{row}");
    }
}
