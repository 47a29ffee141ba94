//! A project set up for Claude Code, checked from outside with `gantry-cli chat` against the
//! scripted model, before and after the user trusts it: instructions with an import and a local
//! file, a deny rule and an allow rule, a PreToolUse hook that blocks `rm` with exit 2, a
//! PostToolUse hook, a command and a skill.

use gantry_scripted_provider::{Expect, Script, ScriptedProvider, ToolCall, Turn};
use serde_json::json;

use super::hooks::Sandbox;

fn write(sandbox: &Sandbox, path: &str, text: &str) {
    let path = sandbox.path().join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The project: every kind of file Claude Code reads.
fn claude_project() -> Sandbox {
    let sandbox = Sandbox::new(&json!({}));
    write(&sandbox, "CLAUDE.md", "Use tabs.\n@docs/style.md\n");
    write(&sandbox, "docs/style.md", "STYLE-MARKER: short lines.\n");
    write(
        &sandbox,
        "CLAUDE.local.md",
        "LOCAL-MARKER: I am on a laptop.\n",
    );
    write(&sandbox, "secret.txt", "the secret\n");
    write(&sandbox, "victim.txt", "keep me\n");
    write(
        &sandbox,
        ".claude/hooks/block-rm.sh",
        "#!/bin/sh\nif grep -q '\"command\":\"rm '; then echo 'rm is blocked by the project hook' >&2; exit 2; fi\n",
    );
    write(
        &sandbox,
        ".claude/hooks/record.sh",
        "#!/bin/sh\ncat > \"$CLAUDE_PROJECT_DIR/post.json\"\n",
    );
    let settings = json!({
        "permissions": {
            "allow": ["Bash(echo allowed:*)"],
            "deny": ["Read(./secret.txt)"]
        },
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/block-rm.sh\""}
            ]}],
            "PostToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR/.claude/hooks/record.sh\""}
            ]}]
        }
    });
    write(&sandbox, ".claude/settings.json", &settings.to_string());
    write(
        &sandbox,
        ".claude/commands/review.md",
        "---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.\n",
    );
    write(
        &sandbox,
        ".claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploys the site to staging.\n---\nRun the deploy script.\n",
    );
    sandbox
}

fn call(id: &str, tool: &str, arguments: serde_json::Value) -> Turn {
    Turn::tool_calls(vec![ToolCall::new(id, tool, arguments)])
}

#[tokio::test]
async fn a_claude_code_project_behaves_as_documented_before_and_after_trust() {
    let sandbox = claude_project();

    // Before trust: instructions, the deny rule and the skill apply; the allow rule and the
    // hooks wait (no one can approve here, so an ask is a denial).
    let provider = ScriptedProvider::start(Script::new([
        call("call_1", "read_file", json!({"path": "secret.txt"})).expect(
            Expect::new()
                .any_contains("STYLE-MARKER")
                .any_contains("LOCAL-MARKER")
                .any_contains("Use tabs.")
                .any_contains("deploy")
                .any_contains("Deploys the site to staging."),
        ),
        call("call_2", "run_command", json!({"command": "echo allowed"}))
            .expect(Expect::new().last_contains("Read(./secret.txt)")),
        call("call_3", "run_command", json!({"command": "rm victim.txt"}))
            .expect(Expect::new().last_contains("[denied]")),
        Turn::text("Nothing ran.").expect(Expect::new().last_contains("[denied]")),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(&provider, &["look around", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(!run.stdout.contains("the secret"), "{}", run.stdout);
    assert!(sandbox.path().join("victim.txt").exists());
    assert!(
        !sandbox.path().join("post.json").exists(),
        "an untrusted hook ran"
    );

    // The command and the skill are listed as the project's.
    let config = sandbox.run(&["config"]).await;
    assert!(
        config.stdout.contains("command /review"),
        "{}",
        config.stdout
    );
    assert!(config.stdout.contains("skill /deploy"), "{}", config.stdout);
    assert!(
        config.stdout.contains("waits for trust"),
        "{}",
        config.stdout
    );

    let trusted = sandbox.run(&["config", "trust", "--yes"]).await;
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);

    // After trust: the allow rule spares the dialog, the PostToolUse hook sees the call, the
    // PreToolUse hook blocks `rm` and the model reads its stderr; the deny rule still holds.
    let provider = ScriptedProvider::start(Script::new([
        call("call_1", "run_command", json!({"command": "echo allowed"})),
        call("call_2", "run_command", json!({"command": "rm victim.txt"}))
            .expect(Expect::new().last_contains("allowed")),
        call("call_3", "read_file", json!({"path": "secret.txt"}))
            .expect(Expect::new().last_contains("rm is blocked by the project hook")),
        Turn::text("Done.").expect(Expect::new().last_contains("Read(./secret.txt)")),
    ]))
    .await
    .unwrap();
    let run = sandbox
        .chat(&provider, &["again", "--enable", "run_command"])
        .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    provider.verify().unwrap();
    assert!(sandbox.path().join("victim.txt").exists());
    let post: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.path().join("post.json")).unwrap())
            .unwrap();
    assert_eq!(post["tool_name"], "Bash");
    assert_eq!(post["tool_input"]["command"], "echo allowed");
    let audit = sandbox.run(&["audit", "--json"]).await;
    assert!(
        audit.stdout.contains("claude-rule") || audit.stdout.contains("external_rule"),
        "{}",
        audit.stdout
    );
}
