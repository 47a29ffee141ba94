//! External rules at the gate: precedence, trust, and Gantry's guarantees on top.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::*;
use crate::call::CallContext;
use crate::{
    ApprovalDecision, AskReason, Decider, DecisionKind, ObservationKind, Policy, ScriptedApprover,
    ToolManager, ToolResult, ToolSession, command_scope, tool,
};

#[derive(Deserialize, JsonSchema)]
struct CommandArgs {
    /// Command line.
    command: String,
}

/// Pretend to run a command (scoped as run_command is, nothing runs).
#[tool(name = "run_command", level = "dangerous", scope = command_keys)]
async fn fake_run_command(args: CommandArgs) -> ToolResult {
    Ok(format!("ran {}", args.command).into())
}

fn command_keys(_ctx: &ToolContext, args: &CommandArgs) -> ApprovalScope {
    command_scope(&args.command).map_or_else(
        |why| ApprovalScope::Never(why.to_string()),
        ApprovalScope::Keys,
    )
}

fn bash(action: ExternalAction, pattern: &str, waits_for_trust: bool) -> ExternalRule {
    ExternalRule {
        source: ".claude/settings.json".into(),
        action,
        text: format!("Bash({pattern})"),
        form: RuleForm::Command {
            pattern: pattern.into(),
        },
        waits_for_trust,
    }
}

fn manager(approver: Arc<ScriptedApprover>) -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path())
        .unwrap()
        .with_approver(approver);
    manager.register(FakeRunCommand).unwrap();
    manager
        .register(crate::builtin::write_file::WriteFile)
        .unwrap();
    (dir, manager)
}

fn call() -> CallContext {
    CallContext::new("c", Arc::new(ToolSession::new("s")))
}

/// Rules, command, policy, decision kind, decided by, times the approver was asked.
type Row = (
    Vec<ExternalRule>,
    &'static str,
    Policy,
    DecisionKind,
    &'static str,
    usize,
);

#[tokio::test]
async fn precedence_and_trust_table() {
    // (rules, command, policy, kind, decided by, approver asked)
    let table: Vec<Row> = vec![
        // An untrusted project allow rule does nothing: the user is asked (and denies).
        (
            vec![bash(ExternalAction::Allow, "npm run test:*", true)],
            "npm run test",
            Policy::Ask,
            DecisionKind::Denied,
            "user",
            1,
        ),
        // Trusted, it spares the dialog.
        (
            vec![bash(ExternalAction::Allow, "npm run test:*", false)],
            "npm run test --watch",
            Policy::Ask,
            DecisionKind::AllowedByRule,
            "claude-rule:.claude/settings.json",
            0,
        ),
        // Deny beats ask beats allow, whatever their order in the file.
        (
            vec![
                bash(ExternalAction::Allow, "git *", false),
                bash(ExternalAction::Ask, "git push *", false),
                bash(ExternalAction::Deny, "git push --force *", false),
            ],
            "git push --force origin",
            Policy::Auto,
            DecisionKind::Denied,
            "claude-rule:.claude/settings.json",
            0,
        ),
        // An ask rule asks even under Auto and beside an allow rule.
        (
            vec![
                bash(ExternalAction::Allow, "git *", false),
                bash(ExternalAction::Ask, "git push *", false),
            ],
            "git push origin",
            Policy::Auto,
            DecisionKind::Denied,
            "user",
            1,
        ),
        // A Bash allow rule does not enable a disabled run_command.
        (
            vec![bash(ExternalAction::Allow, "*", false)],
            "ls",
            Policy::Disabled,
            DecisionKind::Disabled,
            "policy",
            0,
        ),
        // A compound command needs every part covered.
        (
            vec![bash(ExternalAction::Allow, "npm test", false)],
            "npm test && curl x | sh",
            Policy::Ask,
            DecisionKind::Denied,
            "user",
            1,
        ),
    ];
    for (index, (rules, command, policy, kind, decided_by, asked)) in table.into_iter().enumerate()
    {
        let approver = ScriptedApprover::new([]);
        let (_dir, manager) = manager(approver.clone());
        manager.set_policy("run_command", policy).unwrap();
        manager.rules().replace_external(rules);
        let obs = manager
            .dispatch("run_command", json!({ "command": command }), &call())
            .await;
        assert_eq!(obs.decision.kind, kind, "row {index}: {}", obs.text);
        assert_eq!(obs.decision.decided_by(), decided_by, "row {index}");
        assert_eq!(approver.asked(), asked, "row {index}");
    }
}

#[tokio::test]
async fn a_deny_rule_names_itself_and_its_file_to_the_model() {
    let approver = ScriptedApprover::new([]);
    let (_dir, manager) = manager(approver.clone());
    manager.set_policy("run_command", Policy::Auto).unwrap();
    manager
        .rules()
        .replace_external(vec![bash(ExternalAction::Deny, "rm -rf *", false)]);
    let obs = manager
        .dispatch(
            "run_command",
            json!({ "command": "ls; rm -rf build" }),
            &call(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(obs.decision.by, Decider::ExternalRule);
    assert_eq!(
        obs.decision.source.as_deref(),
        Some(".claude/settings.json")
    );
    assert!(
        obs.text
            .contains("deny rule Bash(rm -rf *) of .claude/settings.json refuses"),
        "{}",
        obs.text
    );
}

#[tokio::test]
async fn an_ask_rule_is_settled_only_once_never_by_a_grant() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        ApprovalDecision::AllowOnce,
    ]);
    let (_dir, manager) = manager(approver.clone());
    manager.set_policy("run_command", Policy::Ask).unwrap();
    manager
        .rules()
        .replace_external(vec![bash(ExternalAction::Ask, "git push *", false)]);
    let call = call();
    call.session().approve_tool("run_command");
    for _ in 0..2 {
        let obs = manager
            .dispatch("run_command", json!({ "command": "git push" }), &call)
            .await;
        assert!(obs.is_ok(), "{}", obs.text);
        assert_eq!(obs.decision.by, Decider::User);
    }
    assert_eq!(approver.asked(), 2);
    let request = &approver.requests()[0];
    assert!(
        request.session_scope.is_empty(),
        "only allow once is offered"
    );
    assert!(
        matches!(&request.reason, AskReason::Always { why }
            if why.contains("ask rule Bash(git push *) of .claude/settings.json")),
        "{:?}",
        request.reason
    );
}

#[tokio::test]
async fn an_allow_rule_does_not_spare_the_dialog_of_a_file_that_makes_programs_run() {
    let approver = ScriptedApprover::new([]);
    let (dir, manager) = manager(approver.clone());
    manager.set_policy("write_file", Policy::Ask).unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    manager.rules().replace_external(vec![ExternalRule {
        source: ".claude/settings.json".into(),
        action: ExternalAction::Allow,
        text: "Edit(/**)".into(),
        form: RuleForm::Path {
            edit: true,
            base: root,
            glob: "/**".into(),
        },
        waits_for_trust: false,
    }]);
    let obs = manager
        .dispatch(
            "write_file",
            json!({ "path": "notes.md", "content": "x" }),
            &call(),
        )
        .await;
    assert_eq!(
        obs.decision.kind,
        DecisionKind::AllowedByRule,
        "{}",
        obs.text
    );
    assert_eq!(approver.asked(), 0);
    let obs = manager
        .dispatch(
            "write_file",
            json!({ "path": ".envrc", "content": "echo hi" }),
            &call(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied, "{}", obs.text);
    assert_eq!(obs.decision.by, Decider::User);
    assert_eq!(approver.asked(), 1);
    assert!(!dir.path().join(".envrc").exists());
}

#[tokio::test]
async fn a_tool_denied_as_a_whole_is_not_offered_to_the_model() {
    let (_dir, manager) = manager(ScriptedApprover::new([]));
    manager.set_policy("run_command", Policy::Ask).unwrap();
    let offered = |manager: &ToolManager| -> Vec<String> {
        manager
            .enabled_openai_schemas()
            .iter()
            .map(|schema| schema["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(offered(&manager).contains(&"run_command".to_owned()));
    manager.rules().replace_external(vec![ExternalRule {
        source: ".claude/settings.json".into(),
        action: ExternalAction::Deny,
        text: "Bash".into(),
        form: RuleForm::Tools {
            tools: vec!["run_command".into()],
        },
        waits_for_trust: false,
    }]);
    assert!(!offered(&manager).contains(&"run_command".to_owned()));
    assert!(offered(&manager).contains(&"write_file".to_owned()));
    assert!(
        !manager
            .callable_tool_names()
            .contains(&"run_command".to_owned())
    );
    // A call to it anyway is refused by the rule, which the model reads.
    let observation = manager
        .dispatch("run_command", json!({"command": "ls"}), &call())
        .await;
    assert_eq!(observation.kind, ObservationKind::Denied);
    assert!(observation.text.contains("Bash"), "{}", observation.text);
}

fn turn_rule(pattern: &str, waits_for_trust: bool) -> ExternalRule {
    ExternalRule {
        source: "command:.claude/commands/ok.md".into(),
        ..bash(ExternalAction::Allow, pattern, waits_for_trust)
    }
}

/// Settings rules, the turn's command rules, command, policy, kind, decided by, asked.
type TurnRow = (
    Vec<ExternalRule>,
    Vec<ExternalRule>,
    &'static str,
    Policy,
    DecisionKind,
    &'static str,
    usize,
);

#[tokio::test]
async fn a_commands_allowed_tools_only_settle_an_ordinary_ask_in_its_turn() {
    let table: Vec<TurnRow> = vec![
        // Trusted, it spares the dialog, and the audit names the command's file.
        (
            vec![],
            vec![turn_rule("echo ok:*", false)],
            "echo ok",
            Policy::Ask,
            DecisionKind::AllowedByRule,
            "claude-rule:command:.claude/commands/ok.md",
            0,
        ),
        // Untrusted, nothing: the user is asked.
        (
            vec![],
            vec![turn_rule("echo ok:*", true)],
            "echo ok",
            Policy::Ask,
            DecisionKind::Denied,
            "user",
            1,
        ),
        // Another command is not covered.
        (
            vec![],
            vec![turn_rule("echo ok:*", false)],
            "echo ok; rm x",
            Policy::Ask,
            DecisionKind::Denied,
            "user",
            1,
        ),
        // A disabled tool stays disabled.
        (
            vec![],
            vec![turn_rule("*", false)],
            "echo ok",
            Policy::Disabled,
            DecisionKind::Disabled,
            "policy",
            0,
        ),
        // A deny rule refuses.
        (
            vec![bash(ExternalAction::Deny, "echo *", false)],
            vec![turn_rule("echo ok:*", false)],
            "echo ok",
            Policy::Ask,
            DecisionKind::Denied,
            "claude-rule:.claude/settings.json",
            0,
        ),
        // An ask rule still asks.
        (
            vec![bash(ExternalAction::Ask, "echo *", false)],
            vec![turn_rule("echo ok:*", false)],
            "echo ok",
            Policy::Ask,
            DecisionKind::Denied,
            "user",
            1,
        ),
    ];
    for (index, (settings, turn, command, policy, kind, decided_by, asked)) in
        table.into_iter().enumerate()
    {
        let approver = ScriptedApprover::new([]);
        let (_dir, manager) = manager(approver.clone());
        manager.set_policy("run_command", policy).unwrap();
        manager.rules().replace_external(settings);
        let call = call();
        call.session().set_turn_rules(turn);
        let obs = manager
            .dispatch("run_command", json!({ "command": command }), &call)
            .await;
        assert_eq!(obs.decision.kind, kind, "row {index}: {}", obs.text);
        assert_eq!(obs.decision.decided_by(), decided_by, "row {index}");
        assert_eq!(approver.asked(), asked, "row {index}");
        // The turn ended: the next call asks again.
        call.session().end_turn_rules();
        if index == 0 {
            let again = manager
                .dispatch("run_command", json!({ "command": command }), &call)
                .await;
            assert_eq!(again.decision.by, Decider::User, "{}", again.text);
            assert_eq!(approver.asked(), 1);
        }
    }
}

#[tokio::test]
async fn a_commands_allowed_tools_do_not_spare_a_file_that_makes_programs_run() {
    let approver = ScriptedApprover::new([]);
    let (dir, manager) = manager(approver.clone());
    manager.set_policy("write_file", Policy::Ask).unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let call = call();
    call.session().set_turn_rules(vec![ExternalRule {
        source: "command:.claude/commands/ok.md".into(),
        action: ExternalAction::Allow,
        text: "Edit(/**)".into(),
        form: RuleForm::Path {
            edit: true,
            base: root,
            glob: "/**".into(),
        },
        waits_for_trust: false,
    }]);
    let plain = manager
        .dispatch(
            "write_file",
            json!({ "path": "notes.md", "content": "x" }),
            &call,
        )
        .await;
    assert_eq!(
        plain.decision.kind,
        DecisionKind::AllowedByRule,
        "{}",
        plain.text
    );
    let hook = manager
        .dispatch(
            "write_file",
            json!({ "path": ".git/hooks/pre-commit", "content": "x" }),
            &call,
        )
        .await;
    assert_eq!(hook.decision.by, Decider::User, "{}", hook.text);
    assert_eq!(approver.asked(), 1);
}
