//! read_file, write_file and edit_file through `gantry-cli tools call` on a temp project: the
//! exact observation lines, exit codes, and the approval flow (deny touches nothing).

use std::fs;
use std::path::Path;

use super::support::{Run, gantry};

/// `gantry-cli tools call {tool} {args} --root {root} [extra...]`, run from another folder so
/// `--root` is what counts.
fn call(root: &Path, tool: &str, args: &str, extra: &[&str], stdin: &str) -> Run {
    let elsewhere = tempfile::tempdir().unwrap();
    let mut argv = vec![
        "tools",
        "call",
        tool,
        args,
        "--root",
        root.to_str().unwrap(),
    ];
    argv.extend_from_slice(extra);
    gantry(elsewhere.path(), &argv, stdin)
}

/// Every entry under `dir`, sorted, with file contents.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                out.push((format!("{name}/"), Vec::new()));
                stack.push(path);
            } else {
                out.push((name, fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_file_tools_are_listed_with_their_levels() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["tools", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    for (name, level, policy) in [
        ("read_file", "safe", "auto"),
        ("write_file", "sensitive", "ask"),
        ("edit_file", "sensitive", "ask"),
    ] {
        let row = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} listed in {}", run.stdout));
        assert!(row.contains(level) && row.contains(policy), "{row}");
    }
}

#[test]
fn control_characters_in_an_observation_are_escaped_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("evil.txt"),
        "title\u{1b}]0;pwned\u{7} \u{1b}[2J\u{9b}1A done\n",
    )
    .unwrap();
    let run = call(dir.path(), "read_file", r#"{"path": "evil.txt"}"#, &[], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[file: evil.txt | lines 1-1/1]\n1: title\\e]0;pwned\\x07 \\e[2J\\u{9b}1A done\n"
    );
}

#[test]
fn read_file_prints_numbered_lines_under_a_header() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(
        dir.path().join("src/main.rs"),
        "fn main() {\r\n    run();\r\n}\r\n",
    )
    .unwrap();
    let run = call(
        dir.path(),
        "read_file",
        r#"{"path": "src/main.rs"}"#,
        &[],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[file: src/main.rs | lines 1-3/3]\n1: fn main() {\n2:     run();\n3: }\n"
    );
    let run = call(
        dir.path(),
        "read_file",
        r#"{"path": "src/main.rs", "offset": 2, "limit": 1}"#,
        &[],
        "",
    );
    assert_eq!(
        run.stdout,
        "[file: src/main.rs | lines 2-2/3]\n2:     run();\n"
    );
    // An absolute path inside the project is accepted and shown relative.
    let absolute = dir.path().join("src/main.rs");
    let args = serde_json::json!({"path": absolute, "limit": 1}).to_string();
    let run = call(dir.path(), "read_file", &args, &[], "");
    assert_eq!(
        run.stdout,
        "[file: src/main.rs | lines 1-1/3]\n1: fn main() {\n"
    );
}

#[test]
fn read_file_errors_exit_one_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "1\n2\n").unwrap();
    fs::write(dir.path().join("b.bin"), b"\0\x01").unwrap();
    let cases = [
        (
            r#"{"path": "missing.txt"}"#,
            "[error] missing.txt does not exist\n",
        ),
        (
            r#"{"path": "a.txt", "offset": 3}"#,
            "[error] offset 3 is past the end of a.txt, which has 2 lines\n",
        ),
        (
            r#"{"path": "../a.txt"}"#,
            "[error] path '../a.txt' is outside the project\n",
        ),
        (
            r#"{"path": "b.bin"}"#,
            "[error] b.bin is a binary file (it has NUL bytes in its first 8 KiB); read_file shows text files only\n",
        ),
    ];
    for (args, expected) in cases {
        let run = call(dir.path(), "read_file", args, &[], "");
        assert_eq!((run.code, run.stdout.as_str()), (1, expected), "{args}");
    }
}

#[test]
fn write_file_with_approval_creates_and_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let run = call(
        dir.path(),
        "write_file",
        r#"{"path": "notes/todo.md", "content": "- one\n- two\n"}"#,
        &["--approve", "once"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[ok] created notes/todo.md (2 lines, 12 bytes)\n"
    );
    let run = call(
        dir.path(),
        "write_file",
        r#"{"path": "notes/todo.md", "content": "- done\n"}"#,
        &["--approve", "session"],
        "",
    );
    assert_eq!(run.stdout, "[ok] wrote notes/todo.md (1 lines, 7 bytes)\n");
    assert_eq!(
        fs::read_to_string(dir.path().join("notes/todo.md")).unwrap(),
        "- done\n"
    );
}

#[test]
fn a_denied_or_unanswered_write_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("keep.txt"), "keep\n").unwrap();
    let before = tree(dir.path());
    for (args, approve, expected) in [
        (
            r#"{"path": "new/file.txt", "content": "x"}"#,
            Some("deny"),
            "[denied] the user denied tool 'write_file'\n",
        ),
        (
            r#"{"path": "keep.txt", "content": "gone"}"#,
            Some("deny"),
            "[denied] the user denied tool 'write_file'\n",
        ),
        (
            r#"{"path": "keep.txt", "content": "gone"}"#,
            None,
            "[denied] the user denied tool 'write_file' (no one was available to approve it)\n",
        ),
    ] {
        let extra: Vec<&str> = approve.map(|a| vec!["--approve", a]).unwrap_or_default();
        let run = call(dir.path(), "write_file", args, &extra, "");
        assert_eq!((run.code, run.stdout.as_str()), (1, expected), "{args}");
    }
    let run = call(
        dir.path(),
        "edit_file",
        r#"{"path": "keep.txt", "old_string": "keep", "new_string": "lost"}"#,
        &["--approve", "deny"],
        "",
    );
    assert_eq!(run.stdout, "[denied] the user denied tool 'edit_file'\n");
    assert_eq!(tree(dir.path()), before);
}

#[test]
fn the_terminal_approver_shows_the_diff_before_asking() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("config.toml"), "debug = false\nlevel = 1\n").unwrap();
    let args =
        r#"{"path": "config.toml", "old_string": "debug = false", "new_string": "debug = true"}"#;
    let run = call(
        dir.path(),
        "edit_file",
        args,
        &["--approve", "ask"],
        "d: not yet\n",
    );
    assert_eq!(
        run.stdout,
        "[denied] the user denied tool 'edit_file': not yet\n"
    );
    assert!(
        run.stderr.contains(
            "change:\n--- a/config.toml\n+++ b/config.toml\n@@ -1,2 +1,2 @@\n-debug = false\n+debug = true\n level = 1\n"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("config.toml")).unwrap(),
        "debug = false\nlevel = 1\n"
    );
    let run = call(dir.path(), "edit_file", args, &["--approve", "ask"], "o\n");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(dir.path().join("config.toml")).unwrap(),
        "debug = true\nlevel = 1\n"
    );
}

#[test]
fn edit_file_prints_the_count_and_a_diff_and_keeps_crlf() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("win.ini"), "[a]\r\nx=1\r\ny=2\r\n").unwrap();
    let run = call(
        dir.path(),
        "edit_file",
        r#"{"path": "win.ini", "old_string": "x=1\ny=2", "new_string": "x=1\ny=3"}"#,
        &["--approve", "once"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "[ok] edited win.ini: replaced 1 occurrence(s)\n--- a/win.ini\n+++ b/win.ini\n@@ -1,3 +1,3 @@\n [a]\n x=1\n-y=2\n+y=3\n"
    );
    assert_eq!(
        fs::read(dir.path().join("win.ini")).unwrap(),
        b"[a]\r\nx=1\r\ny=3\r\n"
    );
}

#[test]
fn edit_file_errors_exit_one_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a = 1\nb = 1\n").unwrap();
    let cases = [
        (
            r#"{"path": "f.txt", "old_string": "= 1", "new_string": "= 2"}"#,
            "[error] old_string matches 2 places (lines 1, 2); add context to make it unique\n",
        ),
        (
            r#"{"path": "f.txt", "old_string": "c = 1", "new_string": "c = 2"}"#,
            "[error] old_string not found in f.txt\nthe closest lines in f.txt (read the file again if unsure):\n1: a = 1\n2: b = 1\n",
        ),
        (
            r#"{"path": "nope.txt", "old_string": "x", "new_string": "y"}"#,
            "[error] nope.txt does not exist; use write_file to create it\n",
        ),
    ];
    for (args, expected) in cases {
        let run = call(dir.path(), "edit_file", args, &["--approve", "once"], "");
        assert_eq!((run.code, run.stdout.as_str()), (1, expected), "{args}");
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a = 1\nb = 1\n"
    );
}
