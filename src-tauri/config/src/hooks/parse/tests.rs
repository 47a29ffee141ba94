use super::*;
use crate::ConfigScope;

fn fixture(project_settings: &str, codex: &str) -> (tempfile::TempDir, Locations) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let (project, home) = (root.join("p"), root.join("h"));
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".codex")).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(project.join(".claude/settings.json"), project_settings).unwrap();
    std::fs::write(project.join(".codex/hooks.json"), codex).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"hooks":{"PostToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"command","command":"fmt.sh"}]}]}}"#,
    )
    .unwrap();
    (dir, Locations::new(project, Some(home)))
}

const PROJECT: &str = r#"{"hooks":{
  "PreToolUse":[{"matcher":"Bash","hooks":[
     {"type":"command","command":"${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh","timeout":5,"if":"Bash(rm *)"},
     {"type":"http","url":"http://x"},
     {"type":"prompt","prompt":"is it ok?"}]},
   {"matcher":"(bad","hooks":[{"type":"command","command":"never"}]}],
  "PermissionRequest":[{"hooks":[{"type":"command","command":"x"}]}],
  "Bogus":[],
  "SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi","args":["a"]}]}]
}}"#;

const CODEX: &str = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"fmt.sh"},{"type":"command","command":"check.sh","timeout":300}]}]}}"#;

#[test]
fn five_files_give_hooks_and_a_report_that_names_what_waits_and_what_is_not_understood() {
    let (_dir, at) = fixture(PROJECT, CODEX);
    let (set, report) = load_hooks(&at, &TrustedFiles::none());
    let shown: Vec<_> = set
        .hooks
        .iter()
        .map(|h| (h.event, h.command.as_str(), h.trusted))
        .collect();
    assert_eq!(
        shown,
        [
            (HookEvent::PostToolUse, "fmt.sh", true),
            (
                HookEvent::PreToolUse,
                "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh",
                false
            ),
            (HookEvent::SessionStart, "echo hi", false),
            (HookEvent::Stop, "fmt.sh", false),
            (HookEvent::Stop, "check.sh", false),
        ]
    );
    let pre = &set.hooks[1];
    assert_eq!(pre.timeout, Some(Duration::from_secs(5)));
    assert!(pre.condition.is_some());
    assert_eq!(set.hooks[2].args.as_deref(), Some(&["a".to_owned()][..]));
    assert_eq!(set.hooks[4].effective_timeout(), Duration::from_secs(300));
    assert_eq!(set.hooks[3].effective_timeout(), Duration::from_secs(600));

    let files: Vec<_> = report
        .files
        .iter()
        .map(|f| (f.source.shown.as_str(), f.kind.as_str()))
        .collect();
    assert_eq!(
        files,
        [
            ("~/.claude/settings.json", "settings"),
            (".claude/settings.json", "settings"),
            (".codex/hooks.json", "hooks")
        ]
    );
    let user = &report.files[0];
    assert!(user.trusted);
    assert_eq!(user.read, ["hook PostToolUse Edit|Write: fmt.sh"]);
    let project = &report.files[1];
    assert!(!project.trusted);
    assert!(project.read.is_empty());
    assert_eq!(
        project.waits_for_trust,
        [
            "hook PreToolUse Bash: ${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh",
            "hook SessionStart startup: echo hi a"
        ]
    );
    let not_understood = project.not_understood.join("\n");
    for expected in [
        "of type http",
        "of type prompt",
        "not a valid regular expression",
        "PermissionRequest: Gantry does not run this event",
        "Bogus: not an event Gantry knows",
    ] {
        assert!(
            not_understood.contains(expected),
            "{expected} in {not_understood}"
        );
    }
    assert_eq!(report.untrusted().count(), 2);
}

#[test]
fn only_trusted_hooks_match_and_identical_handlers_run_once() {
    let (_dir, at) = fixture(PROJECT, CODEX);
    let (untrusted, _) = load_hooks(&at, &TrustedFiles::none());
    assert!(untrusted.matching(HookEvent::Stop, None, None).is_empty());
    assert!(!untrusted.has(HookEvent::Stop));
    let mut trusted = TrustedFiles::none();
    for file in crate::settings::codex_hooks(&at)
        .into_iter()
        .chain(crate::settings::claude_settings(&at))
    {
        if file.source.scope != ConfigScope::User {
            trusted.approve(file.source.path.clone(), file.sha256.clone());
        }
    }
    let (set, report) = load_hooks(&at, &trusted);
    assert_eq!(report.untrusted().count(), 0);
    let stop: Vec<_> = set
        .matching(HookEvent::Stop, None, None)
        .iter()
        .map(|h| h.command.clone())
        .collect();
    assert_eq!(stop, ["fmt.sh", "check.sh"]);
    // The `if` condition: only `rm ...` commands.
    assert_eq!(
        set.matching(HookEvent::PreToolUse, Some("Bash"), Some("rm -rf x"))
            .len(),
        1
    );
    assert!(
        set.matching(HookEvent::PreToolUse, Some("Bash"), Some("ls"))
            .is_empty()
    );
    assert!(
        set.matching(HookEvent::PreToolUse, Some("Read"), Some("rm x"))
            .is_empty()
    );
    assert_eq!(
        set.matching(HookEvent::SessionStart, Some("startup"), None)
            .len(),
        1
    );
    assert!(
        set.matching(HookEvent::SessionStart, Some("resume"), None)
            .is_empty()
    );
    // The user's hook and the project's Codex hook run the same command: once.
    let post = set.matching(HookEvent::PostToolUse, Some("Write"), None);
    assert_eq!(post.len(), 1);
}

#[test]
fn disable_all_hooks_turns_every_hook_off_even_from_an_untrusted_file() {
    let (_dir, at) = fixture(r#"{"disableAllHooks": true}"#, "{}");
    let (set, report) = load_hooks(&at, &TrustedFiles::none());
    assert_eq!(set.hooks.len(), 1);
    assert!(set.disabled_by.is_some());
    assert!(
        set.matching(HookEvent::PostToolUse, Some("Edit"), None)
            .is_empty()
    );
    assert!(report.files[1].read[0].contains("disableAllHooks"));
}
