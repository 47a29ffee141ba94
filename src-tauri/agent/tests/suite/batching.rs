//! Deltas batched per frame: what arrives is exactly what the provider sent, in order, in far
//! fewer events, and a pause mid-reply does not hold text back.

use std::time::{Duration, Instant};

use gantry_agent::{BATCH_INTERVAL, TurnEndReason, TurnEvent};
use gantry_scripted_provider::{Completion, Event, Script, ToolCall};
use serde_json::json;

use super::support::{Harness, kinds, text_of};

fn deltas(events: &[TurnEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, TurnEvent::TextDelta { .. }))
        .count()
}

#[tokio::test]
async fn two_thousand_small_deltas_arrive_whole_in_order_in_few_events() {
    let pieces: Vec<String> = (0..2_000).map(|n| format!("{n}·✓ ")).collect();
    let mut completion = Completion::new();
    for piece in &pieces {
        completion = completion.event(Event::Text(piece.clone()));
    }
    let mut h = Harness::start(Script::new([completion.into()])).await;
    let started = Instant::now();
    let (outcome, events) = h.turn("go").await;
    let elapsed = started.elapsed();
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(text_of(&events), pieces.concat(), "every byte, in order");
    // At most one text event per interval of the turn, and one for the tail.
    let bound = usize::try_from(elapsed.as_millis() / BATCH_INTERVAL.as_millis()).unwrap() + 2;
    assert!(
        deltas(&events) <= bound && deltas(&events) < 2_000,
        "{} text events in {elapsed:?} (at most {bound})",
        deltas(&events)
    );
}

#[tokio::test]
async fn text_before_a_pause_is_sent_during_the_pause_and_tool_calls_keep_their_place() {
    let completion = Completion::new()
        .text("Let me look.")
        .delay(Duration::from_millis(400))
        .text(" Reading now.")
        .tool_calls(vec![ToolCall::new(
            "c1",
            "test_read_file",
            json!({"path": "a"}),
        )]);
    let mut h = Harness::start(Script::new([
        completion.into(),
        Completion::new().text("Done.").into(),
    ]))
    .await;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let turn = {
        let cancel = tokio_util::sync::CancellationToken::new();
        let session = &mut h.session;
        async move { session.run_turn("go", &cancel, sender).await }
    };
    let watch = async {
        // The first text arrives while the provider still pauses (within the ticker's interval).
        let deadline = Instant::now() + Duration::from_millis(300);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            while let Ok(event) = receiver.try_recv() {
                seen.push(event);
            }
            if text_of(&seen).contains("Let me look.") {
                return (true, seen, receiver);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        (false, seen, receiver)
    };
    let (outcome, (early, mut seen, mut receiver)) = tokio::join!(turn, watch);
    assert!(early, "the text before the pause was held back: {seen:?}");
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    while let Ok(event) = receiver.try_recv() {
        seen.push(event);
    }
    assert_eq!(text_of(&seen), "Let me look. Reading now.Done.");
    // Text streamed before the call comes before it; the answer after its result.
    let kinds = kinds(&seen);
    let call = kinds.iter().position(|k| k == "tool_call_started").unwrap();
    let result = kinds.iter().position(|k| k == "tool_result").unwrap();
    let texts: Vec<usize> = (0..kinds.len())
        .filter(|&i| kinds[i] == "text_delta")
        .collect();
    assert!(texts.first().is_some_and(|&i| i < call), "{kinds:?}");
    assert!(texts.last().is_some_and(|&i| i > result), "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("turn_finished"));
}
