//! `gantry-cli mcp serve` as a third-party client drives it: raw JSON-RPC lines on stdin, the
//! client leaving (end of stdin) or killing it (SIGTERM, SIGINT) in the middle of a command.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::support::Sandbox;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `gantry-cli mcp serve` for the sandbox's project, stdin and stdout piped.
fn serve(sandbox: &Sandbox) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .args(["mcp", "serve", "--root", sandbox.root()])
        .env("GANTRY_DATA_DIR", sandbox.data.path())
        .env("XDG_CONFIG_HOME", sandbox.project.path().join(".config"))
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            format!("unix:path={}", sandbox.data.path().join("no-bus").display()),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    // A server that never answers must fail the test, not hang it: a watchdog kills it (and the
    // read waiting for its reply then sees the end of stdout).
    let pid = child.id().to_string();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(60));
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    });
    (child, stdout)
}

fn send(child: &mut Child, line: &str) {
    let stdin = child.stdin.as_mut().unwrap();
    stdin.write_all(line.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    stdin.flush().unwrap();
}

/// The next reply on stdout, as JSON.
fn reply(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    assert!(stdout.read_line(&mut line).unwrap() > 0, "stdout closed");
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
}

fn handshake(child: &mut Child, stdout: &mut BufReader<ChildStdout>) {
    send(child, INITIALIZE);
    assert_eq!(reply(stdout)["id"], 1);
    send(child, INITIALIZED);
}

#[test]
fn a_line_that_is_not_json_gets_a_parse_error_and_the_session_goes_on() {
    let sandbox = Sandbox::new();
    let (mut child, mut stdout) = serve(&sandbox);
    send(&mut child, "this is not json");
    let error = reply(&mut stdout);
    assert_eq!(error["jsonrpc"], "2.0");
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32700);
    handshake(&mut child, &mut stdout);
    send(
        &mut child,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    let listed = reply(&mut stdout);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read_file"), "{names:?}");
    // Nobody can answer the model's questions in server mode: ask_user is not offered.
    assert!(!names.contains(&"ask_user"), "{names:?}");
    // run_command is disabled: calling an unknown tool lists only what may be called.
    send(
        &mut child,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
    );
    let text = reply(&mut stdout)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.starts_with("[error] unknown tool 'nope'; available: "),
        "{text}"
    );
    assert!(!text.contains("run_command"), "{text}");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
}

/// The pid, as this test sees it, of the process running `sleep <seconds>` (commands run in the
/// sandbox's own pid namespace, so the pid a command could report is not the one seen here).
fn command_pid(seconds: &str) -> u32 {
    let wanted = format!("sleep\0{seconds}\0");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|line| line == wanted.as_bytes())
            });
        if let Some(pid) = found {
            return pid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}

/// Starts a long command through the served run_command and returns the server with it.
fn serving_a_long_command(sandbox: &Sandbox) -> (Child, BufReader<ChildStdout>, u32) {
    let policy = sandbox.run(&["tools", "policy", "run_command", "auto"], "");
    assert_eq!(policy.code, 0, "{}", policy.stderr);
    // A duration no other test's command sleeps, to find this command among the processes.
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let unique = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let seconds = format!("300.{}{unique:03}", std::process::id());
    let (mut child, mut stdout) = serve(sandbox);
    handshake(&mut child, &mut stdout);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_command",
        "arguments": {"command": format!("exec sleep {seconds}"), "timeout": 600}
    }});
    send(&mut child, &call.to_string());
    let pid = command_pid(&seconds);
    assert!(alive(pid));
    (child, stdout, pid)
}

/// Waits for the server to exit; returns whether it exited 0 and how long it took.
fn exit_of(child: &mut Child) -> (bool, Duration) {
    let started = Instant::now();
    let deadline = started + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return (status.success(), started.elapsed());
        }
        assert!(Instant::now() < deadline, "mcp serve did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn gone_soon(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the command {pid} outlived mcp serve"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_end_of_stdin_cancels_a_running_command_at_once() {
    let sandbox = Sandbox::new();
    let (mut child, _stdout, pid) = serving_a_long_command(&sandbox);
    drop(child.stdin.take());
    let (ok, took) = exit_of(&mut child);
    assert!(ok, "exit status");
    assert!(took < Duration::from_secs(4), "took {took:?}");
    gone_soon(pid);
}

#[test]
fn sigterm_and_sigint_cancel_a_running_command_and_exit_cleanly() {
    for signal in ["-TERM", "-INT"] {
        let sandbox = Sandbox::new();
        let (mut child, _stdout, pid) = serving_a_long_command(&sandbox);
        let killed = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let (ok, took) = exit_of(&mut child);
        assert!(ok, "{signal}: exit status");
        assert!(took < Duration::from_secs(4), "{signal}: took {took:?}");
        gone_soon(pid);
    }
}
