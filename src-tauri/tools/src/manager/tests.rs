//! Every branch of dispatch, the gate, grants across sessions, cancellation and concurrency.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::*;
use crate::{
    ApprovalDecision, ApprovalRequest, ApprovalScope, MemoryAudit, Preview, ScriptedApprover,
    SessionGrant, ToolContext, ToolError, ToolResult, ToolSession, tool,
};
use tokio_util::sync::CancellationToken;

static ECHO_RUNS: AtomicUsize = AtomicUsize::new(0);

fn one() -> u32 {
    1
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// Text to echo.
    text: String,
    /// How many times.
    #[serde(default = "one")]
    times: u32,
    /// Shout it.
    #[serde(default)]
    loud: bool,
}

/// Echo the text back,
/// repeated.
///
/// This paragraph is for developers only.
#[tool]
async fn echo(args: EchoArgs) -> ToolResult {
    ECHO_RUNS.fetch_add(1, Ordering::SeqCst);
    let text = args.text.repeat(args.times as usize);
    Ok(if args.loud { text.to_uppercase() } else { text }.into())
}

#[derive(Deserialize, JsonSchema)]
struct TouchArgs {
    /// File name.
    name: String,
}

/// Create an empty file.
#[tool(level = sensitive, preview = touch_preview)]
async fn touch(ctx: &ToolContext, args: TouchArgs) -> ToolResult {
    std::fs::write(ctx.root().join(&args.name), "").map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("touched {}", args.name).into())
}

async fn touch_preview(_ctx: &ToolContext, args: &TouchArgs) -> Option<Preview> {
    Some(Preview::Text {
        text: format!("create {}", args.name),
    })
}

#[derive(Deserialize, JsonSchema)]
struct ShellArgs {
    /// Command line.
    command: String,
}

/// Pretend to run a command.
#[tool(name = "shell", level = "dangerous", scope = shell_scope)]
async fn fake_shell(args: ShellArgs) -> ToolResult {
    Ok(format!("ran {}", args.command).into())
}

fn shell_scope(_ctx: &ToolContext, args: &ShellArgs) -> ApprovalScope {
    if args.command.contains('`') {
        return ApprovalScope::Never("backticks".into());
    }
    if args.command.starts_with("hook") {
        return ApprovalScope::Always("hooks run code".into());
    }
    ApprovalScope::Keys(
        args.command
            .split(';')
            .map(|part| part.trim().to_owned())
            .collect(),
    )
}

#[derive(Deserialize, JsonSchema)]
struct Empty {}

/// Always fails.
#[tool]
async fn fail(_args: Empty) -> ToolResult {
    Err(ToolError::new("nope"))
}

/// Always panics.
#[tool(description = "Panics on purpose.")]
async fn boom(_args: Empty) -> ToolResult {
    panic!("boom")
}

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    /// Milliseconds.
    ms: u64,
}

/// Sleep for a while.
#[tool]
async fn sleepy(args: SleepArgs) -> ToolResult {
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    Ok("slept".into())
}

/// Never answers (a dialog left open).
struct SilentApprover;

#[async_trait]
impl Approver for SilentApprover {
    async fn decide(&self, _request: ApprovalRequest) -> ApprovalDecision {
        std::future::pending().await
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    manager: ToolManager,
    audit: Arc<MemoryAudit>,
}

fn fixture(approver: Option<Arc<dyn Approver>>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let audit = Arc::new(MemoryAudit::new());
    let mut manager = ToolManager::new(dir.path())
        .unwrap()
        .with_audit(audit.clone());
    if let Some(approver) = approver {
        manager = manager.with_approver(approver);
    }
    manager.register(Echo).unwrap();
    manager.register(Touch).unwrap();
    manager.register(FakeShell).unwrap();
    manager.register(Fail).unwrap();
    manager.register(Boom).unwrap();
    manager.register(Sleepy).unwrap();
    Fixture {
        _dir: dir,
        manager,
        audit,
    }
}

#[test]
fn names_descriptions_and_levels_come_from_the_function() {
    let f = fixture(None);
    let info: BTreeMap<String, ToolInfo> = f
        .manager
        .tools()
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    assert_eq!(info["echo"].description, "Echo the text back, repeated.");
    assert_eq!(info["echo"].level, PermissionLevel::Safe);
    assert_eq!(info["touch"].level, PermissionLevel::Sensitive);
    assert_eq!(info["shell"].level, PermissionLevel::Dangerous);
    assert_eq!(info["shell"].policy, Policy::Disabled);
    assert_eq!(info["boom"].description, "Panics on purpose.");
    assert!(!info.contains_key("fake_shell"));
}

#[test]
fn openai_schema_has_the_exact_shape() {
    let f = fixture(None);
    let schema = f.manager.get("echo").unwrap().to_openai_schema();
    assert_eq!(
        schema,
        json!({
            "type": "function",
            "function": {
                "name": "echo",
                "description": "Echo the text back, repeated.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "Text to echo."},
                        "times": {"type": "integer", "description": "How many times.", "default": 1, "minimum": 0},
                        "loud": {"type": "boolean", "description": "Shout it.", "default": false}
                    },
                    "required": ["text"],
                    "additionalProperties": false
                }
            }
        })
    );
    let enabled: Vec<String> = f
        .manager
        .enabled_openai_schemas()
        .iter()
        .map(|s| s["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!enabled.contains(&"shell".to_owned()));
    assert_eq!(f.manager.openai_schemas().len(), 6);
}

#[test]
fn duplicate_and_invalid_names_are_typed_errors() {
    let f = fixture(None);
    assert_eq!(
        f.manager.register(Echo),
        Err(ManagerError::DuplicateTool("echo".into()))
    );
    let renamed = crate::TypedTool::new(Echo).named("bad name!");
    assert_eq!(
        f.manager.register(renamed),
        Err(ManagerError::InvalidName("bad name!".into()))
    );
    let long = crate::TypedTool::new(Echo).named("x".repeat(65));
    assert!(matches!(
        f.manager.register(long),
        Err(ManagerError::InvalidName(_))
    ));
    assert!(
        f.manager
            .register(crate::TypedTool::new(Echo).named("echo2"))
            .is_ok()
    );
}

#[tokio::test]
async fn unknown_tool_lists_what_exists() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch("reed_file", "{}", &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert_eq!(
        obs.text, "[error] unknown tool 'reed_file'; available: boom, echo, fail, sleepy, touch",
        "a disabled tool (shell) is not offered"
    );
}

#[tokio::test]
async fn a_missing_tool_of_a_source_that_failed_says_why() {
    let f = fixture(None);
    f.manager.set_unavailable(
        "mcp__gh__",
        Some("MCP server 'gh' failed to start: the server asked for sign-in (401)".into()),
    );
    let obs = f
        .manager
        .dispatch("mcp__gh__search", "{}", &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert_eq!(
        obs.text,
        "[error] tool 'mcp__gh__search' is unavailable: MCP server 'gh' failed to start: the server asked for sign-in (401)"
    );
    f.manager.set_unavailable("mcp__gh__", None);
    let obs = f
        .manager
        .dispatch("mcp__gh__search", "{}", &CallContext::detached())
        .await;
    assert!(obs.text.starts_with("[error] unknown tool"), "{}", obs.text);
}

#[tokio::test]
async fn changes_to_the_tool_set_are_announced() {
    let f = fixture(None);
    let mut changes = f.manager.subscribe_changes();
    assert!(!changes.has_changed().unwrap());
    f.manager
        .register(crate::TypedTool::new(Echo).named("echo3"))
        .unwrap();
    assert!(changes.has_changed().unwrap());
    changes.borrow_and_update();
    assert!(f.manager.unregister("echo3"));
    assert!(changes.has_changed().unwrap());
}

#[tokio::test]
async fn malformed_json_is_an_error_observation() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch("echo", r#"{"text": "hi""#, &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert!(
        obs.text
            .starts_with("[error] arguments are not valid JSON: "),
        "{}",
        obs.text
    );
}

#[tokio::test]
async fn empty_string_means_no_arguments() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch("fail", "", &CallContext::detached())
        .await;
    assert_eq!(obs.text, "[error] nope");
    let obs = f
        .manager
        .dispatch("fail", "  ", &CallContext::detached())
        .await;
    assert_eq!(obs.text, "[error] nope");
    let obs = f
        .manager
        .dispatch("fail", Value::Null, &CallContext::detached())
        .await;
    assert_eq!(obs.text, "[error] nope");
}

#[tokio::test]
async fn arguments_are_coerced_before_the_tool_runs() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch(
            "echo",
            r#"{"text": "ab", "times": "3", "loud": "true"}"#,
            &CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Ok);
    assert_eq!(obs.text, "ABABAB");
    let obs = f
        .manager
        .dispatch(
            "echo",
            json!({"text": "x", "times": 2.0, "loud": null}),
            &CallContext::detached(),
        )
        .await;
    assert_eq!(obs.text, "xx");
}

#[tokio::test]
async fn bad_arguments_name_every_field_and_never_reach_the_tool() {
    let f = fixture(None);
    let before = ECHO_RUNS.load(Ordering::SeqCst);
    let obs = f
        .manager
        .dispatch(
            "echo",
            r#"{"times": "many", "loud": "maybe", "colour": 1}"#,
            &CallContext::detached(),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::BadArguments);
    assert_eq!(
        obs.text,
        "[error] invalid arguments for tool 'echo':\n\
         - times: expected integer, received string \"many\"\n\
         - loud: expected boolean, received string \"maybe\"\n\
         - text: expected string (required), received nothing\n\
         - colour: expected no such field (known fields: text, times, loud), received number 1"
    );
    assert_eq!(ECHO_RUNS.load(Ordering::SeqCst), before);
    let obs = f
        .manager
        .dispatch("echo", "[1]", &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::BadArguments);
    assert!(
        obs.text
            .contains("arguments: expected an object, received array [1]"),
        "{}",
        obs.text
    );
}

#[tokio::test]
async fn dangerous_tools_start_disabled_and_enable_sets_ask() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowOnce]);
    let f = fixture(Some(approver.clone()));
    let obs = f
        .manager
        .dispatch("shell", r#"{"command": "ls"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Disabled);
    assert_eq!(
        obs.text,
        "[disabled] tool 'shell' is disabled (level: dangerous); enable it for this project to use it"
    );
    assert_eq!(approver.asked(), 0);

    assert_eq!(f.manager.enable("shell"), Ok(Policy::Ask));
    let obs = f
        .manager
        .dispatch("shell", r#"{"command": "ls"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.text, "ran ls");
    assert_eq!(obs.decision.kind, DecisionKind::AllowedOnce);
    assert_eq!(approver.asked(), 1);
    assert_eq!(f.manager.enable("echo"), Ok(Policy::Auto));
    assert_eq!(
        f.manager.enable("nope"),
        Err(ManagerError::UnknownTool("nope".into()))
    );
}

#[tokio::test]
async fn ask_without_an_approver_fails_closed() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch("touch", r#"{"name": "a.txt"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(
        obs.text,
        "[denied] the user denied tool 'touch' (no one was available to approve it)"
    );
    assert_eq!(obs.decision.by, Decider::NoApprover);
    assert!(!f.manager.root().join("a.txt").exists());
}

#[tokio::test]
async fn deny_passes_the_reason_and_leaves_the_disk_alone() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::Deny {
            reason: Some("use b.txt instead".into()),
        },
        ApprovalDecision::Deny { reason: None },
    ]);
    let f = fixture(Some(approver.clone()));
    let obs = f
        .manager
        .dispatch("touch", r#"{"name": "a.txt"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(
        obs.text,
        "[denied] the user denied tool 'touch': use b.txt instead"
    );
    let obs = f
        .manager
        .dispatch("touch", r#"{"name": "a.txt"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.text, "[denied] the user denied tool 'touch'");
    assert!(!f.manager.root().join("a.txt").exists());
}

#[tokio::test]
async fn the_approver_sees_coerced_arguments_preview_and_scope() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowOnce]);
    let f = fixture(Some(approver.clone()));
    let obs = f
        .manager
        .dispatch("touch", r#"{"name": "a.txt"}"#, &CallContext::detached())
        .await;
    assert_eq!(obs.text, "touched a.txt");
    let seen = approver.requests();
    let request = &seen[0];
    assert_eq!(request.tool, "touch");
    assert_eq!(request.level, PermissionLevel::Sensitive);
    assert_eq!(request.description, "Create an empty file.");
    assert_eq!(request.arguments, json!({"name": "a.txt"}));
    assert_eq!(
        request.preview,
        Some(Preview::Text {
            text: "create a.txt".into()
        })
    );
    assert_eq!(request.session_scope, ["touch"]);
    assert_eq!(request.reason, crate::AskReason::Policy);
}

#[tokio::test]
async fn allow_once_asks_again_next_time() {
    let approver =
        ScriptedApprover::new([ApprovalDecision::AllowOnce, ApprovalDecision::AllowOnce]);
    let f = fixture(Some(approver.clone()));
    let session = Arc::new(ToolSession::new("s"));
    let call = CallContext::new("c", Arc::clone(&session));
    f.manager.dispatch("touch", r#"{"name": "a"}"#, &call).await;
    f.manager.dispatch("touch", r#"{"name": "b"}"#, &call).await;
    assert_eq!(approver.asked(), 2);
    assert!(session.granted().is_empty());
}

#[tokio::test]
async fn allow_for_session_lasts_for_that_session_only() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        ApprovalDecision::AllowOnce,
    ]);
    let f = fixture(Some(approver.clone()));
    let s1 = CallContext::new("c1", Arc::new(ToolSession::new("s1")));
    let first = f.manager.dispatch("touch", r#"{"name": "a"}"#, &s1).await;
    assert_eq!(
        (first.decision.kind, first.decision.by),
        (DecisionKind::AllowedForSession, Decider::User)
    );
    let second = f.manager.dispatch("touch", r#"{"name": "b"}"#, &s1).await;
    assert_eq!(
        (second.decision.kind, second.decision.by),
        (DecisionKind::AllowedForSession, Decider::SessionGrant)
    );
    assert_eq!(second.decision.detail.as_deref(), Some("touch"));
    assert_eq!(approver.asked(), 1);

    let s2 = CallContext::new("c2", Arc::new(ToolSession::new("s2")));
    assert!(s2.session().granted().is_empty());
    let third = f.manager.dispatch("touch", r#"{"name": "c"}"#, &s2).await;
    assert_eq!(third.decision.kind, DecisionKind::AllowedOnce);
    assert_eq!(approver.asked(), 2);
    let sessions: Vec<Option<String>> = f
        .audit
        .records()
        .iter()
        .map(|r| r.session_id.clone())
        .collect();
    assert_eq!(
        sessions,
        [Some("s1".into()), Some("s1".into()), Some("s2".into())]
    );
}

#[tokio::test]
async fn session_grants_cover_exactly_their_scope_keys() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        ApprovalDecision::Deny { reason: None },
        ApprovalDecision::Deny { reason: None },
        ApprovalDecision::AllowForSession,
        ApprovalDecision::Deny { reason: None },
    ]);
    let f = fixture(Some(approver.clone()));
    f.manager.enable("shell").unwrap();
    let call = CallContext::new("c", Arc::new(ToolSession::new("s")));
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "git status"}"#, &call)
            .await
            .kind,
        ObservationKind::Ok
    );
    assert_eq!(approver.requests()[0].session_scope, ["shell: git status"]);
    // Covered: no question.
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "git status"}"#, &call)
            .await
            .kind,
        ObservationKind::Ok
    );
    assert_eq!(approver.asked(), 1);
    // A different key, or an extra part, asks (and is denied).
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "git push"}"#, &call)
            .await
            .kind,
        ObservationKind::Denied
    );
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "git status; rm -rf ~"}"#, &call)
            .await
            .kind,
        ObservationKind::Denied
    );
    assert_eq!(approver.asked(), 3);
    // A call that can't be scoped asks every time, even if "allowed for session".
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "`x`"}"#, &call)
            .await
            .kind,
        ObservationKind::Ok
    );
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "`x`"}"#, &call)
            .await
            .kind,
        ObservationKind::Denied
    );
    assert_eq!(approver.asked(), 5);
    let grants: Vec<String> = call
        .session()
        .granted()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(grants, ["shell: git status"]);
    // Revoking brings the question back.
    assert!(call.session().revoke(&SessionGrant {
        tool: "shell".into(),
        key: Some("git status".into())
    }));
    assert_eq!(
        f.manager
            .dispatch("shell", r#"{"command": "git status"}"#, &call)
            .await
            .kind,
        ObservationKind::Denied
    );
}

#[tokio::test]
async fn approve_tool_and_auto_policy_skip_the_approver() {
    let approver = ScriptedApprover::new([]);
    let f = fixture(Some(approver.clone()));
    let call = CallContext::new("c", Arc::new(ToolSession::new("s")));
    call.session().approve_tool("touch");
    assert_eq!(
        f.manager
            .dispatch("touch", r#"{"name": "a"}"#, &call)
            .await
            .kind,
        ObservationKind::Ok
    );
    call.session().revoke_all();
    f.manager.set_policy("touch", Policy::Auto).unwrap();
    let obs = f.manager.dispatch("touch", r#"{"name": "b"}"#, &call).await;
    assert_eq!(
        (obs.kind, obs.decision.kind, obs.decision.by),
        (ObservationKind::Ok, DecisionKind::Auto, Decider::Policy)
    );
    assert_eq!(approver.asked(), 0);
    // A grant can't loosen a Disabled policy.
    f.manager.set_policy("touch", Policy::Disabled).unwrap();
    call.session().approve_tool("touch");
    assert_eq!(
        f.manager
            .dispatch("touch", r#"{"name": "c"}"#, &call)
            .await
            .kind,
        ObservationKind::Disabled
    );
    assert_eq!(
        f.manager.policies().chosen().get("touch"),
        Some(&Policy::Disabled)
    );
    f.manager.reset_policies();
    assert_eq!(f.manager.policy("touch"), Ok(Policy::Ask));
}

#[tokio::test]
async fn tool_errors_and_panics_become_observations() {
    let f = fixture(None);
    let obs = f
        .manager
        .dispatch("fail", "{}", &CallContext::detached())
        .await;
    assert_eq!(
        (obs.kind, obs.text.as_str()),
        (ObservationKind::Error, "[error] nope")
    );
    let obs = f
        .manager
        .dispatch("boom", "{}", &CallContext::detached())
        .await;
    assert_eq!(obs.kind, ObservationKind::Error);
    assert_eq!(
        obs.text,
        "[error] tool 'boom' failed unexpectedly (internal error)"
    );
    // The manager still works afterwards.
    assert!(
        f.manager
            .dispatch("echo", r#"{"text": "ok"}"#, &CallContext::detached())
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn cancellation_stops_a_running_tool_promptly() {
    let f = fixture(None);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let obs = f
        .manager
        .dispatch(
            "sleepy",
            r#"{"ms": 10000}"#,
            &CallContext::detached().with_cancel(cancel.clone()),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Cancelled);
    // A ceiling well under the 10 s the call would take: it was cancelled, not waited for.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        f.audit.records().last().unwrap().outcome,
        ObservationKind::Cancelled
    );
}

#[tokio::test]
async fn cancellation_withdraws_a_pending_approval() {
    let f = fixture(Some(Arc::new(SilentApprover)));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let obs = f
        .manager
        .dispatch(
            "touch",
            r#"{"name": "a"}"#,
            &CallContext::detached().with_cancel(cancel.clone()),
        )
        .await;
    assert_eq!(obs.kind, ObservationKind::Cancelled);
    assert!(!f.manager.root().join("a").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_run_concurrently_on_one_manager() {
    let f = Arc::new(fixture(None));
    let started = Instant::now();
    let calls = (0..50).map(|_| {
        let f = Arc::clone(&f);
        tokio::spawn(async move {
            f.manager
                .dispatch("sleepy", r#"{"ms": 100}"#, &CallContext::detached())
                .await
        })
    });
    let results = futures::future::join_all(calls).await;
    assert!(results.iter().all(|r| r.as_ref().unwrap().is_ok()));
    // Serially this would take 5 s.
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(f.audit.records().len(), 50);
}

#[tokio::test]
async fn every_dispatch_leaves_one_audit_record() {
    let approver = ScriptedApprover::new([ApprovalDecision::Deny {
        reason: Some("no".into()),
    }]);
    let f = fixture(Some(approver));
    let call = CallContext::new("c", Arc::new(ToolSession::new("s")));
    f.manager
        .dispatch("echo", r#"{"text": "hi", "times": "2"}"#, &call)
        .await;
    f.manager.dispatch("nope", r#"{"a": 1}"#, &call).await;
    f.manager.dispatch("echo", "{", &call).await;
    f.manager.dispatch("echo", "{}", &call).await;
    f.manager.dispatch("touch", r#"{"name": "x"}"#, &call).await;
    f.manager
        .dispatch("shell", r#"{"command": "ls"}"#, &call)
        .await;
    let records = f.audit.records();
    let summary: Vec<(&str, &str, &str, &str)> = records
        .iter()
        .map(|r| {
            (
                r.tool.as_str(),
                r.decision.kind.as_str(),
                r.decision.by.as_str(),
                r.outcome.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("echo", "auto", "policy", "ok"),
            ("nope", "not_evaluated", "engine", "error"),
            ("echo", "not_evaluated", "engine", "error"),
            ("echo", "not_evaluated", "engine", "bad_arguments"),
            ("touch", "denied", "user", "denied"),
            ("shell", "disabled", "policy", "disabled"),
        ]
    );
    assert_eq!(records[0].arguments, json!({"text": "hi", "times": 2}));
    assert_eq!(records[0].result_excerpt, "hihi");
    assert_eq!(records[0].level, Some(PermissionLevel::Safe));
    assert_eq!(records[1].level, None);
    assert_eq!(records[4].decision.detail.as_deref(), Some("no"));
    assert!(
        records
            .iter()
            .all(|r| r.session_id.as_deref() == Some("s") && r.started_at_ms > 0)
    );
}

#[test]
fn a_missing_root_is_a_typed_error() {
    let err = ToolManager::new("/definitely/not/here").unwrap_err();
    assert!(matches!(err, ManagerError::BadRoot { .. }), "{err}");
}

/// Answers only when told to, with the given decision.
struct GatedApprover {
    release: tokio::sync::Notify,
    asked: tokio::sync::Notify,
    answer: ApprovalDecision,
}

#[async_trait]
impl Approver for GatedApprover {
    async fn decide(&self, _request: ApprovalRequest) -> ApprovalDecision {
        self.asked.notify_one();
        self.release.notified().await;
        self.answer.clone()
    }
}

#[tokio::test]
async fn two_sessions_on_one_manager_keep_their_own_grants_and_files() {
    let approver = Arc::new(GatedApprover {
        release: tokio::sync::Notify::new(),
        asked: tokio::sync::Notify::new(),
        answer: ApprovalDecision::AllowForSession,
    });
    let f = Arc::new(fixture(Some(approver.clone())));
    let first = CallContext::new("c1", Arc::new(ToolSession::new("s1")));
    let second = CallContext::new("c2", Arc::new(ToolSession::new("s2")));
    // s1's approval is pending while s2 runs its own calls.
    let pending = {
        let (f, first) = (Arc::clone(&f), first.clone());
        tokio::spawn(async move {
            f.manager
                .dispatch("touch", r#"{"name": "a"}"#, &first)
                .await
        })
    };
    approver.asked.notified().await;
    second.session().approve_tool("touch");
    let obs = f
        .manager
        .dispatch("touch", r#"{"name": "b"}"#, &second)
        .await;
    assert_eq!(obs.decision.by, Decider::SessionGrant);
    approver.release.notify_one();
    let obs = pending.await.unwrap();
    assert_eq!(obs.kind, ObservationKind::Ok);
    // Each session holds exactly what it was given.
    let listed = |call: &CallContext| -> Vec<String> {
        call.session()
            .granted()
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(listed(&first), ["touch"]);
    assert_eq!(listed(&second), ["touch"]);
    second.session().revoke_all();
    assert_eq!(listed(&first), ["touch"]);
    assert!(listed(&second).is_empty());
    let sessions: Vec<Option<String>> = f
        .audit
        .records()
        .iter()
        .map(|r| r.session_id.clone())
        .collect();
    assert_eq!(sessions, [Some("s2".into()), Some("s1".into())]);

    // Files read in one session are unseen in the other.
    let path = f.manager.root().join("seen.txt");
    std::fs::write(&path, "x").unwrap();
    first.session().files().record_current(&path);
    assert_eq!(
        first.session().files().freshness(&path),
        crate::Freshness::Fresh
    );
    assert_eq!(
        second.session().files().freshness(&path),
        crate::Freshness::Unseen
    );
}

/// Records the approval step as the agent would report it.
#[derive(Default)]
struct RecordingObserver(std::sync::Mutex<Vec<String>>);

impl crate::CallObserver for RecordingObserver {
    fn approval_requested(&self, request: &ApprovalRequest) {
        self.0.lock().unwrap().push(format!(
            "requested {} {} {:?}",
            request.call_id, request.tool, request.session_id
        ));
    }

    fn approval_resolved(&self, call_id: &str, allowed: bool) {
        self.0
            .lock()
            .unwrap()
            .push(format!("resolved {call_id} {allowed}"));
    }
}

#[tokio::test]
async fn the_approval_request_carries_the_calls_id_and_session_and_is_observed() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowOnce,
        ApprovalDecision::Deny { reason: None },
    ]);
    let f = fixture(Some(approver.clone()));
    let observer = Arc::new(RecordingObserver::default());
    let session = Arc::new(ToolSession::new("s9"));
    for id in ["call_a", "call_b"] {
        let call = CallContext::new(id, Arc::clone(&session)).with_observer(observer.clone());
        f.manager.dispatch("touch", r#"{"name": "x"}"#, &call).await;
    }
    let ids: Vec<String> = approver
        .requests()
        .iter()
        .map(|r| r.call_id.clone())
        .collect();
    assert_eq!(ids, ["call_a", "call_b"]);
    assert_eq!(
        *observer.0.lock().unwrap(),
        [
            "requested call_a touch Some(\"s9\")",
            "resolved call_a true",
            "requested call_b touch Some(\"s9\")",
            "resolved call_b false",
        ]
    );
    // An Auto call asks nobody and reports nothing.
    let auto = CallContext::new("call_c", session).with_observer(observer.clone());
    f.manager.dispatch("echo", r#"{"text": "x"}"#, &auto).await;
    assert_eq!(observer.0.lock().unwrap().len(), 4);
}

#[tokio::test]
async fn a_call_that_always_asks_asks_under_auto_and_every_grant_and_says_why() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        ApprovalDecision::Deny { reason: None },
    ]);
    let f = fixture(Some(approver.clone()));
    f.manager.set_policy("shell", Policy::Auto).unwrap();
    let call = CallContext::new("c", Arc::new(ToolSession::new("s")));
    // Auto runs an ordinary call without asking...
    let plain = f
        .manager
        .dispatch("shell", r#"{"command": "ls"}"#, &call)
        .await;
    assert_eq!(plain.decision.kind, DecisionKind::Auto);
    assert_eq!(approver.asked(), 0);
    // ...but a call that always asks goes to the user, with the reason.
    let first = f
        .manager
        .dispatch("shell", r#"{"command": "hook a"}"#, &call)
        .await;
    assert_eq!(first.decision.by, Decider::User);
    assert_eq!(
        approver.requests()[0].reason,
        crate::AskReason::Always {
            why: "hooks run code".into()
        }
    );
    // "Allow for session" grants nothing that covers it, and a whole-tool grant does not either.
    call.session().approve_tool("shell");
    let second = f
        .manager
        .dispatch("shell", r#"{"command": "hook a"}"#, &call)
        .await;
    assert_eq!(second.kind, ObservationKind::Denied);
    assert_eq!(approver.asked(), 2);
    // A disabled tool stays refused without asking.
    f.manager.set_policy("shell", Policy::Disabled).unwrap();
    let third = f
        .manager
        .dispatch("shell", r#"{"command": "hook a"}"#, &call)
        .await;
    assert_eq!(third.kind, ObservationKind::Disabled);
    assert_eq!(approver.asked(), 2);
}

// ----- rules and the sandbox ---------------------------------------------------------------------

/// A rule store in memory, numbering rules from 1 (the store crate is the real one).
#[derive(Default)]
struct MemoryRules {
    saved: std::sync::Mutex<Vec<crate::ToolRule>>,
}

#[async_trait]
impl crate::RuleStore for MemoryRules {
    async fn add(&self, spec: crate::RuleSpec) -> Result<crate::ToolRule, String> {
        let mut saved = self.saved.lock().unwrap();
        if let Some(rule) = saved.iter().find(|rule| rule.spec == spec) {
            return Ok(rule.clone());
        }
        let rule = crate::ToolRule {
            id: i64::try_from(saved.len()).unwrap() + 1,
            spec,
        };
        saved.push(rule.clone());
        Ok(rule)
    }
}

fn rule(id: i64, tool: &str, pattern: &str, action: crate::RuleAction) -> crate::ToolRule {
    crate::ToolRule {
        id,
        spec: crate::RuleSpec {
            tool: tool.into(),
            pattern: Some(pattern.into()),
            action,
        },
    }
}

fn shell(command: &str) -> serde_json::Value {
    json!({ "command": command })
}

#[tokio::test]
async fn a_deny_rule_refuses_without_asking_whatever_the_policy_and_grants() {
    let approver = ScriptedApprover::new([]);
    let f = fixture(Some(approver.clone()));
    f.manager.set_policy("shell", Policy::Auto).unwrap();
    f.manager.rules().replace(vec![
        rule(7, "shell", "git push", crate::RuleAction::Deny),
        rule(8, "shell", "rm -rf", crate::RuleAction::Deny),
    ]);
    let call = crate::call::test_call();
    call.session().approve_tool("shell");
    for command in ["git push", "ls; git push origin", "rm -rf build"] {
        let obs = f.manager.dispatch("shell", shell(command), &call).await;
        assert_eq!(obs.kind, ObservationKind::Denied, "{command}");
        assert_eq!(obs.decision.by, Decider::Rule);
        assert!(
            obs.text
                .starts_with("[denied] a rule of this project refuses this call of 'shell'"),
            "{}",
            obs.text
        );
    }
    let obs = f.manager.dispatch("shell", shell("git push"), &call).await;
    assert_eq!(obs.decision.rule, Some(7));
    assert_eq!(obs.decision.decided_by(), "rule:7");
    assert!(obs.text.contains("deny shell: git push"), "{}", obs.text);
    // Other commands run; nobody was asked.
    let obs = f
        .manager
        .dispatch("shell", shell("git status"), &call)
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    assert_eq!(approver.asked(), 0);
    let records = f.audit.records();
    assert_eq!(records[0].decision.decided_by(), "rule:7");
}

#[tokio::test]
async fn an_allow_rule_for_cargo_test_does_not_cover_cargo_publish() {
    let approver = ScriptedApprover::new([]);
    let f = fixture(Some(approver.clone()));
    f.manager.set_policy("shell", Policy::Ask).unwrap();
    f.manager.rules().replace(vec![rule(
        3,
        "shell",
        "cargo test",
        crate::RuleAction::Allow,
    )]);
    let obs = f
        .manager
        .dispatch("shell", shell("cargo test"), &crate::call::test_call())
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    assert_eq!(
        (obs.decision.kind, obs.decision.by, obs.decision.rule),
        (DecisionKind::AllowedByRule, Decider::Rule, Some(3))
    );
    assert_eq!(approver.asked(), 0);
    for command in ["cargo publish", "cargo test; cargo publish", "`cargo test`"] {
        let obs = f
            .manager
            .dispatch("shell", shell(command), &crate::call::test_call())
            .await;
        assert_eq!(
            obs.kind,
            ObservationKind::Denied,
            "{command}: asked and denied"
        );
    }
    assert_eq!(approver.asked(), 3);
    // A call that always asks is never covered by an allow rule.
    f.manager
        .rules()
        .replace(vec![rule(4, "shell", "hook x", crate::RuleAction::Allow)]);
    f.manager
        .dispatch("shell", shell("hook x"), &crate::call::test_call())
        .await;
    assert_eq!(approver.asked(), 4);
}

#[tokio::test]
async fn always_allow_in_this_project_saves_rules_that_later_sessions_follow() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowInProject]);
    let f = fixture(Some(approver.clone()));
    let store = Arc::new(MemoryRules::default());
    f.manager.rules().set_store(store.clone());
    f.manager.set_policy("shell", Policy::Ask).unwrap();
    let first = CallContext::new("c1", Arc::new(ToolSession::new("1")));
    let obs = f
        .manager
        .dispatch("shell", shell("cargo test; git status"), &first)
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    assert_eq!(
        (obs.decision.kind, obs.decision.by, obs.decision.rule),
        (DecisionKind::AllowedByRule, Decider::User, Some(1))
    );
    assert_eq!(store.saved.lock().unwrap().len(), 2);
    assert!(first.session().granted().is_empty(), "a rule, not a grant");
    // Another session: covered by the rules, nobody asked.
    let second = CallContext::new("c2", Arc::new(ToolSession::new("2")));
    for command in ["git status", "cargo test", "git status; cargo test"] {
        let obs = f.manager.dispatch("shell", shell(command), &second).await;
        assert_eq!(obs.decision.by, Decider::Rule, "{command}");
    }
    assert_eq!(approver.asked(), 1);
    assert_eq!(f.manager.rules().list().len(), 2);
}

#[tokio::test]
async fn without_a_rule_store_always_allow_holds_for_the_session() {
    let approver = ScriptedApprover::new([ApprovalDecision::AllowInProject]);
    let f = fixture(Some(approver.clone()));
    f.manager.set_policy("shell", Policy::Ask).unwrap();
    let call = crate::call::test_call();
    let obs = f.manager.dispatch("shell", shell("make"), &call).await;
    assert!(obs.is_ok());
    assert_eq!(obs.decision.kind, DecisionKind::AllowedForSession);
    assert!(
        obs.decision
            .detail
            .as_deref()
            .is_some_and(|detail| detail.contains("could not be saved")),
        "{:?}",
        obs.decision
    );
    let obs = f.manager.dispatch("shell", shell("make"), &call).await;
    assert_eq!(obs.decision.by, Decider::SessionGrant);
    assert_eq!(approver.asked(), 1);
}

#[derive(Deserialize, JsonSchema)]
struct CommandArgs {
    /// Command line.
    command: String,
}

/// Pretend to run a command in the sandbox.
#[tool(name = "boxed", level = "dangerous", scope = boxed_scope, sandboxed)]
async fn boxed(args: CommandArgs) -> ToolResult {
    Ok(format!("ran {}", args.command).into())
}

fn boxed_scope(_ctx: &ToolContext, args: &CommandArgs) -> ApprovalScope {
    ApprovalScope::Keys(vec![args.command.clone()])
}

#[tokio::test]
async fn without_a_sandbox_a_command_asks_every_time_and_only_allow_once_runs_it() {
    let approver = ScriptedApprover::new([
        ApprovalDecision::AllowForSession,
        ApprovalDecision::AllowInProject,
        ApprovalDecision::AllowOnce,
    ]);
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(MemoryRules::default());
    let manager = ToolManager::new(dir.path())
        .unwrap()
        .with_approver(approver.clone())
        .with_sandbox(crate::CommandSandbox::system().with_availability(
            gantry_sandbox::Sandbox::probe_with(std::path::Path::new("/nonexistent/bwrap")),
        ));
    manager.register(Boxed).unwrap();
    manager.rules().set_store(store.clone());
    manager
        .rules()
        .replace(vec![rule(1, "boxed", "make", crate::RuleAction::Allow)]);
    // Auto, a rule and session grants: it asks each time anyway.
    manager.set_policy("boxed", Policy::Auto).unwrap();
    let call = crate::call::test_call();
    for expected in [
        DecisionKind::AllowedForSession,
        DecisionKind::AllowedOnce,
        DecisionKind::AllowedOnce,
    ] {
        let obs = manager.dispatch("boxed", shell("make"), &call).await;
        assert!(obs.is_ok(), "{}", obs.text);
        assert_eq!(obs.decision.kind, expected);
    }
    assert_eq!(approver.asked(), 3);
    assert!(call.session().granted().is_empty());
    assert!(store.saved.lock().unwrap().is_empty());
    let request = &approver.requests()[0];
    assert!(request.session_scope.is_empty());
    assert!(
        matches!(&request.reason, crate::AskReason::Always { why }
            if why.starts_with("Commands are not sandboxed on this system: bubblewrap is not installed")
                && why.ends_with("can only be allowed once.")),
        "{:?}",
        request.reason
    );
    // A deny rule still refuses it, without asking.
    manager
        .rules()
        .replace(vec![rule(2, "boxed", "make", crate::RuleAction::Deny)]);
    let obs = manager.dispatch("boxed", shell("make"), &call).await;
    assert_eq!(
        (obs.kind, obs.decision.rule),
        (ObservationKind::Denied, Some(2))
    );
    assert_eq!(approver.asked(), 3);
}

mod hooks;
