//! A project set up for Claude Code, in the window: the line above the chat says its
//! configuration waits for trust, the Project configuration view lists each file with what was
//! read and what waits, and trusting it makes its allow rule hold at the next call.

use gantry_scripted_provider::{ToolCall, Turn};
use serde_json::json;

use crate::chat::{ChatRig, after_tool, assistant_says, card, dialogs, idle, send};
use crate::{SERIAL, enabled};

#[tokio::test]
async fn the_trust_step_shows_what_waits_and_trusting_makes_the_allow_rule_hold() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_command",
            json!({ "command": "echo trusted" }),
        )]),
        Turn::text("Ran it without asking.").expect(after_tool("call_1")),
    ])
    .await;
    let root = rig.root().to_owned();
    std::fs::create_dir_all(root.join(".claude/hooks")).unwrap();
    std::fs::write(root.join(".claude/hooks/log.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(
        root.join(".claude/hooks/log.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let settings = json!({
        "permissions": {"allow": ["Bash(echo trusted:*)"], "deny": ["Read(./.env)"]},
        "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/log.sh"}
        ]}]}
    });
    std::fs::write(
        root.join(".claude/settings.json"),
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
    std::fs::write(root.join("CLAUDE.md"), "Answer briefly.\n").unwrap();
    let store = rig.store().await;
    let project = store.projects().open(&root).await.unwrap();
    let mut policies = store.policies().load(project.id).await.unwrap();
    policies.set("run_command", gantry_tools::Policy::Ask);
    store.policies().save(project.id, &policies).await.unwrap();
    let mut app = rig.launch("config-trust", true).await;

    // The line above the chat: two items wait (the allow rule and the hook).
    app.wait_for_css("[data-testid=config-banner][data-count='2']")
        .await
        .unwrap();
    app.screenshot("banner").await.unwrap();
    app.click("[data-testid=config-review]").await.unwrap();
    app.wait_for_css("[data-testid=config-trust-step]")
        .await
        .unwrap();
    app.wait_for_css(
        "[data-testid=config-file][data-path='.claude/settings.json'][data-state=waits]",
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=config-file][data-path='CLAUDE.md'][data-kind=instructions]")
        .await
        .unwrap();
    let step = app
        .eval(
            "return document.querySelector('[data-testid=config-trust-step]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    let step = step.as_str().unwrap();
    assert!(step.contains("Bash(echo trusted:*)"), "{step}");
    assert!(step.contains(".claude/hooks/log.sh"), "{step}");
    app.screenshot("trust-step").await.unwrap();

    app.click("[data-testid=config-trust]").await.unwrap();
    app.wait_for_css("[data-testid=config-trusted]")
        .await
        .unwrap();
    app.wait_for_css(
        "[data-testid=config-file][data-path='.claude/settings.json'][data-state=applies]",
    )
    .await
    .unwrap();
    app.screenshot("trusted").await.unwrap();
    let approved = store.mcp_trust().list(project.id).await.unwrap();
    assert!(
        approved
            .iter()
            .any(|approval| approval.path == root.join(".claude/settings.json")),
        "{approved:?}"
    );
    app.close_with_escape("config-view").await.unwrap();
    app.wait_for(
        "the banner to go",
        "return !document.querySelector('[data-testid=config-banner]');",
        json!([]),
    )
    .await
    .unwrap();

    // The trusted allow rule spares the dialog.
    send(&app, "run it").await;
    assistant_says(&app, "Ran it without asking.").await;
    idle(&app).await;
    assert_eq!(dialogs(&app).await, 0);
    card(&app, "run_command", "ok").await;

    // The Tools panel lists the rules with their file, and the hook with its last run.
    app.click("[data-testid=tools-open]").await.unwrap();
    app.wait_for_css(
        "[data-testid=external-rule][data-action=allow][data-source='.claude/settings.json']",
    )
    .await
    .unwrap();
    app.wait_for_css("[data-testid=external-rule][data-action=deny]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=tool-hook][data-event=PostToolUse][data-trusted=true]")
        .await
        .unwrap();
    let last = app
        .eval(
            "return document.querySelector('[data-testid=tool-hook] [data-testid=hook-last]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(last.as_str().unwrap().contains("exit 0"), "{last}");
    app.eval(
        "document.querySelector('[data-testid=external-rules]').scrollIntoView();",
        json!([]),
    )
    .await
    .unwrap();
    app.screenshot("tools-panel").await.unwrap();
    app.close_with_escape("tools-panel").await.unwrap();
    rig.verify();
    app.quit().await.unwrap();
}
