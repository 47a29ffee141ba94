//! Sessions and their transcripts.

use std::time::Duration;

use gantry_store::{
    AuditFilter, MessageKind, MessageStatus, NewMessage, Role, SessionId, StoreError,
};
use gantry_tools::{DecisionKind, ObservationKind};
use serde_json::json;

use super::support::{Fixture, record};

async fn tick() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

#[tokio::test]
async fn sessions_are_listed_by_last_update_and_can_be_renamed_touched_and_deleted() {
    let fixture = Fixture::new().await;
    let sessions = fixture.store.sessions();
    let project = fixture.project.id;
    let first = sessions
        .create(project, "first", Some("gpt-a"))
        .await
        .unwrap();
    tick().await;
    let second = sessions.create(project, "second", None).await.unwrap();
    assert_eq!(first.message_count, 0);
    assert_eq!(first.model.as_deref(), Some("gpt-a"));
    let order = |list: Vec<gantry_store::Session>| list.iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(
        order(sessions.list(project).await.unwrap()),
        [second.id, first.id]
    );

    tick().await;
    sessions.touch(first.id).await.unwrap();
    assert_eq!(
        order(sessions.list(project).await.unwrap()),
        [first.id, second.id]
    );

    // Renaming does not move a session: the list follows the last message, not the title.
    tick().await;
    sessions.rename(second.id, "renamed").await.unwrap();
    let listed = sessions.list(project).await.unwrap();
    assert_eq!(order(listed.clone()), [first.id, second.id]);
    assert_eq!(listed[1].title, "renamed");
    tick().await;
    sessions
        .append_message(second.id, &NewMessage::text(Role::User, "again"))
        .await
        .unwrap();
    assert_eq!(
        order(sessions.list(project).await.unwrap()),
        [second.id, first.id]
    );

    // Another project's sessions stay out of the list.
    let other_folder = tempfile::tempdir().unwrap();
    let other = fixture
        .store
        .projects()
        .open(other_folder.path())
        .await
        .unwrap();
    sessions.create(other.id, "elsewhere", None).await.unwrap();
    assert_eq!(sessions.list(project).await.unwrap().len(), 2);

    assert!(sessions.delete(first.id).await.unwrap());
    assert!(!sessions.delete(first.id).await.unwrap());
    assert_eq!(order(sessions.list(project).await.unwrap()), [second.id]);
    for error in [
        sessions.rename(first.id, "x").await.unwrap_err(),
        sessions.touch(first.id).await.unwrap_err(),
    ] {
        assert!(matches!(
            error,
            StoreError::NotFound {
                what: "session",
                ..
            }
        ));
    }
}

#[tokio::test]
async fn a_summary_keeps_its_kind_and_only_a_summary_can_be_edited() {
    let fixture = Fixture::new().await;
    let sessions = fixture.store.sessions();
    let session = sessions
        .create(fixture.project.id, "chat", None)
        .await
        .unwrap();
    sessions
        .append_message(session.id, &NewMessage::text(Role::User, "hi"))
        .await
        .unwrap();
    let summary = NewMessage {
        kind: MessageKind::Summary,
        ..NewMessage::text(Role::Assistant, "notes")
    };
    let stored = sessions.append_message(session.id, &summary).await.unwrap();
    assert_eq!(stored.message.kind, MessageKind::Summary);
    sessions
        .replace_summary(session.id, 1, "better notes")
        .await
        .unwrap();
    let error = sessions.replace_summary(session.id, 0, "rewritten").await;
    assert!(
        matches!(error, Err(StoreError::Invalid { .. })),
        "{error:?}"
    );
    let messages = sessions.messages(session.id).await.unwrap();
    assert_eq!(messages[0].message.content.as_deref(), Some("hi"));
    assert_eq!(messages[0].message.kind, MessageKind::Normal);
    assert_eq!(messages[1].message.content.as_deref(), Some("better notes"));
    assert_eq!(messages[1].message.kind, MessageKind::Summary);
}

#[tokio::test]
async fn messages_keep_every_field_in_order() {
    let fixture = Fixture::new().await;
    let sessions = fixture.store.sessions();
    let session = sessions
        .create(fixture.project.id, "chat", None)
        .await
        .unwrap();
    let tool_calls = json!([{
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": "{\"path\":\"a.rs\"}"}
    }]);
    let transcript = vec![
        NewMessage::text(Role::System, "be brief"),
        NewMessage {
            attachments: Some(json!([{"kind": "file", "path": "a.rs", "text": "1\tfn main() {}"}])),
            ..NewMessage::text(Role::User, "read a.rs")
        },
        NewMessage {
            role: Role::Assistant,
            content: None,
            tool_calls: Some(tool_calls.clone()),
            tool_call_id: None,
            reasoning: Some("the user wants a.rs".into()),
            prompt_tokens: Some(120),
            completion_tokens: Some(15),
            status: MessageStatus::Complete,
            outcome: None,
            kind: MessageKind::Normal,
            attachments: None,
        },
        NewMessage {
            tool_call_id: Some("call_1".into()),
            outcome: Some(json!({"kind": "ok", "durationMs": 12, "diff": "--- a\n+++ b\n"})),
            ..NewMessage::text(Role::Tool, "fn main() {}")
        },
        NewMessage {
            status: MessageStatus::Cancelled,
            ..NewMessage::text(Role::Assistant, "It def")
        },
    ];
    let before = sessions.get(session.id).await.unwrap().unwrap().updated_at;
    tick().await;
    for (ordinal, message) in transcript.iter().enumerate() {
        let stored = sessions.append_message(session.id, message).await.unwrap();
        assert_eq!(stored.ordinal as usize, ordinal);
        assert_eq!(&stored.message, message);
    }
    let stored = sessions.messages(session.id).await.unwrap();
    let back: Vec<NewMessage> = stored.iter().map(|m| m.message.clone()).collect();
    assert_eq!(back, transcript);
    assert_eq!(
        stored.iter().map(|m| m.ordinal).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    let after = sessions.get(session.id).await.unwrap().unwrap();
    assert_eq!(after.message_count, 5);
    assert!(after.updated_at > before, "appending touches the session");

    let missing = SessionId(session.id.0 + 100);
    let error = sessions
        .append_message(missing, &NewMessage::text(Role::User, "?"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::NotFound {
                what: "session",
                ..
            }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_long_session_is_read_a_page_at_a_time_and_a_page_never_starts_on_a_tool_result() {
    let fixture = Fixture::new().await;
    let sessions = fixture.store.sessions();
    let session = sessions
        .create(fixture.project.id, "long", None)
        .await
        .unwrap();
    // 100 turns: user, assistant calling a tool, five results, answer (8 messages each).
    let mut transcript = Vec::new();
    for turn in 0..100 {
        transcript.push(NewMessage::text(Role::User, format!("question {turn}")));
        transcript.push(NewMessage {
            tool_calls: Some(json!([])),
            ..NewMessage::text(Role::Assistant, "")
        });
        for call in 0..5 {
            transcript.push(NewMessage {
                tool_call_id: Some(format!("call_{turn}_{call}")),
                ..NewMessage::text(Role::Tool, "result")
            });
        }
        transcript.push(NewMessage::text(Role::Assistant, format!("answer {turn}")));
    }
    assert_eq!(
        sessions
            .append_messages(session.id, &transcript)
            .await
            .unwrap(),
        800
    );
    assert_eq!(sessions.messages(session.id).await.unwrap().len(), 800);

    // The tail: 800 - 10 = 790 is a tool result (turn 98's fifth); back to its call at 785.
    let start = sessions.page_start(session.id, None, 10).await.unwrap();
    assert_eq!(start, 785);
    let tail = sessions
        .messages_between(session.id, start, None)
        .await
        .unwrap();
    assert_eq!(tail.len(), 15);
    assert_eq!(tail[0].message.role, Role::Assistant);
    assert_eq!(tail.last().unwrap().ordinal, 799);
    assert_eq!(sessions.users_before(session.id, start).await.unwrap(), 99);

    // The page before it: 785 - 8 = 777 is turn 97's call, where it starts.
    let before = sessions
        .page_start(session.id, Some(start), 8)
        .await
        .unwrap();
    assert_eq!(before, 777);
    let page = sessions
        .messages_between(session.id, before, Some(start))
        .await
        .unwrap();
    assert_eq!(
        page.iter().map(|m| m.ordinal).collect::<Vec<_>>(),
        (777..785).collect::<Vec<_>>()
    );
    assert_eq!(
        sessions.page_start(session.id, Some(5), 100).await.unwrap(),
        0
    );
    assert_eq!(sessions.users_before(session.id, 0).await.unwrap(), 0);
    assert_eq!(sessions.users_before(session.id, 9).await.unwrap(), 2);
    let one = sessions.message_at(session.id, 8).await.unwrap().unwrap();
    assert_eq!(one.message.content.as_deref(), Some("question 1"));
    assert!(
        sessions
            .message_at(session.id, 800)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn concurrent_appends_get_distinct_ordinals() {
    let fixture = Fixture::new().await;
    let session = fixture
        .store
        .sessions()
        .create(fixture.project.id, "busy", None)
        .await
        .unwrap();
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let store = fixture.store.clone();
            tokio::spawn(async move {
                for n in 0..50 {
                    let text = format!("writer {writer} message {n}");
                    store
                        .sessions()
                        .append_message(session.id, &NewMessage::text(Role::User, text))
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    let messages = fixture.store.sessions().messages(session.id).await.unwrap();
    let ordinals: Vec<u32> = messages.iter().map(|m| m.ordinal).collect();
    assert_eq!(ordinals, (0..200).collect::<Vec<u32>>());
}

#[tokio::test]
async fn deleting_a_session_deletes_its_messages_and_audit_rows_only() {
    let fixture = Fixture::new().await;
    let store = &fixture.store;
    let project = fixture.project.id;
    let doomed = store
        .sessions()
        .create(project, "doomed", None)
        .await
        .unwrap();
    let kept = store
        .sessions()
        .create(project, "kept", None)
        .await
        .unwrap();
    for session in [doomed.id, kept.id] {
        store
            .sessions()
            .append_message(session, &NewMessage::text(Role::User, "hi"))
            .await
            .unwrap();
        let row = record(
            "t",
            Some(session.to_string()),
            DecisionKind::Auto,
            ObservationKind::Ok,
        );
        store.audit().record(project, &row).await.unwrap();
    }
    store
        .audit()
        .record(
            project,
            &record("t", None, DecisionKind::Auto, ObservationKind::Ok),
        )
        .await
        .unwrap();

    assert!(store.sessions().delete(doomed.id).await.unwrap());
    assert!(
        store
            .sessions()
            .messages(doomed.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.sessions().messages(kept.id).await.unwrap().len(), 1);
    let rows = store
        .audit()
        .list(project, &AuditFilter::default())
        .await
        .unwrap();
    let sessions: Vec<_> = rows.iter().map(|r| r.session_id).collect();
    assert_eq!(sessions, [None, Some(kept.id)]);
}

#[tokio::test]
async fn search_finds_text_and_tool_arguments_in_the_projects_sessions_only() {
    let fixture = Fixture::new().await;
    let sessions = fixture.store.sessions();
    let project = fixture.project.id;
    let first = sessions.create(project, "Build", None).await.unwrap();
    let second = sessions.create(project, "Docs", None).await.unwrap();
    let say = |session, role, text: &str| {
        let message = NewMessage::text(role, text);
        async move { sessions.append_message(session, &message).await.unwrap() }
    };
    say(first.id, Role::User, "Fix the flaky build on Debian").await;
    say(first.id, Role::Assistant, "The cache was stale.").await;
    let call = NewMessage {
        content: None,
        tool_calls: Some(json!([{
            "id": "c1", "type": "function",
            "function": {"name": "write_file", "arguments": "{\"path\":\"docs/zebrafish.md\"}"}
        }])),
        ..NewMessage::text(Role::Assistant, "")
    };
    say(second.id, Role::User, "Write the docs").await;
    let called = sessions.append_message(second.id, &call).await.unwrap();

    // Words and prefixes, all of them, in any session of the project.
    let hits = sessions.search(project, "flak debian", 20).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(hits[0].session_id, first.id);
    assert_eq!(hits[0].session_title, "Build");
    assert_eq!(hits[0].ordinal, 0);
    assert_eq!(hits[0].role, Role::User);
    assert_eq!(
        hits[0].snippet,
        "Fix the \u{2}flaky\u{3} build on \u{2}Debian\u{3}"
    );
    // A tool call's arguments are searched too.
    let hits = sessions.search(project, "zebrafish", 20).await.unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!(
        (hits[0].session_id, hits[0].message_id, hits[0].ordinal),
        (second.id, called.id, 1)
    );
    // FTS syntax in the words is just text; nothing matches nothing.
    assert!(
        sessions
            .search(project, "\"OR NEAR(", 20)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        sessions
            .search(project, "   ", 20)
            .await
            .unwrap()
            .is_empty()
    );
    // Other projects' sessions are not searched; deleted sessions leave the index.
    let other_folder = tempfile::tempdir().unwrap();
    let other = fixture
        .store
        .projects()
        .open(other_folder.path())
        .await
        .unwrap();
    assert!(
        sessions
            .search(other.id, "debian", 20)
            .await
            .unwrap()
            .is_empty()
    );
    sessions.delete(first.id).await.unwrap();
    assert!(
        sessions
            .search(project, "debian", 20)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(sessions.search(project, "docs", 20).await.unwrap().len(), 2);
}
