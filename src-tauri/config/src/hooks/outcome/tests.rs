use serde_json::json;

use super::*;
use crate::hooks::run::HookRun;

fn ran(code: i32, stdout: &str, stderr: &str) -> HookRun {
    HookRun {
        exit_code: Some(code),
        stdout: stdout.into(),
        stderr: stderr.into(),
        timed_out: false,
        start_error: None,
        duration: std::time::Duration::ZERO,
    }
}

#[test]
fn exit_codes_per_event() {
    use HookEvent::*;
    // Exit 2 blocks where the event can block, with stderr as the reason.
    for event in [
        PreToolUse,
        UserPromptSubmit,
        Stop,
        SubagentStop,
        PreCompact,
        PostToolUse,
        PostToolUseFailure,
    ] {
        let outcome = interpret(event, &ran(2, "", "no rm here\n"));
        assert_eq!(outcome.block.as_deref(), Some("no rm here"), "{event}");
        assert!(outcome.summary.ends_with("blocked"));
    }
    assert_eq!(
        interpret(PreToolUse, &ran(2, "", "x")).permission,
        Some(Permission::Deny)
    );
    // SessionStart / SessionEnd: stderr to the user only; Notification: ignored.
    let start = interpret(SessionStart, &ran(2, "", "setup failed"));
    assert!(start.block.is_none());
    assert_eq!(start.user_message.as_deref(), Some("setup failed"));
    assert_eq!(
        interpret(Notification, &ran(2, "", "x")),
        HookOutcome {
            summary: "exit 2".into(),
            ..HookOutcome::default()
        }
    );
    // Exit 1 and others: reported, never blocking.
    for code in [1, 3, 127] {
        let outcome = interpret(PreToolUse, &ran(code, "", "\nboom\nmore"));
        assert!(outcome.block.is_none() && outcome.permission.is_none());
        assert_eq!(
            outcome.error.as_deref(),
            Some("PreToolUse hook error: boom")
        );
    }
    // Exit 0: plain stdout is context only for UserPromptSubmit and SessionStart.
    assert_eq!(
        interpret(UserPromptSubmit, &ran(0, "today is Monday\n", ""))
            .context
            .as_deref(),
        Some("today is Monday")
    );
    assert_eq!(
        interpret(SessionStart, &ran(0, "branch main", ""))
            .context
            .as_deref(),
        Some("branch main")
    );
    assert!(
        interpret(PreToolUse, &ran(0, "debug only", ""))
            .context
            .is_none()
    );
    assert!(
        interpret(Stop, &ran(0, "debug only", "warn"))
            .error
            .is_none()
    );
}

#[test]
fn a_timeout_or_a_failed_start_decides_nothing() {
    let mut timed_out = ran(0, "", "");
    timed_out.exit_code = None;
    timed_out.timed_out = true;
    let outcome = interpret(HookEvent::PreToolUse, &timed_out);
    assert!(outcome.block.is_none() && outcome.permission.is_none());
    assert!(outcome.error.unwrap().contains("timed out"));
    let mut failed = ran(0, "", "");
    failed.start_error = Some("No such file".into());
    assert!(interpret(HookEvent::Stop, &failed).block.is_none());
}

#[test]
fn json_outputs_per_event() {
    let pre = |value: serde_json::Value| {
        interpret(HookEvent::PreToolUse, &ran(0, &value.to_string(), ""))
    };
    let deny = pre(
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
    );
    assert_eq!(
        (deny.permission, deny.block.as_deref()),
        (Some(Permission::Deny), Some("no"))
    );
    let allow = pre(
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "safe", "updatedInput": {"command": "ls -a"}, "additionalContext": "ctx"}}),
    );
    assert_eq!(allow.permission, Some(Permission::Allow));
    assert_eq!(allow.permission_reason.as_deref(), Some("safe"));
    assert_eq!(allow.updated_input, Some(json!({"command": "ls -a"})));
    assert_eq!(allow.context.as_deref(), Some("ctx"));
    assert!(allow.block.is_none());
    assert_eq!(
        pre(json!({"hookSpecificOutput": {"permissionDecision": "ask"}})).permission,
        Some(Permission::Ask)
    );
    assert_eq!(
        pre(json!({"decision": "approve"})).permission,
        Some(Permission::Allow)
    );
    assert_eq!(
        pre(json!({"decision": "block", "reason": "legacy"}))
            .block
            .as_deref(),
        Some("legacy")
    );
    let wrong = pre(
        json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "allow"}}),
    );
    assert!(wrong.permission.is_none() && wrong.error.is_some());
    // Exit 2 blocks even when the JSON says allow.
    let both = interpret(
        HookEvent::PreToolUse,
        &ran(
            2,
            &json!({"hookSpecificOutput": {"permissionDecision": "allow"}}).to_string(),
            "stop",
        ),
    );
    assert_eq!(
        (both.permission, both.block.as_deref()),
        (Some(Permission::Deny), Some("stop"))
    );
    // Valid JSON decides whatever a non-2 exit code says.
    let json_on_1 = interpret(
        HookEvent::Stop,
        &ran(1, r#"{"decision":"block","reason":"keep going"}"#, "x"),
    );
    assert_eq!(json_on_1.block.as_deref(), Some("keep going"));
    assert!(json_on_1.error.is_none());
    // Universal fields.
    let stop = interpret(
        HookEvent::PostToolUse,
        &ran(
            0,
            r#"{"continue":false,"stopReason":"enough","systemMessage":"careful"}"#,
            "",
        ),
    );
    assert_eq!(stop.stop.as_deref(), Some("enough"));
    assert_eq!(stop.user_message.as_deref(), Some("careful"));
    let post = interpret(
        HookEvent::PostToolUse,
        &ran(
            0,
            r#"{"decision":"block","reason":"lint failed","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"see log"}}"#,
            "",
        ),
    );
    assert_eq!(
        (post.block.as_deref(), post.context.as_deref()),
        (Some("lint failed"), Some("see log"))
    );
}

#[test]
fn long_texts_are_capped() {
    let long = "x".repeat(MAX_TEXT_CHARS + 50);
    let outcome = interpret(HookEvent::UserPromptSubmit, &ran(0, &long, ""));
    let context = outcome.context.unwrap();
    assert!(context.starts_with(&"x".repeat(MAX_TEXT_CHARS)));
    assert!(context.len() < MAX_TEXT_CHARS + 60);
    assert!(context.contains("cut at"));
}
