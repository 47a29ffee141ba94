use std::time::Duration;

use serde_json::json;

use super::*;
use crate::hooks::{HookEvent, Matcher};
use crate::{ConfigScope, SourceFile};

pub(crate) fn hook(event: HookEvent, command: &str) -> Hook {
    Hook {
        event,
        matcher_text: String::new(),
        matcher: Matcher::All,
        command: command.to_owned(),
        args: None,
        timeout: None,
        run_async: false,
        condition: None,
        source: SourceFile {
            path: "/p/.claude/settings.json".into(),
            shown: ".claude/settings.json".into(),
            scope: ConfigScope::Project,
        },
        sha256: String::new(),
        trusted: true,
    }
}

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    (dir, root)
}

#[tokio::test]
async fn a_hook_reads_its_stdin_in_the_project_with_the_project_variables_and_no_secret() {
    let (_dir, root) = project();
    let base = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("PLAIN".into(), "visible".into()),
        (
            "GITHUB_TOKEN".into(),
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789".into(),
        ),
        ("GANTRY_SECRET".into(), "x".into()),
    ];
    let base = gantry_tools::scrub_environment(base, &gantry_tools::PassList::default());
    let env = RunEnv::with_base(&root, base);
    let script =
        r#"cat > stdin.json; pwd > pwd.txt; env > env.txt; echo out; echo err >&2; exit 3"#;
    let run = run_hook(
        &hook(HookEvent::PreToolUse, script),
        &json!({"tool_name": "Bash"}),
        &env,
    )
    .await;
    assert_eq!(run.exit_code, Some(3));
    assert_eq!(run.stdout, "out\n");
    assert_eq!(run.stderr, "err\n");
    assert!(!run.timed_out);
    let stdin: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("stdin.json")).unwrap()).unwrap();
    assert_eq!(stdin["tool_name"], "Bash");
    assert_eq!(
        std::fs::read_to_string(root.join("pwd.txt"))
            .unwrap()
            .trim(),
        root.to_str().unwrap()
    );
    let seen = std::fs::read_to_string(root.join("env.txt")).unwrap();
    assert!(seen.contains(&format!("CLAUDE_PROJECT_DIR={}", root.display())));
    assert!(seen.contains(&format!("GANTRY_PROJECT_DIR={}", root.display())));
    assert!(seen.contains("PLAIN=visible"));
    assert!(!seen.contains("GITHUB_TOKEN"));
    assert!(!seen.contains("GANTRY_SECRET"));
}

#[tokio::test]
async fn the_exec_form_substitutes_the_project_dir_and_uses_no_shell() {
    let (_dir, root) = project();
    let env = RunEnv::with_base(
        &root,
        vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
    );
    let mut exec = hook(HookEvent::SessionStart, "echo");
    exec.args = Some(vec!["${CLAUDE_PROJECT_DIR}/x".into(), "$HOME;".into()]);
    let run = run_hook(&exec, &json!({}), &env).await;
    assert_eq!(run.stdout, format!("{}/x $HOME;\n", root.display()));
    let mut missing = hook(HookEvent::SessionStart, "/no/such/program");
    missing.args = Some(Vec::new());
    let run = run_hook(&missing, &json!({}), &env).await;
    assert!(run.start_error.is_some());
}

#[tokio::test]
async fn a_hook_past_its_timeout_is_killed_with_its_children() {
    let (_dir, root) = project();
    let env = RunEnv::with_base(
        &root,
        vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
    );
    let mut slow = hook(
        HookEvent::PreToolUse,
        "(sleep 3; touch late.txt) & sleep 30",
    );
    slow.timeout = Some(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let run = run_hook(&slow, &json!({}), &env).await;
    assert!(run.timed_out);
    assert_eq!(run.exit_code, None);
    assert!(started.elapsed() < Duration::from_secs(5));
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    assert!(
        !root.join("late.txt").exists(),
        "the group's background child was killed"
    );
}
