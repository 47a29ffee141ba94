//! `gantry-cli tools call run_command` on a temporary project: the output format, approvals
//! (a denied command leaves the file system untouched), the scrubbed environment, timeouts and
//! confinement of the working directory.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::{Run, gantry};

/// `tools call run_command ARGS --enable run_command --approve MODE`.
fn call(dir: &Path, arguments: &str, approve: &str) -> Run {
    gantry(
        dir,
        &[
            "tools",
            "call",
            "run_command",
            arguments,
            "--enable",
            "run_command",
            "--approve",
            approve,
        ],
        "",
    )
}

/// Like [`call`] with `--approve once`, with extra variables in gantry-cli's environment.
fn call_with_env(dir: &Path, arguments: &str, env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .args([
            "tools",
            "call",
            "run_command",
            arguments,
            "--enable",
            "run_command",
            "--approve",
            "once",
        ])
        .current_dir(dir)
        .env_remove("GANTRY_LOG")
        // Never the user's own database.
        .env("GANTRY_DATA_DIR", dir.join(".gantry-data"))
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gantry-cli starts");
    drop(child.stdin.take());
    child.wait_with_output().unwrap().into()
}

/// The observation printed by the CLI (which adds one newline), split into the header's
/// status part (`exit 0`) and the command's output; the seconds must have one decimal.
fn parse(stdout: &str) -> (String, String) {
    let text = stdout
        .strip_suffix('\n')
        .expect("the CLI ends with a newline");
    let (header, body) = text.split_once('\n').unwrap_or((text, ""));
    let inner = header
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix("s]"))
        .unwrap_or_else(|| panic!("not a header: {header:?}"));
    let (status, secs) = inner.rsplit_once(" in ").unwrap();
    let (_, decimal) = secs.split_once('.').unwrap();
    assert!(
        decimal.len() == 1 && secs.parse::<f64>().is_ok(),
        "{header}"
    );
    (status.to_owned(), body.to_owned())
}

/// The host pid of a running process whose command line is exactly `argv`.
fn host_pid(argv: &[&str]) -> Option<u32> {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|arg| [arg.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (cmdline == wanted && !is_dead(pid)).then_some(pid)
        })
}

/// Gone, or a zombie waiting for init to reap it.
fn is_dead(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X'))
    })
}

#[test]
fn run_command_is_listed_as_dangerous_and_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(dir.path(), &["tools", "list"], "");
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("run_command"))
        .expect("run_command listed");
    assert!(
        row.contains("dangerous") && row.contains("disabled"),
        "{row}"
    );
}

#[test]
fn without_enable_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let run = gantry(
        dir.path(),
        &[
            "tools",
            "call",
            "run_command",
            r#"{"command": "touch created"}"#,
            "--approve",
            "once",
        ],
        "",
    );
    assert_eq!(run.code, 1);
    assert!(run.stdout.starts_with("[disabled] "), "{}", run.stdout);
    assert!(!dir.path().join("created").exists());
}

#[test]
fn an_approved_command_prints_the_exit_header_and_merged_output() {
    let dir = tempfile::tempdir().unwrap();
    let run = call(
        dir.path(),
        r#"{"command": "echo a; echo b >&2; echo c; touch created"}"#,
        "once",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(parse(&run.stdout), ("exit 0".into(), "a\nb\nc\n".into()));
    assert!(run.stdout.starts_with("[exit 0 in "), "{}", run.stdout);
    assert!(dir.path().join("created").exists());
}

#[test]
fn a_failing_command_is_still_a_successful_call() {
    let dir = tempfile::tempdir().unwrap();
    let run = call(dir.path(), r#"{"command": "echo no >&2; exit 7"}"#, "once");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(parse(&run.stdout), ("exit 7".into(), "no\n".into()));
}

#[test]
fn a_denied_command_leaves_the_file_system_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let arguments = r#"{"command": "touch created && mkdir made"}"#;
    let denied = call(dir.path(), arguments, "deny");
    assert_eq!(
        (denied.code, denied.stdout.as_str()),
        (1, "[denied] the user denied tool 'run_command'\n")
    );
    // No terminal and no --approve: nobody approves.
    let nobody = gantry(
        dir.path(),
        &[
            "tools",
            "call",
            "run_command",
            arguments,
            "--enable",
            "run_command",
        ],
        "",
    );
    assert_eq!(nobody.code, 1);
    assert!(nobody.stdout.starts_with("[denied] "), "{}", nobody.stdout);
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(entries.is_empty(), "{entries:?}");
}

#[test]
fn the_terminal_approver_shows_the_command_its_workdir_and_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let arguments = r#"{"command": "touch created", "workdir": "sub"}"#;
    let args = [
        "tools",
        "call",
        "run_command",
        arguments,
        "--enable",
        "run_command",
        "--approve",
        "ask",
    ];
    let denied = gantry(dir.path(), &args, "d\n");
    assert_eq!(denied.code, 1);
    for expected in [
        "command: touch created\nin: sub\nsandboxed, no network\n",
        "allowing for the session or always in this project covers: run_command: in ./sub: touch created\n",
        "[p]roject (always)",
    ] {
        assert!(denied.stderr.contains(expected), "{}", denied.stderr);
    }
    assert!(!dir.path().join("sub/created").exists());

    let allowed = gantry(dir.path(), &args, "o\n");
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    assert!(dir.path().join("sub/created").exists());
}

#[test]
fn secrets_and_gantry_variables_never_reach_the_command() {
    let dir = tempfile::tempdir().unwrap();
    // The CLI itself uses GANTRY_DATA_DIR: a folder of this test's own (a fixed path such as
    // `/secret/5` put a database on the host that every run, of every branch, shared).
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().join("secret-5").display().to_string();
    let secrets = [
        ("OPENAI_API_KEY", "sk-secret-1"),
        ("GITHUB_TOKEN", "ghp-secret-2"),
        ("MY_SECRET", "secret-3"),
        ("DB_PASSWORD", "secret-4"),
        ("GANTRY_DATA_DIR", data_dir.as_str()),
        ("lower_api_key", "secret-6"),
    ];
    let mut env = secrets.to_vec();
    env.push(("PLAIN_SETTING", "visible"));
    let run = call_with_env(dir.path(), r#"{"command": "env"}"#, &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (_, body) = parse(&run.stdout);
    for (name, value) in secrets {
        assert!(!body.contains(name), "{name} leaked:\n{body}");
        assert!(!body.contains(value), "{value} leaked:\n{body}");
    }
    assert!(body.lines().any(|l| l == "PLAIN_SETTING=visible"), "{body}");
    assert!(body.lines().any(|l| l.starts_with("PATH=")), "{body}");
}

#[test]
fn a_timeout_kills_the_command_and_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let run = call(
        dir.path(),
        r#"{"command": "sleep 1000.3131 & echo started; wait", "timeout": 1}"#,
        "once",
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "[timeout after 1s]\nstarted\n\n");
    // In the sandbox's PID namespace `$!` is not the host's pid: look for the process by its
    // unique command line.
    let deadline = Instant::now() + Duration::from_millis(500);
    while host_pid(&["sleep", "1000.3131"]).is_some() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        host_pid(&["sleep", "1000.3131"]),
        None,
        "the background sleep survived"
    );
}

#[test]
fn stdin_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .args([
            "tools",
            "call",
            "run_command",
            r#"{"command": "cat; echo rc=$?", "timeout": 20}"#,
            "--enable",
            "run_command",
            "--approve",
            "once",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // gantry-cli's own stdin stays open and unwritten: the command must not inherit it.
    let _stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "cat waited for input"
    );
    let run = Run::from(output);
    assert_eq!(parse(&run.stdout), ("exit 0".into(), "rc=0\n".into()));
}

#[test]
fn argument_and_workdir_errors_are_reported_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            r#"{"command": "touch ran", "workdir": ".."}"#,
            "[error] path '..' is outside the project\n",
        ),
        (
            r#"{"command": "touch ran", "workdir": "nope"}"#,
            "[error] workdir 'nope' does not exist\n",
        ),
        (
            r#"{"command": "touch ran", "timeout": 601}"#,
            "[error] invalid arguments for tool 'run_command':\n- timeout: expected integer from 1 to 600, received number 601\n",
        ),
    ];
    for (arguments, expected) in cases {
        let run = call(dir.path(), arguments, "once");
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (1, expected),
            "{arguments}"
        );
    }
    assert!(!dir.path().join("ran").exists());
    assert!(!dir.path().parent().unwrap().join("ran").exists());
}

#[test]
fn terminating_the_cli_kills_the_running_command() {
    let dir = tempfile::tempdir().unwrap();
    let arguments =
        r#"{"command": "echo started > shell.pid; exec sleep 60.5151", "timeout": 120}"#;
    let child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .args([
            "tools",
            "call",
            "run_command",
            arguments,
            "--enable",
            "run_command",
            "--approve",
            "once",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command runs in the sandbox's PID namespace, where `$$` is not the host's pid: find
    // it by its unique command line among the host's processes.
    let deadline = Instant::now() + Duration::from_secs(20);
    let shell_pid = loop {
        if let Some(pid) = host_pid(&["sleep", "60.5151"]) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(dir.path().join("shell.pid").exists());
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stdout).starts_with("[cancelled]"),
        "{output:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(2);
    while !is_dead(shell_pid) {
        assert!(
            Instant::now() < deadline,
            "the command's shell {shell_pid} outlived gantry-cli"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
