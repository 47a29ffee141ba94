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

use super::support::{Run, everything_with_dangerous_echo};

const WAIT: Duration = Duration::from_secs(20);

/// A project folder and a data folder of its own (no keychain), for several runs.
struct Sandbox {
    project: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        Self {
            project: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.project.path()
    }

    /// `gantry-cli args...` in the project, stdin piped (never a terminal), probing no local
    /// model server.
    fn spawn(&self, args: &[&str]) -> Child {
        self.spawn_probing(args, "")
    }

    /// [`Self::spawn`] probing `local_servers` (`GANTRY_LOCAL_SERVERS`) for local servers.
    fn spawn_probing(&self, args: &[&str], local_servers: &str) -> Child {
        let nowhere = format!("unix:path={}", self.data.path().join("no-bus").display());
        Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
            .args(args)
            .env("GANTRY_LOCAL_SERVERS", local_servers)
            .current_dir(self.project.path())
            .env_remove("GANTRY_LOG")
            .env("GANTRY_DATA_DIR", self.data.path())
            .env("XDG_CONFIG_HOME", self.project.path().join(".config"))
            .env("DBUS_SESSION_BUS_ADDRESS", nowhere)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("gantry-cli starts")
    }

    /// `gantry-cli chat ARGS --base-url PROVIDER --model scripted-model`.
    fn spawn_chat(&self, provider: &Handle, args: &[&str]) -> Child {
        let url = provider.base_url();
        let mut all = vec!["chat", "--base-url", &url, "--model", "scripted-model"];
        all.extend_from_slice(args);
        self.spawn(&all)
    }

    async fn chat(&self, provider: &Handle, args: &[&str]) -> Run {
        finish(self.spawn_chat(provider, args), "").await
    }

    async fn run(&self, args: &[&str]) -> Run {
        finish(self.spawn(args), "").await
    }
}

async fn finish(mut child: Child, stdin: &str) -> Run {
    let mut input = child.stdin.take().unwrap();
    // A run that doesn't read stdin may exit first; its closed pipe is not a failure.
    let _ = input.write_all(stdin.as_bytes()).await;
    drop(input);
    let output = tokio::time::timeout(WAIT, child.wait_with_output())
        .await
        .expect("gantry-cli exits")
        .unwrap();
    output.into()
}

/// The session id a run printed on stderr (`session: ID ...`).
fn session_of(run: &Run) -> String {
    run.stderr
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no session line in {}", run.stderr))
        .to_owned()
}

#[tokio::test]
async fn the_answer_streams_to_stdout() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("Hello from the model.").expect(Expect::new().last_contains("hi there"))
    ]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hi there"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Hello from the model.\n");
    assert!(run.stderr.contains("session: "), "{}", run.stderr);
    let body = provider.chat_requests()[0].body.clone().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    let root = std::fs::canonicalize(sandbox.path()).unwrap();
    assert!(system.contains(&root.display().to_string()), "{system}");
    provider.verify().unwrap();
}

#[tokio::test]
async fn terminal_controls_in_the_answer_and_results_are_shown_escaped() {
    let sandbox = Sandbox::new();
    std::fs::write(
        sandbox.path().join("evil.txt"),
        "\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2Jgotcha\n",
    )
    .unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "evil.txt"}),
        )]),
        Turn::text("Done \u{1b}[31mred\u{9b}0m \rhidden"),
    ]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["read it"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    for text in [&run.stdout, &run.stderr] {
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{9b}', '\r']),
            "a control reached the terminal: {text:?}"
        );
    }
    assert!(
        run.stdout.ends_with("Done \\e[31mred\\u{9b}0m \\rhidden\n"),
        "{}",
        run.stdout
    );
}

#[tokio::test]
async fn tool_calls_and_results_are_shown() {
    let sandbox = Sandbox::new();
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
    let run = sandbox
        .chat(
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
    let sandbox = Sandbox::new();
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
    let run = sandbox
        .chat(&provider, &["make a file", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("← denied ("), "{}", run.stdout);
    assert!(!sandbox.path().join("made-it").exists());
    provider.verify().unwrap();
}

#[tokio::test]
async fn approvals_can_be_answered_on_stdin() {
    let sandbox = Sandbox::new();
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
    let child = sandbox.spawn_chat(
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
    assert!(sandbox.path().join("made-it").exists());
    provider.verify().unwrap();
}

#[tokio::test]
async fn json_prints_one_event_per_line() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .reasoning("Short.")
        .text("Hi!")
        .usage(10, 2)
        .into()]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hi", "--json"]).await;
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
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([ErrorReply::new(
        401,
        "Incorrect API key provided.",
    )
    .into()]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hi"]).await;
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
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("Working on it")
        .hang_after(2)
        .into()]))
    .await
    .unwrap();
    let child = sandbox.spawn_chat(&provider, &["take your time"]);
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
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::default()).await.unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["hi", "--provider", "nope"], "unknown provider 'nope'"),
        (
            &["hi", "--enable", "no_such_tool"],
            "unknown tool 'no_such_tool'",
        ),
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
        (&["hi", "--session", "12345"], "no session with id '12345'"),
    ];
    for (args, needle) in cases {
        let run = sandbox.chat(&provider, args).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    }
    assert!(provider.chat_requests().is_empty());
    // None of them left a session behind.
    let root = sandbox.path().to_str().unwrap().to_owned();
    let listed = sandbox
        .run(&["sessions", "list", "--root", &root, "--json"])
        .await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert_eq!(listed.stdout.trim(), "[]");
}

#[tokio::test]
async fn a_session_continues_in_a_later_run_and_is_listed_with_its_audit() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path().join("todo.txt"), "buy milk\n").unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "todo.txt"}),
        )]),
        Turn::text("One item: buy milk."),
        Turn::text("Then you are done.").expect(
            Expect::new()
                .message_count(6)
                .pointer("/messages/1/content", json!("what is on my list?"))
                .pointer("/messages/3/tool_call_id", json!("call_1")),
        ),
    ]))
    .await
    .unwrap();
    let first = sandbox.chat(&provider, &["what is on my list?"]).await;
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(
        first
            .stdout
            .starts_with("→ read_file {\"path\":\"todo.txt\"}\n"),
        "{}",
        first.stdout
    );
    let id = session_of(&first);

    let second = sandbox
        .chat(&provider, &["I bought it", "--session", &id])
        .await;
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.stdout, "Then you are done.\n");
    assert_eq!(session_of(&second), id);

    let listed = sandbox.run(&["sessions", "list", "--json"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let sessions: Vec<Value> = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"].to_string(), id);
    assert_eq!(sessions[0]["title"], "what is on my list?");
    assert_eq!(sessions[0]["messageCount"], 6);
    assert_eq!(sessions[0]["model"], "scripted-model");

    let audit = sandbox.run(&["audit", "--json", "--session", &id]).await;
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    let rows: Vec<Value> = serde_json::from_str(&audit.stdout).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["tool"], "read_file");
    assert_eq!(rows[0]["outcome"], "ok");

    // The session exported: Markdown with the call folded, JSON with the stored outcome.
    let id_text = id.to_string();
    let markdown = sandbox
        .run(&["sessions", "export", &id_text, "--format", "md"])
        .await;
    assert_eq!(markdown.code, 0, "{}", markdown.stderr);
    assert!(
        markdown.stdout.starts_with("# what is on my list?\n"),
        "{}",
        markdown.stdout
    );
    assert!(
        markdown
            .stdout
            .contains("### User\n\nwhat is on my list?\n")
    );
    assert!(
        markdown
            .stdout
            .contains("### Assistant\n\nOne item: buy milk.\n")
    );
    assert!(
        markdown
            .stdout
            .contains("<summary>Tool call <code>read_file</code>: ok, "),
        "{}",
        markdown.stdout
    );
    assert!(markdown.stdout.contains("\"path\": \"todo.txt\""));
    assert!(markdown.stdout.contains("buy milk"));
    let exported = sandbox
        .run(&["sessions", "export", &id_text, "--format", "json"])
        .await;
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let exported: Value = serde_json::from_str(&exported.stdout).unwrap();
    assert_eq!(exported["messages"].as_array().unwrap().len(), 6);
    assert_eq!(exported["messages"][2]["role"], "tool");
    assert_eq!(exported["messages"][2]["outcome"]["kind"], "ok");
    assert_eq!(
        exported["messages"][2]["outcome"]["decision"]["kind"],
        "auto"
    );
    let missing = sandbox
        .run(&["sessions", "export", "999", "--format", "md"])
        .await;
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    provider.verify().unwrap();
}

#[tokio::test]
async fn a_saved_provider_is_used_by_name() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("From the saved one.").expect(Expect::new().model("saved-model"))
    ]))
    .await
    .unwrap();
    let url = provider.base_url();
    let set = sandbox
        .run(&[
            "provider",
            "set",
            "local",
            "--base-url",
            &url,
            "--model",
            "saved-model",
        ])
        .await;
    assert_eq!(set.code, 0, "{}", set.stderr);
    let run = sandbox.run(&["chat", "hello", "--provider", "local"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "From the saved one.\n");
    assert!(
        provider.chat_requests()[0]
            .header("authorization")
            .is_none()
    );
    provider.verify().unwrap();
}

#[tokio::test]
async fn mcp_server_tools_are_offered_and_called() {
    let sandbox = Sandbox::new();
    let served = tempfile::tempdir().unwrap();
    std::fs::write(served.path().join("hello.txt"), "hello over MCP\n").unwrap();
    let config_dir = sandbox.path().join(".config/gantry");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = json!({"mcpServers": {"other": {
        "command": env!("CARGO_BIN_EXE_gantry-cli"),
        "args": ["mcp", "serve", "--root", served.path().to_str().unwrap()]
    }}});
    std::fs::write(config_dir.join("mcp.json"), config.to_string()).unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "mcp__other__read_file",
            json!({"path": "hello.txt"}),
        )])
        .expect(
            Expect::new()
                .tool_offered("mcp__other__read_file")
                .tool_offered("read_file"),
        ),
        Turn::text("It says hello.").expect(Expect::new().last_contains("hello over MCP")),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["read hello.txt over there", "--approve", "once"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], r#"→ mcp__other__read_file {"path":"hello.txt"}"#);
    assert!(lines[1].starts_with("← ok ("), "{}", run.stdout);
    assert_eq!(lines[2], "It says hello.");
    provider.verify().unwrap();
}

#[tokio::test]
async fn enable_applies_to_mcp_tools() {
    let sandbox = Sandbox::new();
    everything_with_dangerous_echo(sandbox.path());
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "mcp__ev__echo",
            json!({"message": "enabled"}),
        )])
        .expect(Expect::new().tool_offered("mcp__ev__echo")),
        Turn::text("Echoed.").expect(Expect::new().last_contains("Echo: enabled")),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["echo it", "--enable", "mcp__ev__echo", "--approve", "once"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.ends_with("Echoed.\n"), "{}", run.stdout);
    provider.verify().unwrap();
}

/// An address nothing listens on, held while this lives: its port is bound but never listening,
/// so a connection is refused, and no other test can take the port meanwhile.
struct DeadAddress {
    _reserved: tokio::net::TcpSocket,
    url: String,
}

fn dead_address() -> DeadAddress {
    let reserved = tokio::net::TcpSocket::new_v4().unwrap();
    reserved.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = reserved.local_addr().unwrap().port();
    DeadAddress {
        _reserved: reserved,
        url: format!("http://127.0.0.1:{port}/v1"),
    }
}

#[tokio::test]
async fn no_provider_and_nothing_listening_says_so_in_one_line_at_once() {
    let sandbox = Sandbox::new();
    let dead = [dead_address(), dead_address(), dead_address()];
    let probed = format!(
        "ollama={},lmstudio={},llamacpp={}",
        dead[0].url, dead[1].url, dead[2].url
    );
    let started = Instant::now();
    let run = finish(sandbox.spawn_probing(&["chat", "hello"], &probed), "").await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let line = run.stderr.trim_end();
    assert!(line.starts_with("gantry-cli: no model provider is set and no local model server answers (Ollama at 127.0.0.1:"), "{line}");
    for needed in ["ollama serve", "gantry-cli provider set", "--provider"] {
        assert!(line.contains(needed), "{line}");
    }
    for internal in [
        "tcp connect",
        "os error",
        "could not reach",
        "Connection refused",
    ] {
        assert!(!line.contains(internal), "{line}");
    }
    // Nothing was started: no session was saved.
    let sessions = sandbox
        .run(&["sessions", "list", "--root", ".", "--json"])
        .await;
    assert_eq!(sessions.stdout.trim(), "[]", "{}", sessions.stderr);
}

#[tokio::test]
async fn with_no_provider_set_a_local_server_that_answers_is_used() {
    let sandbox = Sandbox::new();
    let studio = ScriptedProvider::start(
        Script::new([Turn::text("Hello from the studio.")
            .expect(Expect::new().model("qwen2.5-coder-7b-instruct"))])
        .models(["qwen2.5-coder-7b-instruct"])
        // LM Studio's own API says what window the loaded model runs with.
        .route(
            "GET /api/v0/models",
            json!({"object": "list", "data": [{"id": "qwen2.5-coder-7b-instruct",
                "state": "loaded", "max_context_length": 32768, "loaded_context_length": 32768}]}),
        ),
    )
    .await
    .unwrap();
    let dead = dead_address();
    let probed = format!("ollama={},lmstudio={}", dead.url, studio.base_url());
    let run = finish(sandbox.spawn_probing(&["chat", "hello"], &probed), "").await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Hello from the studio.\n");
    assert!(
        run.stderr.starts_with(&format!(
            "[no provider set: using LM Studio at {} with qwen2.5-coder-7b-instruct]",
            studio.base_url()
        )),
        "{}",
        run.stderr
    );
    studio.verify().unwrap();
}

#[tokio::test]
async fn the_local_default_not_running_fails_at_once_without_internals() {
    let sandbox = Sandbox::new();
    // `--provider ollama` at an address where nothing listens: no retries, plain words.
    let dead = dead_address();
    let started = Instant::now();
    let run = sandbox
        .run(&[
            "chat",
            "hello",
            "--provider",
            "ollama",
            "--base-url",
            &dead.url,
        ])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!run.stderr.contains("retry"), "{}", run.stderr);
    let error = run
        .stderr
        .lines()
        .find(|line| line.starts_with("error: "))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(
        error.starts_with(&format!(
            "error: nothing is listening at {}: start Ollama (`ollama serve`",
            dead.url.trim_end_matches("/v1")
        )),
        "{error}"
    );
    for internal in ["tcp connect", "os error", "Connection refused"] {
        assert!(!run.stderr.contains(internal), "{}", run.stderr);
    }
}

#[tokio::test]
async fn a_fatal_error_is_printed_once_not_again_as_a_log_line() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([Turn::from(ErrorReply::new(
        400,
        "This model's maximum context length is 8192 tokens.",
    ))]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hello"]).await;
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr
            .matches("maximum context length is 8192 tokens")
            .count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("WARN"), "{}", run.stderr);
}

#[tokio::test]
async fn a_retry_that_restarts_the_reply_says_so_on_stdout() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([
        Completion::new().text("The answer is").cut_after(2).into(),
        Turn::text("The answer is 42."),
    ]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hello"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!("The answer is".starts_with(lines[0]), "{}", run.stdout);
    assert_eq!(
        lines[1],
        "[the reply broke off; retrying, it restarts below]"
    );
    assert_eq!(lines[2], "The answer is 42.");
    assert!(
        run.stderr.contains("(the reply restarts)"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn provider_use_makes_a_provider_the_default() {
    let sandbox = Sandbox::new();
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("Used by default.").expect(Expect::new().model("mine"))
    ]))
    .await
    .unwrap();
    let url = provider.base_url();
    let set = sandbox
        .run(&[
            "provider",
            "set",
            "mine",
            "--base-url",
            &url,
            "--model",
            "mine",
            "--stream-usage",
            "false",
        ])
        .await;
    assert_eq!(set.code, 0, "{}", set.stderr);
    let unknown = sandbox.run(&["provider", "use", "nope"]).await;
    assert_eq!(unknown.code, 2);
    let used = sandbox.run(&["provider", "use", "mine"]).await;
    assert_eq!(used.code, 0, "{}", used.stderr);
    // Probing would find nothing: the chosen provider is used without asking.
    let run = sandbox.run(&["chat", "hello"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Used by default.\n");
    let body = provider.chat_requests()[0].body.clone().unwrap();
    assert!(
        body.get("stream_options").is_none(),
        "the flag was saved: {body}"
    );
    provider.verify().unwrap();
}

#[tokio::test]
async fn a_typed_command_runs_its_shell_lines_first_and_a_refused_one_sends_nothing() {
    let sandbox = Sandbox::new();
    let commands = sandbox.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("status.md"),
        "Status: !`echo from-expansion`\nThen look at $0.",
    )
    .unwrap();
    let provider = ScriptedProvider::start(Script::new([Turn::text("Looked.")
        .expect(Expect::new().last_contains("Status: from-expansion\nThen look at src."))]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &[
                "/status src",
                "--enable",
                "run_command",
                "--approve",
                "once",
            ],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Looked."), "{}", run.stdout);
    provider.verify().unwrap();

    // Nobody to approve (stdin is no terminal): refused, and no request reaches the model.
    let silent = ScriptedProvider::start(Script::new([])).await.unwrap();
    let run = sandbox
        .chat(&silent, &["/status src", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("!`echo from-expansion` was refused")
            && run.stderr.contains("nothing was sent"),
        "{}",
        run.stderr
    );
    assert!(silent.requests().is_empty());
}
