//! Sessions outlive the process: reopening restores the transcript and repairs a crash.

use std::sync::Arc;

use gantry_agent::{Message, MessageStatus, Session, ToolCall, TranscriptStore, TurnEndReason};
use gantry_scripted_provider::{Expect, Script, ToolCall as ScriptedCall, Turn};
use gantry_tools::MemoryAudit;
use serde_json::json;

use super::support::{Harness, Nap, Setup, parts};

#[tokio::test]
async fn a_reopened_session_continues_where_it_left_off() {
    let script = Script::new([
        Turn::tool_calls(vec![ScriptedCall::new(
            "call_1",
            "read_file",
            json!({"path": "todo.txt"}),
        )]),
        Turn::text("Your list has one item: buy milk."),
        Turn::text("Done: milk is bought.").expect(
            Expect::new()
                .message_count(6)
                .pointer("/messages/1/content", json!("what is on my list?"))
                .pointer("/messages/3/tool_call_id", json!("call_1"))
                .last_contains("I bought it"),
        ),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            files: vec![("todo.txt", "buy milk\n".into())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, _) = h.turn("what is on my list?").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    let id = h.session.id().to_owned();
    let before = h.session.transcript().messages().to_vec();

    // A new session object, as after a restart: same store, same id.
    let audit = Arc::new(MemoryAudit::new());
    let nap = Nap::default();
    let setup = Setup::default();
    let mut reopened = Session::resume(
        parts(
            h.dir.path(),
            &h.provider,
            &setup,
            audit,
            h.store.clone(),
            &nap,
        ),
        &id,
    )
    .await
    .unwrap();
    assert_eq!(reopened.id(), id);
    assert_eq!(reopened.transcript().messages(), before.as_slice());
    let outcome = reopened
        .run_turn(
            "I bought it",
            &Default::default(),
            gantry_agent::EventSink::none(),
        )
        .await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(h.store.messages(&id).len(), 6);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn calls_left_unanswered_by_a_crash_are_answered_on_reopening() {
    let h = Harness::start(Script::new([Turn::text("Picking up again.").expect(
        Expect::new()
            .pointer("/messages/2/tool_calls/0/id", json!("call_a"))
            .pointer("/messages/3/tool_call_id", json!("call_a"))
            .pointer("/messages/4/tool_call_id", json!("call_b"))
            .pointer("/messages/4/content", json!("[cancelled] the turn was cancelled before tool 'nap' returned; it may not have run")),
    )]))
    .await;
    // What a crash mid-turn leaves: an assistant message with two calls, one result saved.
    let store = Arc::clone(&h.store);
    let id = store
        .create_session(h.session.tools().root(), None)
        .await
        .unwrap();
    let call = |id: &str, name: &str| ToolCall::new(id, name, "{}");
    let crashed = [
        Message::user("do two things"),
        Message::assistant("", vec![call("call_a", "read_file"), call("call_b", "nap")]),
        Message::tool("call_a", "first result"),
    ];
    for (ordinal, message) in crashed.iter().enumerate() {
        store.append_message(&id, ordinal, message).await.unwrap();
    }

    let audit = Arc::new(MemoryAudit::new());
    let nap = Nap::default();
    let mut session = Session::resume(
        parts(
            h.dir.path(),
            &h.provider,
            &Setup::default(),
            audit,
            store.clone(),
            &nap,
        ),
        &id,
    )
    .await
    .unwrap();
    let saved = store.messages(&id);
    assert_eq!(saved.len(), 4, "the repair is saved");
    assert_eq!(saved[3].tool_call_id.as_deref(), Some("call_b"));
    assert_eq!(saved[3].status, MessageStatus::Cancelled);

    let outcome = session
        .run_turn(
            "where were we?",
            &Default::default(),
            gantry_agent::EventSink::none(),
        )
        .await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn reopening_an_unknown_session_is_an_error() {
    let h = Harness::start(Script::default()).await;
    let audit = Arc::new(MemoryAudit::new());
    let error = Session::resume(
        parts(
            h.dir.path(),
            &h.provider,
            &Setup::default(),
            audit,
            h.store.clone(),
            &Nap::default(),
        ),
        "no-such-session",
    )
    .await
    .unwrap_err();
    assert!(error.to_string().contains("no-such-session"), "{error}");
}
