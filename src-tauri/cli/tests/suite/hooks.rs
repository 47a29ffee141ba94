//! Claude Code hooks in `gantry-cli chat`, against the scripted provider: the user's hooks
//! (in a throwaway home) run around tool calls; a project's untrusted hooks do not.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use gantry_scripted_provider::{Expect, Handle, Script, ScriptedProvider, ToolCall, Turn};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::support::Run;

const WAIT: Duration = Duration::from_secs(30);

/// A project, a data folder and a home of their own.
pub(super) struct Sandbox {
    project: tempfile::TempDir,
    data: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Sandbox {
    pub(super) fn new(user_settings: &Value) -> Self {
        let sandbox = Self {
            project: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        let claude = sandbox.home.path().join(".claude");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(claude.join("settings.json"), user_settings.to_string()).unwrap();
        sandbox
    }

    pub(super) fn path(&self) -> &Path {
        self.project.path()
    }

    pub(super) async fn run(&self, args: &[&str]) -> Run {
        let nowhere = format!("unix:path={}", self.data.path().join("no-bus").display());
        let mut child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
            .args(args)
            .current_dir(self.project.path())
            .env_remove("GANTRY_LOG")
            .env("GANTRY_LOCAL_SERVERS", "")
            .env("GANTRY_DATA_DIR", self.data.path())
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.project.path().join(".config"))
            .env("DBUS_SESSION_BUS_ADDRESS", nowhere)
            .env("SOME_SERVICE_TOKEN", "tok_secret_value_123")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("gantry-cli starts");
        drop(child.stdin.take().unwrap().shutdown().await);
        tokio::time::timeout(WAIT, child.wait_with_output())
            .await
            .expect("gantry-cli exits")
            .unwrap()
            .into()
    }

    pub(super) async fn chat(&self, provider: &Handle, args: &[&str]) -> Run {
        let url = provider.base_url();
        let mut all = vec!["chat", "--base-url", &url, "--model", "scripted-model"];
        all.extend_from_slice(args);
        self.run(&all).await
    }
}

fn command_hook(event: &str, matcher: &str, command: &str) -> Value {
    json!({"hooks": {event: [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]}})
}

#[tokio::test]
async fn a_pre_tool_use_hook_blocks_rm_and_a_post_tool_use_hook_sees_the_call() {
    let block_rm = r#"if grep -q '"command":"rm '; then echo "rm is not allowed here, move it to trash" >&2; exit 2; fi"#;
    let record = r#"cat > "$CLAUDE_PROJECT_DIR/post.json"; env > "$CLAUDE_PROJECT_DIR/post.env""#;
    let mut settings = command_hook("PreToolUse", "Bash", block_rm);
    settings["hooks"]["PostToolUse"] =
        command_hook("PostToolUse", "Bash", record)["hooks"]["PostToolUse"].clone();
    let sandbox = Sandbox::new(&settings);
    std::fs::write(sandbox.path().join("victim.txt"), "keep me").unwrap();
    // The project's own hook waits for the user's trust: it must not run.
    std::fs::create_dir_all(sandbox.path().join(".claude")).unwrap();
    std::fs::write(
        sandbox.path().join(".claude/settings.json"),
        command_hook("PreToolUse", "*", "touch untrusted-ran").to_string(),
    )
    .unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "rm victim.txt"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new(
            "call_2",
            "run_command",
            json!({"command": "echo hooked"}),
        )])
        .expect(Expect::new().last_contains("rm is not allowed here, move it to trash")),
        Turn::text("Done.").expect(Expect::new().last_contains("hooked")),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["tidy up", "--enable", "run_command", "--approve", "once"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(sandbox.path().join("victim.txt").exists());
    assert!(!sandbox.path().join("untrusted-ran").exists());
    let post: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.path().join("post.json")).unwrap())
            .unwrap();
    let root = std::fs::canonicalize(sandbox.path()).unwrap();
    assert_eq!(post["hook_event_name"], "PostToolUse");
    assert_eq!(post["tool_name"], "Bash");
    assert_eq!(post["tool_input"]["command"], "echo hooked");
    assert_eq!(post["tool_use_id"], "call_2");
    assert_eq!(post["cwd"], root.to_str().unwrap());
    assert!(
        post["tool_response"]["stdout"]
            .as_str()
            .unwrap()
            .contains("hooked")
    );
    assert!(!post["session_id"].as_str().unwrap().is_empty());
    let env = std::fs::read_to_string(sandbox.path().join("post.env")).unwrap();
    assert!(
        env.contains(&format!("CLAUDE_PROJECT_DIR={}", root.display())),
        "{env}"
    );
    assert!(
        env.contains(&format!("GANTRY_PROJECT_DIR={}", root.display())),
        "{env}"
    );
    assert!(!env.contains("tok_secret_value_123"), "{env}");
    assert!(!env.contains("GANTRY_DATA_DIR"), "{env}");
    // The audit log names the hook that refused the first call.
    let audit = sandbox.run(&["audit", "--json"]).await;
    assert!(audit.stdout.contains(r#""by": "hook""#), "{}", audit.stdout);
    assert!(
        audit
            .stdout
            .contains(r#""detail": "~/.claude/settings.json""#),
        "{}",
        audit.stdout
    );
}

#[tokio::test]
async fn a_hook_allow_passes_neither_a_disabled_tool_nor_a_deny_rule() {
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine by me"}}'"#;
    let sandbox = Sandbox::new(&command_hook("PreToolUse", "", allow));
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "touch disabled-ran"}),
        )]),
        Turn::text("Disabled.").expect(Expect::new().last_contains("[disabled]")),
    ]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["go"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(!sandbox.path().join("disabled-ran").exists());

    let added = sandbox
        .run(&["tools", "rules", "add", "run_command", "rm", "--deny"])
        .await;
    assert_eq!(added.code, 0, "{}", added.stderr);
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "rm -f nothing"}),
        )]),
        Turn::text("Refused.")
            .expect(Expect::new().last_contains("a rule of this project refuses")),
    ]))
    .await
    .unwrap();
    // No terminal: an ordinary ask would be denied too, but the rule decides first.
    let run = sandbox
        .chat(&provider, &["go", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
}

#[tokio::test]
async fn prompt_and_stop_hooks_block_add_context_and_make_the_turn_go_on() {
    let prompt = r#"if grep -q forbidden; then echo "no forbidden words" >&2; exit 2; fi; echo "The project codename is BLUEBIRD.""#;
    let stop = r#"input=$(cat); if [ ! -f stopped-once ]; then printf '%s' "$input" > stop-input.json; touch stopped-once; echo '{"decision":"block","reason":"run the tests too"}'; else printf '%s' "$input" > stop-again.json; fi"#;
    let mut settings = command_hook("UserPromptSubmit", "", prompt);
    settings["hooks"]["Stop"] = command_hook("Stop", "", stop)["hooks"]["Stop"].clone();
    settings["hooks"]["SessionStart"] = command_hook(
        "SessionStart",
        "startup",
        "echo 'The branch is main.'",
    )["hooks"]["SessionStart"]
        .clone();
    let sandbox = Sandbox::new(&settings);

    let provider = ScriptedProvider::start(Script::new([])).await.unwrap();
    let run = sandbox.chat(&provider, &["say forbidden"]).await;
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let shown = format!("{}{}", run.stdout, run.stderr);
    assert!(shown.contains("no forbidden words"), "{shown}");
    assert!(
        provider.chat_requests().is_empty(),
        "the prompt never reached the model"
    );

    let provider = ScriptedProvider::start(Script::new([
        // The hooks' context reaches the model in the system prompt, not in the user's words.
        Turn::text("Hello.").expect(
            Expect::new()
                .pointer("/messages/0/role", json!("system"))
                .last_contains("hello"),
        ),
        Turn::text("Tests pass.").expect(Expect::new().last_contains("run the tests too")),
    ]))
    .await
    .unwrap();
    let run = sandbox.chat(&provider, &["hello"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert_eq!(
        run.stdout.matches("Tests pass.").count(),
        1,
        "{}",
        run.stdout
    );
    let first: Value = serde_json::from_str(
        &std::fs::read_to_string(sandbox.path().join("stop-input.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(first["hook_event_name"], "Stop");
    assert_eq!(first["stop_hook_active"], false);
    assert_eq!(first["last_assistant_message"], "Hello.");
    let again: Value = serde_json::from_str(
        &std::fs::read_to_string(sandbox.path().join("stop-again.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(again["stop_hook_active"], true);
    // The transcript the hooks were pointed to holds the conversation, one message a line.
    let transcript = std::fs::read_to_string(again["transcript_path"].as_str().unwrap()).unwrap();
    let lines: Vec<Value> = transcript
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "user");
    assert_eq!(lines[0]["message"]["content"], "hello", "stored as typed");
    let first = provider.chat_requests()[0].body.clone().unwrap();
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("The project codename is BLUEBIRD."),
        "{system}"
    );
    assert!(system.contains("The branch is main."), "{system}");
    let user = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|message| message["role"] == "user")
        .unwrap();
    assert_eq!(
        user["content"], "hello",
        "the request's user message is the user's words"
    );
    assert_eq!(lines.last().unwrap()["message"]["content"], "Tests pass.");
}

#[tokio::test]
async fn tools_hooks_lists_every_hook_with_its_source_and_state() {
    let sandbox = Sandbox::new(&command_hook("PostToolUse", "Edit|Write", "fmt.sh"));
    std::fs::create_dir_all(sandbox.path().join(".codex")).unwrap();
    std::fs::write(
        sandbox.path().join(".codex/hooks.json"),
        command_hook("Stop", "", "check.sh").to_string(),
    )
    .unwrap();
    let run = sandbox.run(&["tools", "hooks", "--json"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let hooks: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(hooks[0]["event"], "PostToolUse");
    assert_eq!(hooks[0]["matcher"], "Edit|Write");
    assert_eq!(hooks[0]["source"]["shown"], "~/.claude/settings.json");
    assert_eq!(hooks[0]["trusted"], true);
    assert_eq!(hooks[1]["command"], "check.sh");
    assert_eq!(hooks[1]["source"]["shown"], ".codex/hooks.json");
    assert_eq!(hooks[1]["trusted"], false);
    let table = sandbox.run(&["tools", "hooks"]).await;
    assert!(table.stdout.contains("waits for trust"), "{}", table.stdout);
}

/// Each hook appends its stdin, one JSON line, to `file` in the project.
fn recorder(file: &str) -> String {
    format!(r#"cat >> "$CLAUDE_PROJECT_DIR/{file}"; echo >> "$CLAUDE_PROJECT_DIR/{file}""#)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The session id `gantry-cli chat` printed on stderr.
fn session_id(run: &Run) -> String {
    let line = run
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .unwrap_or_else(|| panic!("no session line in {}", run.stderr));
    line.split_whitespace().next().unwrap().to_owned()
}

#[tokio::test]
async fn session_start_resume_end_and_notification_hooks_fire_with_their_fields() {
    let mut settings = command_hook("SessionStart", "", &recorder("starts.jsonl"));
    for (event, matcher, file) in [
        ("SessionEnd", "prompt_input_exit", "ends.jsonl"),
        ("Notification", "", "notes.jsonl"),
    ] {
        settings["hooks"][event] =
            command_hook(event, matcher, &recorder(file))["hooks"][event].clone();
    }
    let sandbox = Sandbox::new(&settings);
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "echo asked"}),
        )]),
        Turn::text("First."),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["hello", "--enable", "run_command", "--approve", "once"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    let id = session_id(&run);
    let provider = ScriptedProvider::start(Script::new([Turn::text("Second.")]))
        .await
        .unwrap();
    let run = sandbox.chat(&provider, &["again", "--session", &id]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);

    let starts = lines(&sandbox.path().join("starts.jsonl"));
    let sources: Vec<&Value> = starts.iter().map(|start| &start["source"]).collect();
    assert_eq!(sources, [&json!("startup"), &json!("resume")], "{starts:?}");
    assert!(
        starts
            .iter()
            .all(|start| start["session_id"] == id.as_str())
    );
    assert_eq!(starts[0]["hook_event_name"], "SessionStart");
    let ends = lines(&sandbox.path().join("ends.jsonl"));
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert_eq!(ends[0]["hook_event_name"], "SessionEnd");
    assert_eq!(ends[0]["reason"], "prompt_input_exit");
    assert_eq!(ends[1]["session_id"], id.as_str());
    let notes = lines(&sandbox.path().join("notes.jsonl"));
    let kinds: Vec<&str> = notes
        .iter()
        .map(|note| note["notification_type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["permission_prompt", "idle_prompt", "idle_prompt"],
        "{notes:?}"
    );
    assert_eq!(notes[0]["hook_event_name"], "Notification");
    assert!(!notes[0]["message"].as_str().unwrap().is_empty());
    assert_eq!(notes[0]["title"], "Gantry");
    // Each hook's last run is kept: another run of the CLI lists it.
    let listed = sandbox.run(&["tools", "hooks", "--json"]).await;
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let hooks: Value = serde_json::from_str(&listed.stdout).unwrap();
    for hook in hooks.as_array().unwrap() {
        assert_eq!(hook["lastResult"], "exit 0", "{hook}");
        assert!(hook["lastRunAtMs"].as_i64().unwrap() > 0, "{hook}");
    }
    let table = sandbox.run(&["tools", "hooks"]).await;
    assert!(table.stdout.contains("exit 0"), "{}", table.stdout);
}

#[tokio::test]
async fn a_pre_compact_hook_exiting_2_blocks_the_turns_own_compaction() {
    let block =
        r#"cat > "$CLAUDE_PROJECT_DIR/precompact.json"; echo "keep the whole history" >&2; exit 2"#;
    let mut settings = command_hook("PreCompact", "auto", block);
    settings["hooks"]["SessionStart"] =
        command_hook("SessionStart", "compact", "touch compact-start")["hooks"]["SessionStart"]
            .clone();
    let sandbox = Sandbox::new(&settings);
    let long = "word ".repeat(11_000); // about 13,750 tokens: past 80% of 16,000
    let provider = ScriptedProvider::start(Script::new([Turn::text("Ack.")]))
        .await
        .unwrap();
    let run = sandbox
        .chat(&provider, &[&long, "--context-window", "16000"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!sandbox.path().join("precompact.json").exists());
    let id = session_id(&run);
    // Had the compaction happened, the summary request would have taken this reply.
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("Done.").expect(Expect::new().last_contains("next"))
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["next", "--session", &id, "--context-window", "16000"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert_eq!(provider.chat_requests().len(), 1);
    assert!(
        run.stderr.contains("keep the whole history"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("[compacted"), "{}", run.stderr);
    assert!(!sandbox.path().join("compact-start").exists());
    let input: Value = serde_json::from_str(
        &std::fs::read_to_string(sandbox.path().join("precompact.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(input["hook_event_name"], "PreCompact");
    assert_eq!(input["trigger"], "auto");
    assert_eq!(input["custom_instructions"], "");
    assert_eq!(input["session_id"], id.as_str());
}

#[tokio::test]
async fn without_a_block_the_compaction_runs_and_session_start_compact_follows() {
    let mut settings = command_hook("PreCompact", "auto", &recorder("precompact.jsonl"));
    settings["hooks"]["SessionStart"] =
        command_hook("SessionStart", "compact", &recorder("starts.jsonl"))["hooks"]["SessionStart"]
            .clone();
    let sandbox = Sandbox::new(&settings);
    let long = "word ".repeat(11_000);
    let provider = ScriptedProvider::start(Script::new([Turn::text("Ack.")]))
        .await
        .unwrap();
    let run = sandbox
        .chat(&provider, &[&long, "--context-window", "16000"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = session_id(&run);
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("NOTES: a long text.")
            .expect(Expect::new().last_contains("Summarise the conversation so far")),
        Turn::text("Done."),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["next", "--session", &id, "--context-window", "16000"],
        )
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(run.stderr.contains("[compacted"), "{}", run.stderr);
    let fired = lines(&sandbox.path().join("precompact.jsonl"));
    assert_eq!(fired.len(), 1, "{fired:?}");
    assert_eq!(fired[0]["trigger"], "auto");
    let started = lines(&sandbox.path().join("starts.jsonl"));
    assert_eq!(started.len(), 1, "only the compact matcher: {started:?}");
    assert_eq!(started[0]["source"], "compact");
    assert_eq!(started[0]["session_id"], id.as_str());
}

#[tokio::test]
async fn system_messages_and_a_stop_reason_reach_the_user() {
    let mut settings = command_hook(
        "PostToolUse",
        "Bash",
        r#"echo '{"continue":false,"stopReason":"the tests are red, stop here","systemMessage":"post hook saw the call"}'"#,
    );
    settings["hooks"]["Stop"] = command_hook(
        "Stop",
        "",
        r#"echo '{"systemMessage":"remember to commit"}'"#,
    )["hooks"]["Stop"]
        .clone();
    let sandbox = Sandbox::new(&settings);
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "echo run"}),
        )]),
        Turn::text("Never sent."),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(
            &provider,
            &["go", "--enable", "run_command", "--approve", "once"],
        )
        .await;
    assert!(
        run.stderr.contains("post hook saw the call"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("the tests are red, stop here"),
        "{}",
        run.stderr
    );
    assert_eq!(provider.chat_requests().len(), 1, "the turn stopped");
    assert!(!run.stdout.contains("Never sent."), "{}", run.stdout);

    let provider = ScriptedProvider::start(Script::new([Turn::text("Hi.")]))
        .await
        .unwrap();
    let run = sandbox.chat(&provider, &["hello"]).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("remember to commit"), "{}", run.stderr);
}

#[tokio::test]
async fn a_hook_allow_reason_is_shown_to_the_user() {
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"echo is harmless"}}'"#;
    let sandbox = Sandbox::new(&command_hook("PreToolUse", "Bash", allow));
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({"command": "echo allowed-by-hook"}),
        )]),
        Turn::text("Ran.").expect(Expect::new().last_contains("allowed-by-hook")),
    ]))
    .await
    .unwrap();
    // No terminal and no --approve: only the hook's allow lets the call run.
    let run = sandbox
        .chat(&provider, &["go", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(
        run.stderr
            .contains("a PreToolUse hook (~/.claude/settings.json) allowed Bash: echo is harmless"),
        "{}",
        run.stderr
    );
}
