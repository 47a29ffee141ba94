//! run_command end to end through the ToolManager: the output format, merging and truncation,
//! stdin, workdirs, every error path, timeouts, background jobs, cancellation (by PID: the
//! processes must really be gone), approvals and session scopes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::text::truncate_middle;
use crate::{
    ApprovalDecision, Approver, CommandSandbox, FixedApprover, ObservationKind, PermissionLevel,
    Policy, ProjectRoot, ScriptedApprover, Tool, ToolFn, ToolManager,
};

// ----- helpers ---------------------------------------------------------------------------------

/// A project with the built-ins registered and run_command set to `policy`.
fn project_with(
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
) -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = ToolManager::new(dir.path()).unwrap();
    if let Some(approver) = approver {
        manager = manager.with_approver(approver);
    }
    crate::builtin::register_builtins(&manager).unwrap();
    manager.set_policy("run_command", policy).unwrap();
    (dir, manager)
}

/// A project where run_command runs without asking, in the sandbox.
fn project() -> (tempfile::TempDir, ToolManager) {
    project_with(Policy::Auto, None)
}

/// A command sandbox as on a system without bubblewrap.
fn no_sandbox() -> CommandSandbox {
    CommandSandbox::system().with_availability(gantry_sandbox::Sandbox::probe_with(Path::new(
        "/nonexistent/bwrap",
    )))
}

/// A project on a system without a sandbox, where the user allows each call once: commands run
/// as the host's processes, so their pids can be watched from here.
fn unsandboxed_project() -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path())
        .unwrap()
        .with_sandbox(no_sandbox())
        .with_approver(Arc::new(FixedApprover(ApprovalDecision::AllowOnce)));
    crate::builtin::register_builtins(&manager).unwrap();
    manager.set_policy("run_command", Policy::Auto).unwrap();
    (dir, manager)
}

/// The observation's text without the `[not sandboxed] ...` line an unsandboxed run starts with.
fn without_note(text: &str) -> &str {
    match text.strip_prefix("[not sandboxed] ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, rest)| rest),
        None => text,
    }
}

/// A context on a system without a sandbox, for direct calls.
fn unsandboxed_context(root: &Path) -> ToolContext {
    ToolContext::new(Arc::new(ProjectRoot::new(root).unwrap())).with_sandbox(Arc::new(no_sandbox()))
}

async fn run(manager: &ToolManager, arguments: Value) -> crate::Observation {
    manager
        .dispatch("run_command", arguments, &crate::call::test_call())
        .await
}

/// Splits `[exit 0 in 0.1s]\nbody` into the header's status part (`exit 0`), its seconds, and
/// the body; checks the seconds have exactly one decimal.
fn parse(text: &str) -> (String, f64, String) {
    let (header, body) = text.split_once('\n').unwrap_or((text, ""));
    let inner = header
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix("s]"))
        .unwrap_or_else(|| panic!("not a header: {header:?}"));
    let (status, secs) = inner
        .rsplit_once(" in ")
        .unwrap_or_else(|| panic!("no ' in ' in {header:?}"));
    let (whole, decimal) = secs.split_once('.').unwrap();
    assert!(
        !whole.is_empty() && decimal.len() == 1 && secs.parse::<f64>().is_ok(),
        "seconds {secs:?} in {header:?}"
    );
    (status.to_owned(), secs.parse().unwrap(), body.to_owned())
}

/// True when the process no longer runs: gone, or a zombie waiting for its parent (orphans
/// are reparented to init, which in some containers never reaps them).
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state is the first field after the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// True when the process is gone from the process table (reaped).
fn is_reaped(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Polls until `check` holds for every pid; the time it took, or `None` after `limit`.
async fn until_all(pids: &[u32], check: fn(u32) -> bool, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if pids.iter().all(|&pid| check(pid)) {
            return Some(start.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    None
}

/// The pids written one per line to `file`, once there are `count` of them.
async fn pids_in(file: &Path, count: usize) -> Vec<u32> {
    for _ in 0..1000 {
        if let Ok(text) = std::fs::read_to_string(file) {
            let pids: Vec<u32> = text.lines().filter_map(|l| l.trim().parse().ok()).collect();
            if pids.len() == count && text.ends_with('\n') {
                return pids;
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{} never held {count} pids", file.display());
}

fn deny() -> ApprovalDecision {
    ApprovalDecision::Deny { reason: None }
}

// ----- the tool's description and schema ---------------------------------------------------------

#[test]
fn the_tool_is_dangerous_with_a_bounded_timeout_in_its_schema() {
    let tool = crate::TypedTool::new(RunCommand);
    assert_eq!(tool.name(), "run_command");
    assert_eq!(tool.level(), PermissionLevel::Dangerous);
    assert!(
        tool.description()
            .starts_with("Run a shell command in the project")
    );
    let parameters = tool.parameters();
    assert_eq!(parameters["required"], json!(["command"]));
    let timeout = &parameters["properties"]["timeout"];
    assert_eq!(
        (
            &timeout["minimum"],
            &timeout["maximum"],
            &timeout["default"]
        ),
        (&json!(1), &json!(600), &json!(30))
    );
    assert_eq!(parameters["properties"]["workdir"]["default"], ".");
}

#[tokio::test]
async fn it_is_disabled_until_enabled_and_then_asks() {
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path()).unwrap();
    crate::builtin::register_builtins(&manager).unwrap();
    let obs = run(&manager, json!({"command": "touch created"})).await;
    assert_eq!(obs.kind, ObservationKind::Disabled);
    assert_eq!(manager.enable("run_command").unwrap(), Policy::Ask);
    // Ask with nobody to approve is a denial.
    let obs = run(&manager, json!({"command": "touch created"})).await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert!(!dir.path().join("created").exists());
}

// ----- output format ---------------------------------------------------------------------------

#[tokio::test]
async fn success_is_the_exit_header_then_the_output_verbatim() {
    let (_dir, manager) = project();
    let obs = run(
        &manager,
        json!({"command": "printf 'hi\\n'; printf 'no newline'"}),
    )
    .await;
    assert_eq!(obs.kind, ObservationKind::Ok);
    assert!(!obs.truncated);
    let (status, secs, body) = parse(&obs.text);
    assert_eq!(
        (status.as_str(), body.as_str()),
        ("exit 0", "hi\nno newline")
    );
    assert!(secs < 5.0, "{secs}");
    assert!(obs.text.starts_with("[exit 0 in "), "{}", obs.text);
}

#[tokio::test]
async fn a_failing_command_is_an_ok_observation_with_its_code() {
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "echo oops >&2; exit 3"})).await;
    assert_eq!(obs.kind, ObservationKind::Ok);
    let (status, _, body) = parse(&obs.text);
    assert_eq!((status.as_str(), body.as_str()), ("exit 3", "oops\n"));
}

#[tokio::test]
async fn a_shell_killed_by_a_signal_says_which() {
    let (_dir, manager) = unsandboxed_project();
    let obs = run(&manager, json!({"command": "echo bye; kill -9 $$"})).await;
    assert_eq!(obs.kind, ObservationKind::Ok);
    let (status, _, body) = parse(without_note(&obs.text));
    assert_eq!((status.as_str(), body.as_str()), ("exit signal 9", "bye\n"));
    // In the sandbox the shell is bubblewrap's child, and bubblewrap exits with 128 + n.
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "echo bye; kill -9 $$"})).await;
    let (status, _, body) = parse(&obs.text);
    assert_eq!((status.as_str(), body.as_str()), ("exit 137", "bye\n"));
}

#[tokio::test]
async fn no_output_leaves_the_header_alone() {
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "true"})).await;
    let (status, _, body) = parse(&obs.text);
    assert_eq!((status.as_str(), body.as_str()), ("exit 0", ""));
    assert!(!obs.text.contains('\n'), "{:?}", obs.text);
}

#[tokio::test]
async fn seconds_measure_the_command() {
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "sleep 0.3"})).await;
    let (_, secs, _) = parse(&obs.text);
    assert!((0.3..3.0).contains(&secs), "{}", obs.text);
}

#[tokio::test]
async fn stdout_and_stderr_merge_in_the_order_they_were_written() {
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "echo a; echo b >&2; echo c"})).await;
    assert_eq!(parse(&obs.text).2, "a\nb\nc\n");

    let command = "i=0; while [ $i -lt 300 ]; do echo \"out $i\"; echo \"err $i\" >&2; \
                   i=$((i+1)); done";
    let obs = run(&manager, json!({ "command": command })).await;
    let expected: String = (0..300).map(|i| format!("out {i}\nerr {i}\n")).collect();
    assert_eq!(parse(&obs.text).2, expected);
}

#[tokio::test]
async fn output_up_to_the_limit_is_whole_and_one_character_more_is_cut() {
    let (_dir, manager) = project();
    let obs = run(
        &manager,
        json!({"command": "head -c 10000 /dev/zero | tr '\\0' a"}),
    )
    .await;
    assert!(!obs.truncated);
    assert_eq!(parse(&obs.text).2, "a".repeat(10_000));

    let obs = run(
        &manager,
        json!({"command": "printf b; head -c 9999 /dev/zero | tr '\\0' a; printf c"}),
    )
    .await;
    assert!(obs.truncated);
    let expected = format!(
        "b{}\n... [1 characters cut] ...\n{}c",
        "a".repeat(4999),
        "a".repeat(4999)
    );
    assert_eq!(parse(&obs.text).2, expected);
}

#[tokio::test]
async fn long_output_keeps_head_and_tail_with_the_exact_count_cut() {
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "seq 1 3000"})).await;
    let full: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    assert_eq!(full.chars().count(), 13_893);
    let body = parse(&obs.text).2;
    assert!(obs.truncated);
    assert_eq!(body, truncate_middle(&full, MAX_OUTPUT_CHARS).0);
    assert!(body.contains("\n... [3893 characters cut] ...\n"), "{body}");
    assert!(body.starts_with("1\n2\n3\n") && body.ends_with("2999\n3000\n"));
}

#[tokio::test]
async fn huge_output_is_streamed_into_bounded_memory() {
    let (_dir, manager) = project();
    let obs = run(
        &manager,
        json!({"command": "printf start; head -c 20000000 /dev/zero | tr '\\0' x; printf end"}),
    )
    .await;
    assert!(obs.truncated);
    let body = parse(&obs.text).2;
    let total = 20_000_000 + "start".len() + "end".len();
    let expected = format!(
        "start{}\n... [{} characters cut] ...\n{}end",
        "x".repeat(4995),
        total - 10_000,
        "x".repeat(4997)
    );
    assert_eq!(body, expected);
}

#[tokio::test]
async fn output_is_lossy_utf8_even_when_a_character_spans_reads() {
    let (_dir, manager) = project();
    // `é` is split across two writes (and two reads); \377 is never valid.
    let obs = run(
        &manager,
        json!({"command": "printf 'caf\\303'; sleep 0.1; printf '\\251 \\377!'"}),
    )
    .await;
    assert_eq!(parse(&obs.text).2, "café \u{FFFD}!");
    // A sequence cut off by the end of the output is one replacement character.
    let obs = run(&manager, json!({"command": "printf 'x\\342\\202'"})).await;
    assert_eq!(parse(&obs.text).2, "x\u{FFFD}");
}

/// A small deterministic generator (no dependency needed for a shuffle of bytes).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[test]
fn the_streaming_buffer_equals_lossy_decoding_then_truncate_middle() {
    let alphabet: [&[u8]; 8] = [
        b"a",
        b"\n",
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\xff",
        b"\xe2\x82",
        b"\xf0\x9f",
    ];
    let mut random = Lcg(7);
    for round in 0..300 {
        let length = (random.next() % 3000) as usize;
        let mut bytes = Vec::new();
        while bytes.len() < length {
            bytes.extend_from_slice(alphabet[(random.next() % 8) as usize]);
        }
        let max_chars = [0, 1, 2, 7, 100, 1000, 10_000][round % 7];
        let mut buffer = OutputBuffer::new(max_chars);
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let take = ((random.next() % 9) as usize + 1).min(rest.len());
            buffer.push_bytes(&rest[..take]);
            rest = &rest[take..];
        }
        let expected = truncate_middle(&String::from_utf8_lossy(&bytes), max_chars);
        assert_eq!(buffer.finish(), expected, "round {round}, max {max_chars}");
    }
}

// ----- how the command runs ----------------------------------------------------------------------

#[tokio::test]
async fn stdin_is_closed_so_readers_return_at_once() {
    let (_dir, manager) = project();
    let obs = run(
        &manager,
        json!({"command": "cat; echo \"cat=$?\"; read line; echo \"read=$?\"", "timeout": 10}),
    )
    .await;
    assert_eq!(parse(&obs.text).2, "cat=0\nread=1\n");
    assert!(obs.duration < Duration::from_secs(5), "{:?}", obs.duration);
}

#[tokio::test]
async fn the_workdir_defaults_to_the_root_and_may_be_a_subfolder() {
    let (_dir, manager) = project();
    std::fs::create_dir_all(manager.root().join("sub/deeper")).unwrap();
    let obs = run(&manager, json!({"command": "pwd -P"})).await;
    assert_eq!(
        parse(&obs.text).2,
        format!("{}\n", manager.root().display())
    );
    let obs = run(
        &manager,
        json!({"command": "pwd -P", "workdir": "sub/deeper"}),
    )
    .await;
    let expected: PathBuf = manager.root().join("sub/deeper");
    assert_eq!(parse(&obs.text).2, format!("{}\n", expected.display()));
}

#[tokio::test]
async fn every_bad_workdir_is_a_clear_error_and_nothing_runs() {
    let (dir, manager) = project();
    std::fs::write(manager.root().join("file.txt"), "x").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), manager.root().join("escape")).unwrap();
    let cases = [
        ("..", "[error] path '..' is outside the project"),
        ("/etc", "[error] path '/etc' is outside the project"),
        ("escape", "[error] path 'escape' is outside the project"),
        ("~", "[error] path '~' is outside the project"),
        ("", "[error] path is empty (use '.' for the project root)"),
        ("missing", "[error] workdir 'missing' does not exist"),
        ("file.txt", "[error] workdir 'file.txt' is not a directory"),
    ];
    for (workdir, expected) in cases {
        let obs = run(
            &manager,
            json!({"command": "touch ran", "workdir": workdir}),
        )
        .await;
        assert_eq!(
            (obs.kind, obs.text.as_str()),
            (ObservationKind::Error, expected)
        );
    }
    assert!(!dir.path().join("ran").exists());
    assert!(!outside.path().join("ran").exists());
}

#[tokio::test]
async fn bad_arguments_are_refused_before_anything_runs() {
    let (_dir, manager) = project();
    let cases = [
        (
            json!({"command": ""}),
            ObservationKind::Error,
            "[error] command is empty",
        ),
        (
            json!({"command": "  \n"}),
            ObservationKind::Error,
            "[error] command is empty",
        ),
        (
            json!({"command": "echo a\u{0}b"}),
            ObservationKind::Error,
            "[error] command contains a NUL byte",
        ),
        (
            json!({"command": "true", "timeout": 601}),
            ObservationKind::BadArguments,
            "[error] invalid arguments for tool 'run_command':\n- timeout: expected integer from 1 to 600, received number 601",
        ),
        (
            json!({"command": "true", "timeout": 0}),
            ObservationKind::BadArguments,
            "[error] invalid arguments for tool 'run_command':\n- timeout: expected integer from 1 to 600, received number 0",
        ),
        (
            json!({}),
            ObservationKind::BadArguments,
            "[error] invalid arguments for tool 'run_command':\n- command: expected string (required), received nothing",
        ),
    ];
    for (arguments, kind, expected) in cases {
        let obs = run(&manager, arguments.clone()).await;
        assert_eq!(
            (obs.kind, obs.text.as_str()),
            (kind, expected),
            "{arguments}"
        );
    }
    // Loosely typed numbers are coerced as for every tool.
    let obs = run(&manager, json!({"command": "echo ok", "timeout": "5"})).await;
    assert_eq!(parse(&obs.text).2, "ok\n");
}

#[tokio::test]
async fn a_direct_call_checks_the_timeout_range_too() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(Arc::new(ProjectRoot::new(dir.path()).unwrap()));
    let args = RunCommandArgs {
        command: "true".into(),
        workdir: ".".into(),
        timeout: 601,
    };
    let error = RunCommand.call(&ctx, args).await.unwrap_err();
    assert_eq!(
        error.message(),
        "timeout must be from 1 to 600 seconds, got 601"
    );
}

/// The variables the probe below sets for its child run (name, value), and whether the command
/// may see each: names that look secret, the review's leaked variables with realistic values,
/// innocent names holding credentials, and ordinary variables that must pass.
const PROBE_VARIABLES: &[(&str, &str, bool)] = &[
    ("GITHUB_PAT", "probe-01", false),
    ("DB_PASSWD", "probe-02", false),
    ("CLOUD_CREDENTIALS", "probe-03", false),
    ("DEEPSEEK_API_KEY", "probe-04", false),
    ("SERVICE_TOKEN", "probe-05", false),
    ("WORK_LLM_BEARER", "probe-06", false),
    ("GANTRY_PROBE_SETTING", "probe-07", false),
    (
        "DATABASE_URL",
        "postgres://app:probe-pw-08@db:5432/app",
        false,
    ),
    ("REDIS_URL", "redis://:probe-pw-09@cache:6379", false),
    (
        "MONGODB_URI",
        "mongodb+srv://admin:probe-pw-10@c0.example.net/db",
        false,
    ),
    (
        "SENTRY_DSN",
        "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/11",
        false,
    ),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/T0/B0/probe12",
        false,
    ),
    (
        "DOCKER_AUTH_CONFIG",
        r#"{"auths":{"r":{"auth":"probe13"}}}"#,
        false,
    ),
    ("NPM_CONFIG__AUTH", "probe-14", false),
    ("NPM_CONFIG__AUTHTOKEN", "probe-15", false),
    (
        "CI_JOB_JWT",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwcm9iZS0xNiJ9.c2lnbmF0dXJlLXByb2JlLTE2",
        false,
    ),
    (
        "DBUS_SESSION_BUS_ADDRESS",
        "unix:path=/tmp/probe-17-bus",
        false,
    ),
    (
        "NEUTRAL_NAME",
        "https://api.example.com/x?access_token=probe-18",
        false,
    ),
    ("PLAIN_SETTING", "probe-19", true),
    ("HOMEPAGE_URL", "https://example.com", true),
    ("LOCAL_DB_URL", "postgres://localhost/db", true),
    ("RUST_LOG", "info,probe=debug", true),
];

/// The project's pass list in the probe's second run: lets `DATABASE_URL` through, but not
/// Gantry's own variables or the session bus.
const PROBE_PASS: &[&str] = &[
    "DATABASE_URL",
    "GANTRY_PROBE_SETTING",
    "WORK_LLM_BEARER",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// Run in a child test process by the test below, with [`PROBE_VARIABLES`] in its
/// environment (setting variables in this process would need `unsafe`): registers
/// `WORK_LLM_BEARER` as a provider's key variable, as the agent does, then prints what `env`
/// shows a command — once dispatched through a manager, once called on a project whose pass
/// list is [`PROBE_PASS`], and once more so on a system without a sandbox.
#[tokio::test]
#[ignore = "run by a_command_never_sees_secret_or_registered_variables"]
async fn child_env_probe() {
    crate::register_secret_env("WORK_LLM_BEARER");
    let (_dir, manager) = project();
    let obs = run(&manager, json!({"command": "env"})).await;
    assert_eq!(obs.kind, ObservationKind::Ok, "{}", obs.text);
    println!("<<<ENV\n{}\nENV>>>", parse(&obs.text).2);

    let dir = tempfile::tempdir().unwrap();
    let root = ProjectRoot::new(dir.path()).unwrap();
    root.set_env_pass(crate::PassList::new(PROBE_PASS));
    let root = Arc::new(root);
    let args = || RunCommandArgs {
        command: "env".into(),
        workdir: ".".into(),
        timeout: 30,
    };
    let ctx = ToolContext::new(Arc::clone(&root));
    let output = RunCommand.call(&ctx, args()).await.unwrap();
    println!("<<<PASS\n{}\nPASS>>>", parse(&output.text).2);
    let ctx = ToolContext::new(root).with_sandbox(Arc::new(no_sandbox()));
    let output = RunCommand.call(&ctx, args()).await.unwrap();
    println!("<<<HOST\n{}\nHOST>>>", parse(without_note(&output.text)).2);
}

/// The text between `<<<{tag}` and `{tag}>>>` in `stdout`.
fn probe_section<'a>(stdout: &'a str, tag: &str) -> &'a str {
    let start = stdout.find(&format!("<<<{tag}")).expect("the probe ran");
    let end = stdout
        .find(&format!("{tag}>>>"))
        .expect("the probe finished");
    &stdout[start..end]
}

#[test]
fn a_command_never_sees_secret_or_registered_variables() {
    let exe = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new(exe);
    child.args([
        "--exact",
        "builtin::run_command::tests::child_env_probe",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (name, value, _) in PROBE_VARIABLES {
        child.env(name, value);
    }
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for (tag, passed, sandboxed) in [
        ("ENV", &[][..], true),
        ("PASS", &["DATABASE_URL"][..], true),
        ("HOST", &["DATABASE_URL"][..], false),
    ] {
        let env = probe_section(&stdout, tag);
        assert!(env.contains("PATH="), "{env}");
        let bus: Vec<&str> = env
            .lines()
            .filter(|l| l.starts_with("DBUS_SESSION_BUS_ADDRESS="))
            .collect();
        if sandboxed {
            // The sandbox removes the variable, the runtime folder and the bus's socket.
            assert!(bus.is_empty(), "{tag}: {env}");
            assert!(!env.contains("XDG_RUNTIME_DIR="), "{tag}: {env}");
            assert!(env.lines().any(|l| l == "TMPDIR=/tmp"), "{tag}: {env}");
        } else {
            assert_eq!(
                bus,
                [format!("DBUS_SESSION_BUS_ADDRESS={}", crate::DBUS_BLOCKED)],
                "{tag}: the session bus is blocked: {env}"
            );
        }
        for (name, value, visible) in PROBE_VARIABLES {
            let visible = *visible || passed.contains(name);
            let line = format!("{name}={value}");
            assert_eq!(
                env.lines().any(|l| l == line),
                visible,
                "{tag}: {name} visible: {env}"
            );
            if !visible {
                assert!(!env.contains(*value), "{tag}: {name} leaked: {env}");
            }
        }
    }
}

// ----- timeouts, background jobs and cancellation ---------------------------------------------

#[tokio::test]
async fn a_timeout_kills_the_whole_group_and_returns_the_output_so_far() {
    let (dir, manager) = unsandboxed_project();
    let command = "echo $$ > pids; sleep 1000 & echo $! >> pids; echo before; sleep 1000";
    let obs = run(&manager, json!({"command": command, "timeout": 1})).await;
    assert_eq!(
        (obs.kind, without_note(&obs.text)),
        (ObservationKind::Error, "[timeout after 1s]\nbefore\n")
    );
    assert!(obs.duration < Duration::from_secs(3), "{:?}", obs.duration);
    let pids = pids_in(&dir.path().join("pids"), 2).await;
    assert!(
        until_all(&pids, is_dead, Duration::from_millis(500))
            .await
            .is_some(),
        "still running: {pids:?}"
    );
}

#[tokio::test]
async fn a_timed_out_command_gets_sigterm_first_and_its_last_words_are_kept() {
    let (_dir, manager) = unsandboxed_project();
    let command = "trap 'echo stopping; exit 1' TERM; echo started; \
                   while :; do sleep 0.05; done";
    let obs = run(&manager, json!({"command": command, "timeout": 1})).await;
    assert_eq!(obs.kind, ObservationKind::Error);
    // Between the two, dash (Debian's sh) reports the `sleep` that SIGTERM killed:
    // "Terminated".
    let text = without_note(&obs.text);
    assert!(
        text.starts_with("[timeout after 1s]\nstarted\n") && text.ends_with("\nstopping\n"),
        "{text:?}"
    );
}

#[tokio::test]
async fn a_command_ignoring_sigterm_is_killed_after_the_grace() {
    let (dir, manager) = unsandboxed_project();
    // An ignored signal stays ignored across exec, so `sleep` ignores TERM as well.
    let command = "trap '' TERM; echo $$ > pids; sleep 1000 & echo $! >> pids; sleep 1000";
    let obs = run(&manager, json!({"command": command, "timeout": 1})).await;
    assert_eq!(
        (obs.kind, without_note(&obs.text)),
        (ObservationKind::Error, "[timeout after 1s]")
    );
    let grace = Duration::from_secs(1) + TERM_GRACE;
    assert!(
        obs.duration >= grace && obs.duration < grace + Duration::from_secs(2),
        "{:?}",
        obs.duration
    );
    let pids = pids_in(&dir.path().join("pids"), 2).await;
    assert!(
        until_all(&pids, is_dead, Duration::from_millis(500))
            .await
            .is_some()
    );
}

#[tokio::test]
async fn a_background_job_does_not_hold_the_call_and_dies_with_it() {
    let (dir, manager) = unsandboxed_project();
    for command in [
        // Holds the output pipe open.
        "sleep 1000 & echo $! > pids; echo done",
        // Does not hold it.
        "sleep 1000 > /dev/null 2>&1 & echo $! > pids; echo done",
    ] {
        let obs = run(&manager, json!({"command": command, "timeout": 30})).await;
        assert_eq!(parse(without_note(&obs.text)).2, "done\n", "{command}");
        assert!(
            obs.duration < DRAIN_GRACE + Duration::from_secs(2),
            "{command}: {:?}",
            obs.duration
        );
        let pids = pids_in(&dir.path().join("pids"), 1).await;
        assert!(
            until_all(&pids, is_dead, Duration::from_millis(500))
                .await
                .is_some(),
            "{command}: still running"
        );
    }
}

#[tokio::test]
async fn cancelling_the_call_kills_the_shell_and_its_children_within_500ms() {
    let (dir, manager) = unsandboxed_project();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pid_file = dir.path().join("pids");
    let watcher = tokio::spawn(async move {
        let pids = pids_in(&pid_file, 2).await;
        let cancelled_at = Instant::now();
        trigger.cancel();
        (pids, cancelled_at)
    });
    let command = "echo $$ > pids; sleep 1000 & echo $! >> pids; wait";
    let obs = manager
        .dispatch(
            "run_command",
            json!({ "command": command }),
            &crate::call::test_call().with_cancel(cancel.clone()),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Cancelled);
    let (pids, cancelled_at) = watcher.await.unwrap();
    let (shell, child) = (pids[0], pids[1]);
    let limit = Duration::from_millis(500);
    assert!(until_all(&[shell, child], is_dead, limit).await.is_some());
    // The shell is Gantry's own child: it is reaped, not left as a zombie.
    assert!(until_all(&[shell], is_reaped, limit).await.is_some());
    let latency = cancelled_at.elapsed();
    eprintln!("cancel to dead and reaped: {latency:?}");
    assert!(latency < limit, "{latency:?}");
}

#[tokio::test]
async fn dropping_the_call_future_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = unsandboxed_context(dir.path());
    let args = RunCommandArgs {
        command: "echo $$ > pids; sleep 1000 & echo $! >> pids; wait".into(),
        workdir: ".".into(),
        timeout: 600,
    };
    let pid_file = dir.path().join("pids");
    let pids = {
        let call = RunCommand.call(&ctx, args);
        tokio::pin!(call);
        tokio::select! {
            _ = &mut call => panic!("the command finished"),
            pids = pids_in(&pid_file, 2) => pids,
        }
        // `call` is dropped here.
    };
    let dropped_at = Instant::now();
    assert!(
        until_all(&pids, is_dead, Duration::from_millis(500))
            .await
            .is_some()
    );
    assert!(
        until_all(&pids[..1], is_reaped, Duration::from_millis(500))
            .await
            .is_some()
    );
    eprintln!("drop to dead and reaped: {:?}", dropped_at.elapsed());
}

#[tokio::test]
async fn the_context_token_stops_a_direct_call() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let ctx = unsandboxed_context(dir.path()).with_cancel(cancel.clone());
    let pid_file = dir.path().join("pids");
    let trigger = tokio::spawn(async move {
        let pids = pids_in(&pid_file, 2).await;
        cancel.cancel();
        pids
    });
    let args = RunCommandArgs {
        command: "echo $$ > pids; sleep 1000 & echo $! >> pids; wait".into(),
        workdir: ".".into(),
        timeout: 600,
    };
    let error = RunCommand.call(&ctx, args).await.unwrap_err();
    assert_eq!(error.message(), "the command was cancelled");
    let pids = trigger.await.unwrap();
    assert!(
        until_all(&pids, is_dead, Duration::from_millis(500))
            .await
            .is_some()
    );
}

// ----- approvals ---------------------------------------------------------------------------------

#[tokio::test]
async fn a_denied_command_runs_nothing_and_the_approver_saw_command_and_workdir() {
    let approver = ScriptedApprover::new([deny()]);
    let (dir, manager) = project_with(Policy::Ask, Some(approver.clone()));
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let obs = run(
        &manager,
        json!({"command": "touch created", "workdir": "./sub/"}),
    )
    .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(obs.text, "[denied] the user denied tool 'run_command'");
    assert!(!dir.path().join("sub/created").exists());
    let seen = approver.requests();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].level, PermissionLevel::Dangerous);
    assert_eq!(
        seen[0].preview,
        Some(Preview::Command {
            command: "touch created".into(),
            workdir: "sub".into(),
            sandbox: Some(SandboxState::Sandboxed { network: false }),
        })
    );
    assert_eq!(
        seen[0].session_scope,
        ["run_command: in ./sub: touch created"]
    );
}

#[tokio::test]
async fn the_preview_shows_an_unresolvable_workdir_as_given() {
    let approver = ScriptedApprover::new([deny()]);
    let (_dir, manager) = project_with(Policy::Ask, Some(approver.clone()));
    run(
        &manager,
        json!({"command": "ls", "workdir": "../elsewhere"}),
    )
    .await;
    let seen = approver.requests();
    assert_eq!(
        seen[0].preview,
        Some(Preview::Command {
            command: "ls".into(),
            workdir: "../elsewhere".into(),
            sandbox: Some(SandboxState::Sandboxed { network: false }),
        })
    );
}

#[tokio::test]
async fn a_session_approval_covers_exactly_the_approved_keys() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowForSession]);
    let (dir, manager) = project_with(Policy::Ask, Some(approver.clone()));

    let obs = run(&manager, json!({"command": "echo one"})).await;
    assert_eq!(parse(&obs.text).2, "one\n");
    assert_eq!(approver.asked(), 1);
    assert_eq!(
        approver.requests()[0].session_scope,
        ["run_command: echo one"]
    );

    // Same program and subcommand, more arguments: covered.
    let obs = run(&manager, json!({"command": "echo one two"})).await;
    assert_eq!(parse(&obs.text).2, "one two\n");
    assert_eq!(approver.asked(), 1);

    // An approved part chained with an unapproved one asks again (and is denied here).
    let obs = run(&manager, json!({"command": "echo one; touch x"})).await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(approver.asked(), 2);
    assert_eq!(
        approver.requests()[1].session_scope,
        ["run_command: echo one", "run_command: touch x"]
    );
    let obs = run(&manager, json!({"command": "echo one && echo $(touch x)"})).await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(approver.asked(), 3);

    // Another subcommand of the same program asks again.
    run(&manager, json!({"command": "echo two"})).await;
    assert_eq!(approver.asked(), 4);

    // A command the parser does not understand can't be allowed for the session.
    let obs = run(&manager, json!({"command": "if true; then touch y; fi"})).await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(approver.asked(), 5);
    assert!(approver.requests()[4].session_scope.is_empty());
    assert!(!dir.path().join("x").exists() && !dir.path().join("y").exists());
}

#[test]
fn the_scope_is_the_command_keys_or_never() {
    let scope = |command: &str| {
        keyed_scope(&RunCommandArgs {
            command: command.into(),
            workdir: ".".into(),
            timeout: 30,
        })
    };
    assert_eq!(
        scope("git status --short"),
        ApprovalScope::Keys(vec!["git status".into()])
    );
    assert_eq!(
        scope("git status; rm -rf ~"),
        ApprovalScope::Keys(vec!["git status".into(), "rm -rf ~".into()])
    );
    assert_eq!(
        scope("eval \"$X\""),
        ApprovalScope::Never("`eval` evaluates text as code or changes the shell's state".into())
    );
    assert_eq!(
        scope("git log --output=/tmp/x"),
        ApprovalScope::Never("`--output` writes a file".into())
    );
    assert!(matches!(scope("echo 'unbalanced"), ApprovalScope::Never(_)));
}

#[test]
fn the_scope_names_the_workdir_when_it_is_not_the_root() {
    let scope = |command: &str, workdir: &str| {
        keyed_scope(&RunCommandArgs {
            command: command.into(),
            workdir: workdir.into(),
            timeout: 30,
        })
    };
    let root = ApprovalScope::Keys(vec!["cargo test".into()]);
    for workdir in [".", "./", "", "./."] {
        assert_eq!(scope("cargo test", workdir), root, "{workdir:?}");
    }
    let sub = ApprovalScope::Keys(vec!["in ./sub: cargo test".into()]);
    for workdir in ["sub", "./sub", "sub/", "./sub/./"] {
        assert_eq!(scope("cargo test", workdir), sub, "{workdir:?}");
    }
    assert_eq!(
        scope("make; rm x", "-rf"),
        ApprovalScope::Keys(vec!["in ./-rf: make".into(), "in ./-rf: rm x".into()])
    );
    assert_eq!(
        scope("ls", "sub/.."),
        ApprovalScope::Keys(vec!["in ./sub/..: ls".into()])
    );
    assert!(matches!(scope("eval x", "sub"), ApprovalScope::Never(_)));
    // No command can produce such a key itself.
    assert!(matches!(
        scope("in ./sub: cargo test", "."),
        ApprovalScope::Never(_)
    ));
}

#[tokio::test]
async fn a_session_approval_at_the_root_does_not_cover_another_workdir() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        deny(),
        ApprovalDecision::AllowForSession,
    ]);
    let (dir, manager) = project_with(Policy::Ask, Some(approver.clone()));
    std::fs::create_dir(dir.path().join("sub")).unwrap();

    let obs = run(&manager, json!({"command": "echo root"})).await;
    assert_eq!(parse(&obs.text).2, "root\n");
    // Same command at the root again: covered.
    run(&manager, json!({"command": "echo root", "workdir": "./"})).await;
    assert_eq!(approver.asked(), 1);

    // In a subfolder it asks (and is denied here).
    let obs = run(&manager, json!({"command": "echo root", "workdir": "sub"})).await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(approver.asked(), 2);
    assert_eq!(
        approver.requests()[1].session_scope,
        ["run_command: in ./sub: echo root"]
    );

    // Approved there for the session, it covers that folder only.
    run(&manager, json!({"command": "echo root", "workdir": "sub"})).await;
    run(
        &manager,
        json!({"command": "echo root", "workdir": "./sub/"}),
    )
    .await;
    assert_eq!(approver.asked(), 3);
}
