use std::path::PathBuf;

use gantry_tools::{ExternalAction, ExternalRule, Policy, RuleAction, RuleForm, ToolManager};

use super::*;

fn rule(action: ExternalAction, text: &str, form: RuleForm) -> ExternalRule {
    ExternalRule {
        source: ".claude/settings.json".into(),
        action,
        text: text.into(),
        form,
        waits_for_trust: false,
    }
}

fn manager() -> (tempfile::TempDir, ToolManager) {
    let dir = tempfile::tempdir().unwrap();
    let manager = ToolManager::new(dir.path()).unwrap();
    gantry_tools::builtin::register_builtins(&manager).unwrap();
    (dir, manager)
}

/// A rule's action and form, and what copying it gives: (tool, pattern) pairs, or words of
/// the note saying why not.
type CopyRow = (
    ExternalAction,
    RuleForm,
    Result<Vec<(&'static str, Option<&'static str>)>, &'static str>,
);

#[test]
fn copies_translate_to_gantry_rules_or_say_why_not() {
    let (_dir, tools) = manager();
    let root = tools.root().to_path_buf();
    let command = |pattern: &str| RuleForm::Command {
        pattern: pattern.into(),
    };
    let path = |base: PathBuf, glob: &str| RuleForm::Path {
        edit: true,
        base,
        glob: glob.into(),
    };
    // (action, form, copies as (tool, pattern, action), or the note's words)
    let table: Vec<CopyRow> = vec![
        (
            ExternalAction::Deny,
            command("git push *"),
            Ok(vec![("run_command", Some("git push"))]),
        ),
        (
            ExternalAction::Allow,
            command("npm run test:*"),
            Ok(vec![("run_command", Some("npm run test"))]),
        ),
        (
            ExternalAction::Allow,
            command("git * main"),
            Err("without wildcards"),
        ),
        (ExternalAction::Ask, command("git push *"), Err("ask rule")),
        (
            ExternalAction::Allow,
            path(root.clone(), "/docs/**"),
            Ok(vec![
                ("write_file", Some("docs/**")),
                ("edit_file", Some("docs/**")),
            ]),
        ),
        (
            ExternalAction::Deny,
            path(root.clone(), ".env"),
            Ok(vec![
                ("write_file", Some("**/.env")),
                ("edit_file", Some("**/.env")),
            ]),
        ),
        (
            ExternalAction::Deny,
            path("/".into(), "/etc/x"),
            Err("inside the project"),
        ),
        (
            ExternalAction::Allow,
            RuleForm::Mcp {
                pattern: "mcp__gh__get_issue".into(),
            },
            Ok(vec![("mcp__gh__get_issue", None)]),
        ),
        (
            ExternalAction::Deny,
            RuleForm::Tools {
                tools: vec!["run_command".into()],
            },
            Ok(vec![("run_command", None)]),
        ),
    ];
    for (index, (action, form, expected)) in table.into_iter().enumerate() {
        let copied = copy_of(&rule(action, "x", form), &tools);
        match (copied, expected) {
            (Ok(specs), Ok(expected)) => {
                let got: Vec<(&str, Option<&str>)> = specs
                    .iter()
                    .map(|spec| (spec.tool.as_str(), spec.pattern.as_deref()))
                    .collect();
                assert_eq!(got, expected, "row {index}");
                let wanted = match action {
                    ExternalAction::Deny => RuleAction::Deny,
                    _ => RuleAction::Allow,
                };
                assert!(
                    specs.iter().all(|spec| spec.action == wanted),
                    "row {index}"
                );
            }
            (Err(note), Err(words)) => assert!(note.contains(words), "row {index}: {note}"),
            (got, expected) => panic!("row {index}: {got:?} but expected {expected:?}"),
        }
    }
}

#[test]
fn a_command_allow_rule_while_run_command_is_disabled_is_noted() {
    let (_dir, tools) = manager();
    tools.rules().replace_external(vec![rule(
        ExternalAction::Allow,
        "Bash(npm test)",
        RuleForm::Command {
            pattern: "npm test".into(),
        },
    )]);
    assert_eq!(tools.policy("run_command").unwrap(), Policy::Disabled);
    let view = external_rules_view(&tools);
    assert!(view.command_rule_while_disabled);
    assert_eq!(view.rules.len(), 1);
    assert_eq!(view.rules[0].copy.len(), 1);
    tools.set_policy("run_command", Policy::Ask).unwrap();
    assert!(!external_rules_view(&tools).command_rule_while_disabled);
}

#[tokio::test]
async fn a_project_allow_rule_applies_once_its_file_is_trusted_and_rules_reload() {
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    std::fs::create_dir(project.path().join(".claude")).unwrap();
    std::fs::write(
        project.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm test)"], "deny": ["Bash(rm *)"]}}"#,
    )
    .unwrap();
    let tools = ToolManager::new(project.path()).unwrap();
    let id = store.projects().open(tools.root()).await.unwrap().id;
    let report = reload_external_rules(&store, id, &tools).await;
    let entry = report
        .files
        .iter()
        .find(|file| file.source.shown == ".claude/settings.json")
        .unwrap();
    assert!(!entry.trusted);
    assert_eq!(entry.waits_for_trust, ["allow rule Bash(npm test)"]);
    assert_eq!(entry.read, ["deny rule Bash(rm *)"]);
    let listed = tools.rules().external();
    // (The user's own ~/.claude/settings.json, if any, is left out: this is about the project.)
    let waiting: Vec<bool> = listed
        .list()
        .iter()
        .filter(|rule| rule.source == ".claude/settings.json")
        .map(|rule| rule.waits_for_trust)
        .collect();
    assert_eq!(waiting, [false, true]);
    // The trust step approves the file as it is, then reloads.
    store
        .mcp_trust()
        .approve(id, &entry.source.path, &entry.sha256)
        .await
        .unwrap();
    let report = reload_external_rules(&store, id, &tools).await;
    assert!(
        report
            .untrusted()
            .all(|file| file.source.shown != ".claude/settings.json")
    );
    assert!(
        tools
            .rules()
            .external()
            .list()
            .iter()
            .all(|rule| !rule.waits_for_trust)
    );
}
