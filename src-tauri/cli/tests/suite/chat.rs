//! `gantry-cli chat` against the scripted provider.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use gantry_scripted_provider::{
    Completion, ErrorReply, Expect, Handle, Script, ScriptedProvider, ToolCall, Turn,
};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

use super::support::Run;

const WAIT: Duration = Duration::from_secs(20);

/// `gantry-cli chat` in `cwd` with `args`, pointed at `provider`, stdin piped (never a terminal).
fn spawn_chat(cwd: &Path, provider: &Handle, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
        .arg("chat")
        .args([
            "--base-url",
            &provider.base_url(),
            "--model",
            "scripted-model",
        ])
        .args(args)
        .current_dir(cwd)
        .env_remove("GANTRY_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("gantry-cli starts")
}

async fn finish(mut child: Child, stdin: &str) -> Run {
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let output = tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("gantry-cli exits")
        .unwrap();
    output.into()
}

async fn chat(cwd: &Path, provider: &Handle, args: &[&str]) -> Run {
    finish(spawn_chat(cwd, provider, args), "").await
}

#[tokio::test]
async fn the_answer_streams_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("Hello from the model.").expect(Expect::new().last_contains("hi there"))
    ]))
    .await
    .unwrap();
    let run = chat(dir.path(), &provider, &["hi there"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Hello from the model.\n");
    assert!(run.stderr.contains("session: "), "{}", run.stderr);
    let body = provider.chat_requests()[0].body.clone().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert!(system.contains(&root.display().to_string()), "{system}");
    provider.verify().unwrap();
}

#[tokio::test]
async fn tool_calls_and_results_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "echo from-the-shell"}),
        )]),
        Turn::text("The command printed from-the-shell.")
            .expect(Expect::new().last_contains("from-the-shell")),
    ]))
    .await
    .unwrap();
    let run = chat(
        dir.path(),
        &provider,
        &["run it", "--enable", "run_command", "--approve", "once"],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        r#"→ run_command {"command":"echo from-the-shell"}"#
    );
    assert!(
        lines[1].starts_with("← ok (") && lines[1].contains("[exit 0 in"),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with("(+1 lines)"), "{}", lines[1]);
    assert_eq!(lines[2], "The command printed from-the-shell.");
    provider.verify().unwrap();
}

#[tokio::test]
async fn without_a_terminal_approvals_are_denied() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "touch made-it"}),
        )]),
        Turn::text("I was not allowed to run it.").expect(Expect::new().last_contains("[denied]")),
    ]))
    .await
    .unwrap();
    let run = chat(
        dir.path(),
        &provider,
        &["make a file", "--enable", "run_command"],
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("← denied ("), "{}", run.stdout);
    assert!(!dir.path().join("made-it").exists());
    provider.verify().unwrap();
}

#[tokio::test]
async fn approvals_can_be_answered_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "touch made-it"}),
        )]),
        Turn::text("Made it."),
    ]))
    .await
    .unwrap();
    let child = spawn_chat(
        dir.path(),
        &provider,
        &["make a file", "--enable", "run_command", "--approve", "ask"],
    );
    let run = finish(child, "o\n").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("Gantry wants to run run_command"),
        "{}",
        run.stderr
    );
    assert!(dir.path().join("made-it").exists());
    provider.verify().unwrap();
}

#[tokio::test]
async fn json_prints_one_event_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .reasoning("Short.")
        .text("Hi!")
        .usage(10, 2)
        .into()]))
    .await
    .unwrap();
    let run = chat(dir.path(), &provider, &["hi", "--json"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(events[0]["type"], "turn_started");
    assert!(events[0]["sessionId"].is_string());
    assert!(events.iter().any(|e| e["type"] == "reasoning_delta"));
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "text_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hi!");
    assert!(events.iter().any(|e| e == &json!({"type": "usage", "promptTokens": 10, "completionTokens": 2, "totalTokens": 12})));
    assert_eq!(
        events.last().unwrap(),
        &json!({"type": "turn_finished", "reason": "completed", "steps": 1, "message": null})
    );
    assert!(
        !run.stderr.contains("session: "),
        "stderr stays quiet: {}",
        run.stderr
    );
}

#[tokio::test]
async fn a_provider_error_exits_one_with_its_message() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([ErrorReply::new(
        401,
        "Incorrect API key provided.",
    )
    .into()]))
    .await
    .unwrap();
    let run = chat(dir.path(), &provider, &["hi"]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("error: custom answered HTTP 401: Incorrect API key provided."),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn ctrl_c_cancels_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("Working on it")
        .hang_after(2)
        .into()]))
    .await
    .unwrap();
    let child = spawn_chat(dir.path(), &provider, &["take your time"]);
    provider.wait_for_requests(1, WAIT).await.unwrap();
    let pid = child.id().unwrap();
    let sent = Instant::now();
    let status = std::process::Command::new("/bin/sh")
        .args(["-c", &format!("kill -INT {pid}")])
        .status()
        .unwrap();
    assert!(status.success());
    let run = finish(child, "").await;
    println!("SIGINT to exit: {:?}", sent.elapsed());
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("[cancelled]"), "{}", run.stderr);
    assert!(run.stderr.contains("session: "), "{}", run.stderr);
}

#[tokio::test]
async fn usage_errors_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    let provider = ScriptedProvider::start(Script::default()).await.unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["hi", "--provider", "nope"], "unknown provider 'nope'"),
        (
            &[
                "hi",
                "--provider",
                "openai",
                "--api-key-env",
                "GANTRY_TEST_NO_SUCH_KEY",
            ],
            "set the environment variable GANTRY_TEST_NO_SUCH_KEY",
        ),
        (
            &["hi", "--session", "no-such-session"],
            "no session with id 'no-such-session'",
        ),
    ];
    for (args, needle) in cases {
        let run = chat(dir.path(), &provider, args).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
    assert!(provider.chat_requests().is_empty());
}
