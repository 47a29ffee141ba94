//! Cancelling a turn: while streaming, while a command runs, while an approval is pending.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use gantry_agent::{MessageStatus, Session, TurnEndReason, TurnEvent, TurnOutcome};
use gantry_scripted_provider::{Completion, Delivery, Expect, Script, ToolCall, Turn};
use gantry_tools::{ApprovalDecision, ApprovalRequest, Approver, ObservationKind, Policy};
use serde_json::json;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use super::support::{Harness, Setup, WAIT, shape, text_of};

/// The most a cancellation may take, from `cancel()` to `turn_finished`.
const CANCEL_BUDGET: Duration = Duration::from_millis(500);

/// Runs a turn; once an event matching `until` has arrived and `then` is ready, cancels it.
/// Returns the outcome, every event, and the time from `cancel()` to `turn_finished`.
async fn cancel_during(
    session: &mut Session,
    text: &str,
    until: impl Fn(&TurnEvent) -> bool,
    then: impl Future<Output = ()>,
) -> (TurnOutcome, Vec<TurnEvent>, Duration) {
    let cancel = CancellationToken::new();
    let (sender, mut receiver) = unbounded_channel();
    let control = async {
        let mut events = Vec::new();
        loop {
            let event = receiver.recv().await.expect("events until the end");
            let hit = until(&event);
            events.push(event);
            if hit {
                break;
            }
        }
        then.await;
        let cancelled_at = Instant::now();
        cancel.cancel();
        loop {
            let event = receiver.recv().await.expect("a turn_finished event");
            let done = matches!(event, TurnEvent::TurnFinished { .. });
            events.push(event);
            if done {
                return (events, cancelled_at.elapsed());
            }
        }
    };
    let (outcome, (events, latency)) = tokio::time::timeout(WAIT, async {
        tokio::join!(session.run_turn(text, &cancel, sender), control)
    })
    .await
    .expect("the turn ends after the cancellation");
    (outcome, events, latency)
}

/// Waits until `path` exists and is not empty.
async fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + WAIT;
    while std::fs::read_to_string(path).map_or(true, |text| text.trim().is_empty()) {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The host pid of a process whose command line is exactly `argv`.
fn host_pid(argv: &[&str]) -> Option<String> {
    let wanted: Vec<u8> = argv
        .iter()
        .flat_map(|arg| [arg.as_bytes(), b"\0"].concat())
        .collect();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            name.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (cmdline == wanted).then_some(name)
        })
}

/// True while a process with this pid exists and is not a zombie.
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.split(") ")
            .nth(1)
            .is_some_and(|rest| !rest.starts_with('Z'))
    })
}

#[tokio::test]
async fn cancelling_a_hanging_stream_is_prompt_and_keeps_the_partial_text() {
    let mut h = Harness::start(Script::new([Completion::new()
        .text("Let me think about this for a long time")
        .hang_after(3)
        .into()]))
    .await;
    let (outcome, events, latency) = cancel_during(
        &mut h.session,
        "hi",
        |e| matches!(e, TurnEvent::TextDelta { .. }),
        async {},
    )
    .await;
    println!("cancel latency (hanging stream): {latency:?}");
    assert!(latency < CANCEL_BUDGET, "{latency:?}");
    assert_eq!(outcome.reason, TurnEndReason::Cancelled);
    let partial = text_of(&events);
    assert!(!partial.is_empty());
    let saved = h.saved();
    assert_eq!(saved.len(), 2);
    assert_eq!(saved[1].content, partial);
    assert_eq!(saved[1].status, MessageStatus::Cancelled);
    h.provider
        .wait_until(WAIT, "the provider to see the client go", |r| {
            r[0].delivery == Delivery::ClientClosed
        })
        .await
        .unwrap();

    // The next turn sends the interrupted reply, marked, and goes on normally.
    h.provider
        .push_turn(Turn::text("Sorry, where were we?").expect(Expect::new().message_count(4)))
        .unwrap();
    let (outcome, _) = h.turn("go on").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    let body = h.provider.chat_requests()[1].body.clone().unwrap();
    assert_eq!(
        body["messages"][2]["content"],
        format!("{partial}\n\n[reply interrupted: the user cancelled the turn]")
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn cancelling_before_any_output_saves_only_the_question() {
    let mut h = Harness::start(Script::new([Turn::hang()])).await;
    let provider = &h.provider;
    let (outcome, events, latency) = cancel_during(
        &mut h.session,
        "hi",
        |e| matches!(e, TurnEvent::TurnStarted { .. }),
        async {
            provider.wait_for_requests(1, WAIT).await.unwrap();
        },
    )
    .await;
    println!("cancel latency (stream open, nothing sent): {latency:?}");
    assert!(latency < CANCEL_BUDGET, "{latency:?}");
    assert_eq!(outcome.reason, TurnEndReason::Cancelled);
    assert_eq!(text_of(&events), "");
    assert_eq!(h.saved().len(), 1);
}

#[tokio::test]
async fn a_turn_cancelled_before_it_starts_sends_nothing() {
    let mut h = Harness::start(Script::default()).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = h
        .session
        .run_turn("hi", &cancel, gantry_agent::EventSink::none())
        .await;
    assert_eq!(outcome.reason, TurnEndReason::Cancelled);
    assert_eq!(outcome.steps, 0);
    assert!(h.provider.chat_requests().is_empty());
    assert_eq!(h.saved().len(), 1);
}

#[tokio::test]
async fn cancelling_a_running_command_kills_it_and_answers_every_call() {
    let script = Script::new([
        Turn::tool_calls(vec![
            ToolCall::new(
                "call_sleep",
                "run_command",
                json!({"command": "echo started > sleep.pid; exec sleep 30.6161", "timeout": 60}),
            ),
            ToolCall::new("call_nap", "nap", json!({"ms": 1, "label": "after"})),
        ]),
        Turn::text("Stopped, as you asked.").expect(
            Expect::new()
                .pointer("/messages/3/tool_call_id", json!("call_sleep"))
                .pointer("/messages/4/tool_call_id", json!("call_nap"))
                .last_role("user"),
        ),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            builtins: true,
            ..Setup::default()
        },
    )
    .await;
    h.session
        .tools()
        .set_policy("run_command", Policy::Auto)
        .unwrap();
    let pid_file = h.dir.path().join("sleep.pid");
    let (outcome, events, latency) = cancel_during(
        &mut h.session,
        "sleep for a while",
        |e| matches!(e, TurnEvent::ToolCallStarted { name, .. } if name == "run_command"),
        wait_for_file(&pid_file),
    )
    .await;
    println!("cancel latency (running command): {latency:?}");
    assert!(latency < CANCEL_BUDGET, "{latency:?}");
    assert_eq!(outcome.reason, TurnEndReason::Cancelled);

    // The command runs in the sandbox's PID namespace, where `$$` is not the host's pid: find
    // the sleep by its unique command line (it may already be gone).
    let pid = host_pid(&["sleep", "30.6161"]).unwrap_or_else(|| "0".to_owned());
    let deadline = Instant::now() + WAIT;
    while alive(&pid) {
        assert!(
            Instant::now() < deadline,
            "sleep (pid {pid}) survived the cancellation"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // Both calls answered: the killed command by the manager, the never-run nap synthesised.
    let results: Vec<(String, ObservationKind)> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolResult {
                id, observation, ..
            } => Some((id.clone(), observation.kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("call_sleep".to_owned(), ObservationKind::Cancelled),
            ("call_nap".to_owned(), ObservationKind::Cancelled)
        ]
    );
    let saved = shape(&h.saved());
    assert_eq!(saved.len(), 4);
    assert_eq!(saved[2].2.as_deref(), Some("call_sleep"));
    assert!(saved[2].1.starts_with("[cancelled]"), "{}", saved[2].1);
    assert_eq!(saved[2].3, "cancelled");
    assert_eq!(saved[3].2.as_deref(), Some("call_nap"));
    assert!(
        saved[3].1.contains("before tool 'nap' returned"),
        "{}",
        saved[3].1
    );
    let audit = h.audit.records();
    assert_eq!(audit.len(), 1, "the nap never reached the manager");
    assert_eq!(audit[0].outcome, ObservationKind::Cancelled);

    // The transcript is valid: the next turn goes through.
    let (outcome, _) = h.turn("ok, never mind").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();
}

/// An approver that never answers.
struct Unanswered;

#[async_trait]
impl Approver for Unanswered {
    async fn decide(&self, _request: ApprovalRequest) -> ApprovalDecision {
        std::future::pending().await
    }
}

#[tokio::test]
async fn cancelling_a_pending_approval_withdraws_it() {
    let script = Script::new([Turn::tool_calls(vec![ToolCall::new(
        "call_edit",
        "edit_file",
        json!({"path": "a.txt", "old": "a", "new": "b"}),
    )])]);
    let mut h = Harness::with(
        script,
        Setup {
            approver: Some(Arc::new(Unanswered)),
            files: vec![("a.txt", "a\n".into())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, _events, latency) = cancel_during(
        &mut h.session,
        "edit",
        |e| matches!(e, TurnEvent::ApprovalRequested { .. }),
        async {},
    )
    .await;
    println!("cancel latency (pending approval): {latency:?}");
    assert!(latency < CANCEL_BUDGET, "{latency:?}");
    assert_eq!(outcome.reason, TurnEndReason::Cancelled);
    assert_eq!(h.file("a.txt"), "a\n");
    let saved = h.saved();
    assert_eq!(saved[2].status, MessageStatus::Cancelled);
    assert_eq!(h.audit.records()[0].outcome, ObservationKind::Cancelled);
}
