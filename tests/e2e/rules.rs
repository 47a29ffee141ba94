//! Rules that last and the command sandbox, in the window: "Always allow in this project" in
//! the approval dialog saves a rule that the next call, the Tools panel and a restarted app all
//! follow; the dialog and the tool card say the command runs sandboxed; a write to a file that
//! makes programs run asks even under Auto, and the dialog says why.

use gantry_scripted_provider::{Expect, ToolCall, Turn};
use gantry_store::AuditFilter;
use serde_json::json;

use crate::chat::{ChatRig, after_tool, assistant_says, card, dialogs, idle, send};
use crate::{SERIAL, enabled};

fn command_call(id: &str, command: &str) -> Turn {
    Turn::tool_calls(vec![ToolCall::new(
        id,
        "run_command",
        json!({ "command": command }),
    )])
}

#[tokio::test]
async fn always_allow_in_this_project_saves_a_rule_that_holds_after_a_restart() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        command_call("call_1", "echo promoted > promoted.txt"),
        Turn::text("Ran it once.").expect(after_tool("call_1")),
        command_call("call_2", "echo promoted > promoted.txt")
            .expect(Expect::new().last_role("user").last_contains("again")),
        Turn::text("Ran it again without asking.").expect(after_tool("call_2")),
        Turn::tool_calls(vec![ToolCall::new(
            "call_3",
            "write_file",
            json!({"path": ".git/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}),
        )])
        .expect(Expect::new().last_role("user").last_contains("config")),
        Turn::text("The write was denied.").expect(after_tool("call_3")),
        command_call("call_4", "echo promoted > promoted.txt")
            .expect(Expect::new().last_role("user").last_contains("restart")),
        Turn::text("Still allowed after the restart.").expect(after_tool("call_4")),
    ])
    .await;
    let store = rig.store().await;
    let project = store.projects().open(rig.root()).await.unwrap();
    let mut policies = store.policies().load(project.id).await.unwrap();
    policies.set("run_command", gantry_tools::Policy::Ask);
    policies.set("write_file", gantry_tools::Policy::Auto);
    store.policies().save(project.id, &policies).await.unwrap();
    std::fs::create_dir_all(rig.root().join(".git")).unwrap();
    let mut app = rig.launch("rules-promote", true).await;

    // The dialog says the command runs sandboxed and offers to allow it in the project.
    send(&app, "run it").await;
    app.wait_for_css(
        "[data-testid=approval-dialog] [data-testid=sandbox-badge][data-sandbox=sandboxed]",
    )
    .await
    .unwrap();
    app.screenshot("dialog-sandboxed").await.unwrap();
    app.click("[data-testid=allow-project]").await.unwrap();
    assistant_says(&app, "Ran it once.").await;
    card(&app, "run_command", "ok").await;
    app.wait_for_css("[data-testid=tool-card] [data-testid=sandbox-badge][data-sandbox=sandboxed]")
        .await
        .unwrap();
    idle(&app).await;
    assert!(rig.root().join("promoted.txt").is_file());

    // The same command again: no dialog, and the card names the rule.
    send(&app, "run it again").await;
    assistant_says(&app, "Ran it again without asking.").await;
    idle(&app).await;
    assert_eq!(dialogs(&app).await, 0);
    app.wait_for_css("[data-testid=tool-decider][data-by=rule]")
        .await
        .unwrap();
    let rule_line = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=tool-decider][data-by=rule]')].pop().textContent.trim();",
            json!([]),
        )
        .await
        .unwrap();
    // The redirection is a key of its own: two rules were saved and both cover the call.
    assert_eq!(
        rule_line,
        json!(
            "Allowed by rule 1 (allow run_command: echo promoted), \
             rule 2 (allow run_command: > promoted.txt)"
        )
    );
    app.screenshot("second-call-by-rule").await.unwrap();

    // The Tools panel lists the rule with the call it decided.
    app.click("[data-testid=tools-open]").await.unwrap();
    app.wait_for_css("[data-testid=tool-rule][data-id='1'][data-action=allow]")
        .await
        .unwrap();
    let uses = app
        .eval(
            "return document.querySelector('[data-testid=tool-rule][data-id=\"1\"] [data-testid=rule-uses]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(uses, json!("decided 1 call"));
    app.wait_for_css("[data-testid=commands-sandboxed]")
        .await
        .unwrap();
    app.screenshot("tools-panel-rules").await.unwrap();
    app.close_with_escape("tools-panel").await.unwrap();

    // A write to .git/config asks even under Auto, and the dialog says why.
    send(&app, "change the git config").await;
    app.wait_for_css("[data-testid=approval-why][data-reason=always]")
        .await
        .unwrap();
    let why = app
        .eval(
            "return document.querySelector('[data-testid=approval-why]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        why.as_str()
            .unwrap()
            .contains(".git/config can make programs run"),
        "{why}"
    );
    app.screenshot("sensitive-file-asks").await.unwrap();
    app.click("[data-testid=deny]").await.unwrap();
    assistant_says(&app, "The write was denied.").await;
    idle(&app).await;
    assert!(!rig.root().join(".git/config").exists());
    app.quit().await.unwrap();

    // After a restart the rule still holds.
    let mut app = rig.launch("rules-promote", false).await;
    send(&app, "after the restart, run it").await;
    assistant_says(&app, "Still allowed after the restart.").await;
    idle(&app).await;
    assert_eq!(dialogs(&app).await, 0);
    app.screenshot("after-restart").await.unwrap();

    let audit = store
        .audit()
        .list(project.id, &AuditFilter::default())
        .await
        .unwrap();
    let decided: Vec<String> = audit
        .iter()
        .rev()
        .map(|entry| format!("{} {}", entry.tool, entry.decision.decided_by()))
        .collect();
    assert_eq!(
        decided,
        [
            "run_command user",
            "run_command rule:1",
            "write_file user",
            "run_command rule:1"
        ],
        "{audit:?}"
    );
    rig.verify();
    app.quit().await.unwrap();
}
