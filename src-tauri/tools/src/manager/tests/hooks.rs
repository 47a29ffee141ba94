//! The hook seam in dispatch: a PreToolUse verdict can refuse, ask, spare a dialog or rewrite
//! the call — never past a disabled tool, a deny rule or a call that always asks.

use std::sync::Mutex;

use super::*;
use crate::hooks::{
    HookPermission, HookedCall, HookedResult, PostToolVerdict, PreToolVerdict, ToolHooks,
};

/// Answers every call with the same verdicts and remembers what it saw.
#[derive(Default)]
struct FixedHooks {
    pre: PreToolVerdict,
    post: PostToolVerdict,
    seen: Mutex<Vec<String>>,
}

#[async_trait]
impl ToolHooks for FixedHooks {
    async fn pre_tool_use(&self, call: &HookedCall<'_>) -> PreToolVerdict {
        self.seen
            .lock()
            .unwrap()
            .push(format!("pre {} {}", call.tool, call.arguments));
        self.pre.clone()
    }

    async fn post_tool_use(
        &self,
        call: &HookedCall<'_>,
        result: &HookedResult<'_>,
    ) -> PostToolVerdict {
        self.seen.lock().unwrap().push(format!(
            "post {} {} {:?} {}",
            call.tool, call.arguments, result.kind, result.text
        ));
        self.post.clone()
    }
}

fn verdict(permission: HookPermission) -> PreToolVerdict {
    PreToolVerdict {
        permission: Some(permission),
        reason: Some("because".into()),
        decided_by: Some(".claude/settings.json".into()),
        ..PreToolVerdict::default()
    }
}

fn hooked(approver: Option<Arc<dyn Approver>>, hooks: FixedHooks) -> (Fixture, Arc<FixedHooks>) {
    let hooks = Arc::new(hooks);
    let mut f = fixture(approver);
    f.manager = f.manager.with_hooks(hooks.clone());
    (f, hooks)
}

#[tokio::test]
async fn a_hook_deny_refuses_the_call_with_its_reason_and_names_the_hook() {
    let (f, hooks) = hooked(
        None,
        FixedHooks {
            pre: verdict(HookPermission::Deny),
            ..FixedHooks::default()
        },
    );
    let call = crate::call::test_call();
    let obs = f
        .manager
        .dispatch("touch", json!({"name": "x"}), &call)
        .await;
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(
        obs.text,
        "[denied] a PreToolUse hook (.claude/settings.json) refused this call of 'touch': because"
    );
    assert!(!f.manager.root().join("x").exists());
    assert_eq!(
        f.audit.records()[0].decision.decided_by(),
        "hook:.claude/settings.json"
    );
    // No PostToolUse for a call that did not run.
    assert_eq!(hooks.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_hook_allow_spares_an_ordinary_dialog_only() {
    let approver = ScriptedApprover::new([]);
    let (f, _hooks) = hooked(
        Some(approver.clone()),
        FixedHooks {
            pre: verdict(HookPermission::Allow),
            ..FixedHooks::default()
        },
    );
    let call = crate::call::test_call();
    // touch asks (sensitive): the hook's allow settles it, nobody is asked.
    let obs = f
        .manager
        .dispatch("touch", json!({"name": "x"}), &call)
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    assert_eq!(obs.decision.by, Decider::Hook);
    assert_eq!(obs.decision.decided_by(), "hook:.claude/settings.json");
    assert_eq!(approver.asked(), 0);
    // A disabled tool stays disabled (the dangerous shell starts disabled).
    let obs = f.manager.dispatch("shell", shell("ls"), &call).await;
    assert_eq!(obs.kind, ObservationKind::Disabled);
    // A deny rule still refuses.
    f.manager.set_policy("shell", Policy::Ask).unwrap();
    f.manager
        .rules()
        .replace(vec![rule(3, "shell", "rm", crate::RuleAction::Deny)]);
    let obs = f.manager.dispatch("shell", shell("rm x"), &call).await;
    assert_eq!(
        (obs.kind, obs.decision.by),
        (ObservationKind::Denied, Decider::Rule)
    );
    // A call that always asks still asks (the scripted approver has no answer: denied).
    let obs = f
        .manager
        .dispatch("shell", shell("hook install"), &call)
        .await;
    assert_eq!(approver.asked(), 1);
    assert_ne!(obs.decision.by, Decider::Hook);
    assert!(!obs.is_ok());
}

#[tokio::test]
async fn a_hook_ask_makes_an_automatic_call_ask() {
    let (f, _hooks) = hooked(
        None,
        FixedHooks {
            pre: verdict(HookPermission::Ask),
            ..FixedHooks::default()
        },
    );
    let call = crate::call::test_call();
    call.session().approve_tool("echo");
    let obs = f
        .manager
        .dispatch("echo", json!({"text": "hi"}), &call)
        .await;
    // No approver: the ask is refused (fail closed) instead of running on its own.
    assert_eq!(obs.kind, ObservationKind::Denied);
    assert_eq!(obs.decision.by, Decider::NoApprover);
}

#[tokio::test]
async fn a_hook_ask_shows_its_reason_in_the_dialog_and_is_allowed_once_only() {
    let approver = crate::ScriptedApprover::new([ApprovalDecision::AllowForSession]);
    let (f, _hooks) = hooked(
        Some(approver.clone()),
        FixedHooks {
            pre: verdict(HookPermission::Ask),
            ..FixedHooks::default()
        },
    );
    let call = crate::call::test_call();
    let obs = f
        .manager
        .dispatch("echo", json!({"text": "hi"}), &call)
        .await;
    assert!(obs.is_ok(), "{}", obs.text);
    let request = &approver.requests()[0];
    assert!(
        matches!(&request.reason, crate::AskReason::Always { why }
            if why.starts_with("A PreToolUse hook (.claude/settings.json) asks about this call: because.")),
        "{:?}",
        request.reason
    );
    assert!(
        call.session().granted().is_empty(),
        "no grant for the session"
    );
}

#[tokio::test]
async fn rewritten_arguments_are_validated_and_gated_again_and_context_reaches_the_model() {
    let (f, hooks) = hooked(
        None,
        FixedHooks {
            pre: PreToolVerdict {
                updated_arguments: Some(json!({"text": "bye", "times": "2"})),
                context: vec!["from pre".into()],
                ..PreToolVerdict::default()
            },
            post: PostToolVerdict {
                feedback: vec!["lint failed".into()],
                context: vec!["from post".into()],
            },
            ..FixedHooks::default()
        },
    );
    let call = crate::call::test_call();
    let obs = f
        .manager
        .dispatch("echo", json!({"text": "hi"}), &call)
        .await;
    assert_eq!(
        obs.text,
        "byebye\n\n[hook feedback] lint failed\n\n[hook context] from post\n\n[hook context] from pre"
    );
    let seen = hooks.seen.lock().unwrap().clone();
    assert_eq!(seen[0], r#"pre echo {"text":"hi"}"#);
    assert!(
        seen[1].starts_with(r#"post echo {"text":"bye","times":2} Ok byebye"#),
        "{}",
        seen[1]
    );
    assert_eq!(f.audit.records()[0].arguments["text"], "bye");
    // Arguments the tool refuses end the call.
    let (f, _hooks) = hooked(
        None,
        FixedHooks {
            pre: PreToolVerdict {
                updated_arguments: Some(json!({"nothing": true})),
                decided_by: Some("~/.claude/settings.json".into()),
                ..PreToolVerdict::default()
            },
            ..FixedHooks::default()
        },
    );
    let obs = f
        .manager
        .dispatch("echo", json!({"text": "hi"}), &call)
        .await;
    assert_eq!(obs.kind, ObservationKind::BadArguments);
    assert!(
        obs.text.starts_with(
            "[error] the arguments a PreToolUse hook (~/.claude/settings.json) rewrote"
        ),
        "{}",
        obs.text
    );
}
