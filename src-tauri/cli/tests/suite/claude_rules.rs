//! A project set up for Claude Code: the permission rules of its `.claude/settings.json` hold
//! in `gantry-cli chat` (against the scripted provider) and show in `tools rules list`.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use gantry_scripted_provider::{Expect, Script, ScriptedProvider, ToolCall, Turn};
use serde_json::json;
use tokio::process::Command;

use super::support::Run;

const WAIT: Duration = Duration::from_secs(30);

/// A project with Claude Code settings, a home of its own and a data folder of its own.
struct Project {
    root: tempfile::TempDir,
    home: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Project {
    fn new(settings: &str) -> Self {
        let project = Self {
            root: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            data: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(project.root.path().join(".claude")).unwrap();
        std::fs::write(project.root.path().join(".claude/settings.json"), settings).unwrap();
        project
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    async fn run(&self, args: &[&str]) -> Run {
        let nowhere = format!("unix:path={}", self.data.path().join("no-bus").display());
        let child = Command::new(env!("CARGO_BIN_EXE_gantry-cli"))
            .args(args)
            .env("GANTRY_LOCAL_SERVERS", "")
            .current_dir(self.path())
            .env_remove("GANTRY_LOG")
            .env("HOME", self.home.path())
            .env("GANTRY_DATA_DIR", self.data.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env("DBUS_SESSION_BUS_ADDRESS", nowhere)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("gantry-cli starts");
        tokio::time::timeout(WAIT, child.wait_with_output())
            .await
            .expect("gantry-cli exits")
            .unwrap()
            .into()
    }
}

#[tokio::test]
async fn a_deny_rule_of_the_projects_claude_settings_refuses_a_read_and_names_itself() {
    let project = Project::new(r#"{"permissions": {"deny": ["Read(./.env)"]}}"#);
    std::fs::write(
        project.path().join(".env"),
        "API_TOKEN=planted-secret-value\n",
    )
    .unwrap();
    let provider = ScriptedProvider::start(Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": ".env"}),
        )]),
        Turn::text("The settings refuse it.").expect(
            Expect::new()
                .last_contains("[denied]")
                .last_contains("deny rule Read(./.env) of .claude/settings.json"),
        ),
    ]))
    .await
    .unwrap();
    let url = provider.base_url();
    let run = project
        .run(&[
            "chat",
            "--base-url",
            &url,
            "--model",
            "scripted-model",
            "read .env",
        ])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("← denied ("), "{}", run.stdout);
    assert!(
        !run.stdout.contains("planted-secret-value"),
        "{}",
        run.stdout
    );
    provider.verify().unwrap();
    let body = serde_json::to_string(&provider.chat_requests()[1].body).unwrap();
    assert!(!body.contains("planted-secret-value"));
    // The audit log (read back from the database) names the rule and the file that decided.
    let audit = project.run(&["audit", "--json"]).await;
    assert_eq!(audit.code, 0, "{}", audit.stderr);
    for words in [
        "external_rule",
        "deny rule Read(./.env) of .claude/settings.json",
    ] {
        assert!(audit.stdout.contains(words), "{words}: {}", audit.stdout);
    }
}

#[tokio::test]
async fn rules_list_shows_the_settings_rules_with_their_file_and_state() {
    let project = Project::new(
        r#"{"permissions": {"allow": ["Bash(npm run test:*)", "Write(x/**)"],
            "deny": ["Bash(git push *)"]}}"#,
    );
    let run = project
        .run(&["tools", "rules", "list", "--root", "."])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = |rule: &str| {
        run.stdout
            .lines()
            .find(|line| line.contains(rule))
            .unwrap_or_else(|| panic!("{rule} not listed: {}", run.stdout))
            .to_owned()
    };
    let deny = line("Bash(git push *)");
    assert!(
        deny.starts_with(".claude/settings.json") && deny.contains("applies"),
        "{deny}"
    );
    assert!(line("Bash(npm run test:*)").contains("waits for trust"));
    assert!(line("Write(x/**)").contains("not understood: Claude Code ignores path rules"));
    assert!(
        run.stdout
            .contains("run_command is disabled in this project"),
        "{}",
        run.stdout
    );
}
