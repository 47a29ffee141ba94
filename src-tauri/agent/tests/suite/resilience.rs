//! Providers misbehaving: rate limits, server errors, broken and malformed streams, silence.

use std::time::Duration;

use gantry_agent::{MessageStatus, ProviderOptions, RetryPolicy, TurnEndReason, TurnEvent};
use gantry_scripted_provider::{Completion, ErrorReply, Event, Script, Turn};

use super::support::{Harness, Setup, fast_options, finish_of, kinds, shape, text_of};

fn retries(events: &[TurnEvent]) -> Vec<(u32, u64, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::Retrying {
                attempt,
                delay_ms,
                reason,
                ..
            } => Some((*attempt, *delay_ms, reason.clone())),
            _ => None,
        })
        .collect()
}

/// Milliseconds between the arrivals of chat requests `a` and `b`.
fn gap_ms(h: &Harness, a: usize, b: usize) -> u64 {
    let requests = h.provider.chat_requests();
    requests[b].received_ms - requests[a].received_ms
}

#[tokio::test]
async fn a_429_with_retry_after_waits_as_asked_then_succeeds() {
    let mut h = Harness::start(Script::new([
        Turn::rate_limited(1),
        ErrorReply::new(429, "slow down")
            .header("retry-after-ms", "150")
            .into(),
        Turn::text("Finally."),
    ]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    assert_eq!(text_of(&events), "Finally.");
    let retries = retries(&events);
    assert_eq!(retries.len(), 2);
    assert_eq!((retries[0].0, retries[0].1), (1, 1_000));
    assert!(
        retries[0].2.starts_with("HTTP 429: Rate limit reached"),
        "{}",
        retries[0].2
    );
    assert_eq!((retries[1].0, retries[1].1), (2, 150));
    let first_gap = gap_ms(&h, 0, 1);
    let second_gap = gap_ms(&h, 1, 2);
    println!(
        "retry gaps: {first_gap} ms after Retry-After: 1, {second_gap} ms after retry-after-ms: 150"
    );
    assert!((1_000..1_500).contains(&first_gap), "{first_gap}");
    assert!((150..650).contains(&second_gap), "{second_gap}");
    assert_eq!(
        kinds(&events),
        [
            "turn_started",
            "retrying",
            "text_delta",
            "usage",
            "turn_finished"
        ]
    );
    assert_eq!(h.saved().len(), 2);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_until_giving_up() {
    let mut h = Harness::start(Script::new(
        (0..4).map(|_| Turn::error(503, "The engine is currently overloaded")),
    ))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    assert_eq!(h.provider.chat_requests().len(), 4, "1 attempt + 3 retries");
    let delays: Vec<u64> = retries(&events).iter().map(|r| r.1).collect();
    assert_eq!(
        delays,
        [20, 40, 80],
        "exponential backoff, no jitter in tests"
    );
    let gaps: Vec<u64> = (0..3).map(|i| gap_ms(&h, i, i + 1)).collect();
    println!("backoff gaps: {gaps:?} ms for delays {delays:?}");
    for (gap, delay) in gaps.iter().zip(&delays) {
        assert!(gap >= delay, "{gaps:?}");
    }
    let (reason, message) = finish_of(&events);
    assert_eq!(reason, TurnEndReason::Error);
    let message = message.unwrap();
    assert!(
        message.contains("HTTP 503") && message.contains("The engine is currently overloaded"),
        "{message}"
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, TurnEvent::Error { fatal: true, .. }))
    );
    assert_eq!(shape(&h.saved()).len(), 1, "only the user's message");

    // The session is still usable.
    h.provider.push_turn(Turn::text("Back.")).unwrap();
    let (outcome, _) = h.turn("again").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
}

#[tokio::test]
async fn client_errors_end_the_turn_with_the_providers_message_at_once() {
    let cases = [
        (
            ErrorReply::new(400, "This model's maximum context length is 8192 tokens.")
                .code("context_length_exceeded"),
            "maximum context length is 8192 tokens",
        ),
        (
            ErrorReply::new(401, "Incorrect API key provided."),
            "Incorrect API key",
        ),
        (
            ErrorReply::new(404, "The model `gpt-9` does not exist."),
            "does not exist",
        ),
        (
            ErrorReply::new(429, "You exceeded your current quota.").code("insufficient_quota"),
            "exceeded your current quota",
        ),
        (
            ErrorReply::new(400, "ignored")
                .raw_body("<html><body>Bad gateway config</body></html>"),
            "Bad gateway config",
        ),
    ];
    for (reply, needle) in cases {
        let status = reply.status;
        let mut h = Harness::start(Script::new([reply.into()])).await;
        let (outcome, events) = h.turn("hi").await;
        assert_eq!(outcome.reason, TurnEndReason::Error);
        assert_eq!(
            h.provider.chat_requests().len(),
            1,
            "{status} is not retried"
        );
        assert!(retries(&events).is_empty());
        let message = finish_of(&events).1.unwrap();
        assert!(message.contains(needle), "{status}: {message}");
        assert!(message.contains(&format!("HTTP {status}")), "{message}");
    }
}

#[tokio::test]
async fn a_stream_cut_mid_way_is_retried_and_the_reply_restarts() {
    let mut h = Harness::start(Script::new([
        Completion::new()
            .text("This answer will break off somewhere in the middle")
            .cut_after(4)
            .into(),
        Turn::text("A whole answer."),
    ]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    let retries = retries(&events);
    assert_eq!(retries.len(), 1);
    assert!(
        retries[0].2.starts_with("stream broke off"),
        "{}",
        retries[0].2
    );
    // Deltas before the retry belong to the discarded attempt; the saved reply is the new one.
    let retry_at = events
        .iter()
        .position(|e| matches!(e, TurnEvent::Retrying { .. }))
        .unwrap();
    let discarded = text_of(&events[..retry_at]);
    assert!(
        !discarded.is_empty()
            && "This answer will break off somewhere in the middle".starts_with(&discarded)
            && discarded.len() < 30,
        "{discarded:?}"
    );
    assert_eq!(text_of(&events[retry_at..]), "A whole answer.");
    assert_eq!(h.saved()[1].content, "A whole answer.");
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn a_stream_that_ends_early_without_done_is_retried() {
    let mut h = Harness::start(Script::new([
        Completion::new().text("half of it").eof_after(2).into(),
        Turn::text("all of it"),
    ]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(retries(&events)[0].2, "stream ended early");
    assert_eq!(h.saved()[1].content, "all of it");
}

#[tokio::test]
async fn a_cut_stream_that_keeps_failing_keeps_the_partial_text_as_an_error() {
    let cut = || -> Turn {
        Completion::new()
            .text("partial words here")
            .cut_after(2)
            .into()
    };
    let mut h = Harness::start(Script::new((0..4).map(|_| cut()))).await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    assert_eq!(retries(&events).len(), 3);
    let last_retry = events
        .iter()
        .rposition(|e| matches!(e, TurnEvent::Retrying { .. }))
        .unwrap();
    let partial = text_of(&events[last_retry..]);
    assert!(!partial.is_empty() && "partial words here".starts_with(&partial));
    let saved = h.saved();
    assert_eq!(saved.len(), 2);
    assert_eq!(
        saved[1].content, partial,
        "what the last attempt said is kept"
    );
    assert_eq!(saved[1].status, MessageStatus::Error);
    // The next request tells the model its last reply was interrupted.
    h.provider.push_turn(Turn::text("ok")).unwrap();
    h.turn("again").await;
    let body = h
        .provider
        .chat_requests()
        .last()
        .unwrap()
        .body
        .clone()
        .unwrap();
    assert_eq!(
        body["messages"][2]["content"],
        format!("{partial}\n\n[reply interrupted by a provider error]")
    );
}

#[tokio::test]
async fn a_malformed_chunk_is_an_error_event_and_the_stream_goes_on() {
    let mut h = Harness::start(Script::new([Completion::new()
        .text("before and after")
        .malformed_after(1, "{\"id\": not json")
        .into()]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(text_of(&events), "before and after");
    let errors: Vec<&TurnEvent> = events
        .iter()
        .filter(|e| matches!(e, TurnEvent::Error { .. }))
        .collect();
    assert_eq!(errors.len(), 1);
    let TurnEvent::Error { message, fatal } = errors[0] else {
        unreachable!()
    };
    assert!(!fatal);
    assert!(message.contains("{\"id\": not json"), "{message}");
    assert!(retries(&events).is_empty());
    assert_eq!(h.saved()[1].content, "before and after");
}

#[tokio::test]
async fn a_silent_provider_times_out_and_is_retried() {
    let mut h = Harness::with(
        Script::new([
            Completion::new().text("stalls").hang_after(1).into(),
            Turn::text("recovered"),
        ]),
        Setup {
            provider_options: ProviderOptions {
                idle_timeout: Duration::from_millis(300),
                ..fast_options()
            },
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(retries(&events)[0].2, "timed out waiting for the provider");
    let gap = gap_ms(&h, 0, 1);
    println!("idle timeout 300 ms: retry sent {gap} ms after the first request");
    assert!(gap >= 300, "{gap}");
    assert_eq!(h.saved()[1].content, "recovered");
}

#[tokio::test]
async fn a_retry_after_longer_than_allowed_ends_the_turn_with_a_clear_message() {
    let mut h = Harness::with(
        Script::new([Turn::rate_limited(600)]),
        Setup {
            provider_options: ProviderOptions {
                retry: RetryPolicy {
                    max_retry_after: Duration::from_secs(60),
                    ..fast_options().retry
                },
                ..fast_options()
            },
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    let message = finish_of(&events).1.unwrap();
    assert!(message.contains("asks to wait 600 s"), "{message}");
    assert_eq!(h.provider.chat_requests().len(), 1);
}

#[tokio::test]
async fn a_local_port_nothing_listens_on_fails_at_once_in_plain_words() {
    // A port nothing listens on, held for the whole test: bound but never listening, so a
    // connection is refused, and no other test can take the port meanwhile (a port freed again
    // right away could be, and then the request would not be refused).
    let reserved = tokio::net::TcpSocket::new_v4().unwrap();
    reserved.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = reserved.local_addr().unwrap().port();
    let mut h = Harness::start(Script::default()).await;
    let config = gantry_agent::ProviderConfig::new(
        "nowhere",
        format!("http://127.0.0.1:{port}/v1"),
        "m",
        None,
        8_192,
    );
    h.session
        .set_provider(gantry_agent::Provider::new(config, None, fast_options()).unwrap());
    let started = std::time::Instant::now();
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    assert!(retries(&events).is_empty(), "a refusal here is not retried");
    assert!(started.elapsed() < Duration::from_secs(2));
    let message = finish_of(&events).1.unwrap();
    assert_eq!(
        message,
        format!("nothing is listening at http://127.0.0.1:{port}")
    );
    drop(reserved);
}

#[tokio::test]
async fn the_local_default_that_is_not_running_says_how_to_start_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut h = Harness::start(Script::default()).await;
    let config = gantry_agent::ProviderConfig {
        base_url: format!("http://localhost:{port}/v1"),
        ..gantry_agent::ProviderConfig::default_local()
    };
    h.session
        .set_provider(gantry_agent::Provider::new(config, None, fast_options()).unwrap());
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    assert!(retries(&events).is_empty());
    let message = finish_of(&events).1.unwrap();
    assert!(
        message.starts_with(&format!(
            "nothing is listening at http://localhost:{port}: start Ollama (`ollama serve`"
        )),
        "{message}"
    );
    for internal in [
        "tcp connect error",
        "os error",
        "Connection refused",
        "client error",
    ] {
        assert!(!message.contains(internal), "{message}");
    }
}

#[tokio::test]
async fn an_error_inside_the_stream_is_retried() {
    let mut h = Harness::start(Script::new([
        Completion::new()
            .event(Event::Raw(
                "data: {\"error\":{\"message\":\"upstream overloaded\",\"code\":502}}\n\n".into(),
            ))
            .event(Event::Eof)
            .into(),
        Turn::text("fine now"),
    ]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(retries(&events)[0].2, "provider error: upstream overloaded");
}

#[tokio::test]
async fn a_finished_reply_whose_stream_then_stalls_is_kept_without_a_retry() {
    let mut h = Harness::with(
        Script::new([Completion::new()
            .text("complete answer")
            .finish(gantry_scripted_provider::FinishReason::Stop)
            .event(Event::Hang)
            .into()]),
        Setup {
            provider_options: ProviderOptions {
                idle_timeout: Duration::from_millis(400),
                ..fast_options()
            },
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert!(retries(&events).is_empty());
    assert_eq!(h.saved()[1].content, "complete answer");
    assert_eq!(h.provider.chat_requests().len(), 1);
}
