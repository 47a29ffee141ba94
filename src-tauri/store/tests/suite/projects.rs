//! Projects, their policies and their approved MCP files; removal cascades and spares the folder.

use std::path::Path;

use gantry_store::{AuditFilter, NewMessage, Role, StoreError};
use gantry_tools::{DecisionKind, ObservationKind, Policy, PolicySet, ToolManager, builtin};

use super::support::{Fixture, record};

#[tokio::test]
async fn opening_a_folder_remembers_it_once_by_canonical_path() {
    let fixture = Fixture::new().await;
    let projects = fixture.store.projects();
    let first = &fixture.project;
    assert_eq!(first.root, fixture.folder.path().canonicalize().unwrap());
    assert_eq!(
        first.name,
        fixture.folder.path().file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(first.created_at, first.last_opened_at);

    // The same folder through another spelling is the same project, opened again.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let dotted = fixture.folder.path().join(".");
    let again = projects.open(&dotted).await.unwrap();
    assert_eq!(again.id, first.id);
    assert_eq!(again.created_at, first.created_at);
    assert!(again.last_opened_at > first.last_opened_at);
    assert_eq!(projects.list().await.unwrap().len(), 1);
    assert_eq!(projects.find(&dotted).await.unwrap().unwrap().id, first.id);
    assert_eq!(
        projects.get(first.id).await.unwrap().unwrap().root,
        first.root
    );
}

#[tokio::test]
async fn list_puts_the_last_opened_first_and_rename_sticks() {
    let fixture = Fixture::new().await;
    let projects = fixture.store.projects();
    let other = tempfile::tempdir().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let second = projects.open(other.path()).await.unwrap();
    let ids: Vec<_> = projects
        .list()
        .await
        .unwrap()
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, [second.id, fixture.project.id]);

    projects.rename(second.id, "  Other  ").await.unwrap();
    assert_eq!(
        projects.get(second.id).await.unwrap().unwrap().name,
        "Other"
    );
    assert!(matches!(
        projects.rename(second.id, " ").await,
        Err(StoreError::Invalid { .. })
    ));
    assert!(matches!(
        projects.rename(gantry_store::ProjectId(9_999), "x").await,
        Err(StoreError::NotFound { .. })
    ));
}

#[tokio::test]
async fn a_missing_folder_or_a_file_is_not_a_project() {
    let fixture = Fixture::new().await;
    let projects = fixture.store.projects();
    let file = fixture.folder.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    for root in [Path::new("/no/such/folder"), file.as_path()] {
        let error = projects.open(root).await.unwrap_err();
        assert!(matches!(error, StoreError::BadRoot { .. }), "{error}");
    }
    assert!(
        projects
            .find(Path::new("/no/such/folder"))
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn removing_a_project_removes_its_rows_and_never_its_folder() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let id = fixture.project.id;
    std::fs::write(fixture.folder.path().join("keep.txt"), "mine").unwrap();

    let mut policies = PolicySet::new();
    policies.set("run_command", Policy::Auto);
    store.policies().save(id, &policies).await.unwrap();
    store
        .mcp_trust()
        .approve(id, Path::new(".mcp.json"), "sha256:1")
        .await
        .unwrap();
    let session = store.sessions().create(id, "s", None).await.unwrap();
    store
        .sessions()
        .append_message(session.id, &NewMessage::text(Role::User, "hi"))
        .await
        .unwrap();
    let row = record(
        "t",
        Some(session.id.to_string()),
        DecisionKind::Auto,
        ObservationKind::Ok,
    );
    store.audit().record(id, &row).await.unwrap();

    let removed = store.projects().remove(id).await.unwrap().unwrap();
    assert_eq!(removed.id, id);
    assert!(store.projects().remove(id).await.unwrap().is_none());
    assert!(store.projects().list().await.unwrap().is_empty());
    assert!(store.policies().load(id).await.unwrap().is_empty());
    assert!(store.mcp_trust().list(id).await.unwrap().is_empty());
    assert!(store.sessions().get(session.id).await.unwrap().is_none());
    assert!(
        store
            .sessions()
            .messages(session.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        store
            .audit()
            .list(id, &AuditFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        std::fs::read_to_string(fixture.folder.path().join("keep.txt")).unwrap(),
        "mine"
    );
}

#[tokio::test]
async fn policies_round_trip_and_a_save_replaces_the_set() {
    let fixture = Fixture::new().await;
    let policies = fixture.store.policies();
    let id = fixture.project.id;
    assert!(policies.load(id).await.unwrap().is_empty());

    let mut set = PolicySet::new();
    set.set("write_file", Policy::Auto);
    set.set("run_command", Policy::Ask);
    set.set("ask_user", Policy::Disabled);
    policies.save(id, &set).await.unwrap();
    assert_eq!(policies.load(id).await.unwrap(), set);

    set.clear("run_command");
    policies.save(id, &set).await.unwrap();
    assert_eq!(policies.load(id).await.unwrap(), set);

    let error = policies
        .save(gantry_store::ProjectId(id.0 + 1), &set)
        .await
        .unwrap_err();
    assert!(matches!(error, StoreError::NotFound { .. }), "{error}");
}

#[tokio::test]
async fn a_manager_loads_saved_policies_and_saves_its_changes() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let id = fixture.project.id;
    let manager = ToolManager::new(fixture.folder.path())
        .unwrap()
        .with_policies(store.policies().load(id).await.unwrap());
    builtin::register_builtins(&manager).unwrap();
    assert_eq!(manager.policy("ask_user").unwrap(), Policy::Auto);
    manager.set_policy("ask_user", Policy::Disabled).unwrap();
    store
        .policies()
        .save(id, &manager.policies())
        .await
        .unwrap();

    let reopened = ToolManager::new(fixture.folder.path())
        .unwrap()
        .with_policies(store.policies().load(id).await.unwrap());
    builtin::register_builtins(&reopened).unwrap();
    assert_eq!(reopened.policy("ask_user").unwrap(), Policy::Disabled);
}

#[tokio::test]
async fn mcp_approvals_are_pinned_to_the_content_hash() {
    let fixture = Fixture::new().await;
    let trust = fixture.store.mcp_trust();
    let id = fixture.project.id;
    let path = Path::new(".mcp.json");
    assert!(!trust.is_approved(id, path, "h1").await.unwrap());
    trust.approve(id, path, "h1").await.unwrap();
    assert!(trust.is_approved(id, path, "h1").await.unwrap());
    assert!(
        !trust.is_approved(id, path, "h2").await.unwrap(),
        "changed file"
    );
    assert!(
        !trust
            .is_approved(id, Path::new("other.json"), "h1")
            .await
            .unwrap()
    );

    trust.approve(id, path, "h2").await.unwrap();
    assert!(!trust.is_approved(id, path, "h1").await.unwrap());
    assert!(trust.is_approved(id, path, "h2").await.unwrap());
    let list = trust.list(id).await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].content_hash, "h2");

    assert!(trust.revoke(id, path).await.unwrap());
    assert!(!trust.revoke(id, path).await.unwrap());
    assert!(!trust.is_approved(id, path, "h2").await.unwrap());
    assert!(trust.approve(id, path, "").await.is_err());
}
