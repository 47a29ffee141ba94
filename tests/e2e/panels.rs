//! The Tools panel and the audit view, driven in the real app: policies changed by clicking take
//! effect in the running session and land in the database, a DANGEROUS tool asks for a
//! confirmation first, two projects keep their own policies, the session's grants are listed
//! and revoked, and the audit view shows (and filters) the project's tool calls.

use gantry_scripted_provider::{Expect, ToolCall, Turn};
use gantry_tools::{Policy, PolicySet};
use serde_json::{Value, json};

use crate::app::App;
use crate::chat::{ChatRig, after_tool, assistant_says, card, dialogs, idle, send, write_call};
use crate::fixture::Fixture;
use crate::{SERIAL, enabled};

/// Opens the Tools panel and waits for its tools.
async fn open_tools(app: &App) {
    app.click("[data-testid=tools-open]").await.unwrap();
    app.wait_for_css("[data-testid=tools-panel] [data-testid=tool-policy][data-tool=read_file]")
        .await
        .unwrap();
}

/// Closes the Tools panel with Esc.
async fn close_tools(app: &App) {
    app.close_with_escape("tools-panel").await.unwrap();
}

/// Clicks `policy` in `tool`'s three-way control.
async fn choose(app: &App, tool: &str, policy: &str) {
    app.click(&format!(
        "[data-testid=tool-policy][data-tool={tool}] [data-policy={policy}]"
    ))
    .await
    .unwrap();
}

/// Waits until `tool`'s control shows `policy` pressed.
async fn shows(app: &App, tool: &str, policy: &str) {
    app.wait_for_css(&format!(
        "[data-testid=tool-policy][data-tool={tool}] [data-policy={policy}][aria-pressed=true]"
    ))
    .await
    .unwrap();
}

/// The pressed policy of every tool in the panel, by name.
async fn pressed(app: &App) -> Value {
    app.eval(
        "return Object.fromEntries([...document.querySelectorAll('[data-testid=tool-policy]')].map(e => [\
           e.dataset.tool, e.querySelector('[aria-pressed=true]')?.dataset.policy ?? null]));",
        json!([]),
    )
    .await
    .unwrap()
}

/// The project's saved policy choices.
async fn saved_policies(rig: &ChatRig) -> PolicySet {
    let store = rig.store().await;
    let project = store.projects().find(rig.root()).await.unwrap().unwrap();
    store.policies().load(project.id).await.unwrap()
}

/// The labels of the session grants the panel lists.
async fn grant_labels(app: &App) -> Value {
    app.eval(
        "return [...document.querySelectorAll('[data-testid=session-grant]')].map(e => e.dataset.label);",
        json!([]),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn tool_policies_take_effect_at_once_persist_and_reset() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_auto", "auto.txt", "written without asking\n")
            .expect(Expect::new().last_contains("write auto")),
        Turn::text("Wrote auto.txt.").expect(after_tool("call_auto")),
        write_call("call_g1", "notes/g1.txt", "one\n")
            .expect(Expect::new().last_contains("write g1")),
        Turn::text("Wrote g1.txt.").expect(after_tool("call_g1")),
        write_call("call_g2", "notes/g2.txt", "two\n")
            .expect(Expect::new().last_contains("write g2")),
        Turn::text("Wrote g2.txt.").expect(after_tool("call_g2")),
    ])
    .await;
    let mut app = rig.launch("panels-tools", true).await;

    // Defaults follow the levels.
    open_tools(&app).await;
    let defaults = pressed(&app).await;
    assert_eq!(defaults["read_file"], "auto");
    assert_eq!(defaults["write_file"], "ask");
    assert_eq!(defaults["run_command"], "disabled");
    let groups = app
        .eval(
            "return [...document.querySelectorAll('[data-testid=tool-group]')].map(e => e.dataset.group);",
            json!([]),
        )
        .await
        .unwrap();
    assert_eq!(groups[0], "builtin", "{groups}");
    app.wait_for_css("[data-testid=grants-empty]")
        .await
        .unwrap();
    app.screenshot("defaults").await.unwrap();

    // write_file to Auto: the next write runs without a dialog.
    choose(&app, "write_file", "auto").await;
    shows(&app, "write_file", "auto").await;
    assert_eq!(
        saved_policies(&rig).await.chosen().get("write_file"),
        Some(&Policy::Auto)
    );
    app.screenshot("write-file-auto").await.unwrap();
    close_tools(&app).await;
    send(&app, "please write auto.txt").await;
    card(&app, "write_file", "ok").await;
    assistant_says(&app, "Wrote auto.txt.").await;
    idle(&app).await;
    assert_eq!(dialogs(&app).await, 0);
    assert_eq!(
        std::fs::read_to_string(rig.root().join("auto.txt")).unwrap(),
        "written without asking\n"
    );

    // run_command (DANGEROUS) to Ask: the confirm step says what it can do; confirmed, it's saved.
    open_tools(&app).await;
    choose(&app, "run_command", "ask").await;
    app.wait_for_css("[data-testid=dangerous-confirm]")
        .await
        .unwrap();
    let warning = app
        .eval(
            "return document.querySelector('[data-testid=dangerous-confirm]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(warning.as_str().unwrap().contains("DANGEROUS"), "{warning}");
    shows(&app, "run_command", "disabled").await;
    assert_eq!(saved_policies(&rig).await.chosen().get("run_command"), None);
    app.screenshot("dangerous-confirm").await.unwrap();
    app.click("[data-testid=dangerous-confirm-yes]")
        .await
        .unwrap();
    shows(&app, "run_command", "ask").await;
    assert_eq!(
        saved_policies(&rig).await.chosen().get("run_command"),
        Some(&Policy::Ask)
    );

    // The choices survive a restart of the app.
    close_tools(&app).await;
    app.quit().await.unwrap();
    app = rig.launch("panels-tools", false).await;
    open_tools(&app).await;
    shows(&app, "write_file", "auto").await;
    shows(&app, "run_command", "ask").await;

    // Reset to defaults: the panel and the database are back to the levels' defaults.
    app.click("[data-testid=tools-reset]").await.unwrap();
    shows(&app, "run_command", "disabled").await;
    shows(&app, "write_file", "ask").await;
    assert!(saved_policies(&rig).await.is_empty());
    app.screenshot("reset").await.unwrap();
    close_tools(&app).await;

    // Allow write_file for the session: the panel lists the grant (the folder written to);
    // Revoke makes the next write there ask again.
    send(&app, "please write g1").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-session]").await.unwrap();
    assistant_says(&app, "Wrote g1.txt.").await;
    idle(&app).await;
    open_tools(&app).await;
    app.wait_for_css("[data-testid=session-grant][data-tool=write_file]")
        .await
        .unwrap();
    assert_eq!(grant_labels(&app).await, json!(["write_file: notes/**"]));
    app.screenshot("session-grant").await.unwrap();
    app.click("[data-testid=session-grant] [data-testid=grant-revoke]")
        .await
        .unwrap();
    app.wait_for_css("[data-testid=grants-empty]")
        .await
        .unwrap();
    close_tools(&app).await;
    send(&app, "please write g2").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.screenshot("asks-again-after-revoke").await.unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Wrote g2.txt.").await;
    assert!(rig.root().join("notes/g2.txt").is_file());
    rig.verify();
    app.quit().await.unwrap();
}

#[tokio::test]
async fn two_projects_keep_their_own_policies() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(Vec::new()).await;
    let other = Fixture::new();
    // Project B was opened before, so the welcome screen lists it.
    let store = rig.store().await;
    store.projects().open(&other.root).await.unwrap();
    drop(store);
    let mut app = rig.launch("panels-two-projects", true).await;

    open_tools(&app).await;
    choose(&app, "write_file", "auto").await;
    shows(&app, "write_file", "auto").await;
    close_tools(&app).await;

    // Open project B from the welcome screen: its panel shows the defaults.
    app.switch_to_recent(&other.arg()).await.unwrap();
    open_tools(&app).await;
    shows(&app, "write_file", "ask").await;
    app.screenshot("project-b-defaults").await.unwrap();
    let store = rig.store().await;
    let b_project = store.projects().find(&other.root).await.unwrap().unwrap();
    assert!(
        store
            .policies()
            .load(b_project.id)
            .await
            .unwrap()
            .is_empty()
    );
    close_tools(&app).await;

    // Back in A, its choice is still there.
    app.switch_to_recent(&rig.fixture.arg()).await.unwrap();
    open_tools(&app).await;
    shows(&app, "write_file", "auto").await;
    app.screenshot("project-a-keeps-auto").await.unwrap();
    assert_eq!(
        saved_policies(&rig).await.chosen().get("write_file"),
        Some(&Policy::Auto)
    );
    app.quit().await.unwrap();
}

/// The audit rows shown: (tool, decision, outcome), newest first.
async fn audit_rows(app: &App) -> Value {
    app.eval(
        "return [...document.querySelectorAll('[data-testid=audit-row]')].map(e => \
           [e.dataset.tool, e.dataset.decision, e.dataset.outcome]);",
        json!([]),
    )
    .await
    .unwrap()
}

/// Picks `value` in the filter select `test_id`.
async fn filter(app: &App, test_id: &str, value: &str) {
    app.eval(
        "const select = document.querySelector(`[data-testid=${arguments[0]}]`);\
         select.value = arguments[1];\
         select.dispatchEvent(new Event('change', {bubbles: true}));",
        json!([test_id, value]),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn the_audit_view_lists_and_filters_the_projects_tool_calls() {
    if !enabled() {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = ChatRig::new(vec![
        write_call("call_ok", "ok.txt", "fine\n").expect(Expect::new().last_contains("first")),
        Turn::text("Wrote ok.txt.").expect(after_tool("call_ok")),
        write_call("call_no", "no.txt", "nope\n").expect(Expect::new().last_contains("second")),
        Turn::text("Left no.txt alone.").expect(after_tool("call_no")),
        Turn::tool_calls(vec![ToolCall::new(
            "call_cmd",
            "run_command",
            json!({"command": "echo hi"}),
        )])
        .expect(Expect::new().last_contains("third")),
        // The model reads that the tool is disabled.
        Turn::text("run_command is disabled.")
            .expect(after_tool("call_cmd").last_contains("[disabled]")),
    ])
    .await;
    let mut app = rig.launch("panels-audit", true).await;

    send(&app, "first: write ok.txt").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=allow-once]").await.unwrap();
    assistant_says(&app, "Wrote ok.txt.").await;
    idle(&app).await;
    send(&app, "second: write no.txt").await;
    app.wait_for_css("[data-testid=approval-dialog]")
        .await
        .unwrap();
    app.click("[data-testid=deny]").await.unwrap();
    assistant_says(&app, "Left no.txt alone.").await;
    idle(&app).await;
    send(&app, "third: run a command").await;
    card(&app, "run_command", "disabled").await;
    assistant_says(&app, "run_command is disabled.").await;
    idle(&app).await;

    app.click("[data-testid=audit-open]").await.unwrap();
    app.wait_for(
        "three audit rows",
        "return document.querySelectorAll('[data-testid=audit-row]').length === 3;",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(
        audit_rows(&app).await,
        json!([
            ["run_command", "disabled", "disabled"],
            ["write_file", "denied", "denied"],
            ["write_file", "allowed_once", "ok"],
        ])
    );
    // A row opens to its arguments and result; the session's title is shown.
    app.click("[data-testid=audit-row][data-decision=allowed_once] summary")
        .await
        .unwrap();
    let arguments = app
        .eval(
            "return document.querySelector('[data-testid=audit-row][data-decision=allowed_once] [data-testid=audit-arguments]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        arguments.as_str().unwrap().contains("ok.txt"),
        "{arguments}"
    );
    let text = app
        .eval(
            "return document.querySelector('[data-testid=audit-view]').textContent;",
            json!([]),
        )
        .await
        .unwrap();
    assert!(
        text.as_str().unwrap().contains("first: write ok.txt"),
        "the session title: {text}"
    );
    app.screenshot("audit-all").await.unwrap();

    filter(&app, "audit-filter-decision", "denied").await;
    app.wait_for(
        "only the denied call",
        "return document.querySelectorAll('[data-testid=audit-row]').length === 1;",
        json!([]),
    )
    .await
    .unwrap();
    assert_eq!(
        audit_rows(&app).await,
        json!([["write_file", "denied", "denied"]])
    );
    app.screenshot("audit-denied").await.unwrap();

    filter(&app, "audit-filter-decision", "").await;
    filter(&app, "audit-filter-tool", "run_command").await;
    app.wait_for(
        "only run_command",
        "return [...document.querySelectorAll('[data-testid=audit-row]')].map(e => e.dataset.tool).join() === 'run_command';",
        json!([]),
    )
    .await
    .unwrap();
    filter(&app, "audit-filter-tool", "").await;
    filter(&app, "audit-filter-outcome", "ok").await;
    app.wait_for(
        "only the call that ran",
        "return [...document.querySelectorAll('[data-testid=audit-row]')].map(e => e.dataset.decision).join() === 'allowed_once';",
        json!([]),
    )
    .await
    .unwrap();

    // Esc closes the view.
    app.press_escape().await.unwrap();
    app.wait_for(
        "the audit view to close",
        "return !document.querySelector('[data-testid=audit-view]');",
        json!([]),
    )
    .await
    .unwrap();
    rig.verify();
    app.quit().await.unwrap();
}
