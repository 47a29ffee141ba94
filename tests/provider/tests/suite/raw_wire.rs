//! The exact bytes on the wire, checked with a plain HTTP client.

use std::time::Duration;

use gantry_scripted_provider::{
    Completion, Delivery, ErrorReply, Event, Handle, Script, ScriptedProvider, Turn,
};
use serde_json::{Value, json};

use super::WAIT;

async fn post(provider: &Handle, path: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("http://{}{path}", provider.addr()))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

fn chat_body(stream: bool) -> Value {
    json!({"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn streamed_reply_has_the_exact_sse_bytes() {
    let provider = ScriptedProvider::start(
        Script::new([Completion::new().event(Event::Text("Hi".into())).into()])
            .created(1_700_000_000),
    )
    .await
    .unwrap();
    let response = post(&provider, "/v1/chat/completions", &chat_body(true)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    assert_eq!(response.headers()["cache-control"], "no-cache");
    let body = response.text().await.unwrap();
    let expected = concat!(
        "data: {\"id\":\"chatcmpl-scripted-0\",\"object\":\"chat.completion.chunk\",",
        "\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,",
        "\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"logprobs\":null,",
        "\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"chatcmpl-scripted-0\",\"object\":\"chat.completion.chunk\",",
        "\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,",
        "\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    assert_eq!(body, expected);
}

#[tokio::test]
async fn chunks_arrive_one_at_a_time_with_the_scripted_delay() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .event(Event::Text("a".into()))
        .event(Event::Text("b".into()))
        .chunk_delay(Duration::from_millis(150))
        .into()]))
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let mut response = post(&provider, "/v1/chat/completions", &chat_body(true)).await;
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("\"content\":\"a\""));
    assert!(!String::from_utf8_lossy(&first).contains("\"content\":\"b\""));
    while response.chunk().await.unwrap().is_some() {}
    // Four chunks (a, b, finish, [DONE]), each after 150 ms.
    assert!(started.elapsed() >= Duration::from_millis(600));
}

#[tokio::test]
async fn rate_limit_error_carries_retry_after_and_openai_error_shape() {
    let provider = ScriptedProvider::start(Script::new([Turn::rate_limited(1)]))
        .await
        .unwrap();
    let response = post(&provider, "/v1/chat/completions", &chat_body(true)).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"error": {"message": "Rate limit reached for requests (scripted)",
               "type": "rate_limit_error", "param": null, "code": "rate_limit_exceeded"}})
    );
}

#[tokio::test]
async fn raw_error_body_and_headers_are_sent_verbatim() {
    let provider = ScriptedProvider::start(Script::new([ErrorReply::new(502, "unused")
        .raw_body("<html>Bad Gateway</html>")
        .header("Content-Type", "text/html")
        .into()]))
    .await
    .unwrap();
    let response = post(&provider, "/v1/chat/completions", &chat_body(false)).await;
    assert_eq!(response.status(), 502);
    assert_eq!(response.headers()["content-type"], "text/html");
    assert_eq!(response.text().await.unwrap(), "<html>Bad Gateway</html>");
}

#[tokio::test]
async fn non_streamed_cut_breaks_the_body() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("some text")
        .event(Event::Cut)
        .into()]))
    .await
    .unwrap();
    let response = post(&provider, "/v1/chat/completions", &chat_body(false)).await;
    assert_eq!(response.status(), 200);
    assert!(
        response.text().await.is_err(),
        "the body must not arrive whole"
    );
}

#[tokio::test]
async fn dropping_a_hanging_response_is_seen_as_the_client_closing() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("partial")
        .hang_after(1)
        .into()]))
    .await
    .unwrap();
    let mut response = post(&provider, "/v1/chat/completions", &chat_body(true)).await;
    let first = response.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).starts_with("data: "));
    let next = tokio::time::timeout(Duration::from_millis(200), response.chunk()).await;
    assert!(next.is_err(), "nothing after the hang");
    drop(response);
    provider
        .wait_until(WAIT, "delivery to become client_closed", |r| {
            r[0].delivery == Delivery::ClientClosed
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn shutdown_breaks_off_a_hanging_stream_promptly() {
    let provider = ScriptedProvider::start(Script::new([Turn::hang()]))
        .await
        .unwrap();
    let mut response = post(&provider, "/v1/chat/completions", &chat_body(true)).await;
    let reader = tokio::spawn(async move { response.chunk().await });
    tokio::time::timeout(WAIT, provider.shutdown())
        .await
        .expect("shutdown must not wait for the hang")
        .unwrap();
    let read = tokio::time::timeout(WAIT, reader).await.unwrap().unwrap();
    assert!(read.is_err(), "the client sees the stream broken: {read:?}");
}

#[tokio::test]
async fn unknown_paths_and_bad_bodies_are_recorded_failures() {
    let provider = ScriptedProvider::start(Script::new([Turn::text("kept")]))
        .await
        .unwrap();
    let response = post(&provider, "/chat/completions", &chat_body(true)).await;
    assert_eq!(response.status(), 404);
    let response = reqwest::Client::new()
        .post(format!("{}/chat/completions", provider.base_url()))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let failures = provider.failures();
    assert_eq!(failures.len(), 2);
    assert!(
        failures[0]
            .message
            .contains("no such endpoint: POST /chat/completions")
    );
    assert!(failures[1].message.contains("not a JSON object"));
    assert_eq!(provider.remaining_turns(), 1, "failures consume no turn");
    let requests = provider.requests();
    assert_eq!(requests[1].raw_body, "not json");
    assert_eq!(requests[1].body, None);
    let chat: Vec<usize> = provider.chat_requests().iter().map(|r| r.seq).collect();
    assert_eq!(
        chat,
        [1],
        "only POST /v1/chat/completions counts as a chat request"
    );
}

#[tokio::test]
async fn admin_endpoints_queue_turns_and_report_state() {
    let provider = ScriptedProvider::start(Script::default()).await.unwrap();
    let turns = json!([
        {"reply": {"type": "completion", "events": [{"text": "from admin"}]}},
        {"reply": {"type": "error", "status": 401, "message": "bad key"}}
    ]);
    let response = post(&provider, "/__scripted/turns", &turns).await;
    assert_eq!(response.status(), 200);
    let reply: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(reply, json!({"queued": 2, "remaining_turns": 2}));

    let bad = json!({"reply": {"type": "completion", "events": ["hang", {"text": "late"}]}});
    let response = post(&provider, "/__scripted/turns", &bad).await;
    assert_eq!(response.status(), 400);

    let body = post(&provider, "/v1/chat/completions", &chat_body(false))
        .await
        .text()
        .await
        .unwrap();
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "from admin");

    let state = reqwest::get(format!("http://{}/__scripted/state", provider.addr()))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    assert_eq!(state["consumed_turns"], 1);
    assert_eq!(state["remaining_turns"], 1);
    assert_eq!(
        state["requests"].as_array().unwrap().len(),
        1,
        "admin calls are not recorded"
    );
    assert_eq!(state["requests"][0]["path"], "/v1/chat/completions");
}

#[tokio::test]
async fn calls_at_index_zero_and_extra_fields_are_sent_as_servers_do() {
    use gantry_scripted_provider::ToolCall;
    let provider = ScriptedProvider::start(Script::new([Turn::tool_calls_at_index_zero(vec![
        ToolCall::new("call_a", "read", json!({"path": "a"}))
            .with_extra(json!({"extra_content": {"google": {"thought_signature": "sig"}}})),
        ToolCall::new("call_b", "read", json!({"path": "b"})),
    ])]))
    .await
    .unwrap();
    let body = post(&provider, "/v1/chat/completions", &chat_body(true))
        .await
        .text()
        .await
        .unwrap();
    let calls: Vec<Value> = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter_map(|chunk| chunk.pointer("/choices/0/delta/tool_calls/0").cloned())
        .collect();
    assert_eq!(
        calls,
        [
            json!({"index": 0, "id": "call_a", "type": "function",
                   "function": {"name": "read", "arguments": "{\"path\":\"a\"}"},
                   "extra_content": {"google": {"thought_signature": "sig"}}}),
            json!({"index": 0, "id": "call_b", "type": "function",
                   "function": {"name": "read", "arguments": "{\"path\":\"b\"}"}}),
        ]
    );
}

#[tokio::test]
async fn scripted_routes_answer_other_endpoints_and_are_recorded() {
    let provider = ScriptedProvider::start(
        Script::default()
            .route(
                "GET /props",
                json!({"default_generation_settings": {"n_ctx": 4096}}),
            )
            .route("POST /api/show", json!({"model_info": {}})),
    )
    .await
    .unwrap();
    let props: Value = reqwest::get(format!("http://{}/props", provider.addr()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(props["default_generation_settings"]["n_ctx"], 4096);
    let shown = post(&provider, "/api/show", &json!({"model": "m"})).await;
    assert_eq!(shown.status(), 200);
    // Another method on a scripted path is still unknown.
    let other = post(&provider, "/props", &json!({})).await;
    assert_eq!(other.status(), 404);
    let paths: Vec<String> = provider.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/props", "/api/show", "/props"]);
}
