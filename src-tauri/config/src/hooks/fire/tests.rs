use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::hooks::run::tests::hook;

#[tokio::test]
async fn matching_hooks_run_in_parallel_deny_wins_and_untrusted_hooks_do_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let env = RunEnv::with_base(
        &root,
        vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
    );
    let allow = r#"sleep 1; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}'"#;
    let deny = r#"sleep 1; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}'"#;
    let mut untrusted = hook(HookEvent::PreToolUse, "touch ran.txt");
    untrusted.trusted = false;
    let mut other_tool = hook(HookEvent::PreToolUse, "touch other.txt");
    other_tool.matcher = crate::hooks::Matcher::compile(Some("Read"));
    let set = HookSet {
        hooks: vec![
            hook(HookEvent::PreToolUse, allow),
            hook(HookEvent::PreToolUse, deny),
            untrusted,
            other_tool,
        ],
        disabled_by: None,
    };
    let started = Instant::now();
    let outcome = fire(
        &set,
        HookEvent::PreToolUse,
        Some("Bash"),
        Some("ls"),
        json!({}),
        &env,
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_millis(1_900),
        "the two hooks ran at once"
    );
    assert_eq!(outcome.ran.len(), 2);
    let (permission, by) = outcome.permission().unwrap();
    assert_eq!(permission, Permission::Deny);
    assert_eq!(by.outcome.block.as_deref(), Some("not today"));
    assert!(
        outcome.updated_input().is_none(),
        "a deny drops every rewrite"
    );
    assert_eq!(outcome.block().map(|(_, reason)| reason), Some("not today"));
    assert!(!root.join("ran.txt").exists());
    assert!(!root.join("other.txt").exists());
}

#[test]
fn session_end_hooks_share_a_budget_raised_to_their_largest_timeout_at_most_a_minute() {
    let mut quick = hook(HookEvent::SessionEnd, "true");
    let set = HookSet {
        hooks: vec![quick.clone()],
        disabled_by: None,
    };
    assert_eq!(set.session_end_budget(), Duration::from_millis(1_500));
    quick.timeout = Some(Duration::from_secs(5));
    let mut slow = hook(HookEvent::SessionEnd, "sleep 1");
    slow.timeout = Some(Duration::from_secs(600));
    let mut other = hook(HookEvent::Stop, "true");
    other.timeout = Some(Duration::from_secs(90));
    let set = HookSet {
        hooks: vec![quick.clone(), other.clone()],
        disabled_by: None,
    };
    assert_eq!(set.session_end_budget(), Duration::from_secs(5));
    assert_eq!(slow.effective_timeout(), Duration::from_secs(60));
    let set = HookSet {
        hooks: vec![quick, slow, other],
        disabled_by: None,
    };
    assert_eq!(set.session_end_budget(), Duration::from_secs(60));
}
