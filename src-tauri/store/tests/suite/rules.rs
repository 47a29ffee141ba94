//! Rules and command settings per project: saved, edited, kept across a reopen, gone with the
//! project; the audit log names the rule that decided.

use std::path::PathBuf;

use gantry_store::{ProjectCommandSettings, Store, StoreError};
use gantry_tools::{
    Decider, Decision, DecisionKind, ObservationKind, RuleAction, RuleSpec, RuleStore,
};

use super::support::{Fixture, record};

fn spec(tool: &str, pattern: Option<&str>, action: RuleAction) -> RuleSpec {
    RuleSpec {
        tool: tool.into(),
        pattern: pattern.map(str::to_owned),
        action,
    }
}

#[tokio::test]
async fn rules_are_added_once_edited_removed_and_kept_across_a_reopen() {
    let Fixture {
        data,
        folder: _folder,
        store,
        project,
    } = Fixture::new().await;
    let rules = store.rules();
    let test = rules
        .add(
            project.id,
            spec("run_command", Some(" cargo test "), RuleAction::Allow),
        )
        .await
        .unwrap();
    assert_eq!(test.spec.pattern.as_deref(), Some("cargo test"));
    let again = rules
        .add(
            project.id,
            spec("run_command", Some("cargo test"), RuleAction::Allow),
        )
        .await
        .unwrap();
    assert_eq!(again.id, test.id, "the same rule is not added twice");
    let whole = rules
        .add(project.id, spec("mcp__gh__search", None, RuleAction::Deny))
        .await
        .unwrap();
    assert_eq!(
        rules
            .add(
                project.id,
                spec("mcp__gh__search", Some(""), RuleAction::Deny)
            )
            .await
            .unwrap()
            .id,
        whole.id,
        "an empty pattern is the whole tool"
    );
    let push = rules
        .add(
            project.id,
            spec("run_command", Some("git push"), RuleAction::Deny),
        )
        .await
        .unwrap();
    assert!(matches!(
        rules
            .add(project.id, spec("write_file", Some("["), RuleAction::Allow))
            .await,
        Err(StoreError::Invalid { .. })
    ));
    // Edit: the deny rule becomes `git push --force`.
    let edited = rules
        .update(
            project.id,
            push.id,
            spec("run_command", Some("git push --force"), RuleAction::Deny),
        )
        .await
        .unwrap();
    assert_eq!(edited.id, push.id);
    assert!(matches!(
        rules
            .update(
                project.id,
                push.id,
                spec("run_command", Some("cargo test"), RuleAction::Allow)
            )
            .await,
        Err(StoreError::Invalid { .. })
    ));
    assert!(matches!(
        rules
            .update(project.id, 9999, spec("x", None, RuleAction::Allow))
            .await,
        Err(StoreError::NotFound { .. })
    ));
    store.close().await;

    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let listed = store.rules().list(project.id).await.unwrap();
    assert_eq!(
        listed.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [
            format!("rule {} (allow run_command: cargo test)", test.id),
            format!("rule {} (deny mcp__gh__search)", whole.id),
            format!("rule {} (deny run_command: git push --force)", push.id),
        ]
    );
    assert!(store.rules().remove(project.id, whole.id).await.unwrap());
    assert!(!store.rules().remove(project.id, whole.id).await.unwrap());
    assert_eq!(store.rules().list(project.id).await.unwrap().len(), 2);
    // Another project sees none of them; removing the project removes its rules.
    let other = tempfile::tempdir().unwrap();
    let other = store.projects().open(other.path()).await.unwrap();
    assert!(store.rules().list(other.id).await.unwrap().is_empty());
    assert!(
        store
            .rules()
            .get(other.id, test.id)
            .await
            .unwrap()
            .is_none()
    );
    store.projects().remove(project.id).await.unwrap();
    assert!(store.rules().list(project.id).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_gates_rule_store_saves_in_the_project_and_the_audit_log_names_the_rule() {
    let fixture = Fixture::new().await;
    let (store, project) = (&fixture.store, fixture.project.id);
    let saved = store
        .rule_store(project)
        .add(spec("run_command", Some("cargo test"), RuleAction::Allow))
        .await
        .unwrap();
    assert_eq!(
        store.rules().list(project).await.unwrap(),
        std::slice::from_ref(&saved)
    );
    let mut call = record(
        "run_command",
        None,
        DecisionKind::AllowedByRule,
        ObservationKind::Ok,
    );
    call.decision = Decision {
        kind: DecisionKind::AllowedByRule,
        by: Decider::Rule,
        detail: Some(saved.to_string()),
        rule: Some(saved.id),
        source: None,
    };
    let id = store.audit().record(project, &call).await.unwrap();
    let entry = store.audit().get(id).await.unwrap().unwrap();
    assert_eq!(entry.decision, call.decision);
    assert_eq!(entry.decision.decided_by(), format!("rule:{}", saved.id));
    // `uses` counts rows whose stored `decided_by` column reads `rule:<id>`.
    store.audit().record(project, &call).await.unwrap();
    assert_eq!(store.rules().uses(project).await.unwrap(), [(saved.id, 2)]);
}

#[tokio::test]
async fn command_settings_default_off_and_are_kept_per_project() {
    let Fixture {
        data,
        folder: _folder,
        store,
        project,
    } = Fixture::new().await;
    let settings = store.command_options();
    assert_eq!(
        settings.load(project.id).await.unwrap(),
        ProjectCommandSettings::default()
    );
    let chosen = ProjectCommandSettings {
        network: true,
        writable: vec![PathBuf::from("/srv/cache")],
        env_pass: vec!["DATABASE_URL".into(), "REDIS_URL".into()],
    };
    settings.save(project.id, &chosen).await.unwrap();
    for bad in [
        ProjectCommandSettings {
            writable: vec!["relative/dir".into()],
            ..ProjectCommandSettings::default()
        },
        ProjectCommandSettings {
            env_pass: vec!["A=B".into()],
            ..ProjectCommandSettings::default()
        },
        ProjectCommandSettings {
            env_pass: vec![String::new()],
            ..ProjectCommandSettings::default()
        },
    ] {
        assert!(matches!(
            settings.save(project.id, &bad).await,
            Err(StoreError::Invalid { .. })
        ));
    }
    store.close().await;
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    assert_eq!(
        store.command_options().load(project.id).await.unwrap(),
        chosen
    );
    let other = tempfile::tempdir().unwrap();
    let other = store.projects().open(other.path()).await.unwrap();
    assert_eq!(
        store.command_options().load(other.id).await.unwrap(),
        ProjectCommandSettings::default()
    );
    store.projects().remove(project.id).await.unwrap();
    assert_eq!(
        store.command_options().load(project.id).await.unwrap(),
        ProjectCommandSettings::default()
    );
}
