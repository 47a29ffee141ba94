//! Turns that go as planned: answers, tool use, approvals, concurrency, limits, context.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use gantry_agent::{MessageStatus, Role, SessionOptions, TurnEndReason, TurnEvent};
use gantry_scripted_provider::{Completion, Expect, Script, ToolCall, Turn};
use gantry_tools::{
    ApprovalDecision, DecisionKind, FixedApprover, ObservationKind, Policy, ScriptedApprover,
};
use serde_json::{Value, json};

use super::support::{Harness, Setup, finish_of, kinds, shape, text_of};

#[tokio::test]
async fn a_plain_answer_streams_and_is_saved() {
    let mut h = Harness::start(Script::new([Completion::new()
        .text("Hello! The project looks empty.")
        .usage(120, 9)
        .into()]))
    .await;
    let (outcome, events) = h.turn("hi").await;

    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(outcome.steps, 1);
    assert_eq!(
        (outcome.usage.prompt_tokens, outcome.usage.completion_tokens),
        (120, 9)
    );
    // The answer's deltas arrive together, batched within one frame (see `batching`).
    assert_eq!(text_of(&events), "Hello! The project looks empty.");
    assert_eq!(
        kinds(&events),
        ["turn_started", "text_delta", "usage", "turn_finished"]
    );
    // One gauge reading, for the one request, before its reply.
    let contexts: Vec<&gantry_agent::ContextUsage> = events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::Context { usage } => Some(usage),
            _ => None,
        })
        .collect();
    assert_eq!(contexts.len(), 1);
    assert!(contexts[0].system_tokens > 0 && contexts[0].tool_tokens > 0);
    assert!(contexts[0].transcript_tokens > 0, "the user's message");
    assert_eq!(contexts[0].reported_tokens, None, "nothing counted yet");
    assert_eq!(
        u64::from(contexts[0].compact_at_tokens),
        u64::from(contexts[0].window_tokens) * 80 / 100
    );
    assert_eq!(
        shape(&h.saved()),
        [
            ("user".into(), "hi".into(), None, "complete".into()),
            (
                "assistant".into(),
                "Hello! The project looks empty.".into(),
                None,
                "complete".into()
            ),
        ]
    );
    assert_eq!(h.saved()[1].usage.unwrap().total_tokens, 129);

    // The request: streamed, usage asked for, system prompt first, tools offered.
    let request = h.provider.chat_requests()[0].body.clone().unwrap();
    assert_eq!(request["model"], "scripted-model");
    assert_eq!(request["stream"], true);
    assert_eq!(request["stream_options"]["include_usage"], true);
    assert_eq!(request["messages"][0]["role"], "system");
    let system = request["messages"][0]["content"].as_str().unwrap();
    let root = h.session.tools().root().display().to_string();
    assert!(
        system.contains("You are Gantry") && system.contains(&root),
        "{system}"
    );
    assert_eq!(
        request["messages"][1],
        json!({"role": "user", "content": "hi"})
    );
    let offered: Vec<&str> = request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(offered, ["edit_file", "nap", "read_file"]);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn read_then_edit_then_answer() {
    let script = Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_read",
            "read_file",
            json!({"path": "src/lib.rs"}),
        )])
        .expect(Expect::new().last_role("user").tool_offered("read_file")),
        Turn::tool_calls(vec![ToolCall::new(
            "call_edit",
            "edit_file",
            json!({"path": "src/lib.rs", "old": "a - b", "new": "a + b"}),
        )])
        .expect(
            Expect::new()
                .last_tool_call_id("call_read")
                .last_contains("pub fn add"),
        ),
        Turn::text("Fixed: `add` now adds.").expect(
            Expect::new()
                .last_tool_call_id("call_edit")
                .last_contains("edited src/lib.rs")
                .message_count(6),
        ),
    ]);
    let approver = ScriptedApprover::new([ApprovalDecision::AllowOnce]);
    let mut h = Harness::with(
        script,
        Setup {
            approver: Some(approver.clone()),
            files: vec![(
                "src/lib.rs",
                "pub fn add(a: i32, b: i32) -> i32 { a - b }\n".into(),
            )],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("add() subtracts, fix it").await;

    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    assert_eq!(outcome.steps, 3);
    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n"
    );
    assert_eq!(text_of(&events), "Fixed: `add` now adds.");
    assert_eq!(
        kinds(&events),
        [
            "turn_started",
            "tool_call_streaming",
            "usage",
            "tool_call_started",
            "tool_result",
            "tool_call_streaming",
            "usage",
            "tool_call_started",
            "approval_requested",
            "approval_resolved",
            "tool_result",
            "text_delta",
            "usage",
            "turn_finished"
        ]
    );
    let approval = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ApprovalRequested { tool_call_id } => Some(tool_call_id.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(approval, "call_edit");
    // What the user was asked reaches the approver (the app's dialog), not the turn's events.
    let asked = approver.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].call_id, "call_edit");
    assert_eq!(asked[0].tool, "edit_file");
    assert_eq!(asked[0].arguments["new"], "a + b");
    let started = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ToolCallStarted { id, arguments, .. } if id == "call_read" => {
                Some(arguments.clone())
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&started).unwrap(),
        json!({"path": "src/lib.rs"})
    );

    let saved = h.saved();
    let roles: Vec<Role> = saved.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(saved[1].tool_calls[0].id, "call_read");
    assert_eq!(saved[2].tool_call_id.as_deref(), Some("call_read"));
    assert!(saved[2].content.contains("a - b"));
    assert_eq!(saved[4].content, "edited src/lib.rs");

    let audit = h.audit.records();
    let rows: Vec<(&str, ObservationKind, DecisionKind)> = audit
        .iter()
        .map(|r| (r.tool.as_str(), r.outcome, r.decision.kind))
        .collect();
    assert_eq!(
        rows,
        [
            ("read_file", ObservationKind::Ok, DecisionKind::Auto),
            ("edit_file", ObservationKind::Ok, DecisionKind::AllowedOnce),
        ]
    );
    assert!(
        audit
            .iter()
            .all(|r| r.session_id.as_deref() == Some(h.session.id()))
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn parallel_safe_calls_overlap_and_results_keep_call_order() {
    // Three calls, argument fragments interleaved by index: two SAFE naps (the first slower)
    // and an edit that must wait its turn.
    let script = Script::new([
        Turn::tool_calls_interleaved(vec![
            ToolCall::new("call_slow", "nap", json!({"ms": 300, "label": "slow"})),
            ToolCall::new("call_fast", "nap", json!({"ms": 10, "label": "fast"})),
            ToolCall::new(
                "call_edit",
                "edit_file",
                json!({"path": "notes.txt", "old": "draft", "new": "final"}),
            ),
        ]),
        Turn::text("All done.").expect(
            Expect::new()
                .pointer("/messages/3/tool_call_id", json!("call_slow"))
                .pointer("/messages/4/tool_call_id", json!("call_fast"))
                .pointer("/messages/5/tool_call_id", json!("call_edit")),
        ),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            approver: Some(Arc::new(FixedApprover(ApprovalDecision::AllowOnce))),
            files: vec![("notes.txt", "draft\n".into())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("do three things").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    assert_eq!(h.nap.peak.load(Ordering::SeqCst), 2, "the naps overlapped");
    assert_eq!(h.file("notes.txt"), "final\n");

    // Results are reported as they finish (fast before slow), the edit only after both.
    let results: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolResult { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["call_fast", "call_slow", "call_edit"]);
    let edit_started = events
        .iter()
        .position(|e| matches!(e, TurnEvent::ToolCallStarted { id, .. } if id == "call_edit"))
        .unwrap();
    let slow_done = events
        .iter()
        .position(|e| matches!(e, TurnEvent::ToolResult { id, .. } if id == "call_slow"))
        .unwrap();
    assert!(
        edit_started > slow_done,
        "the edit ran alone, after the naps"
    );

    // Saved (and sent) in call order.
    let saved = h.saved();
    let ids: Vec<Option<&str>> = saved[2..5]
        .iter()
        .map(|m| m.tool_call_id.as_deref())
        .collect();
    assert_eq!(
        ids,
        [Some("call_slow"), Some("call_fast"), Some("call_edit")]
    );
    assert_eq!(saved[2].content, "napped slow");
    assert_eq!(saved[1].tool_calls.len(), 3);
    assert_eq!(
        saved[1].tool_calls[2].arguments,
        r#"{"path":"notes.txt","old":"draft","new":"final"}"#
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn a_denied_edit_is_reported_and_the_model_works_around_it() {
    let script = Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_edit",
            "edit_file",
            json!({"path": "config.toml", "old": "debug = false", "new": "debug = true"}),
        )]),
        Turn::text("I could not change config.toml; set `debug = true` there yourself.").expect(
            Expect::new()
                .last_tool_call_id("call_edit")
                .last_contains("[denied] the user denied tool 'edit_file': not in this file"),
        ),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            approver: Some(Arc::new(FixedApprover(ApprovalDecision::Deny {
                reason: Some("not in this file".into()),
            }))),
            files: vec![("config.toml", "debug = false\n".into())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("turn on debug").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(
        h.file("config.toml"),
        "debug = false\n",
        "nothing was written"
    );
    let observation = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ToolResult { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(observation.kind, ObservationKind::Denied);
    assert!(text_of(&events).contains("set `debug = true` there yourself"));
    let audit = h.audit.records();
    assert_eq!(audit.len(), 1);
    assert_eq!(audit[0].outcome, ObservationKind::Denied);
    assert_eq!(
        audit[0].decision.detail.as_deref(),
        Some("not in this file")
    );
    assert_eq!(h.saved()[2].status, MessageStatus::Complete);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_become_observations_the_model_reads() {
    let script = Script::new([
        Turn::tool_calls(vec![
            ToolCall::new("call_unknown", "delete_everything", json!({})),
            ToolCall::new("call_missing", "read_file", json!({"file": "a.txt"})),
            ToolCall::raw("call_broken", "read_file", r#"{"path": "a.txt""#),
        ]),
        Turn::tool_calls(vec![ToolCall::new(
            "call_good",
            "read_file",
            json!({"path": "a.txt"}),
        )])
        .expect(
            Expect::new()
                .any_contains("[error] unknown tool 'delete_everything'")
                .any_contains("[error] invalid arguments for tool 'read_file'")
                .any_contains("[error] arguments are not valid JSON"),
        ),
        Turn::text("a.txt says hello.").expect(Expect::new().last_contains("hello")),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            files: vec![("a.txt", "hello\n".into())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("read a.txt").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    assert_eq!(outcome.steps, 3);
    let kinds: Vec<ObservationKind> = h.audit.records().iter().map(|r| r.outcome).collect();
    assert_eq!(
        kinds,
        [
            ObservationKind::Error,
            ObservationKind::BadArguments,
            ObservationKind::Error,
            ObservationKind::Ok
        ]
    );
    // The broken arguments are kept as the model wrote them.
    assert_eq!(h.saved()[1].tool_calls[2].arguments, r#"{"path": "a.txt""#);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn reasoning_is_streamed_and_saved_but_never_sent_back() {
    let script = Script::new([
        Completion::new()
            .reasoning("The user greets me; greet back.")
            .text("Hi!")
            .into(),
        Turn::text("Still here.").expect(Expect::new().message_count(4)),
    ]);
    let mut h = Harness::start(script).await;
    let (_, events) = h.turn("hello").await;
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ReasoningDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "The user greets me; greet back.");
    assert_eq!(text_of(&events), "Hi!");
    assert_eq!(
        h.saved()[1].reasoning.as_deref(),
        Some("The user greets me; greet back.")
    );
    h.turn("still there?").await;
    let second = &h.provider.chat_requests()[1];
    assert!(
        !second.raw_body.contains("greet back"),
        "{}",
        second.raw_body
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn instruction_parts_join_the_system_prompt_and_the_gauge() {
    let script = Script::new([
        Turn::text("ok").expect(Expect::new().any_contains("Always answer in French."))
    ]);
    let part = |file: &str, text: &str, truncated| gantry_agent::InstructionPart {
        file: file.into(),
        text: text.into(),
        truncated,
        imported_by: None,
    };
    let mut h = Harness::with(
        script,
        Setup {
            instructions: vec![
                part("AGENTS.md", "# Rules\n\nAlways answer in French.\n", false),
                part("CLAUDE.md", &"x".repeat(400), true),
            ],
            ..Setup::default()
        },
    )
    .await;
    let (_, events) = h.turn("hi").await;
    let body = h.provider.chat_requests()[0].body.clone().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("--- from AGENTS.md ---\n# Rules"),
        "{system}"
    );
    assert!(system.contains("--- from CLAUDE.md ---\nxxx"), "{system}");
    let usage = events
        .iter()
        .find_map(|event| match event {
            TurnEvent::Context { usage } => Some(usage.clone()),
            _ => None,
        })
        .unwrap();
    let files: Vec<_> = usage
        .instructions
        .iter()
        .map(|part| (part.file.as_str(), part.tokens, part.truncated))
        .collect();
    assert_eq!(files, [("AGENTS.md", 9, false), ("CLAUDE.md", 100, true)]);
    assert!(
        usage.system_tokens > 110,
        "the parts are inside the system prompt"
    );
    assert_eq!(
        h.session.measure_context().await.instructions,
        usage.instructions
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn the_step_limit_ends_a_turn_that_never_answers() {
    let naps = (0..3).map(|i| {
        Turn::tool_calls(vec![ToolCall::new(
            format!("call_{i}"),
            "nap",
            json!({"ms": 1, "label": i.to_string()}),
        )])
    });
    let mut h = Harness::with(
        Script::new(naps),
        Setup {
            options: SessionOptions {
                max_steps: 3,
                ..SessionOptions::default()
            },
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("loop forever").await;
    assert_eq!(outcome.reason, TurnEndReason::StepLimit);
    assert_eq!(outcome.steps, 3);
    let (reason, message) = finish_of(&events);
    assert_eq!(reason, TurnEndReason::StepLimit);
    assert!(message.unwrap().contains("Stopped after 3 model calls"));
    assert_eq!(h.provider.chat_requests().len(), 3);
    // Valid for the next turn: every call has its result.
    assert_eq!(
        h.saved().last().unwrap().tool_call_id.as_deref(),
        Some("call_2")
    );
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn old_observations_are_shortened_when_the_context_fills_up() {
    let big = "line of a big file\n".repeat(1_000); // 19 000 characters, ~4 750 tokens
    let script = Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "big.txt"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new(
            "call_2",
            "read_file",
            json!({"path": "big.txt"}),
        )]),
        Turn::text("Both reads done.").expect(
            Expect::new()
                .any_contains("[observation shortened from 19000 characters to save context]")
                .last_contains("line of a big file\nline of a big file"),
        ),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            context_window: 12_000,
            files: vec![("big.txt", big.clone())],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("read big.txt twice").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    let shortened: Vec<(usize, usize)> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ContextShortened {
                shortened, dropped, ..
            } => Some((*shortened, *dropped)),
            _ => None,
        })
        .collect();
    assert_eq!(
        shortened,
        [(1, 0)],
        "only the third request needed it, once"
    );
    let third = h.provider.chat_requests()[2].body.clone().unwrap();
    assert_eq!(third["messages"][3]["tool_call_id"], "call_1");
    assert!(third["messages"][3]["content"].as_str().unwrap().len() < 2_000);
    assert_eq!(
        third["messages"][5]["content"],
        big.as_str(),
        "the newest stays whole"
    );
    // The saved transcript keeps everything.
    assert_eq!(h.saved()[2].content, big);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn disabled_tools_are_not_offered() {
    let mut h = Harness::start(Script::new([Turn::text("ok").expect(
        Expect::new()
            .tool_not_offered("edit_file")
            .tool_offered("read_file"),
    )]))
    .await;
    h.session
        .tools()
        .set_policy("edit_file", Policy::Disabled)
        .unwrap();
    let (outcome, _) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn missing_and_reused_call_ids_are_made_unique() {
    let nap = |id: &str| ToolCall::new(id, "nap", json!({"ms": 1, "label": "x"}));
    let script = Script::new([
        Turn::tool_calls(vec![nap(""), nap("call_0")]),
        Turn::tool_calls(vec![nap("call_0")]),
        Turn::text("done"),
    ]);
    let mut h = Harness::start(script).await;
    let (outcome, events) = h.turn("nap").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    let saved = h.saved();
    let first: Vec<&str> = saved[1].tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(first, ["gantry_call_1_0", "call_0"]);
    assert_eq!(saved[4].tool_calls[0].id, "gantry_call_4_0");
    assert_eq!(saved[5].tool_call_id.as_deref(), Some("gantry_call_4_0"));
    let started: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::ToolCallStarted { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["gantry_call_1_0", "call_0", "gantry_call_4_0"]);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn read_then_edit_with_the_built_in_tools() {
    let script = Script::new([
        Turn::tool_calls(vec![ToolCall::new(
            "call_read",
            "read_file",
            json!({"path": "src/lib.rs"}),
        )]),
        Turn::tool_calls(vec![ToolCall::new(
            "call_edit",
            "edit_file",
            json!({"path": "src/lib.rs", "old_string": "a - b", "new_string": "a + b"}),
        )])
        .expect(
            Expect::new()
                .last_tool_call_id("call_read")
                .last_contains("1: pub fn add"),
        ),
        Turn::text("Fixed.").expect(Expect::new().last_tool_call_id("call_edit")),
    ]);
    let mut h = Harness::with(
        script,
        Setup {
            builtins: true,
            approver: Some(Arc::new(FixedApprover(ApprovalDecision::AllowOnce))),
            files: vec![(
                "src/lib.rs",
                "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n".into(),
            )],
            ..Setup::default()
        },
    )
    .await;
    let (outcome, events) = h.turn("add() subtracts, fix it").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:#?}");
    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    );
    let edit = events
        .iter()
        .find_map(|e| match e {
            TurnEvent::ToolResult {
                id, observation, ..
            } if id == "call_edit" => Some(observation.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(edit.kind, ObservationKind::Ok, "{}", edit.text);
    assert!(
        edit.diff
            .as_deref()
            .is_some_and(|d| d.contains("+    a + b")),
        "{:?}",
        edit.diff
    );
    let rows: Vec<(String, DecisionKind)> = h
        .audit
        .records()
        .iter()
        .map(|r| (r.tool.clone(), r.decision.kind))
        .collect();
    assert_eq!(
        rows,
        [
            ("read_file".to_owned(), DecisionKind::Auto),
            ("edit_file".to_owned(), DecisionKind::AllowedOnce)
        ]
    );
    h.provider.verify().unwrap();
}
