use std::path::{Path, PathBuf};

use gantry_tools::{ExternalAction, RuleForm};

use super::*;
use crate::{ConfigScope, SourceFile};

fn at() -> Locations {
    Locations::new("/p", Some(PathBuf::from("/h")))
}

fn project_file() -> SourceFile {
    SourceFile::in_project(&at(), ".claude/settings.json", ConfigScope::Project)
}

fn user_file() -> SourceFile {
    SourceFile::in_home(&at(), ".claude/settings.json").unwrap()
}

fn path(edit: bool, base: &str, glob: &str) -> RuleForm {
    RuleForm::Path {
        edit,
        base: PathBuf::from(base),
        glob: glob.into(),
    }
}

fn tools(names: &[&str]) -> RuleForm {
    RuleForm::Tools {
        tools: names.iter().map(|name| (*name).to_owned()).collect(),
    }
}

fn command(pattern: &str) -> RuleForm {
    RuleForm::Command {
        pattern: pattern.into(),
    }
}

fn mcp(pattern: &str) -> RuleForm {
    RuleForm::Mcp {
        pattern: pattern.into(),
    }
}

#[test]
fn every_documented_form_parses() {
    use ExternalAction::{Allow, Ask, Deny};
    // (text, action, from the user's file, form)
    let table = [
        ("Bash", Allow, false, tools(&["run_command"])),
        ("Bash(*)", Allow, false, tools(&["run_command"])),
        (
            "Bash(npm run test:*)",
            Allow,
            false,
            command("npm run test:*"),
        ),
        ("Bash(git diff)", Deny, false, command("git diff")),
        ("Bash(ls *)", Ask, false, command("ls *")),
        (
            "Read",
            Deny,
            false,
            tools(&["read_file", "glob_search", "grep_search"]),
        ),
        ("Edit", Ask, false, tools(&["write_file", "edit_file"])),
        (
            "Read(//etc/passwd)",
            Deny,
            false,
            path(false, "/", "/etc/passwd"),
        ),
        ("Read(~/.zshrc)", Allow, false, path(false, "/h", "/.zshrc")),
        (
            "Read(/docs/**)",
            Allow,
            false,
            path(false, "/p", "/docs/**"),
        ),
        (
            "Read(/docs/**)",
            Allow,
            true,
            path(false, "/h/.claude", "/docs/**"),
        ),
        ("Read(./.env)", Deny, false, path(false, "/p", "/.env")),
        ("Read(.env)", Deny, false, path(false, "/p", ".env")),
        ("Edit(src/**)", Allow, false, path(true, "/p", "src/**")),
        ("Edit(src/**)", Deny, false, path(true, "/p", "**/src/**")),
        ("Edit(src/a/**)", Deny, false, path(true, "/p", "src/a/**")),
        (
            "Read(./secrets/**)",
            Deny,
            false,
            path(false, "/p", "/secrets/**"),
        ),
        (
            "WebFetch(domain:Example.com)",
            Allow,
            false,
            RuleForm::Domain {
                domain: "example.com".into(),
            },
        ),
        (
            "WebFetch(domain:*.docs.rs)",
            Deny,
            false,
            RuleForm::Domain {
                domain: "*.docs.rs".into(),
            },
        ),
        ("WebFetch", Deny, false, tools(&["web_fetch"])),
        ("mcp__github", Allow, false, mcp("mcp__github__*")),
        ("mcp__github__*", Allow, false, mcp("mcp__github__*")),
        (
            "mcp__github__get_issue",
            Allow,
            false,
            mcp("mcp__github__get_issue"),
        ),
        (
            "mcp__github__get_*",
            Allow,
            false,
            mcp("mcp__github__get_*"),
        ),
        ("mcp__my.server__x", Deny, false, mcp("mcp__my_server__x")),
        ("mcp__*", Deny, false, mcp("mcp__*")),
        ("Write", Deny, false, tools(&["write_file"])),
        ("AskUserQuestion", Deny, false, tools(&["ask_user"])),
    ];
    for (text, action, user, expected) in table {
        let source = if user { user_file() } else { project_file() };
        assert_eq!(
            form::parse(text, action, &source, &at()),
            expected,
            "{text}"
        );
    }
}

#[test]
fn forms_not_understood_say_why() {
    // (text, action, words in the reason)
    let table = [
        (
            "Write(.decision/**)",
            ExternalAction::Allow,
            "ignores path rules",
        ),
        ("Glob(src/**)", ExternalAction::Deny, "ignores path rules"),
        ("MultiEdit(x)", ExternalAction::Deny, "ignores path rules"),
        (
            "NotebookEdit(x)",
            ExternalAction::Deny,
            "ignores path rules",
        ),
        (
            "Bash(run_in_background:true)",
            ExternalAction::Deny,
            "parameters",
        ),
        ("Agent(Explore)", ExternalAction::Deny, "subagent"),
        ("Skill(deploy)", ExternalAction::Deny, "skills"),
        ("Cd(/tmp)", ExternalAction::Deny, "/cd"),
        (
            "TodoWrite",
            ExternalAction::Allow,
            "no tool called TodoWrite",
        ),
        ("mcp__*", ExternalAction::Allow, "literal server"),
        (
            "WebFetch(https://x.com)",
            ExternalAction::Allow,
            "domain:host",
        ),
        ("Bash(ls", ExternalAction::Allow, "not closed"),
        ("Read(!x)", ExternalAction::Deny, "negated"),
        ("Bash()", ExternalAction::Deny, "empty"),
    ];
    for (text, action, words) in table {
        match form::parse(text, action, &project_file(), &at()) {
            RuleForm::NotUnderstood { reason } => {
                assert!(reason.contains(words), "{text}: {reason}");
            }
            other => panic!("{text} was understood as {other:?}"),
        }
    }
    let no_home = Locations::new("/p", None);
    assert!(matches!(
        form::parse(
            "Read(~/.zshrc)",
            ExternalAction::Deny,
            &project_file(),
            &no_home
        ),
        RuleForm::NotUnderstood { .. }
    ));
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_three_files_fill_the_report_and_project_allow_rules_wait_for_trust() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (project, home) = (root.join("p"), root.join("h"));
    write(
        &home.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(cargo test:*)"], "deny": ["Read(~/.ssh/**)"]}}"#,
    );
    write(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm run test:*)", "Write(x/**)"],
            "ask": ["Bash(git push *)"], "deny": ["Read(./.env)", 3]}}"#,
    );
    write(
        &project.join(".claude/settings.local.json"),
        r#"{"permissions": {"allow": "Bash"}}"#,
    );
    let at = Locations::new(&project, Some(home.clone()));
    let untrusted = claude_permissions(&at, &TrustedFiles::none());
    let texts: Vec<(&str, &str, bool)> = untrusted
        .rules
        .iter()
        .map(|rule| {
            (
                rule.source.as_str(),
                rule.text.as_str(),
                rule.waits_for_trust,
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("~/.claude/settings.json", "Read(~/.ssh/**)", false),
            ("~/.claude/settings.json", "Bash(cargo test:*)", false),
            (".claude/settings.json", "Read(./.env)", false),
            (".claude/settings.json", "Bash(git push *)", false),
            (".claude/settings.json", "Bash(npm run test:*)", true),
            (".claude/settings.json", "Write(x/**)", false),
        ]
    );
    let files = &untrusted.report.files;
    assert_eq!(files.len(), 3);
    assert!(files[0].trusted);
    assert_eq!(
        files[0].read,
        ["deny rule Read(~/.ssh/**)", "allow rule Bash(cargo test:*)"]
    );
    assert!(!files[1].trusted);
    assert_eq!(
        files[1].read,
        ["deny rule Read(./.env)", "ask rule Bash(git push *)"]
    );
    assert_eq!(
        files[1].waits_for_trust,
        ["allow rule Bash(npm run test:*)"]
    );
    assert_eq!(
        files[1].not_understood.len(),
        2,
        "{:?}",
        files[1].not_understood
    );
    assert!(files[1].not_understood[0].contains("not a string"));
    assert!(files[1].not_understood[1].starts_with("allow rule Write(x/**): "));
    assert_eq!(
        files[2].not_understood,
        ["permissions.allow: not a list, so no rule is read"]
    );
    // Trusting the project file's content makes its allow rule apply.
    let mut trusted = TrustedFiles::none();
    trusted.approve(files[1].source.path.clone(), files[1].sha256.clone());
    let after = claude_permissions(&at, &trusted);
    assert!(after.rules.iter().all(|rule| !rule.waits_for_trust));
    assert_eq!(after.report.files[1].read.len(), 3);
    assert!(after.report.files[1].trusted);
    assert_eq!(after.report.untrusted().count(), 0);
}
