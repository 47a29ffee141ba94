//! The chat end to end against a scripted provider: a turn's events and what the store keeps,
//! one turn per session and Stop, switching sessions, restored messages, paging and replay,
//! edit-and-resend, compaction, and attachments.

use std::time::{Duration, Instant};

use crate::project::open::{People, open_tools};
use gantry_agent::{ProviderConfig, ProviderOptions};
use gantry_scripted_provider::{Expect, Script, ScriptedProvider, Turn};
use serde_json::json;

use super::*;
use crate::events::RecordingSink;
use crate::settings::COMPACT_AT_PERCENT;

struct Rig {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    sink: Arc<RecordingSink>,
    chat: ProjectChat,
    store: Store,
    provider: gantry_scripted_provider::Handle,
}

async fn rig(turns: Vec<Turn>) -> Rig {
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let opened = open_tools(store.clone(), project.path(), People::default())
        .await
        .unwrap();
    let sink = Arc::new(RecordingSink::default());
    let chat = ProjectChat::open(
        7,
        opened.project.id,
        store.clone(),
        Arc::new(opened.manager),
        opened.checkpoints,
        sink.clone(),
    )
    .await
    .unwrap();
    let provider = ScriptedProvider::start(Script::new(turns)).await.unwrap();
    Rig {
        _dirs: (project, data),
        sink,
        chat,
        store,
        provider,
    }
}

impl Rig {
    fn provider(&self) -> Provider {
        self.provider_with_window(32_000)
    }

    fn provider_with_window(&self, window: u32) -> Provider {
        let config = ProviderConfig::new(
            "scripted",
            self.provider.base_url(),
            "scripted-model",
            None,
            window,
        );
        Provider::new(config, None, ProviderOptions::default()).unwrap()
    }

    /// The turn events sent so far, as JSON.
    fn events(&self) -> Vec<serde_json::Value> {
        self.sink.named(ChatEvent::NAME)
    }

    async fn finished(&self, turns: usize) -> Vec<serde_json::Value> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let events = self.events();
            let done = events
                .iter()
                .filter(|event| event["event"]["type"] == "turn_finished")
                .count();
            if done >= turns {
                return events;
            }
            assert!(Instant::now() < deadline, "{events:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_streams_events_tagged_with_its_session_and_is_saved() {
    let rig = rig(vec![Turn::text("Hello there.")]).await;
    assert_eq!(rig.chat.view().await.unwrap().session, None);
    let id = rig.chat.send("hi", rig.provider()).await.unwrap();
    let events = rig.finished(1).await;
    assert!(
        events
            .iter()
            .all(|event| event["projectId"] == 7 && event["sessionId"] == id.as_str())
    );
    let text: String = events
        .iter()
        .filter(|event| event["event"]["type"] == "text_delta")
        .map(|event| event["event"]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(text, "Hello there.");
    assert_eq!(
        events[0]["event"],
        json!({"type": "turn_started", "sessionId": id})
    );

    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.session.as_ref().unwrap().id, id);
    assert_eq!(view.session.unwrap().title, "hi");
    assert_eq!(view.messages.len(), 2);
    assert_eq!(view.messages[1].content, "Hello there.");
    assert!(!view.running);
    rig.provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_turn_at_a_time_and_stop_ends_it() {
    let rig = rig(vec![Turn::hang(), Turn::text("Back.")]).await;
    rig.chat.send("wait", rig.provider()).await.unwrap();
    let busy = rig.chat.send("again", rig.provider()).await.unwrap_err();
    assert_eq!(busy.kind, ErrorKind::Busy);
    assert!(rig.chat.is_running());
    // Stop once the hanging request is at the provider (a stop before it is sent would leave
    // the hanging reply queued for the next message).
    rig.provider
        .wait_for_requests(1, Duration::from_secs(10))
        .await
        .unwrap();
    rig.chat.cancel();
    let events = rig.finished(1).await;
    let last = &events.last().unwrap()["event"];
    assert_eq!(last["type"], "turn_finished");
    assert_eq!(last["reason"], "cancelled");
    // Right after the stop, the next message is accepted (not refused as busy).
    rig.chat
        .send("are you back?", rig.provider())
        .await
        .unwrap();
    rig.finished(2).await;
    assert_eq!(
        rig.chat
            .view()
            .await
            .unwrap()
            .messages
            .last()
            .unwrap()
            .content,
        "Back."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_switch_rename_and_delete_within_their_project_only() {
    let rig = rig(vec![
        Turn::text("One."),
        Turn::text("Two.").expect(Expect::new().message_count(2)),
    ])
    .await;
    let first = rig.chat.send("first", rig.provider()).await.unwrap();
    rig.finished(1).await;
    rig.chat.switch(None).await.unwrap();
    let second = rig.chat.send("second", rig.provider()).await.unwrap();
    rig.finished(2).await;
    assert_ne!(first, second);
    let listed: Vec<String> = rig
        .chat
        .sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, [second.clone(), first.clone()]);

    let view = rig.chat.switch(Some(first.clone())).await.unwrap();
    assert_eq!(view.messages[1].content, "One.");
    let renamed = rig.chat.rename(&first, "  Better title ").await.unwrap();
    assert_eq!(renamed.title, "Better title");
    assert_eq!(
        rig.chat.rename(&first, "   ").await.unwrap_err().kind,
        ErrorKind::InvalidInput
    );

    // Ids that are not this project's sessions are not found, whatever they look like.
    let other = rig.store.projects().open(rig._dirs.1.path()).await.unwrap();
    let foreign = rig
        .store
        .sessions()
        .create(other.id, "x", None)
        .await
        .unwrap();
    for id in [
        foreign.id.to_string(),
        "999".into(),
        "abc".into(),
        String::new(),
    ] {
        assert_eq!(
            rig.chat.switch(Some(id.clone())).await.unwrap_err().kind,
            ErrorKind::NotFound,
            "{id}"
        );
        assert_eq!(
            rig.chat.delete(&id).await.unwrap_err().kind,
            ErrorKind::NotFound,
            "{id}"
        );
    }

    // Deleting the current session leaves a fresh chat.
    let after = rig.chat.delete(&first).await.unwrap();
    assert_eq!(after.session, None);
    let left: Vec<String> = rig
        .chat
        .sessions()
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, [second]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_tool_message_keeps_its_outcome_and_events_are_numbered() {
    let rig = rig(vec![write("w1", "v1\n"), Turn::text("Wrote it.")]).await;
    rig.chat
        .tools
        .set_policy("write_file", gantry_tools::Policy::Auto)
        .unwrap();
    let id = rig.chat.send("write a.txt", rig.provider()).await.unwrap();
    let events = rig.finished(1).await;
    let seqs: Vec<u64> = events
        .iter()
        .map(|event| event["seq"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = (1..=u64::try_from(seqs.len()).unwrap()).collect();
    assert_eq!(seqs, expected, "numbered from 1 without gaps");

    // What the card showed live is what the stored message restores.
    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.seq, *seqs.last().unwrap());
    assert_eq!(view.turn, None);
    let tool = view
        .messages
        .iter()
        .find(|message| message.role == gantry_agent::Role::Tool)
        .unwrap();
    let outcome = tool.outcome.as_ref().expect("the outcome is kept");
    let live = events
        .iter()
        .find(|event| event["event"]["type"] == "tool_result")
        .unwrap();
    let observation = &live["event"]["observation"];
    assert_eq!(observation["kind"], "ok");
    assert_eq!(
        serde_json::to_value(&outcome.decision).unwrap(),
        observation["decision"]
    );
    assert_eq!(outcome.decision.kind, gantry_tools::DecisionKind::Auto);
    assert_eq!(Some(outcome.duration_ms), observation["duration"].as_u64());
    assert_eq!(outcome.diff.as_deref(), observation["diff"].as_str());
    assert!(outcome.diff.as_deref().unwrap().contains("+v1"));
    assert_eq!(
        outcome.level,
        Some(gantry_tools::PermissionLevel::Sensitive)
    );

    // A webview that missed events asks for them; too old a seq is a gap.
    let since = rig.chat.events_since(&id, 2).await.unwrap();
    assert!(since.complete);
    assert_eq!(since.events.len(), seqs.len() - 2);
    assert_eq!(since.events[0].seq, 3);
    assert!(!rig.chat.events_since(&id, 10_000).await.unwrap().complete);
    assert_eq!(
        rig.chat.events_since("999", 0).await.unwrap_err().kind,
        ErrorKind::NotFound
    );
    rig.provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_session_opens_at_its_tail_and_pages_back_with_long_results_shortened() {
    use gantry_store::{NewMessage, Role as StoredRole};
    let rig = rig(vec![]).await;
    let session = rig
        .store
        .sessions()
        .create(rig.chat.store_project(), "long", None)
        .await
        .unwrap();
    // 1,000 turns of user, a call, its result (a long one every other turn), answer.
    let long = "line of output\n".repeat(1000);
    let mut transcript = Vec::new();
    for turn in 0..1000 {
        let id = format!("call_{turn}");
        transcript.push(NewMessage::text(
            StoredRole::User,
            format!("question {turn}"),
        ));
        transcript.push(NewMessage {
            tool_calls: Some(json!([{"id": id, "type": "function",
                "function": {"name": "read_file", "arguments": "{}"}}])),
            ..NewMessage::text(StoredRole::Assistant, "")
        });
        let result = if turn % 2 == 0 {
            long.clone()
        } else {
            "short".to_owned()
        };
        transcript.push(NewMessage {
            tool_call_id: Some(id),
            ..NewMessage::text(StoredRole::Tool, result)
        });
        transcript.push(NewMessage::text(
            StoredRole::Assistant,
            format!("answer {turn}"),
        ));
    }
    rig.store
        .sessions()
        .append_messages(session.id, &transcript)
        .await
        .unwrap();
    let id = session.id.to_string();

    let view = rig.chat.switch(Some(id.clone())).await.unwrap();
    let first = view.first_ordinal;
    assert!(first > 0 && first <= 4000 - TAIL_MESSAGES, "{first}");
    assert_eq!(view.messages.len(), 4000 - first as usize);
    assert_ne!(view.messages[0].role, gantry_agent::Role::Tool);
    assert_eq!(view.users_before, first.div_ceil(4));
    assert_eq!(view.messages.last().unwrap().content, "answer 999");
    // The long results (turns 0, 2, 4…: ordinal 4t + 2) are shortened, the short ones not.
    assert!(!view.clipped.is_empty());
    for ordinal in &view.clipped {
        assert_eq!(ordinal % 8, 2, "{ordinal}");
        let message = &view.messages[(ordinal - first) as usize];
        assert!(
            message.content.len() <= HEAD_BYTES,
            "{}",
            message.content.len()
        );
        assert!(long.starts_with(&message.content));
    }
    let full = rig
        .chat
        .message_text(&id, Some(view.clipped[0]), None)
        .await
        .unwrap();
    assert_eq!(full, long);

    // Scrolling up: the page before, then the rest at once (a search hit far up).
    let page = rig.chat.messages_before(&id, first, 100).await.unwrap();
    assert!(page.first_ordinal < first && first - page.first_ordinal >= 100);
    assert_eq!(page.messages.len(), (first - page.first_ordinal) as usize);
    assert_eq!(page.users_before, page.first_ordinal.div_ceil(4));
    let rest = rig
        .chat
        .messages_before(&id, page.first_ordinal, 20_000)
        .await
        .unwrap();
    assert_eq!(rest.first_ordinal, 0);
    assert_eq!(rest.users_before, 0);
    assert_eq!(rest.messages[0].content, "question 0");
    assert_eq!(rest.clipped[0], 2);

    assert_eq!(
        rig.chat
            .message_text(&id, Some(40_000), None)
            .await
            .unwrap_err()
            .kind,
        ErrorKind::NotFound
    );
    assert_eq!(
        rig.chat
            .messages_before("999", 10, 10)
            .await
            .unwrap_err()
            .kind,
        ErrorKind::NotFound
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_turn_is_replayed_from_its_first_event() {
    let rig = rig(vec![Turn::text("First."), Turn::hang()]).await;
    let id = rig.chat.send("one", rig.provider()).await.unwrap();
    rig.finished(1).await;
    rig.chat.send("two", rig.provider()).await.unwrap();
    rig.provider
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();
    let view = rig.chat.view().await.unwrap();
    assert!(view.running);
    let turn = view.turn.expect("a running turn says where it began");
    assert_eq!(turn.first_ordinal, 2);
    let replay = rig
        .chat
        .events_since(&id, turn.start_seq - 1)
        .await
        .unwrap();
    assert!(replay.complete);
    assert_eq!(
        replay.events[0].event,
        TurnEvent::TurnStarted {
            session_id: id.clone()
        }
    );
    assert_eq!(replay.events[0].seq, turn.start_seq);
    rig.chat.cancel();
    rig.finished(2).await;
    assert_eq!(rig.chat.view().await.unwrap().turn, None);
}

fn write(id: &str, content: &str) -> Turn {
    Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
        id,
        "write_file",
        json!({"path": "a.txt", "content": content}),
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_and_resend_rewinds_the_files_and_sets_the_rest_aside_as_a_version() {
    let rig = rig(vec![
        write("w1", "v1\n"),
        Turn::text("One."),
        write("w2", "v2\n"),
        Turn::text("Two."),
        write("w3", "v3\n"),
        Turn::text("Three."),
    ])
    .await;
    rig.chat
        .tools
        .set_policy("write_file", gantry_tools::Policy::Auto)
        .unwrap();
    let file = rig._dirs.0.path().join("a.txt");
    rig.chat.send("first", rig.provider()).await.unwrap();
    rig.finished(1).await;
    rig.chat.send("second", rig.provider()).await.unwrap();
    rig.finished(2).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "v2\n");
    let changes = rig.chat.changes().await.unwrap();
    assert_eq!(changes.turns.len(), 2);

    // The user edited the file since: the rewind refuses and nothing happens.
    std::fs::write(&file, "mine\n").unwrap();
    let mut request = ResendRequest {
        user_index: 1,
        text: "second, edited".into(),
        on_conflict: crate::checkpoints::OnConflict::Refuse,
        dropped_attachments: Vec::new(),
    };
    let refused = rig.chat.resend(&request, rig.provider()).await.unwrap();
    assert!(!refused.report.applied);
    assert_eq!(refused.session_id, None);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
    assert_eq!(rig.chat.view().await.unwrap().messages.len(), 8);

    request.on_conflict = crate::checkpoints::OnConflict::Overwrite;
    let resent = rig.chat.resend(&request, rig.provider()).await.unwrap();
    assert!(resent.report.applied, "{resent:?}");
    rig.finished(3).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "v3\n");
    let view = rig.chat.view().await.unwrap();
    let users: Vec<&str> = view
        .messages
        .iter()
        .filter(|message| message.role == gantry_agent::Role::User)
        .map(|message| message.content.as_str())
        .collect();
    assert_eq!(users, ["first", "second, edited"]);
    assert_eq!(view.messages.last().unwrap().content, "Three.");
    let branches = rig.chat.branches().await.unwrap();
    assert_eq!(branches.len(), 1);
    assert_eq!(
        (branches[0].user_index, branches[0].title.as_str()),
        (1, "second")
    );
    assert_eq!(branches[0].message_count, 4);
    // The live changes are the first turn's and the new one's.
    let turns: Vec<String> = rig
        .chat
        .changes()
        .await
        .unwrap()
        .turns
        .iter()
        .map(|turn| turn.title.clone())
        .collect();
    assert_eq!(turns, ["first", "second, edited"]);

    // Back to the version set aside: its file and its messages.
    let back = rig
        .chat
        .return_to_branch(&SwitchBranchRequest {
            branch_id: branches[0].id.clone(),
            on_conflict: crate::checkpoints::OnConflict::Refuse,
        })
        .await
        .unwrap();
    assert!(back.report.applied, "{back:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "v2\n");
    assert_eq!(back.chat.messages.last().unwrap().content, "Two.");
    let branches = rig.chat.branches().await.unwrap();
    assert_eq!(branches.len(), 1);
    assert_eq!(branches[0].title, "second, edited");
    let changes = rig.chat.changes().await.unwrap();
    assert_eq!(changes.files.len(), 1);
    assert!(changes.reverted_calls.is_empty(), "{changes:?}");
    assert_eq!(changes.turns.len(), 2);
    rig.provider.verify().unwrap();
}

/// The text of a recorded request's messages, by role.
fn request_messages(request: &serde_json::Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| {
            (
                message["role"].as_str().unwrap_or_default().to_owned(),
                message["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_asks_for_a_summary_and_later_requests_continue_from_it() {
    let rig = rig(vec![
        Turn::text("One."),
        Turn::text("NOTES: the user said first; the model said One.").expect(
            Expect::new()
                .last_role("user")
                .last_contains("Summarise the conversation so far")
                .any_contains("first")
                .absent("/tools"),
        ),
        Turn::text("Two.").expect(
            Expect::new()
                .message_count(2)
                .any_contains("NOTES: the user said first"),
        ),
    ])
    .await;
    let nothing = rig.chat.compact(rig.provider()).await.unwrap_err();
    assert_eq!(
        nothing.kind,
        ErrorKind::InvalidInput,
        "a fresh chat: {nothing:?}"
    );
    rig.chat.send("first", rig.provider()).await.unwrap();
    rig.finished(1).await;
    let view = rig.chat.compact(rig.provider()).await.unwrap();
    assert_eq!(view.messages.len(), 3);
    assert!(view.messages[2].is_summary());
    assert_eq!(
        view.messages[2].content,
        "NOTES: the user said first; the model said One."
    );
    let events = rig.events();
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|event| event["event"]["type"].as_str())
        .collect();
    assert!(kinds.contains(&"compaction_started"), "{kinds:?}");
    assert!(kinds.contains(&"compacted"), "{kinds:?}");
    let context = events
        .iter()
        .rev()
        .find(|event| event["event"]["type"] == "context")
        .unwrap();
    assert_eq!(context["event"]["usage"]["summarisedMessages"], 3);

    // The user corrects the summary; the next request sends the corrected text.
    let edited = rig
        .chat
        .replace_summary(&EditSummaryRequest {
            ordinal: 2,
            text: "NOTES: the user said first (corrected)".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        edited.messages[2].content,
        "NOTES: the user said first (corrected)"
    );
    let refused = rig
        .chat
        .replace_summary(&EditSummaryRequest {
            ordinal: 0,
            text: "rewrite history".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);

    rig.chat.send("second", rig.provider()).await.unwrap();
    rig.finished(2).await;
    let requests = rig.provider.requests();
    let last = request_messages(requests[2].body.as_ref().unwrap());
    assert_eq!(last[0].0, "system");
    assert!(
        last[0].1.contains("NOTES: the user said first (corrected)"),
        "{last:?}"
    );
    assert_eq!(last[1], ("user".to_owned(), "second".to_owned()));
    // Everything stays stored.
    let view = rig.chat.view().await.unwrap();
    let texts: Vec<&str> = view.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "first",
            "One.",
            "NOTES: the user said first (corrected)",
            "second",
            "Two."
        ]
    );
    rig.provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_compacts_first_when_its_request_would_pass_the_threshold() {
    let long = "word ".repeat(6_000); // about 7,500 tokens
    let rig = rig(vec![
        Turn::text("Ack."),
        Turn::text("NOTES: a long text was pasted.")
            .expect(Expect::new().last_contains("Summarise the conversation so far")),
        Turn::text("Done.").expect(
            Expect::new()
                .message_count(2)
                .any_contains("NOTES: a long text was pasted."),
        ),
    ])
    .await;
    rig.store
        .settings()
        .set(COMPACT_AT_PERCENT.key, "50")
        .await
        .unwrap();
    rig.chat
        .send(&long, rig.provider_with_window(16_000))
        .await
        .unwrap();
    rig.finished(1).await;
    rig.chat
        .send("next", rig.provider_with_window(16_000))
        .await
        .unwrap();
    let events = rig.finished(2).await;
    let started = events
        .iter()
        .find(|event| event["event"]["type"] == "compaction_started")
        .unwrap();
    assert_eq!(started["event"]["automatic"], true);
    let view = rig.chat.view().await.unwrap();
    let kinds: Vec<bool> = view.messages.iter().map(Message::is_summary).collect();
    assert_eq!(
        kinds,
        [false, false, true, false, false],
        "summary before the new message"
    );
    assert_eq!(view.messages[3].content, "next");
    // The gauge of the last request counts the summary, not the long text.
    let context = events
        .iter()
        .rev()
        .find(|event| event["event"]["type"] == "context")
        .unwrap();
    assert!(
        context["event"]["usage"]["transcriptTokens"]
            .as_u64()
            .unwrap()
            < 100,
        "{context}"
    );
    assert_eq!(context["event"]["usage"]["compactAtTokens"], 8_000);
    rig.provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_result_too_large_for_the_window_is_cut_head_and_tail() {
    let rig = rig(vec![
        Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
            "c1",
            "read_file",
            json!({"path": "big.txt", "limit": 2000}),
        )]),
        Turn::text("Read it.").expect(
            Expect::new()
                .last_role("tool")
                .last_contains("characters to save context]")
                .last_contains("line 0001")
                .last_contains("line 1999"),
        ),
        Turn::text("Still here."),
    ])
    .await;
    let lines: String = (0..2000)
        .map(|n| format!("line {n:04} {}\n", "x".repeat(190)))
        .collect();
    std::fs::write(rig.chat.tools.root().join("big.txt"), lines).unwrap();
    rig.chat
        .send("read big.txt", rig.provider_with_window(16_000))
        .await
        .unwrap();
    let events = rig.finished(1).await;
    let finished = &events.last().unwrap()["event"];
    assert_eq!(finished["reason"], "completed", "{events:?}");
    assert!(
        events
            .iter()
            .any(|event| event["event"]["type"] == "context_shortened"),
        "the request was fitted"
    );
    // The stored result is whole (the view sends it shortened); the session goes on.
    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.clipped, [2]);
    assert!(view.messages[2].content.len() <= HEAD_BYTES);
    let id = view.session.as_ref().unwrap().id.clone();
    assert!(
        rig.chat
            .message_text(&id, Some(2), None)
            .await
            .unwrap()
            .len()
            > 300_000
    );
    // The live event carried the result's head and its whole length; the card reads the
    // whole one by its call id.
    let result = events
        .iter()
        .find(|event| event["event"]["type"] == "tool_result")
        .unwrap();
    assert!(result["clippedBytes"].as_u64().unwrap() > 300_000);
    let head = result["event"]["observation"]["text"].as_str().unwrap();
    assert!(head.len() <= HEAD_BYTES && head.contains("line 0000"));
    let call = result["event"]["id"].as_str().unwrap();
    assert!(
        rig.chat
            .message_text(&id, None, Some(call))
            .await
            .unwrap()
            .len()
            > 300_000
    );
    assert!(
        events
            .iter()
            .filter(|event| event["event"]["type"] != "tool_result")
            .all(|event| event.get("clippedBytes").is_none())
    );
    rig.chat
        .send("and now?", rig.provider_with_window(16_000))
        .await
        .unwrap();
    rig.finished(2).await;
    assert_eq!(
        rig.chat
            .view()
            .await
            .unwrap()
            .messages
            .last()
            .unwrap()
            .content,
        "Still here."
    );
    rig.provider.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compaction_threshold_is_0_or_10_to_100_and_defaults_to_80() {
    let rig = rig(vec![]).await;
    assert_eq!(
        load_compact_setting(&rig.store).await.compact_at_percent,
        80
    );
    for refused in [5, 101] {
        let error = save_compact_setting(
            &rig.store,
            CompactSettings {
                compact_at_percent: refused,
            },
        )
        .await
        .unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput, "{refused}");
    }
    for accepted in [0, 10, 65, 100] {
        let saved = save_compact_setting(
            &rig.store,
            CompactSettings {
                compact_at_percent: accepted,
            },
        )
        .await
        .unwrap();
        assert_eq!(saved.compact_at_percent, accepted);
    }
    // A value that is not a percent (written by hand) falls back to the default.
    rig.store
        .settings()
        .set(COMPACT_AT_PERCENT.key, "lots")
        .await
        .unwrap();
    assert_eq!(
        load_compact_setting(&rig.store).await.compact_at_percent,
        80
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_reach_the_provider_and_stay_with_the_message() {
    let rig = rig(vec![Turn::text("Seen.")]).await;
    let image = crate::chat::attachments::image_from_bytes(
        "dot.png",
        &[
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
            0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 0x49,
            0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0,
            0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
        ],
    )
    .unwrap();
    let file = gantry_agent::Attachment::File {
        path: "notes.md".into(),
        text: "[file: notes.md | lines 1-1/1]\n1: remember the milk".into(),
    };
    let message = Message::user("look").with_attachments(vec![file, image.clone()]);
    rig.chat.send_with(message, rig.provider()).await.unwrap();
    rig.finished(1).await;
    let requests = rig.provider.chat_requests();
    let body = requests[0].body.as_ref().unwrap();
    let user = &body["messages"][1];
    assert_eq!(user["role"], "user");
    assert!(
        user["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("1: remember the milk")
    );
    assert!(
        user["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,iVBOR")
    );
    // Stored with the message and shown again.
    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.messages[0].attachments.len(), 2);
    assert_eq!(view.messages[0].attachments[1], image);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_and_resend_keep_the_attachments_the_user_did_not_remove() {
    let rig = rig(vec![
        Turn::text("One."),
        Turn::text("Again."),
        Turn::text("Edited."),
    ])
    .await;
    let file = |name: &str| gantry_agent::Attachment::File {
        path: name.into(),
        text: format!("[file: {name} | lines 1-1/1]\n1: the text of {name}"),
    };
    let message = Message::user("look").with_attachments(vec![file("a.md"), file("b.md")]);
    rig.chat.send_with(message, rig.provider()).await.unwrap();
    rig.finished(1).await;
    let user_text = |request: usize| {
        let requests = rig.provider.chat_requests();
        let body = requests[request].body.clone().unwrap();
        body["messages"][1]["content"].to_string()
    };
    assert!(user_text(0).contains("the text of a.md") && user_text(0).contains("b.md"));

    // Retry sends the message as it was, attachments included.
    let retried = rig
        .chat
        .retry(crate::checkpoints::OnConflict::Refuse, rig.provider())
        .await
        .unwrap();
    assert!(retried.report.applied, "{retried:?}");
    rig.finished(2).await;
    let retried = user_text(1);
    assert!(
        retried.contains("the text of a.md") && retried.contains("the text of b.md"),
        "{retried}"
    );

    // Edited, with the first attachment removed: the second goes along.
    let request = ResendRequest {
        user_index: 0,
        text: "look again".into(),
        on_conflict: crate::checkpoints::OnConflict::Refuse,
        dropped_attachments: vec![0],
    };
    let resent = rig.chat.resend(&request, rig.provider()).await.unwrap();
    assert!(resent.report.applied, "{resent:?}");
    rig.finished(3).await;
    let edited = user_text(2);
    assert!(edited.contains("look again"), "{edited}");
    assert!(!edited.contains("the text of a.md"), "{edited}");
    assert!(edited.contains("the text of b.md"), "{edited}");
    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.messages[0].attachments, vec![file("b.md")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_for_a_model_without_images_is_refused_before_sending() {
    let rig = rig(vec![Turn::text("never")]).await;
    let mut config = rig.provider().config().clone();
    config.flags.images = false;
    let blind = Provider::new(config, None, ProviderOptions::default()).unwrap();
    let image = gantry_agent::Attachment::Image {
        name: "x.png".into(),
        mime: "image/png".into(),
        data: "AAAA".into(),
        width: 1,
        height: 1,
    };
    let refused = rig
        .chat
        .send_with(Message::user("see").with_attachments(vec![image]), blind)
        .await
        .unwrap_err();
    assert_eq!(refused.kind, ErrorKind::InvalidInput);
    assert!(
        refused.message.contains("does not accept images"),
        "{refused:?}"
    );
    assert!(rig.provider.chat_requests().is_empty());
    assert!(!rig.chat.is_running());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_settings_rule_written_after_the_project_opened_holds_from_the_next_turn() {
    let rig = rig(vec![
        Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "config/.env"}),
        )]),
        Turn::text("Refused.").expect(
            Expect::new().last_contains("deny rule Read(.env) of .claude/settings.json refuses"),
        ),
    ])
    .await;
    let root = rig._dirs.0.path();
    std::fs::create_dir_all(root.join(".claude")).unwrap();
    std::fs::create_dir_all(root.join("config")).unwrap();
    std::fs::write(root.join("config/.env"), "TOKEN=planted-value\n").unwrap();
    std::fs::write(
        root.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Read(.env)"]}}"#,
    )
    .unwrap();
    rig.chat.send("read it", rig.provider()).await.unwrap();
    let events = rig.finished(1).await;
    let result = events
        .iter()
        .find(|event| event["event"]["type"] == "tool_result")
        .unwrap_or_else(|| panic!("no result in {events:?}"));
    let decision = &result["event"]["observation"]["decision"];
    assert_eq!(decision["by"], "external_rule");
    assert_eq!(decision["source"], ".claude/settings.json");
    assert!(
        !serde_json::to_string(&events)
            .unwrap()
            .contains("planted-value"),
        "{events:?}"
    );
    rig.provider.verify().unwrap();
}
