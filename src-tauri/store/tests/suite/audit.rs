//! The audit log through the ToolManager, redaction, filters and failure handling.

use std::sync::Arc;
use std::time::Duration;

use gantry_store::{AuditFilter, ProjectId, Store};
use gantry_tools::{
    ApprovalDecision, Decider, DecisionKind, FixedApprover, ObservationKind, Policy, ToolManager,
    builtin,
};
use serde_json::json;

use super::support::{Fixture, contains, record};

/// A manager with the built-in tools whose audit goes to `project` in the fixture's store.
fn manager(fixture: &Fixture, project: ProjectId) -> ToolManager {
    manager_with(fixture, project, None)
}

fn manager_with(
    fixture: &Fixture,
    project: ProjectId,
    approver: Option<ApprovalDecision>,
) -> ToolManager {
    let mut manager = ToolManager::new(fixture.folder.path())
        .unwrap()
        .with_audit(Arc::new(fixture.store.audit_sink(project)));
    if let Some(decision) = approver {
        manager = manager.with_approver(Arc::new(FixedApprover(decision)));
    }
    builtin::register_builtins(&manager).unwrap();
    manager
}

#[tokio::test]
async fn every_dispatch_is_recorded_with_decision_outcome_and_duration() {
    let fixture = Fixture::new().await;
    let project = fixture.project.id;
    let session = fixture
        .store
        .sessions()
        .create(project, "s", None)
        .await
        .unwrap();
    let manager = manager(&fixture, project);
    let call = gantry_tools::CallContext::new(
        "c",
        std::sync::Arc::new(gantry_tools::ToolSession::new(session.id.to_string())),
    );

    // No prompter: ask_user runs (policy auto) and fails; an unknown tool; bad arguments;
    // a disabled tool; an Ask tool denied by the approver.
    manager
        .dispatch("ask_user", r#"{"question": "?"}"#, &call)
        .await;
    manager.dispatch("no_such_tool", "{}", &call).await;
    manager
        .dispatch("ask_user", r#"{"question": 5}"#, &call)
        .await;
    manager.set_policy("ask_user", Policy::Disabled).unwrap();
    manager
        .dispatch("ask_user", r#"{"question": "?"}"#, &call)
        .await;
    let deny = ApprovalDecision::Deny {
        reason: Some("not now".into()),
    };
    let denied = manager_with(&fixture, project, Some(deny));
    denied.set_policy("ask_user", Policy::Ask).unwrap();
    denied
        .dispatch(
            "ask_user",
            r#"{"question": "?"}"#,
            &gantry_tools::CallContext::detached(),
        )
        .await;

    let rows = fixture
        .store
        .audit()
        .list(project, &AuditFilter::default())
        .await
        .unwrap();
    let summary: Vec<(&str, DecisionKind, Decider, ObservationKind)> = rows
        .iter()
        .map(|r| (r.tool.as_str(), r.decision.kind, r.decision.by, r.outcome))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "ask_user",
                DecisionKind::Denied,
                Decider::User,
                ObservationKind::Denied
            ),
            (
                "ask_user",
                DecisionKind::Disabled,
                Decider::Policy,
                ObservationKind::Disabled
            ),
            (
                "ask_user",
                DecisionKind::NotEvaluated,
                Decider::Engine,
                ObservationKind::BadArguments
            ),
            (
                "no_such_tool",
                DecisionKind::NotEvaluated,
                Decider::Engine,
                ObservationKind::Error
            ),
            (
                "ask_user",
                DecisionKind::Auto,
                Decider::Policy,
                ObservationKind::Error
            ),
        ],
        "newest first"
    );
    let first = rows.last().unwrap();
    assert_eq!(first.session_id, Some(session.id));
    assert_eq!(first.arguments, json!({"question": "?"}));
    assert_eq!(first.level, Some(gantry_tools::PermissionLevel::Safe));
    assert_eq!(
        first.result_excerpt,
        "[error] no user is available to answer"
    );
    assert!(first.duration < Duration::from_secs(5));
    assert_eq!(rows[0].decision.detail.as_deref(), Some("not now"));
    assert_eq!(
        rows[0].session_id, None,
        "the second manager has no session"
    );
    assert_eq!(rows[3].level, None, "unknown tools have no level");
}

#[tokio::test]
async fn secrets_in_arguments_and_results_never_reach_the_database() {
    let fixture = Fixture::new().await;
    let project = fixture.project.id;
    let key = "sk-proj-AUDITsecret0123456789abcdefXYZ";
    let password = "correct-horse-battery-staple";
    let manager = manager(&fixture, project);
    let arguments = json!({
        "command": format!("curl -H 'Authorization: Bearer {key}' https://api.example.invalid"),
        "env": {"OPENAI_API_KEY": key, "HOME": "/home/me"},
        "nested": [{"password": password}],
    });
    manager
        .dispatch(
            "no_such_tool",
            arguments,
            &gantry_tools::CallContext::detached(),
        )
        .await;
    let mut row = record("excerpt", None, DecisionKind::Auto, ObservationKind::Ok);
    row.result_excerpt = format!("OPENAI_API_KEY={key}\nPASSWORD=\"{password}\"\n");
    fixture.store.audit().record(project, &row).await.unwrap();

    let rows = fixture
        .store
        .audit()
        .list(project, &AuditFilter::default())
        .await
        .unwrap();
    assert_eq!(
        rows[0].result_excerpt,
        "OPENAI_API_KEY=[redacted]\nPASSWORD=\"[redacted]\"\n"
    );
    assert_eq!(
        rows[1].arguments,
        json!({
            "command": "curl -H 'Authorization: [redacted] [redacted]' https://api.example.invalid",
            "env": {"OPENAI_API_KEY": "[redacted]", "HOME": "/home/me"},
            "nested": [{"password": "[redacted]"}],
        })
    );
    fixture.store.close().await;
    let bytes = fixture.database_bytes();
    assert!(
        contains(&bytes, "api.example.invalid"),
        "the grep itself works"
    );
    assert!(!contains(&bytes, key));
    assert!(!contains(&bytes, password));
}

#[tokio::test]
async fn filters_narrow_and_limit_keeps_the_newest() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let project = fixture.project.id;
    let session = store.sessions().create(project, "s", None).await.unwrap();
    let sid = Some(session.id.to_string());
    let rows = [
        record(
            "read_file",
            sid.clone(),
            DecisionKind::Auto,
            ObservationKind::Ok,
        ),
        record(
            "write_file",
            sid.clone(),
            DecisionKind::Denied,
            ObservationKind::Denied,
        ),
        record(
            "write_file",
            None,
            DecisionKind::AllowedOnce,
            ObservationKind::Ok,
        ),
        record(
            "run_command",
            None,
            DecisionKind::Disabled,
            ObservationKind::Disabled,
        ),
    ];
    let mut ids = Vec::new();
    for (offset, mut row) in rows.into_iter().enumerate() {
        row.started_at_ms = 1_000 + offset as i64;
        ids.push(store.audit().record(project, &row).await.unwrap());
    }
    let list = |filter: AuditFilter| async move {
        store
            .audit()
            .list(project, &filter)
            .await
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        list(AuditFilter::default()).await,
        [ids[3], ids[2], ids[1], ids[0]]
    );
    assert_eq!(
        list(AuditFilter {
            session: Some(session.id),
            ..Default::default()
        })
        .await,
        [ids[1], ids[0]]
    );
    assert_eq!(
        list(AuditFilter {
            tool: Some("write_file".into()),
            ..Default::default()
        })
        .await,
        [ids[2], ids[1]]
    );
    assert_eq!(
        list(AuditFilter {
            decision: Some(DecisionKind::Denied),
            ..Default::default()
        })
        .await,
        [ids[1]]
    );
    assert_eq!(
        list(AuditFilter {
            outcome: Some(ObservationKind::Ok),
            ..Default::default()
        })
        .await,
        [ids[2], ids[0]]
    );
    assert_eq!(
        list(AuditFilter {
            tool: Some("write_file".into()),
            outcome: Some(ObservationKind::Ok),
            ..Default::default()
        })
        .await,
        [ids[2]]
    );
    assert_eq!(
        list(AuditFilter {
            limit: Some(1),
            ..Default::default()
        })
        .await,
        [ids[3]]
    );
    assert_eq!(store.audit().count(project).await.unwrap(), 4);
    let one = store.audit().get(ids[1]).await.unwrap().unwrap();
    assert_eq!(one.started_at, gantry_store::Timestamp(1_001));
}

#[tokio::test]
async fn a_failed_audit_write_is_logged_and_never_fails_the_call() {
    let fixture = Fixture::new().await;
    // A project id that does not exist: every insert breaks the foreign key.
    let manager = manager(&fixture, ProjectId(fixture.project.id.0 + 50));
    let observation = manager
        .dispatch("no_such_tool", "{}", &gantry_tools::CallContext::detached())
        .await;
    assert_eq!(observation.kind, ObservationKind::Error);
    assert!(observation.text.starts_with("[error] unknown tool"));
    // A session id that is not one of the store's is dropped; the row is kept.
    let manager = self::manager(&fixture, fixture.project.id);
    let foreign = gantry_tools::CallContext::new(
        "c",
        std::sync::Arc::new(gantry_tools::ToolSession::new("not-a-number")),
    );
    manager.dispatch("no_such_tool", "{}", &foreign).await;
    let rows = fixture
        .store
        .audit()
        .list(fixture.project.id, &AuditFilter::default())
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].session_id, None);
    // A closed store: the call still ends normally.
    let closed: Store = fixture.store.clone();
    closed.close().await;
    let observation = manager
        .dispatch("no_such_tool", "{}", &gantry_tools::CallContext::detached())
        .await;
    assert_eq!(observation.kind, ObservationKind::Error);
}
