//! Several sessions of one project running turns at once on one [`ProjectChat`] (issue 21):
//! their own text, grants, cancellation, dialogs and activity; the file ledger between them;
//! the app's turn limit; a 429 in one of them.
//!
//! Each session talks to a scripted provider of its own unless the test is about sharing one,
//! so which reply goes to which session does not depend on timing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_agent::{Provider, ProviderConfig, ProviderOptions};
use gantry_scripted_provider::{
    Completion, Expect, Handle, Script, ScriptedProvider, ToolCall, Turn,
};
use gantry_store::Store;
use gantry_tools::{ApprovalDecision, Policy};
use serde_json::{Value, json};

use super::*;
use crate::dialogs::{DialogApprover, DialogPrompter, DialogRegistry};
use crate::events::{DialogRequest, RecordingSink};
use crate::project::open::{People, open_tools};
use crate::test_support::stays_for;

const PATIENCE: Duration = Duration::from_secs(15);

/// How long a turn queued under the limit is watched for a request it must not make.
const QUEUED_WINDOW: Duration = Duration::from_millis(100);

struct Rig {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: PathBuf,
    sink: Arc<RecordingSink>,
    dialogs: Arc<DialogRegistry>,
    chat: ProjectChat,
    store: Store,
    /// The chat's turn limit (the app's, in the app).
    limit: TurnLimit,
}

/// The app's id of the project every test opens.
const PROJECT: u32 = 7;

/// A project whose approvals and questions go to a dialog registry (answered by the test), its
/// turns limited to `max_turns` at once.
async fn rig(max_turns: usize) -> Rig {
    let limit = TurnLimit::new(max_turns);
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let sink = Arc::new(RecordingSink::default());
    let dialogs = Arc::new(DialogRegistry::new(sink.clone(), PATIENCE));
    let activities = Arc::new(SessionActivities::new(PROJECT, sink.clone()));
    let people = People {
        approver: Some(Arc::new(ActivityApprover {
            inner: Arc::new(DialogApprover {
                registry: dialogs.clone(),
                project_id: PROJECT,
            }),
            activities: Arc::clone(&activities),
        })),
        prompter: Some(Arc::new(ActivityPrompter {
            inner: Arc::new(DialogPrompter {
                registry: dialogs.clone(),
                project_id: PROJECT,
            }),
            activities: Arc::clone(&activities),
        })),
    };
    let opened = open_tools(store.clone(), project.path(), people)
        .await
        .unwrap();
    let tools = Arc::new(opened.manager);
    let root = tools.root().to_path_buf();
    let chat = ProjectChat::open(
        PROJECT,
        opened.project.id,
        store.clone(),
        tools,
        opened.checkpoints,
        sink.clone(),
    )
    .await
    .unwrap()
    .with_activities(activities)
    .with_turn_limit(limit.clone());
    Rig {
        _dirs: (project, data),
        root,
        sink,
        dialogs,
        chat,
        store,
        limit,
    }
}

async fn scripted(turns: Vec<Turn>) -> Handle {
    ScriptedProvider::start(Script::new(turns)).await.unwrap()
}

fn provider(handle: &Handle) -> Provider {
    let config = ProviderConfig::new(
        "scripted",
        handle.base_url(),
        "scripted-model",
        None,
        32_000,
    );
    Provider::new(config, None, ProviderOptions::default()).unwrap()
}

/// A reply that waits `millis` before its text.
fn slow(millis: u64, text: &str) -> Turn {
    Completion::new()
        .delay(Duration::from_millis(millis))
        .text(text)
        .into()
}

fn call(id: &str, tool: &str, arguments: Value) -> Turn {
    Turn::tool_calls(vec![ToolCall::new(id, tool, arguments)])
}

impl Rig {
    /// Sends `text` as the first message of a new session (from a fresh chat) and returns the
    /// session's id; the session is then the shown one.
    async fn send_in_new_session(&self, text: &str, handle: &Handle) -> String {
        self.chat.switch(None).await.unwrap();
        self.chat.send(text, provider(handle)).await.unwrap()
    }

    /// The chat events of session `id` so far.
    fn events_of(&self, id: &str) -> Vec<Value> {
        self.sink
            .named(ChatEvent::NAME)
            .into_iter()
            .filter(|event| event["sessionId"] == id)
            .collect()
    }

    fn finished_turns(&self, id: &str) -> Vec<Value> {
        self.events_of(id)
            .into_iter()
            .filter(|event| event["event"]["type"] == "turn_finished")
            .map(|event| event["event"].clone())
            .collect()
    }

    /// Waits for the `turns`th turn of session `id` to finish; returns how it ended.
    async fn finished(&self, id: &str, turns: usize) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let finished = self.finished_turns(id);
            if finished.len() >= turns {
                return finished[turns - 1].clone();
            }
            assert!(Instant::now() < deadline, "{:?}", self.events_of(id));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The `session:activity` states announced for session `id`, in order.
    fn activity(&self, id: &str) -> Vec<String> {
        self.sink
            .named(SessionActivity::NAME)
            .into_iter()
            .filter(|event| event["sessionId"] == id)
            .map(|event| {
                assert_eq!(event["projectId"], 7);
                event["state"].as_str().unwrap().to_owned()
            })
            .collect()
    }

    /// Waits until session `id`'s activity is `state`.
    async fn until_state(&self, id: &str, state: ActivityState) {
        let deadline = Instant::now() + PATIENCE;
        while self.chat.activities().state(id) != state {
            assert!(Instant::now() < deadline, "{id}: {:?}", self.activity(id));
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits for a pending dialog of session `id`.
    async fn dialog_of(&self, id: &str) -> DialogRequest {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let found = self.dialogs.pending(PROJECT).into_iter().find(|dialog| {
                let session = match dialog {
                    DialogRequest::Approval { request, .. } => request.session_id.as_deref(),
                    DialogRequest::Question { question, .. } => question.session_id.as_deref(),
                };
                session == Some(id)
            });
            if let Some(found) = found {
                return found;
            }
            assert!(Instant::now() < deadline, "no dialog of {id}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The stored texts of session `id`.
    async fn transcript(&self, id: &str) -> Vec<String> {
        self.store
            .sessions()
            .messages(id.parse().unwrap())
            .await
            .unwrap()
            .into_iter()
            .map(|message| message.message.content.unwrap_or_default())
            .collect()
    }

    async fn summary(&self, id: &str) -> SessionSummary {
        self.chat
            .sessions()
            .await
            .unwrap()
            .into_iter()
            .find(|session| session.id == id)
            .unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_run_turns_at_once_and_each_keeps_its_own_text() {
    let rig = rig(4).await;
    let alpha = scripted(vec![slow(1000, "Alpha done.")]).await;
    let beta = scripted(vec![slow(1000, "Beta done.")]).await;
    let a = rig.send_in_new_session("first", &alpha).await;
    // Leaving A for a fresh chat does not stop A's turn.
    let b = rig.send_in_new_session("second", &beta).await;
    assert_ne!(a, b);
    // Both requests are at their providers while neither turn has ended: they run at once.
    alpha.wait_for_requests(1, PATIENCE).await.unwrap();
    beta.wait_for_requests(1, PATIENCE).await.unwrap();
    assert!(rig.finished_turns(&a).is_empty() && rig.finished_turns(&b).is_empty());
    let running: Vec<(String, ActivityState)> = rig
        .chat
        .busy_sessions()
        .into_iter()
        .map(|activity| (activity.session_id, activity.state))
        .collect();
    let mut expected = vec![
        (a.clone(), ActivityState::Running),
        (b.clone(), ActivityState::Running),
    ];
    expected.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(running, expected);
    assert_eq!(rig.summary(&a).await.activity, ActivityState::Running);
    // Busy is per session: a second message to B (shown) is refused, A's turn is untouched.
    let busy = rig.chat.send("again", provider(&beta)).await.unwrap_err();
    assert_eq!(busy.kind, ErrorKind::Busy);
    assert!(rig.chat.is_running());

    assert_eq!(rig.finished(&a, 1).await["reason"], "completed");
    assert_eq!(rig.finished(&b, 1).await["reason"], "completed");
    assert_eq!(rig.transcript(&a).await, ["first", "Alpha done."]);
    assert_eq!(rig.transcript(&b).await, ["second", "Beta done."]);
    for id in [&a, &b] {
        assert_eq!(rig.activity(id), ["running", "idle"]);
        assert_eq!(rig.summary(id).await.activity, ActivityState::Idle);
    }
    assert!(rig.chat.busy_sessions().is_empty());
    alpha.verify().unwrap();
    beta.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowing_for_the_session_in_one_does_not_allow_in_another() {
    let rig = rig(4).await;
    let write = |id: &str| {
        call(
            id,
            "write_file",
            json!({"path": "shared.txt", "content": format!("from {id}\n")}),
        )
    };
    let alpha = scripted(vec![
        write("a1"),
        Turn::text("A wrote."),
        write("a2"),
        Turn::text("A wrote again."),
    ])
    .await;
    let beta = scripted(vec![write("b1"), Turn::text("B wrote.")]).await;

    let a = rig.send_in_new_session("write it", &alpha).await;
    let asked = rig.dialog_of(&a).await;
    assert!(
        matches!(asked, DialogRequest::Approval { .. }),
        "an approval"
    );
    rig.until_state(&a, ActivityState::Waiting).await;
    rig.dialogs
        .decide(PROJECT, &asked.key(), ApprovalDecision::AllowForSession)
        .unwrap();
    rig.finished(&a, 1).await;

    // B asks although A allowed the same call for its session; B waits, A does not.
    let b = rig.send_in_new_session("write it too", &beta).await;
    let asked = rig.dialog_of(&b).await;
    let DialogRequest::Approval { request, .. } = &asked else {
        panic!("an approval")
    };
    assert_eq!(request.session_id.as_deref(), Some(b.as_str()));
    rig.until_state(&b, ActivityState::Waiting).await;
    assert_eq!(rig.summary(&b).await.activity, ActivityState::Waiting);
    assert_eq!(rig.summary(&a).await.activity, ActivityState::Idle);
    assert!(rig.chat.grants().is_empty(), "B has no grant");
    rig.dialogs
        .decide(PROJECT, &asked.key(), ApprovalDecision::AllowOnce)
        .unwrap();
    rig.finished(&b, 1).await;
    assert_eq!(rig.activity(&b), ["running", "waiting", "running", "idle"]);

    // Back in A: the same grants, and its next write runs without asking.
    rig.chat.switch(Some(a.clone())).await.unwrap();
    assert_eq!(rig.chat.grants().len(), 1);
    rig.chat.send("once more", provider(&alpha)).await.unwrap();
    let ended = rig.finished(&a, 2).await;
    assert_eq!(ended["reason"], "completed");
    let asked_a = rig
        .sink
        .named(DialogRequest::NAME)
        .into_iter()
        .filter(|dialog| dialog["request"]["sessionId"] == a.as_str())
        .count();
    assert_eq!(asked_a, 1, "the second write was covered by A's grant");
    assert_eq!(
        std::fs::read_to_string(rig.root.join("shared.txt")).unwrap(),
        "from a2\n"
    );
    alpha.verify().unwrap();
    beta.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_one_session_leaves_the_other_running_to_its_end() {
    let rig = rig(4).await;
    let alpha = scripted(vec![Turn::hang()]).await;
    let beta = scripted(vec![slow(400, "B finished.")]).await;
    let a = rig.send_in_new_session("hang", &alpha).await;
    let b = rig.send_in_new_session("go on", &beta).await;
    alpha.wait_for_requests(1, PATIENCE).await.unwrap();
    beta.wait_for_requests(1, PATIENCE).await.unwrap();
    // A is not the shown session: it is stopped by its id.
    rig.chat.cancel_session(&a).await.unwrap();
    assert_eq!(rig.finished(&a, 1).await["reason"], "cancelled");
    assert!(rig.finished_turns(&b).is_empty(), "B still runs");
    assert_eq!(rig.finished(&b, 1).await["reason"], "completed");
    assert_eq!(rig.transcript(&b).await, ["go on", "B finished."]);

    // Deleting a session whose turn runs stops the turn first.
    let gamma = scripted(vec![Turn::hang()]).await;
    let c = rig.send_in_new_session("hang too", &gamma).await;
    gamma.wait_for_requests(1, PATIENCE).await.unwrap();
    let view = rig.chat.delete(&c).await.unwrap();
    assert_eq!(view.session, None);
    assert_eq!(rig.finished(&c, 1).await["reason"], "cancelled");
    assert!(rig.summary_missing(&c).await);
    let foreign = rig.chat.cancel_session("999999").await.unwrap_err();
    assert_eq!(foreign.kind, ErrorKind::NotFound);
}

impl Rig {
    async fn summary_missing(&self, id: &str) -> bool {
        self.chat
            .sessions()
            .await
            .unwrap()
            .iter()
            .all(|session| session.id != id)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_by_another_session_makes_the_next_edit_stale_and_the_model_is_told() {
    let rig = rig(4).await;
    for tool in ["write_file", "edit_file"] {
        rig.chat.tools.set_policy(tool, Policy::Auto).unwrap();
    }
    std::fs::write(rig.root.join("notes.txt"), "one\n").unwrap();
    let alpha = scripted(vec![
        call("r1", "read_file", json!({"path": "notes.txt"})),
        Turn::text("Read it."),
        call(
            "e1",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "one", "new_string": "uno"}),
        ),
        Turn::text("I will read it again.").expect(
            Expect::new()
                .last_role("tool")
                .last_contains("changed since it was last read"),
        ),
    ])
    .await;
    let beta = scripted(vec![
        call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "two\n"}),
        ),
        Turn::text("Wrote it."),
    ])
    .await;
    let a = rig.send_in_new_session("read notes", &alpha).await;
    rig.finished(&a, 1).await;
    let b = rig.send_in_new_session("overwrite notes", &beta).await;
    rig.finished(&b, 1).await;
    rig.chat.switch(Some(a.clone())).await.unwrap();
    rig.chat
        .send("now edit it", provider(&alpha))
        .await
        .unwrap();
    rig.finished(&a, 2).await;

    let result = rig
        .events_of(&a)
        .into_iter()
        .find(|event| event["event"]["type"] == "tool_result" && event["event"]["id"] == "e1")
        .unwrap();
    let text = result["event"]["observation"]["text"].as_str().unwrap();
    assert!(text.contains("changed since it was last read"), "{text}");
    assert_eq!(
        std::fs::read_to_string(rig.root.join("notes.txt")).unwrap(),
        "two\n",
        "B's write stands"
    );
    alpha.verify().unwrap();
    beta.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_limit_a_turn_is_queued_starts_when_one_ends_and_stop_removes_it() {
    let rig = rig(1).await;
    let alpha = scripted(vec![slow(1500, "A.")]).await;
    let beta = scripted(vec![Turn::text("B.")]).await;
    let gamma = scripted(vec![Turn::text("never")]).await;
    let a = rig.send_in_new_session("first", &alpha).await;
    alpha.wait_for_requests(1, PATIENCE).await.unwrap();
    // Accepted at once, and queued.
    let b = rig.send_in_new_session("second", &beta).await;
    let c = rig.send_in_new_session("third", &gamma).await;
    assert_eq!(rig.chat.activities().state(&b), ActivityState::Queued);
    assert_eq!(rig.summary(&c).await.activity, ActivityState::Queued);
    let view = rig.chat.view().await.unwrap();
    assert!(view.running, "a queued turn holds its session");
    assert_eq!(
        view.session.map(|session| session.activity),
        Some(ActivityState::Queued)
    );
    // Its message is not stored yet, and the view shows it as queued.
    assert!(view.messages.is_empty(), "{:?}", view.messages);
    assert_eq!(
        view.queued.map(|message| message.content),
        Some("third".to_owned())
    );
    // So does the second's, shown again from another session.
    let shown_b = rig.chat.switch(Some(b.clone())).await.unwrap();
    assert_eq!(
        shown_b.queued.map(|message| message.content),
        Some("second".to_owned())
    );
    rig.chat.switch(Some(c.clone())).await.unwrap();

    // Stop on the queued third: it ends without a request.
    rig.chat.cancel();
    assert_eq!(rig.finished(&c, 1).await["reason"], "cancelled");
    assert_eq!(rig.activity(&c), ["queued", "idle"]);
    assert_eq!(rig.transcript(&c).await, ["third"], "the message stays");
    let view = rig.chat.view().await.unwrap();
    assert_eq!(view.queued, None, "stored now, not shown twice");
    assert_eq!(view.messages.len(), 1);

    // The second starts only once the first has ended.
    assert!(beta.requests().is_empty(), "B waits for A");
    assert_eq!(rig.finished(&a, 1).await["reason"], "completed");
    assert_eq!(rig.finished(&b, 1).await["reason"], "completed");
    assert_eq!(rig.activity(&b), ["queued", "running", "idle"]);
    assert_eq!(rig.transcript(&b).await, ["second", "B."]);
    let shown_b = rig.chat.switch(Some(b.clone())).await.unwrap();
    assert_eq!(shown_b.queued, None);
    assert_eq!(
        shown_b.messages.len(),
        2,
        "the message once, then the answer"
    );
    let b_started = rig
        .sink
        .named(ChatEvent::NAME)
        .iter()
        .position(|event| event["sessionId"] == b.as_str())
        .unwrap();
    let a_finished = rig
        .sink
        .named(ChatEvent::NAME)
        .iter()
        .position(|event| {
            event["sessionId"] == a.as_str() && event["event"]["type"] == "turn_finished"
        })
        .unwrap();
    assert!(a_finished < b_started, "B's turn began after A's ended");
    assert!(
        gamma.requests().is_empty(),
        "the stopped turn asked nothing"
    );
    alpha.verify().unwrap();
    beta.verify().unwrap();
}

/// Waits until `running` turns hold a place under `limit`.
async fn running_settles(limit: &TurnLimit, running: usize) {
    let deadline = Instant::now() + PATIENCE;
    while limit.running() != running {
        assert!(
            Instant::now() < deadline,
            "{} turns run, not {running}",
            limit.running()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_turn_starts_as_soon_as_the_limit_is_raised() {
    let rig = rig(1).await;
    let alpha = scripted(vec![slow(3000, "A.")]).await;
    let beta = scripted(vec![Turn::text("B.")]).await;
    let a = rig.send_in_new_session("first", &alpha).await;
    alpha.wait_for_requests(1, PATIENCE).await.unwrap();
    let b = rig.send_in_new_session("second", &beta).await;
    assert_eq!(rig.chat.activities().state(&b), ActivityState::Queued);
    stays_for(QUEUED_WINDOW, "B waits under a limit of one", || {
        beta.requests().is_empty()
    })
    .await;

    // Raised: B runs beside A and ends first.
    rig.limit.set_max(2);
    assert_eq!(rig.finished(&b, 1).await["reason"], "completed");
    assert!(rig.finished_turns(&a).is_empty(), "A is still running");
    assert_eq!(rig.activity(&b), ["queued", "running", "idle"]);
    // (B gives its place back just after its last event.)
    running_settles(&rig.limit, 1).await;

    // Lowered again while A runs: A goes on to its end.
    rig.limit.set_max(1);
    assert_eq!(rig.finished(&a, 1).await["reason"], "completed");
    assert_eq!(rig.transcript(&a).await, ["first", "A."]);
    running_settles(&rig.limit, 0).await;
    assert_eq!(rig.limit.max(), 1);
    alpha.verify().unwrap();
    beta.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_in_one_session_backs_off_while_the_other_finishes() {
    let rig = rig(4).await;
    // One provider for both, as in the app: A's first request is rate limited.
    let shared = scripted(vec![
        Turn::rate_limited(1),
        Turn::text("B went through."),
        Turn::text("A after waiting."),
    ])
    .await;
    let a = rig.send_in_new_session("first", &shared).await;
    shared.wait_for_requests(1, PATIENCE).await.unwrap();
    let b = rig.send_in_new_session("second", &shared).await;
    assert_eq!(rig.finished(&b, 1).await["reason"], "completed");
    assert!(rig.finished_turns(&a).is_empty(), "A is still backing off");
    assert_eq!(rig.finished(&a, 1).await["reason"], "completed");
    let retries: Vec<Value> = rig
        .events_of(&a)
        .into_iter()
        .filter(|event| event["event"]["type"] == "retrying")
        .collect();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert!(
        retries[0]["event"]["reason"]
            .as_str()
            .unwrap()
            .contains("429"),
        "{retries:?}"
    );
    assert!(
        rig.events_of(&b)
            .iter()
            .all(|event| event["event"]["type"] != "retrying")
    );
    assert_eq!(rig.transcript(&a).await, ["first", "A after waiting."]);
    assert_eq!(rig.transcript(&b).await, ["second", "B went through."]);
    shared.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_names_its_session_and_marks_it_waiting_until_answered() {
    let rig = rig(4).await;
    let alpha = scripted(vec![
        call(
            "q1",
            "ask_user",
            json!({"question": "Which one?", "options": ["x", "y"]}),
        ),
        Turn::text("You chose.").expect(Expect::new().last_contains("user answered: y")),
    ])
    .await;
    let a = rig.send_in_new_session("ask me", &alpha).await;
    let asked = rig.dialog_of(&a).await;
    let DialogRequest::Question { question, .. } = &asked else {
        panic!("a question")
    };
    assert_eq!(question.session_id.as_deref(), Some(a.as_str()));
    rig.until_state(&a, ActivityState::Waiting).await;
    rig.dialogs
        .answer(
            PROJECT,
            &asked.key(),
            crate::dialogs::QuestionAnswer::Answer { text: "y".into() },
        )
        .unwrap();
    rig.finished(&a, 1).await;
    assert_eq!(rig.activity(&a), ["running", "waiting", "running", "idle"]);
    alpha.verify().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_takes_the_slot_of_its_own_session_only() {
    let rig = rig(4).await;
    let beta = scripted(vec![Turn::text("B."), Turn::text("NOTES: B said B.")]).await;
    let b = rig.send_in_new_session("first", &beta).await;
    rig.finished(&b, 1).await;
    let alpha = scripted(vec![Turn::hang()]).await;
    let a = rig.send_in_new_session("hang", &alpha).await;
    alpha.wait_for_requests(1, PATIENCE).await.unwrap();
    // A's own slot is taken by its turn.
    let busy = rig.chat.compact(provider(&alpha)).await.unwrap_err();
    assert_eq!(busy.kind, ErrorKind::Busy);
    // B compacts while A's turn runs.
    rig.chat.switch(Some(b.clone())).await.unwrap();
    let view = rig.chat.compact(provider(&beta)).await.unwrap();
    assert!(view.messages.iter().any(Message::is_summary), "{view:?}");
    assert!(rig.finished_turns(&a).is_empty(), "A still runs");
    rig.chat.cancel_session(&a).await.unwrap();
    assert_eq!(rig.finished(&a, 1).await["reason"], "cancelled");
    beta.verify().unwrap();
}
