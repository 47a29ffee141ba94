use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::ProjectRoot;
use crate::command_scope;

fn context(root: &std::path::Path) -> ToolContext {
    ToolContext::new(Arc::new(ProjectRoot::new(root).unwrap()))
}

fn rule(action: ExternalAction, text: &str, form: RuleForm) -> ExternalRule {
    ExternalRule {
        source: ".claude/settings.json".into(),
        action,
        text: text.into(),
        form,
        waits_for_trust: false,
    }
}

fn bash(action: ExternalAction, pattern: &str) -> ExternalRule {
    rule(
        action,
        &format!("Bash({pattern})"),
        RuleForm::Command {
            pattern: pattern.into(),
        },
    )
}

/// What `rules` say about `command`: "deny", "ask", "allow" or "nothing".
fn verdict_for_command(rules: &ExternalRules, ctx: &ToolContext, command: &str) -> &'static str {
    let arguments = json!({ "command": command });
    let scope = match command_scope(command) {
        Ok(keys) => ApprovalScope::Keys(keys),
        Err(why) => ApprovalScope::Never(why.to_string()),
    };
    outcome_name(&rules.evaluate(&ExternalCall {
        tool: "run_command",
        arguments: &arguments,
        scope: &scope,
        context: ctx,
    }))
}

fn outcome_name(outcome: &ExternalOutcome) -> &'static str {
    match outcome {
        ExternalOutcome::Deny(_) => "deny",
        ExternalOutcome::Ask(_) => "ask",
        ExternalOutcome::Allow(_) => "allow",
        ExternalOutcome::Nothing => "nothing",
    }
}

#[test]
fn commands_deny_then_ask_then_allow_first_match_wins() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let rules = ExternalRules::new(vec![
        bash(ExternalAction::Allow, "git:*"),
        bash(ExternalAction::Allow, "npm run test:*"),
        bash(ExternalAction::Allow, "git diff"),
        bash(ExternalAction::Ask, "git push *"),
        bash(ExternalAction::Deny, "git push --force *"),
        bash(ExternalAction::Deny, "rm -rf *"),
    ]);
    // (command, verdict)
    let table = [
        ("git status", "allow"),
        ("git diff", "allow"),
        ("npm run test", "allow"),
        ("npm run test --watch", "allow"),
        ("npm run build", "nothing"),
        ("git push origin main", "ask"),
        ("git push --force origin main", "deny"),
        ("npm run test && git push", "ask"),
        ("git status; rm -rf build", "deny"),
        ("timeout 10 git status", "allow"),
        ("git status && npm run build", "nothing"),
        ("FOO=1 git status", "nothing"),
        ("git status > out.txt", "nothing"),
        ("echo $(git push)", "ask"),
        ("sh -c 'rm -rf /'", "deny"),
        ("sudo rm -rf /", "deny"),
    ];
    for (command, expected) in table {
        assert_eq!(
            verdict_for_command(&rules, &ctx, command),
            expected,
            "{command}"
        );
    }
}

#[test]
fn rules_that_wait_for_trust_or_are_not_understood_do_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let mut waiting = bash(ExternalAction::Allow, "npm test");
    waiting.waits_for_trust = true;
    let odd = rule(
        ExternalAction::Deny,
        "Agent(Explore)",
        RuleForm::NotUnderstood {
            reason: "no such tool".into(),
        },
    );
    let rules = ExternalRules::new(vec![waiting.clone(), odd]);
    assert_eq!(verdict_for_command(&rules, &ctx, "npm test"), "nothing");
    waiting.waits_for_trust = false;
    let rules = ExternalRules::new(vec![waiting]);
    assert_eq!(verdict_for_command(&rules, &ctx, "npm test"), "allow");
}

fn path_rule(
    action: ExternalAction,
    edit: bool,
    base: &std::path::Path,
    glob: &str,
) -> ExternalRule {
    rule(
        action,
        &format!("{}({glob})", if edit { "Edit" } else { "Read" }),
        RuleForm::Path {
            edit,
            base: base.to_path_buf(),
            glob: glob.into(),
        },
    )
}

#[test]
fn path_rules_match_files_and_read_deny_blocks_writes() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    let ctx = context(&root);
    let rules = ExternalRules::new(vec![
        path_rule(ExternalAction::Deny, false, &root, ".env"),
        path_rule(ExternalAction::Allow, true, &root, "/docs/**"),
        path_rule(ExternalAction::Ask, false, &root, "/private/**"),
    ]);
    let outcome = |tool: &str, path: &str| {
        let arguments = json!({ "path": path });
        outcome_name(&rules.evaluate(&ExternalCall {
            tool,
            arguments: &arguments,
            scope: &ApprovalScope::WholeTool,
            context: &ctx,
        }))
    };
    // (tool, path, verdict)
    let table = [
        ("read_file", ".env", "deny"),
        ("read_file", "a/b/.env", "deny"),
        ("write_file", "a/.env", "deny"),
        ("edit_file", ".env", "deny"),
        ("write_file", "docs/guide.md", "allow"),
        ("edit_file", "docs/a/b.md", "allow"),
        ("write_file", "src/main.rs", "nothing"),
        ("read_file", "docs/guide.md", "nothing"),
        ("read_file", "private/key", "ask"),
        ("grep_search", "private", "ask"),
        ("write_file", "private/key", "nothing"),
        ("write_file", "docs/../src/x", "nothing"),
    ];
    for (tool, path, expected) in table {
        assert_eq!(outcome(tool, path), expected, "{tool} {path}");
    }
}

#[test]
fn whole_tools_domains_and_mcp_names() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let rules = ExternalRules::new(vec![
        rule(
            ExternalAction::Deny,
            "WebFetch(domain:evil.com)",
            RuleForm::Domain {
                domain: "evil.com".into(),
            },
        ),
        rule(
            ExternalAction::Allow,
            "WebFetch(domain:*.docs.rs)",
            RuleForm::Domain {
                domain: "*.docs.rs".into(),
            },
        ),
        rule(
            ExternalAction::Deny,
            "mcp__github__delete_*",
            RuleForm::Mcp {
                pattern: "mcp__github__delete_*".into(),
            },
        ),
        rule(
            ExternalAction::Allow,
            "mcp__github",
            RuleForm::Mcp {
                pattern: "mcp__github__*".into(),
            },
        ),
        rule(
            ExternalAction::Ask,
            "Edit",
            RuleForm::Tools {
                tools: vec!["write_file".into(), "edit_file".into()],
            },
        ),
    ]);
    let outcome = |tool: &str, arguments: Value| {
        outcome_name(&rules.evaluate(&ExternalCall {
            tool,
            arguments: &arguments,
            scope: &ApprovalScope::WholeTool,
            context: &ctx,
        }))
    };
    assert_eq!(
        outcome("web_fetch", json!({"url": "https://EVIL.com/x"})),
        "deny"
    );
    assert_eq!(
        outcome("web_fetch", json!({"url": "https://a.evil.com/x"})),
        "nothing"
    );
    assert_eq!(
        outcome("web_fetch", json!({"url": "https://u@api.docs.rs:443/"})),
        "allow"
    );
    assert_eq!(
        outcome("web_fetch", json!({"url": "https://docs.rs/"})),
        "nothing"
    );
    assert_eq!(outcome("mcp__github__delete_repo", json!({})), "deny");
    assert_eq!(outcome("mcp__github__get_issue", json!({})), "allow");
    assert_eq!(outcome("mcp__githubx__get_issue", json!({})), "nothing");
    assert_eq!(outcome("write_file", json!({"path": "a"})), "ask");
    assert_eq!(outcome("read_file", json!({"path": "a"})), "nothing");
}

#[test]
fn a_deny_rule_naming_a_whole_tool_removes_it_and_nothing_else_does() {
    let whole = |action, text: &str, tools: &[&str]| {
        rule(
            action,
            text,
            RuleForm::Tools {
                tools: tools.iter().map(|tool| (*tool).to_owned()).collect(),
            },
        )
    };
    let mcp = |action, pattern: &str| {
        rule(
            action,
            pattern,
            RuleForm::Mcp {
                pattern: pattern.into(),
            },
        )
    };
    let rules = ExternalRules::new(vec![
        whole(ExternalAction::Deny, "Bash", &["run_command"]),
        mcp(ExternalAction::Deny, "mcp__github__*"),
        whole(ExternalAction::Ask, "Edit", &["write_file", "edit_file"]),
        bash(ExternalAction::Deny, "rm *"),
    ]);
    assert!(rules.removes("run_command"));
    assert!(rules.removes("mcp__github__create_issue"));
    assert!(!rules.removes("mcp__gitlab__create_issue"));
    // An ask rule, or a deny rule about some calls only, leaves the tool offered.
    assert!(!rules.removes("write_file"));
    assert!(!rules.removes("read_file"));
    // A deny rule waiting for trust would be odd, but anything that does not apply removes nothing.
    let mut waiting = whole(ExternalAction::Deny, "Read", &["read_file"]);
    waiting.waits_for_trust = true;
    assert!(!ExternalRules::new(vec![waiting]).removes("read_file"));
}
