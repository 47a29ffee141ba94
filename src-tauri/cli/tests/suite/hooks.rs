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
struct Sandbox {
    project: tempfile::TempDir,
    data: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Sandbox {
    fn new(user_settings: &Value) -> Self {
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

    fn path(&self) -> &Path {
        self.project.path()
    }

    async fn run(&self, args: &[&str]) -> Run {
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

    async fn chat(&self, provider: &Handle, args: &[&str]) -> Run {
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
