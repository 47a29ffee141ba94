//! The checkpoints' index and set-aside versions of conversations, in a real database.

use gantry_store::{
    ChangeOrigin, FileState, NewChange, NewMessage, NewRestore, RestoreKind, RestoredFile, Role,
};

use super::support::Fixture;

fn kept(hash: &str) -> FileState {
    FileState::Kept {
        hash: hash.repeat(64 / hash.len()),
        mode: 0o644,
        size: 3,
    }
}

#[tokio::test]
async fn a_restore_marks_what_it_undoes_and_its_undo_clears_the_marks() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let project = fixture.project.id;
    let session = store.sessions().create(project, "s", None).await.unwrap();
    let index = store.checkpoints();
    index
        .record(
            project,
            &[
                NewChange {
                    session: session.id,
                    turn: 0,
                    call_id: "c1".into(),
                    tool: "write_file".into(),
                    path: "a.txt".into(),
                    before: FileState::Absent,
                    after: kept("a"),
                },
                NewChange {
                    session: session.id,
                    turn: 0,
                    call_id: "c2".into(),
                    tool: "run_command".into(),
                    path: "b.txt".into(),
                    before: kept("b"),
                    after: FileState::Unkept {
                        mode: 0o600,
                        size: 1 << 30,
                    },
                },
            ],
        )
        .await
        .unwrap();
    let rows = index.changes(session.id, None).await.unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].origin, ChangeOrigin::Call { id: "c1".into() });
    assert_eq!(
        rows[1].after,
        FileState::Unkept {
            mode: 0o600,
            size: 1 << 30
        }
    );

    let restore = index
        .record_restore(&NewRestore {
            project,
            session: session.id,
            kind: RestoreKind::File,
            label: "a.txt".into(),
            turn: 0,
            files: vec![RestoredFile {
                path: "a.txt".into(),
                before: kept("a"),
                after: FileState::Absent,
            }],
            reverts: vec![rows[0].id],
        })
        .await
        .unwrap();
    let rows = index.changes(session.id, None).await.unwrap();
    assert_eq!(rows[0].reverted_by, Some(restore));
    assert_eq!(rows[1].reverted_by, None);
    assert_eq!(index.restores(session.id).await.unwrap().len(), 1);

    // Undoing the restore: its row is marked, and the change it had undone no longer is.
    let undo = index
        .record_restore(&NewRestore {
            project,
            session: session.id,
            kind: RestoreKind::Undo,
            label: restore.to_string(),
            turn: 0,
            files: vec![RestoredFile {
                path: "a.txt".into(),
                before: FileState::Absent,
                after: kept("a"),
            }],
            reverts: vec![rows[2].id],
        })
        .await
        .unwrap();
    let rows = index.changes(session.id, None).await.unwrap();
    assert_eq!(rows[0].reverted_by, None);
    assert_eq!(rows[2].reverted_by, Some(undo));
    let mut hashes = index.hashes(project).await.unwrap();
    hashes.sort();
    assert_eq!(hashes, ["a".repeat(64), "b".repeat(64)]);

    // Accepting a file forgets its rows; deleting the session forgets the rest.
    assert_eq!(index.accept(session.id, Some("a.txt")).await.unwrap(), 3);
    assert!(index.restores(session.id).await.unwrap().is_empty());
    assert_eq!(index.count(project).await.unwrap(), 1);
    store.sessions().delete(session.id).await.unwrap();
    assert_eq!(index.count(project).await.unwrap(), 0);
}

#[tokio::test]
async fn a_rewound_conversation_is_set_aside_and_brought_back_with_its_changes() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let project = fixture.project.id;
    let session = store.sessions().create(project, "s", None).await.unwrap();
    let say = |role, text: &str| NewMessage::text(role, text);
    for (role, text) in [
        (Role::User, "first"),
        (Role::Assistant, "One."),
        (Role::User, "second"),
        (Role::Assistant, "Two."),
    ] {
        store
            .sessions()
            .append_message(session.id, &say(role, text))
            .await
            .unwrap();
    }
    let change = |turn, call: &str| NewChange {
        session: session.id,
        turn,
        call_id: call.into(),
        tool: "write_file".into(),
        path: format!("{call}.txt"),
        before: FileState::Absent,
        after: kept("c"),
    };
    let index = store.checkpoints();
    index
        .record(project, &[change(0, "early"), change(2, "late")])
        .await
        .unwrap();

    let branches = store.branches();
    let aside = branches
        .set_aside(session.id, 2, "second", None)
        .await
        .unwrap()
        .unwrap();
    let live: Vec<String> = store
        .sessions()
        .messages(session.id)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|message| message.message.content)
        .collect();
    assert_eq!(live, ["first", "One."]);
    let live_changes = index.changes(session.id, None).await.unwrap();
    assert_eq!(live_changes.len(), 1);
    assert_eq!(
        index.changes(session.id, Some(aside)).await.unwrap().len(),
        1
    );
    let listed = branches.list(session.id).await.unwrap();
    assert_eq!(
        (
            listed[0].from_ordinal,
            listed[0].title.as_str(),
            listed[0].message_count
        ),
        (2, "second", 2)
    );
    assert_eq!(
        store
            .sessions()
            .get(session.id)
            .await
            .unwrap()
            .unwrap()
            .message_count,
        2
    );

    // The conversation goes on, then the user returns to the version set aside.
    store
        .sessions()
        .append_message(session.id, &say(Role::User, "second, edited"))
        .await
        .unwrap();
    index.record(project, &[change(2, "newer")]).await.unwrap();
    let other = branches
        .bring_back(session.id, aside, "second, edited", None)
        .await
        .unwrap()
        .unwrap();
    let live: Vec<String> = store
        .sessions()
        .messages(session.id)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|message| message.message.content)
        .collect();
    assert_eq!(live, ["first", "One.", "second", "Two."]);
    let paths: Vec<String> = index
        .changes(session.id, None)
        .await
        .unwrap()
        .into_iter()
        .map(|change| change.path)
        .collect();
    assert_eq!(paths, ["early.txt", "late.txt"]);
    let listed = branches.list(session.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, other);
    assert_eq!(listed[0].title, "second, edited");
    assert!(
        branches
            .set_aside(session.id, 9, "nothing", None)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        branches
            .bring_back(session.id, aside, "x", None)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn the_limits_forget_the_oldest_turn_first_and_everything_past_the_age() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let project = fixture.project.id;
    let session = store.sessions().create(project, "s", None).await.unwrap();
    let change = |turn, call: &str| NewChange {
        session: session.id,
        turn,
        call_id: call.into(),
        tool: "write_file".into(),
        path: format!("{call}.txt"),
        before: FileState::Absent,
        after: kept("d"),
    };
    let index = store.checkpoints();
    index
        .record(project, &[change(0, "a"), change(0, "b"), change(2, "c")])
        .await
        .unwrap();
    assert_eq!(index.prune_oldest_turn(project).await.unwrap(), 2);
    let left: Vec<String> = index
        .changes(session.id, None)
        .await
        .unwrap()
        .into_iter()
        .map(|change| change.path)
        .collect();
    assert_eq!(left, ["c.txt"]);
    assert_eq!(
        index
            .prune_before(project, gantry_store::Timestamp(0))
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        index
            .prune_before(project, gantry_store::Timestamp(i64::MAX))
            .await
            .unwrap(),
        1
    );
    assert_eq!(index.prune_oldest_turn(project).await.unwrap(), 0);
}
