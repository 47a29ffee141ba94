//! The permission gate: a short pipeline of checks that decides whether a call runs.
//!
//! The checks run in order — the project's policy, a scope that always asks (an
//! execution-sensitive file, a command with no sandbox on this system), an ask rule of another
//! agent's settings ([`crate::external_rules`]), the session's grants, the project's deny
//! rules and the external deny rules (they refuse), the project's allow rules, the external
//! allow rules (they settle), then the approver — and each one can only make the verdict stricter or settle a pending question: a
//! denial is final, an allowance can only be tightened, and only a pending "ask" can be resolved
//! either way. So no later check can undo an earlier refusal, whatever it is.
//!
//! The gate owns the approver step ([`Gate::decide`]): it builds the [`ApprovalRequest`] (with
//! the call's id and session, and the tool's preview), tells the call's observer, waits for the
//! answer or the call's cancellation, records an "allow for this session" answer in the call's
//! session, and saves the rules of an "always allow in this project" answer.
//!
//! External rules (Claude Code's `permissions` of `.claude/settings*.json`) go deny → ask →
//! allow, first match wins. An external **ask** rule makes the call ask every time: the gate
//! turns its scope into [`ApprovalScope::Always`] with a reason naming the rule and its file,
//! so no session grant or allow rule (Gantry's or external) settles it and the dialog offers
//! only "Allow once" (as for an execution-sensitive file). An external **allow** rule settles
//! only an ordinary ask: never a disabled tool (refused by the policy first), never a scope that
//! always asks, never against a deny rule. Decisions made by an external rule name it and its
//! file (`Decision::detail`, `Decision::source`; audit `decided_by: claude-rule:<file>`).

use futures::FutureExt;
use serde::{Deserialize, Serialize};

use crate::approval::{ApprovalDecision, ApprovalRequest, ApprovalScope, Approver};
use crate::call::CallContext;
use crate::context::ToolContext;
use crate::external_rules::{ExternalCall, ExternalOutcome, ExternalRule};
use crate::hooks::HookPermission;
use crate::permission::Policy;
use crate::rules::{RuleBook, ToolRule};
use crate::tool::{PreparedCall, Tool};

/// How the permission check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// The policy is Auto: no one was asked.
    Auto,
    /// The user allowed this one call.
    AllowedOnce,
    /// Allowed for the session: by the user just now, or by an earlier grant.
    AllowedForSession,
    /// Allowed by a rule of the project: one the user saved just now, or an earlier one.
    AllowedByRule,
    /// Refused by the user, or by the absence of one.
    Denied,
    /// The tool is disabled for the project.
    Disabled,
    /// The call never reached the check (unknown tool, unreadable arguments).
    NotEvaluated,
}

impl DecisionKind {
    /// The snake_case name used in the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::AllowedOnce => "allowed_once",
            Self::AllowedForSession => "allowed_for_session",
            Self::AllowedByRule => "allowed_by_rule",
            Self::Denied => "denied",
            Self::Disabled => "disabled",
            Self::NotEvaluated => "not_evaluated",
        }
    }
}

/// Who or what made the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// The project's policy for the tool (Auto or Disabled).
    Policy,
    /// A grant the user made earlier in the session.
    SessionGrant,
    /// A rule of the project (its id is [`Decision::rule`]).
    Rule,
    /// A rule of another agent's settings file (the file is [`Decision::source`]).
    ExternalRule,
    /// The user, answering the approver.
    User,
    /// Nobody: no approver was available, so the call was refused (fail closed).
    NoApprover,
    /// Gantry itself, before any check (unknown tool, bad arguments).
    Engine,
    /// A PreToolUse hook of the user's (its file is [`Decision::detail`]).
    Hook,
}

impl Decider {
    /// The snake_case name used in the CLI and the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Policy => "policy",
            Self::SessionGrant => "session_grant",
            Self::Rule => "rule",
            Self::ExternalRule => "external_rule",
            Self::User => "user",
            Self::NoApprover => "no_approver",
            Self::Engine => "engine",
            Self::Hook => "hook",
        }
    }
}

/// The gate's decision about one call, kept with the observation and in the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// How it ended.
    pub kind: DecisionKind,
    /// Who decided.
    pub by: Decider,
    /// Details: the grants or rules that covered the call, the rule that refused it, or the
    /// user's reason for a denial.
    pub detail: Option<String>,
    /// The rule that decided (the first, when several covered the call) or that the user
    /// saved just now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub rule: Option<i64>,
    /// The settings file of the external rule that decided (`.claude/settings.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source: Option<String>,
}

impl Decision {
    /// A decision with no detail.
    pub const fn new(kind: DecisionKind, by: Decider) -> Self {
        Self {
            kind,
            by,
            detail: None,
            rule: None,
            source: None,
        }
    }

    /// Who decided, as the audit log stores it: `rule:<id>` for a rule, `claude-rule:<file>`
    /// for an external rule, `hook:<file>` for a hook (`hook:.claude/settings.json`), else the
    /// decider's name (`user`, `policy`, ...).
    pub fn decided_by(&self) -> String {
        match (self.by, self.rule) {
            (Decider::Rule, Some(id)) => format!("rule:{id}"),
            (Decider::ExternalRule, _) => {
                format!("claude-rule:{}", self.source.as_deref().unwrap_or_default())
            }
            (Decider::Hook, _) => format!("hook:{}", self.detail.as_deref().unwrap_or_default()),
            (by, _) => by.as_str().to_owned(),
        }
    }

    /// The decision for calls that never reached the gate.
    pub const fn not_evaluated() -> Self {
        Self::new(DecisionKind::NotEvaluated, Decider::Engine)
    }

    /// True when the call may run.
    pub fn allows(&self) -> bool {
        matches!(
            self.kind,
            DecisionKind::Auto
                | DecisionKind::AllowedOnce
                | DecisionKind::AllowedForSession
                | DecisionKind::AllowedByRule
        )
    }
}

/// The gate's state between checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The call may run.
    Allow(Decision),
    /// Someone has to be asked.
    Ask,
    /// The call must not run.
    Refuse(Decision),
}

impl Verdict {
    /// The verdict after a later check proposed `proposal`: a refusal is final, an allowance can
    /// only be tightened, and a pending ask takes whatever the check says.
    pub(crate) fn then(self, proposal: Verdict) -> Verdict {
        match (self, proposal) {
            (refused @ Verdict::Refuse(_), _) => refused,
            (Verdict::Allow(_), tighter @ (Verdict::Ask | Verdict::Refuse(_))) => tighter,
            (allowed @ Verdict::Allow(_), Verdict::Allow(_)) => allowed,
            (Verdict::Ask, proposal) => proposal,
        }
    }

    /// The first check: the project's policy for the tool.
    pub(crate) fn from_policy(policy: Policy) -> Verdict {
        match policy {
            Policy::Auto => Verdict::Allow(Decision::new(DecisionKind::Auto, Decider::Policy)),
            Policy::Ask => Verdict::Ask,
            Policy::Disabled => {
                Verdict::Refuse(Decision::new(DecisionKind::Disabled, Decider::Policy))
            }
        }
    }

    /// The second check: a session grant covering the call settles a pending ask.
    pub(crate) fn from_grants(covered_by: Option<Vec<String>>) -> Verdict {
        match covered_by {
            Some(grants) => Verdict::Allow(Decision {
                kind: DecisionKind::AllowedForSession,
                by: Decider::SessionGrant,
                detail: Some(grants.join(", ")),
                rule: None,
                source: None,
            }),
            None => Verdict::Ask,
        }
    }

    /// The third check: a deny rule refuses whatever came before (except an earlier refusal).
    pub(crate) fn from_deny_rule(rule: Option<ToolRule>) -> Option<Verdict> {
        rule.map(|rule| {
            Verdict::Refuse(Decision {
                kind: DecisionKind::Denied,
                by: Decider::Rule,
                detail: Some(rule.spec.to_string()),
                rule: Some(rule.id),
                source: None,
            })
        })
    }

    /// An external deny rule refuses whatever came before (except an earlier refusal).
    pub(crate) fn from_external_deny(rule: &ExternalRule) -> Verdict {
        Verdict::Refuse(Decision {
            kind: DecisionKind::Denied,
            by: Decider::ExternalRule,
            detail: Some(rule.describe()),
            rule: None,
            source: Some(rule.source.clone()),
        })
    }

    /// External allow rules covering the call settle a pending ask.
    pub(crate) fn from_external_allow(rules: &[ExternalRule]) -> Verdict {
        match rules.first() {
            Some(first) => Verdict::Allow(Decision {
                kind: DecisionKind::AllowedByRule,
                by: Decider::ExternalRule,
                detail: Some(
                    rules
                        .iter()
                        .map(ExternalRule::describe)
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
                rule: None,
                source: Some(first.source.clone()),
            }),
            None => Verdict::Ask,
        }
    }

    /// The fourth check: allow rules covering the call settle a pending ask.
    pub(crate) fn from_allow_rules(rules: Option<Vec<ToolRule>>) -> Verdict {
        match rules.filter(|rules| !rules.is_empty()) {
            Some(rules) => Verdict::Allow(Decision {
                kind: DecisionKind::AllowedByRule,
                by: Decider::Rule,
                detail: Some(describe_rules(&rules)),
                rule: rules.first().map(|rule| rule.id),
                source: None,
            }),
            None => Verdict::Ask,
        }
    }

    /// The last check: the approver's answer, or a refusal when there is no approver. An
    /// answer "always allow in this project" arrives here with the rules it saved (`saved`;
    /// empty when they could not be saved, which makes it an allowance for the session).
    pub(crate) fn from_approver(
        answer: Option<&ApprovalDecision>,
        saved: &Result<Vec<ToolRule>, String>,
    ) -> Verdict {
        match answer {
            None => Verdict::Refuse(Decision::new(DecisionKind::Denied, Decider::NoApprover)),
            Some(ApprovalDecision::AllowOnce) => {
                Verdict::Allow(Decision::new(DecisionKind::AllowedOnce, Decider::User))
            }
            Some(ApprovalDecision::AllowForSession) => Verdict::Allow(Decision::new(
                DecisionKind::AllowedForSession,
                Decider::User,
            )),
            Some(ApprovalDecision::AllowInProject) => Verdict::Allow(match saved {
                Ok(rules) if !rules.is_empty() => Decision {
                    kind: DecisionKind::AllowedByRule,
                    by: Decider::User,
                    detail: Some(format!("saved {}", describe_rules(rules))),
                    rule: rules.first().map(|rule| rule.id),
                    source: None,
                },
                Ok(_) => Decision::new(DecisionKind::AllowedOnce, Decider::User),
                Err(why) => Decision {
                    kind: DecisionKind::AllowedForSession,
                    by: Decider::User,
                    detail: Some(format!("the rule could not be saved: {why}")),
                    rule: None,
                    source: None,
                },
            }),
            Some(ApprovalDecision::Deny { reason }) => Verdict::Refuse(Decision {
                kind: DecisionKind::Denied,
                by: Decider::User,
                detail: reason.clone().filter(|r| !r.trim().is_empty()),
                rule: None,
                source: None,
            }),
        }
    }
}

/// `rule 3 (allow run_command: cargo test), rule 5 (...)`.
fn describe_rules(rules: &[ToolRule]) -> String {
    rules
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// One call at the gate.
pub(crate) struct Gate<'a> {
    /// The tool called.
    pub tool: &'a dyn Tool,
    /// The project's policy for it.
    pub policy: Policy,
    /// The call with its validated arguments.
    pub prepared: &'a dyn PreparedCall,
    /// What the tool's preview may read.
    pub context: &'a ToolContext,
    /// The call's id, session, observer and cancellation.
    pub call: &'a CallContext,
    /// The project's rules.
    pub rules: &'a RuleBook,
    /// What a PreToolUse hook said (`Allow` or `Ask`; a `Deny` never reaches the gate), with
    /// the hook's file and its `permissionDecisionReason` (for an `ask`, the dialog's "why").
    pub hook: Option<(HookPermission, String, Option<String>)>,
}

/// How the gate ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Gated {
    /// The call runs.
    Allowed(Decision),
    /// The call does not run.
    Refused(Decision),
    /// The call was cancelled while the approver was asked.
    Cancelled,
}

impl Gate<'_> {
    /// What the call's approval covers. A tool that runs commands, on a system that cannot
    /// sandbox them, always asks: only "Allow once" runs it.
    fn effective_scope(&self, scope: &ApprovalScope) -> ApprovalScope {
        if self.tool.sandboxed()
            && !matches!(scope, ApprovalScope::Always(_))
            && let Err(why) = self.context.sandbox().sandbox()
        {
            return ApprovalScope::Always(format!(
                "{why} Every command asks and can only be allowed once."
            ));
        }
        scope.clone()
    }

    /// Runs the checks in order: policy, a scope that always asks, an external ask rule,
    /// session grants, deny rules, allow rules, the turn's command's allowed-tools, approver (`None`: nobody can answer, so an Ask
    /// is refused).
    pub(crate) async fn decide(self, approver: Option<&dyn Approver>) -> Gated {
        let name = self.tool.name();
        let underlying = self.prepared.scope(self.context);
        let mut scope = self.effective_scope(&underlying);
        let external = self.rules.external().evaluate(&ExternalCall {
            tool: name,
            arguments: self.prepared.arguments(),
            scope: &underlying,
            context: self.context,
        });
        if let ExternalOutcome::Ask(rule) = &external
            && !matches!(scope, ApprovalScope::Always(_))
        {
            // Only "Allow once" settles it: nothing may cover it for later.
            scope = ApprovalScope::Always(format!(
                "The {} asks every time; it can only be allowed once.",
                rule.describe()
            ));
        }
        let mut verdict = Verdict::from_policy(self.policy);
        if matches!(scope, ApprovalScope::Always(_)) {
            // A call that always asks tightens Auto to Ask (a refusal stays a refusal).
            verdict = verdict.then(Verdict::Ask);
        }
        let hook_asks = matches!(self.hook, Some((HookPermission::Ask, ..)));
        if let Some((HookPermission::Ask, file, reason)) = &self.hook {
            // A hook's `ask`: the user is asked, whatever grants and allow rules say, and reads
            // the hook's reason.
            verdict = verdict.then(Verdict::Ask);
            if !matches!(scope, ApprovalScope::Always(_)) {
                let reason = reason
                    .as_deref()
                    .map(|reason| format!(": {reason}"))
                    .unwrap_or_default();
                scope = ApprovalScope::Always(format!(
                    "A PreToolUse hook ({file}) asks about this call{reason}. It can only be \
                     allowed once."
                ));
            }
        }
        if verdict == Verdict::Ask && !hook_asks {
            verdict = verdict.then(Verdict::from_grants(
                self.call.session().covering(name, &scope),
            ));
        }
        // Deny rules see what the call does even when it always asks.
        if let Some(denied) = Verdict::from_deny_rule(self.rules.denying(name, &underlying)) {
            verdict = verdict.then(denied);
        }
        if let ExternalOutcome::Deny(rule) = &external {
            verdict = verdict.then(Verdict::from_external_deny(rule));
        }
        if verdict == Verdict::Ask
            && !matches!(scope, ApprovalScope::Always(_))
            && let Some((HookPermission::Allow, file, _)) = &self.hook
        {
            // A hook's `allow` settles an ordinary ask: not a disabled tool or a deny rule
            // (both refused above), nor a call that always asks (an ask rule included).
            verdict = verdict.then(Verdict::Allow(Decision {
                kind: DecisionKind::AllowedOnce,
                by: Decider::Hook,
                detail: Some(file.clone()),
                rule: None,
                source: None,
            }));
        }
        if verdict == Verdict::Ask && !hook_asks {
            verdict = verdict.then(Verdict::from_allow_rules(self.rules.allowing(name, &scope)));
        }
        if verdict == Verdict::Ask
            && !hook_asks
            && !matches!(scope, ApprovalScope::Always(_))
            && let ExternalOutcome::Allow(rules) = &external
        {
            verdict = verdict.then(Verdict::from_external_allow(rules));
        }
        if verdict == Verdict::Ask
            && !hook_asks
            && !matches!(scope, ApprovalScope::Always(_))
            && let ExternalOutcome::Allow(rules) =
                self.call.session().turn_rules().evaluate(&ExternalCall {
                    tool: name,
                    arguments: self.prepared.arguments(),
                    scope: &underlying,
                    context: self.context,
                })
        {
            // The allowed-tools of the command that started this turn: like an external allow
            // rule, they settle an ordinary ask only.
            verdict = verdict.then(Verdict::from_external_allow(&rules));
        }
        if verdict == Verdict::Ask {
            let answer = match approver {
                None => None,
                Some(approver) => match self.ask(approver, &scope).await {
                    Some(answer) => Some(answer),
                    None => return Gated::Cancelled,
                },
            };
            let saved = match answer {
                Some(ApprovalDecision::AllowForSession) => {
                    self.call.session().grant(name, &scope);
                    Ok(Vec::new())
                }
                Some(ApprovalDecision::AllowInProject) => {
                    let saved = self.rules.promote(name, &scope).await;
                    if let Err(error) = &saved {
                        tracing::warn!(tool = name, %error, "could not save a rule; allowing for the session");
                        self.call.session().grant(name, &scope);
                    }
                    saved
                }
                _ => Ok(Vec::new()),
            };
            verdict = verdict.then(Verdict::from_approver(answer.as_ref(), &saved));
        }
        match verdict {
            Verdict::Allow(decision) => Gated::Allowed(decision),
            Verdict::Refuse(decision) => Gated::Refused(decision),
            // `Ask` can't survive the approver step; if it ever did, fail closed.
            Verdict::Ask => {
                Gated::Refused(Decision::new(DecisionKind::Denied, Decider::NoApprover))
            }
        }
    }

    /// Asks the approver about the call; `None` when the call was cancelled first. A panicking
    /// approver denies.
    async fn ask(
        &self,
        approver: &dyn Approver,
        scope: &ApprovalScope,
    ) -> Option<ApprovalDecision> {
        let name = self.tool.name();
        let asked = async {
            let request = ApprovalRequest {
                call_id: self.call.call_id().to_owned(),
                session_id: self.call.session().id().map(str::to_owned),
                tool: name.to_owned(),
                level: self.tool.level(),
                description: self.tool.description().to_owned(),
                arguments: self.prepared.arguments().clone(),
                preview: self.prepared.preview(self.context).await,
                session_scope: scope.describe(name),
                reason: scope.ask_reason(),
            };
            self.call.observer().approval_requested(&request);
            approver.decide(request).await
        };
        let guarded = std::panic::AssertUnwindSafe(asked).catch_unwind();
        let answer = tokio::select! {
            biased;
            () = self.call.cancel_token().cancelled() => return None,
            answer = guarded => answer.unwrap_or(ApprovalDecision::Deny {
                reason: Some("the approval dialog failed".into()),
            }),
        };
        self.call.observer().approval_resolved(
            self.call.call_id(),
            !matches!(answer, ApprovalDecision::Deny { .. }),
        );
        Some(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow() -> Verdict {
        Verdict::Allow(Decision::new(DecisionKind::Auto, Decider::Policy))
    }

    fn refuse() -> Verdict {
        Verdict::Refuse(Decision::new(DecisionKind::Denied, Decider::User))
    }

    #[test]
    fn later_checks_only_tighten_or_settle() {
        // (current, proposal, expected)
        let table = [
            (refuse(), allow(), refuse()),
            (refuse(), Verdict::Ask, refuse()),
            (allow(), Verdict::Ask, Verdict::Ask),
            (allow(), refuse(), refuse()),
            (
                allow(),
                Verdict::from_grants(Some(vec!["x".into()])),
                allow(),
            ),
            (Verdict::Ask, allow(), allow()),
            (Verdict::Ask, refuse(), refuse()),
            (Verdict::Ask, Verdict::Ask, Verdict::Ask),
        ];
        for (index, (current, proposal, expected)) in table.into_iter().enumerate() {
            assert_eq!(current.then(proposal), expected, "row {index}");
        }
    }

    #[test]
    fn policy_maps_to_the_first_verdict() {
        assert_eq!(Verdict::from_policy(Policy::Auto), allow());
        assert_eq!(Verdict::from_policy(Policy::Ask), Verdict::Ask);
        assert!(
            matches!(Verdict::from_policy(Policy::Disabled), Verdict::Refuse(d) if d.kind == DecisionKind::Disabled)
        );
    }

    #[test]
    fn a_missing_approver_refuses_and_blank_reasons_are_dropped() {
        let none = Ok(Vec::new());
        assert!(
            matches!(Verdict::from_approver(None, &none), Verdict::Refuse(d) if d.by == Decider::NoApprover)
        );
        let blank = ApprovalDecision::Deny {
            reason: Some("  ".into()),
        };
        assert!(
            matches!(Verdict::from_approver(Some(&blank), &none), Verdict::Refuse(d) if d.detail.is_none())
        );
    }
}
