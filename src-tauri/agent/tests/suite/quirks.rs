//! Providers whose wire differs from OpenAI's, each against the scripted server speaking the
//! way that provider does (the shapes recorded from Ollama, DeepSeek, Mistral, Gemini, proxies).

use std::sync::Arc;

use gantry_agent::{
    Provider, ProviderConfig, ProviderFlags, ServerKind, SessionOptions, TurnEndReason, TurnEvent,
};
use gantry_scripted_provider::{
    Completion, ErrorReply, Expect, FinishReason, Script, ToolCall, Turn,
};
use gantry_tools::{ApprovalDecision, FixedApprover, ObservationKind};
use serde_json::json;

use super::support::{Harness, Setup, fast_options, finish_of, text_of};

/// The harness's scripted server as a provider with `flags` and of kind `server`.
fn provider(h: &Harness, flags: ProviderFlags, server: ServerKind) -> Provider {
    let config = ProviderConfig::new(
        "quirky",
        h.provider.base_url(),
        "scripted-model",
        None,
        100_000,
    )
    .with_flags(flags)
    .with_server(server);
    Provider::new(config, None, fast_options()).unwrap()
}

fn warnings(events: &[TurnEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::Error {
                message,
                fatal: false,
            } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn results(events: &[TurnEvent]) -> Vec<(String, ObservationKind)> {
    events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::ToolResult {
                id, observation, ..
            } => Some((id.clone(), observation.kind)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn ollamas_parallel_calls_all_at_index_zero_run_as_separate_calls() {
    let setup = Setup {
        files: vec![("a.txt", "alpha".into()), ("b.txt", "beta".into())],
        ..Setup::default()
    };
    let mut h = Harness::with(
        Script::new([
            Turn::tool_calls_at_index_zero(vec![
                ToolCall::new("call_a", "read_file", json!({"path": "a.txt"})),
                ToolCall::new("call_b", "read_file", json!({"path": "b.txt"})),
            ]),
            Turn::text("Both read.")
                .expect(Expect::new().message_count(5).last_tool_call_id("call_b")),
        ]),
        setup,
    )
    .await;
    let (outcome, events) = h.turn("read both").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:?}");
    assert_eq!(
        results(&events),
        [
            ("call_a".into(), ObservationKind::Ok),
            ("call_b".into(), ObservationKind::Ok)
        ]
    );
    let second = h.provider.chat_requests()[1].body.clone().unwrap();
    assert_eq!(
        second["messages"][2]["tool_calls"][1]["function"]["arguments"],
        r#"{"path":"b.txt"}"#
    );
    assert_eq!(second["messages"][3]["content"], "alpha");
    assert_eq!(second["messages"][4]["content"], "beta");
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn deepseek_gets_its_reasoning_back_on_messages_with_tool_calls() {
    let setup = Setup {
        files: vec![("a.txt", "alpha".into())],
        ..Setup::default()
    };
    let mut h = Harness::with(
        Script::new([
            Completion::new()
                .reasoning("I should read a.txt first.")
                .tool_calls(vec![ToolCall::new(
                    "call_1",
                    "read_file",
                    json!({"path": "a.txt"}),
                )])
                .into(),
            // What DeepSeek's thinking mode checks: the assistant message with the call carries
            // its reasoning, or the request is refused.
            Turn::text("It says alpha.").expect(
                Expect::new()
                    .pointer(
                        "/messages/2/reasoning_content",
                        json!("I should read a.txt first."),
                    )
                    .absent("/messages/1/reasoning_content"),
            ),
            Turn::text("Again: alpha.").expect(
                Expect::new()
                    .pointer(
                        "/messages/2/reasoning_content",
                        json!("I should read a.txt first."),
                    )
                    .absent("/messages/4/reasoning_content"),
            ),
        ]),
        setup,
    )
    .await;
    let deepseek = ProviderConfig::preset("deepseek").unwrap();
    let flags = deepseek.flags;
    assert!(flags.replay_reasoning);
    let replaying = provider(&h, flags, ServerKind::Other);
    h.session.set_provider(replaying);
    let (outcome, _) = h.turn("what does a.txt say?").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    // The answer without tool calls keeps its reasoning out of the next request.
    let (outcome, _) = h.turn("and again?").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();

    // Without the flag (OpenAI's way) the reasoning stays home.
    let mut plain = Harness::start(Script::new([
        Completion::new()
            .reasoning("think")
            .tool_calls(vec![ToolCall::new(
                "c",
                "nap",
                json!({"ms": 1, "label": "x"}),
            )])
            .into(),
        Turn::text("done").expect(Expect::new().absent("/messages/2/reasoning_content")),
    ]))
    .await;
    plain.turn("go").await;
    plain.provider.verify().unwrap();
}

#[tokio::test]
async fn a_local_server_is_asked_for_at_most_the_reply_reserve_and_a_hosted_one_is_not() {
    // llama.cpp generates until its window is full unless told; a tiny model that never writes
    // its stop token would repeat its chat template for minutes.
    let mut h = Harness::start(
        Script::new([
            Turn::from(
                Completion::new()
                    .text("Hello hello hello")
                    .finish(FinishReason::Length),
            )
            .expect(Expect::new().pointer("/max_tokens", json!(3_000))),
            Turn::text("Hi.").expect(Expect::new().absent("/max_tokens")),
        ])
        .route(
            "GET /props",
            json!({"default_generation_settings": {"n_ctx": 6_000}, "total_slots": 1}),
        ),
    )
    .await;
    let llamacpp = ProviderConfig::preset("llamacpp").unwrap();
    h.session
        .set_provider(provider(&h, llamacpp.flags, ServerKind::LlamaCpp));
    let (outcome, events) = h.turn("hello").await;
    // Half the 6,000-token window is the most kept for a reply.
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:?}");
    let said = warnings(&events);
    assert!(
        said.iter()
            .any(|warning| warning.contains("cut off at 3000 tokens")),
        "{said:?}"
    );

    let openai = ProviderConfig::preset("openai").unwrap();
    h.session
        .set_provider(provider(&h, openai.flags, ServerKind::Other));
    let (outcome, _) = h.turn("again").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn mistral_is_never_sent_stream_options() {
    let mut h = Harness::start(Script::new([
        Turn::text("Bonjour.").expect(Expect::new().stream(true).absent("/stream_options"))
    ]))
    .await;
    let mistral = ProviderConfig::preset("mistral").unwrap();
    h.session
        .set_provider(provider(&h, mistral.flags, ServerKind::Other));
    let (outcome, events) = h.turn("salut").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(text_of(&events), "Bonjour.");
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn a_custom_provider_refusing_stream_options_is_asked_again_without_and_remembered() {
    // Mistral's own 422 body, as a custom provider at an unknown URL would answer.
    let refusal = ErrorReply::new(422, "unused").raw_body(
        r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_message_error","param":null,"code":null}"#,
    );
    let mut h = Harness::start(Script::new([
        Turn::from(refusal)
            .expect(Expect::new().pointer("/stream_options/include_usage", json!(true))),
        Turn::text("First.").expect(Expect::new().absent("/stream_options")),
        Turn::text("Second.").expect(Expect::new().absent("/stream_options")),
    ]))
    .await;
    let custom = provider(&h, ProviderFlags::default(), ServerKind::Other);
    assert!(custom.flags().stream_usage);
    h.session.set_provider(custom.clone());
    let (outcome, events) = h.turn("one").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:?}");
    assert_eq!(text_of(&events), "First.");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, TurnEvent::Retrying { .. })),
        "not a retry: asked again at once"
    );
    let said = warnings(&events);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("does not accept `stream_options`"),
        "{said:?}"
    );
    assert!(!custom.flags().stream_usage, "the provider remembers");

    // A provider built again for the same URL (the app builds one per turn) remembers too.
    h.session
        .set_provider(provider(&h, ProviderFlags::default(), ServerKind::Other));
    let (outcome, events) = h.turn("two").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert!(warnings(&events).is_empty());
    assert_eq!(h.provider.chat_requests().len(), 3);
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn geminis_thought_signature_goes_back_with_its_call_unchanged() {
    let signature = json!({"google": {"thought_signature": "CiQBVKhc7h+opaque=="}});
    let mut h = Harness::start(Script::new([
        Turn::tool_calls(vec![
            ToolCall::new("call_g", "nap", json!({"ms": 1, "label": "g"}))
                .with_extra(json!({"extra_content": signature.clone()})),
        ]),
        Turn::text("Napped.").expect(
            Expect::new()
                .pointer("/messages/2/tool_calls/0/extra_content", signature.clone())
                .pointer("/messages/2/tool_calls/0/id", json!("call_g")),
        ),
    ]))
    .await;
    let (outcome, _) = h.turn("nap").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    h.provider.verify().unwrap();
    // It is kept with the saved call, so a reopened session sends it too.
    let saved = h.saved();
    let extra = saved[1].tool_calls[0].extra.clone().unwrap();
    assert_eq!(extra["extra_content"], signature);
}

#[tokio::test]
async fn an_html_error_page_is_summarised_in_every_retry_and_the_final_error() {
    let nginx = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n";
    let page = || {
        Turn::from(
            ErrorReply::new(502, "unused")
                .raw_body(nginx)
                .header("Content-Type", "text/html"),
        )
    };
    let mut h = Harness::start(Script::new([page(), page(), page(), page()])).await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    let mut said: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::Retrying { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    said.push(finish_of(&events).1.unwrap());
    assert_eq!(said.len(), 4);
    for text in &said {
        assert!(text.contains("HTTP 502: 502 Bad Gateway"), "{text}");
        assert!(!text.contains('<') && !text.contains("nginx"), "{text}");
    }
}

#[tokio::test]
async fn an_error_body_in_an_array_is_read_like_an_object() {
    let gemini = r#"[{"error": {"code": 400, "message": "Function call is missing a thought_signature in functionCall parts.", "status": "INVALID_ARGUMENT"}}]"#;
    let mut h = Harness::start(Script::new([Turn::from(
        ErrorReply::new(400, "unused").raw_body(gemini),
    )]))
    .await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    assert_eq!(
        finish_of(&events).1.unwrap(),
        "scripted answered HTTP 400: Function call is missing a thought_signature in \
         functionCall parts."
    );
}

#[tokio::test]
async fn tool_calls_written_as_text_run_as_calls_and_stay_out_of_the_answer() {
    let setup = Setup {
        files: vec![("a.txt", "alpha".into())],
        ..Setup::default()
    };
    let mut h = Harness::with(
        Script::new([
            Turn::text(
                "I'll read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>",
            ),
            Turn::text("It says alpha.").expect(
                Expect::new()
                    .last_role("tool")
                    .last_contains("alpha")
                    .pointer("/messages/2/tool_calls/0/function/name", json!("read_file"))
                    .pointer("/messages/2/content", json!("I'll read it.")),
            ),
        ]),
        setup,
    )
    .await;
    h.session.set_provider(provider(
        &h,
        ProviderFlags::for_server(ServerKind::Ollama),
        ServerKind::Other,
    ));
    let (outcome, events) = h.turn("what does a.txt say?").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{events:?}");
    let text = text_of(&events);
    assert_eq!(text, "I'll read it.\nIt says alpha.");
    assert!(!text.contains("tool_call"));
    assert_eq!(results(&events).len(), 1);
    let saved = h.saved();
    assert_eq!(saved[1].content, "I'll read it.");
    assert_eq!(saved[1].tool_calls[0].name, "read_file");
    h.provider.verify().unwrap();
}

#[tokio::test]
async fn a_call_written_as_text_goes_through_the_same_permissions() {
    let setup = Setup {
        files: vec![("a.txt", "alpha".into())],
        approver: Some(Arc::new(FixedApprover(ApprovalDecision::Deny {
            reason: Some("not now".into()),
        }))),
        ..Setup::default()
    };
    let mut h = Harness::with(
        Script::new([
            Turn::text(r#"<function=edit_file>{"path": "a.txt", "old": "alpha", "new": "omega"}</function>"#),
            Turn::text("Denied, then.").expect(Expect::new().last_role("tool")),
        ]),
        setup,
    )
    .await;
    h.session.set_provider(provider(
        &h,
        ProviderFlags::for_server(ServerKind::LlamaCpp),
        ServerKind::Other,
    ));
    let (outcome, events) = h.turn("change it").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, TurnEvent::ApprovalRequested { .. })),
        "the approver was asked"
    );
    assert_eq!(results(&events)[0].1, ObservationKind::Denied);
    assert_eq!(h.file("a.txt"), "alpha");
}

#[tokio::test]
async fn without_the_flag_text_that_looks_like_a_call_is_just_text() {
    let written = r#"<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>"#;
    let mut h = Harness::start(Script::new([Turn::text(written)])).await;
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    assert_eq!(text_of(&events), written);
    assert!(results(&events).is_empty());
}

/// The scripted server as an Ollama whose `/api/ps` says it runs the model with `running`
/// tokens of context.
fn ollama_script(running: u32, turns: Vec<Turn>) -> Script {
    Script::new(turns)
        .route(
            "POST /api/show",
            json!({"parameters": "stop \"<|im_end|>\"", "model_info": {
                "general.architecture": "qwen2", "qwen2.context_length": 32768}}),
        )
        .route(
            "GET /api/ps",
            json!({"models": [{"name": "scripted-model:latest", "model": "scripted-model:latest",
                                "context_length": running}]}),
        )
}

#[tokio::test]
async fn an_ollama_window_too_small_for_the_instructions_stops_before_sending() {
    let mut h = Harness::start(ollama_script(512, vec![])).await;
    h.session.set_provider(provider(
        &h,
        ProviderFlags::for_server(ServerKind::Ollama),
        ServerKind::Ollama,
    ));
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Error);
    let message = finish_of(&events).1.unwrap();
    assert!(
        message.starts_with("Ollama runs scripted-model with a 512-token context window"),
        "{message}"
    );
    assert!(message.contains("OLLAMA_CONTEXT_LENGTH="), "{message}");
    assert!(message.contains("nothing was sent"), "{message}");
    assert!(h.provider.chat_requests().is_empty());
}

#[tokio::test]
async fn a_small_server_window_warns_with_the_fix_and_is_used_for_fitting() {
    // Compaction off: this is about fitting (a long message would be summarised first).
    let mut h = Harness::with(
        ollama_script(4_096, vec![Turn::text("ok"), Turn::text("ok again")]),
        Setup {
            options: SessionOptions {
                compact_at_percent: 0,
                ..SessionOptions::default()
            },
            ..Setup::default()
        },
    )
    .await;
    h.session.set_provider(provider(
        &h,
        ProviderFlags::for_server(ServerKind::Ollama),
        ServerKind::Ollama,
    ));
    let (outcome, events) = h.turn("hi").await;
    assert_eq!(outcome.reason, TurnEndReason::Completed);
    let said = warnings(&events);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("4096-token context window"), "{said:?}");
    assert!(said[0].contains("OLLAMA_CONTEXT_LENGTH="), "{said:?}");
    assert!(said[0].find("Fix:") < said[0].find("OLLAMA"), "{said:?}");

    // Fitting uses the server's 4096, not the configured 100000: a long message gets old
    // exchanges left out.
    let long = "x".repeat(12_000);
    let (_, events) = h.turn(&long).await;
    let fitted = events.iter().find_map(|event| match event {
        TurnEvent::ContextShortened { budget_tokens, .. } => Some(*budget_tokens),
        _ => None,
    });
    assert_eq!(fitted, Some(4_096 - 2_048));
}

#[tokio::test]
async fn each_local_servers_own_api_gives_the_window() {
    use gantry_agent::discover_window;
    use std::time::Duration;
    let http = reqwest::Client::new();
    let ask = |script: Script, kind: ServerKind| {
        let http = http.clone();
        async move {
            let server = gantry_scripted_provider::ScriptedProvider::start(script)
                .await
                .unwrap();
            discover_window(
                &http,
                kind,
                &server.base_url(),
                "scripted-model",
                None,
                Duration::from_secs(2),
            )
            .await
        }
    };
    let ollama = ask(ollama_script(16_384, vec![]), ServerKind::Ollama)
        .await
        .unwrap();
    assert_eq!(
        (ollama.tokens, ollama.certain, ollama.model_max),
        (16_384, true, Some(32_768))
    );
    // Not loaded: the Modelfile's num_ctx, else the default (assumed).
    let unloaded = Script::default()
        .route(
            "POST /api/show",
            json!({"parameters": "num_ctx 12288", "model_info": {}}),
        )
        .route("GET /api/ps", json!({"models": []}));
    let from_modelfile = ask(unloaded, ServerKind::Ollama).await.unwrap();
    assert_eq!(
        (from_modelfile.tokens, from_modelfile.certain),
        (12_288, true)
    );
    let bare = Script::default()
        .route("POST /api/show", json!({"model_info": {"general.architecture": "llama", "llama.context_length": 131072}}))
        .route("GET /api/ps", json!({"models": []}));
    let assumed = ask(bare, ServerKind::Ollama).await.unwrap();
    assert_eq!((assumed.tokens, assumed.certain), (4_096, false));

    let lmstudio = Script::default().route(
        "GET /api/v0/models",
        json!({"object": "list", "data": [
            {"id": "other", "state": "loaded", "max_context_length": 8192, "loaded_context_length": 2048},
            {"id": "scripted-model", "state": "loaded", "max_context_length": 32768, "loaded_context_length": 10000}
        ]}),
    );
    let found = ask(lmstudio, ServerKind::LmStudio).await.unwrap();
    assert_eq!(
        (found.tokens, found.certain, found.model_max),
        (10_000, true, Some(32_768))
    );

    let llamacpp = Script::default().route(
        "GET /props",
        json!({"default_generation_settings": {"n_ctx": 6144}, "total_slots": 1}),
    );
    assert_eq!(
        ask(llamacpp, ServerKind::LlamaCpp).await.unwrap().tokens,
        6_144
    );

    let vllm = Script::default().route(
        "GET /v1/models",
        json!({"object": "list", "data": [{"id": "scripted-model", "max_model_len": 20480}]}),
    );
    assert_eq!(ask(vllm, ServerKind::Vllm).await.unwrap().tokens, 20_480);

    // A server that is not of that kind (no such endpoint): unknown.
    assert_eq!(ask(Script::default(), ServerKind::LlamaCpp).await, None);
    assert_eq!(ask(Script::default(), ServerKind::Other).await, None);
}
