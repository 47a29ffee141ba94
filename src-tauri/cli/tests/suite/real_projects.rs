//! Two public repositories' real agent configuration (tests/fixtures/real-projects), listed by
//! `gantry-cli config` as Claude Code and Codex read it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::support::Sandbox;

/// A copy of fixture `name` as the sandbox's project (symlinks kept as symlinks).
fn project_from(name: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    let fixture: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "../../tests/fixtures/real-projects",
        name,
    ]
    .iter()
    .collect();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", fixture.display()))
        .arg(sandbox.project.path())
        .status()
        .unwrap();
    assert!(status.success());
    sandbox
}

/// The report of the project, with an empty home.
fn report(sandbox: &Sandbox, home: &Path) -> Value {
    let run = sandbox.run_env(
        &["config", "--json"],
        "",
        &[("HOME", home.to_str().unwrap())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

/// The entry of file `shown`.
fn file<'a>(report: &'a Value, shown: &str) -> &'a Value {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|file| file["source"]["shown"] == shown)
        .unwrap_or_else(|| panic!("no entry for {shown} in {report:#}"))
}

fn lines(entry: &Value, group: &str) -> Vec<String> {
    entry[group]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn clines_hook_commands_and_skills_are_listed() {
    let sandbox = project_from("cline");
    let home = tempfile::tempdir().unwrap();
    let report = report(&sandbox, home.path());

    // Its SessionStart hook waits for trust, with the command as written.
    let settings = file(&report, ".claude/settings.json");
    assert_eq!(settings["trusted"], false);
    let waiting = lines(settings, "waitsForTrust");
    assert!(
        waiting.iter().any(|line| line.contains("SessionStart")
            && line.contains("$CLAUDE_PROJECT_DIR/.claude/hooks/claude-code-for-web-setup.sh")),
        "{waiting:?}"
    );

    // Both commands are symlinks into .clinerules/workflows, inside the project: read.
    let shown: Vec<String> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["source"]["shown"].as_str().unwrap().to_owned())
        .collect();
    for command in [
        ".claude/commands/release.md",
        ".claude/commands/hotfix-release.md",
    ] {
        let entry = file(&report, command);
        assert_eq!(entry["kind"], "command", "{entry}");
        assert!(entry.get("problem").is_none(), "{entry}");
    }
    // Every skill folder with a SKILL.md is a skill, whichever folder it is reached through.
    let skills: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|file| file["kind"] == "skill" && file.get("problem").is_none())
        .map(|file| file["source"]["shown"].as_str().unwrap())
        .collect();
    for name in [
        "cline-sdk",
        "opentui",
        "create-pull-request",
        "publish-cli",
        "tuistory",
    ] {
        assert!(
            skills
                .iter()
                .any(|shown| shown.contains(&format!("/{name}/"))),
            "{name} missing from {skills:?} (files: {shown:?})"
        );
    }
    // AGENTS.md is read as instructions.
    assert_eq!(file(&report, "AGENTS.md")["kind"], "instructions");
}

#[test]
fn claude_code_docs_allow_rules_wait_for_trust_and_write_rules_are_not_understood() {
    let sandbox = project_from("claude-code-docs");
    let home = tempfile::tempdir().unwrap();
    let report = report(&sandbox, home.path());
    let settings = file(&report, ".claude/settings.json");
    let waiting = lines(settings, "waitsForTrust");
    for rule in [
        "Bash(git:*)",
        "Bash(gh pr:*)",
        "Edit(.decision/**)",
        "mcp__barkme__notify",
    ] {
        assert!(
            waiting.iter().any(|line| line.contains(rule)),
            "{rule} missing from {waiting:?}"
        );
    }
    // Current Claude Code ignores path rules on Write; Gantry says so and never applies it.
    let not_understood = lines(settings, "notUnderstood");
    assert!(
        not_understood
            .iter()
            .any(|line| line.contains("Write(.decision/**)")),
        "{not_understood:?}"
    );
    assert!(
        !waiting
            .iter()
            .any(|line| line.contains("Write(.decision/**)"))
    );
    assert_eq!(file(&report, "CLAUDE.md")["kind"], "instructions");

    // Trusted, the allow rules apply: `rules list` shows them so.
    let home_var = [("HOME", home.path().to_str().unwrap())];
    let run = sandbox.run_env(&["config", "trust", "--yes"], "", &home_var);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = self::report(&sandbox, home.path());
    let settings = file(&report, ".claude/settings.json");
    assert_eq!(settings["trusted"], true);
    assert!(lines(settings, "waitsForTrust").is_empty());
    assert!(
        lines(settings, "read")
            .iter()
            .any(|line| line.contains("Bash(git:*)"))
    );
}
