//! Compatibility with the real client: async-openai 0.43 consuming the scripted provider.

use std::collections::BTreeMap;
use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::{OpenAIError, StreamError};
use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionRequestUserMessage,
    ChatCompletionResponseStream, ChatCompletionStreamOptions, ChatCompletionTool,
    ChatCompletionTools, CreateChatCompletionRequest, CreateChatCompletionRequestArgs,
    CreateChatCompletionStreamResponse, FinishReason, FunctionObject,
};
use futures::StreamExt;
use gantry_scripted_provider::{
    Completion, Delivery, ErrorReply, Expect, Handle, Script, ScriptedProvider, ToolCall, Turn,
};
use serde_json::{Value, json};

use super::WAIT;

fn client(provider: &Handle) -> Client<OpenAIConfig> {
    Client::with_config(
        OpenAIConfig::new()
            .with_api_base(provider.base_url())
            .with_api_key("test"),
    )
}

fn request(text: &str, tools: &[&str], include_usage: bool) -> CreateChatCompletionRequest {
    let messages: Vec<ChatCompletionRequestMessage> =
        vec![ChatCompletionRequestUserMessage::from(text).into()];
    let mut args = CreateChatCompletionRequestArgs::default();
    args.model("scripted-model").messages(messages);
    if include_usage {
        args.stream_options(ChatCompletionStreamOptions {
            include_usage: Some(true),
            include_obfuscation: None,
        });
    }
    if !tools.is_empty() {
        args.tools(
            tools
                .iter()
                .map(|name| {
                    ChatCompletionTools::Function(ChatCompletionTool {
                        function: FunctionObject {
                            name: (*name).to_owned(),
                            description: Some(format!("The {name} tool")),
                            parameters: Some(json!({"type": "object", "properties": {}})),
                            strict: None,
                        },
                    })
                })
                .collect::<Vec<_>>(),
        );
    }
    args.build().unwrap()
}

/// Everything a stream yielded, errors included, until it ended.
async fn drain(
    mut stream: ChatCompletionResponseStream,
) -> Vec<Result<CreateChatCompletionStreamResponse, OpenAIError>> {
    let mut items = Vec::new();
    while let Some(item) = tokio::time::timeout(WAIT, stream.next()).await.unwrap() {
        items.push(item);
    }
    items
}

fn content_of(chunks: &[CreateChatCompletionStreamResponse]) -> String {
    chunks
        .iter()
        .flat_map(|chunk| &chunk.choices)
        .filter_map(|choice| choice.delta.content.as_deref())
        .collect()
}

fn finish_of(chunks: &[CreateChatCompletionStreamResponse]) -> Option<FinishReason> {
    chunks
        .iter()
        .flat_map(|chunk| &chunk.choices)
        .find_map(|choice| choice.finish_reason)
}

#[tokio::test]
async fn streamed_text_reassembles_with_role_finish_and_usage() {
    let text = "Hello there, this reply streams as several small deltas.";
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text(text)
        .usage(12, 9)
        .into()]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], true))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();

    assert!(chunks.len() > 5, "text should arrive in several chunks");
    assert_eq!(content_of(&chunks), text);
    assert_eq!(
        chunks[0].choices[0].delta.role,
        Some(async_openai::types::chat::Role::Assistant)
    );
    assert_eq!(finish_of(&chunks), Some(FinishReason::Stop));
    assert!(chunks.iter().all(|c| c.object == "chat.completion.chunk"));
    assert!(chunks.iter().all(|c| c.id == chunks[0].id));
    let last = chunks.last().unwrap();
    assert!(last.choices.is_empty());
    let usage = last.usage.as_ref().unwrap();
    assert_eq!(
        (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.total_tokens
        ),
        (12, 9, 21)
    );
    assert!(chunks[..chunks.len() - 1].iter().all(|c| c.usage.is_none()));

    let requests = provider.chat_requests();
    assert_eq!(requests.len(), 1);
    let body = requests[0].body.as_ref().unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(requests[0].header("authorization"), Some("Bearer test"));
    assert_eq!(requests[0].turn, Some(0));
    provider
        .wait_until(WAIT, "the stream to complete", |r| {
            r[0].delivery == Delivery::Complete
        })
        .await
        .unwrap();
    provider.verify().unwrap();
}

#[tokio::test]
async fn interleaved_parallel_tool_calls_reassemble_by_index() {
    let read = json!({"path": "src/main.rs", "offset": 1, "limit": 200});
    let grep = json!({"pattern": "fn main", "glob": "**/*.rs"});
    let provider = ScriptedProvider::start(Script::new([Turn::tool_calls_interleaved(vec![
        ToolCall::new("call_read", "read_file", read.clone()),
        ToolCall::new("call_grep", "grep", grep.clone()),
    ])
    .expect(
        Expect::new()
            .tool_offered("read_file")
            .tool_offered("grep")
            .last_contains("look"),
    )]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("look at main", &["read_file", "grep"], false))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();

    // Reassemble the way an agent loop must: by index, id and name from the first fragment.
    let mut calls: BTreeMap<u32, (String, String, String)> = BTreeMap::new();
    let mut order = Vec::new();
    for chunk in &chunks {
        for choice in &chunk.choices {
            for call in choice.delta.tool_calls.iter().flatten() {
                order.push(call.index);
                let entry = calls.entry(call.index).or_default();
                if let Some(id) = &call.id {
                    entry.0.clone_from(id);
                }
                if let Some(function) = &call.function {
                    if let Some(name) = &function.name {
                        entry.1.clone_from(name);
                    }
                    if let Some(arguments) = &function.arguments {
                        entry.2.push_str(arguments);
                    }
                }
            }
        }
    }
    assert_eq!(&order[..4], &[0, 1, 0, 1], "fragments alternate by index");
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[&0].0.as_str(), calls[&0].1.as_str()),
        ("call_read", "read_file")
    );
    assert_eq!(
        (calls[&1].0.as_str(), calls[&1].1.as_str()),
        ("call_grep", "grep")
    );
    assert_eq!(serde_json::from_str::<Value>(&calls[&0].2).unwrap(), read);
    assert_eq!(serde_json::from_str::<Value>(&calls[&1].2).unwrap(), grep);
    assert_eq!(finish_of(&chunks), Some(FinishReason::ToolCalls));
    assert!(
        chunks.iter().all(|c| c.usage.is_none()),
        "usage was not asked for"
    );
    provider.verify().unwrap();
}

#[tokio::test]
async fn reasoning_deltas_do_not_break_the_typed_stream() {
    // async-openai's delta type has no reasoning_content field: the chunks still parse, and
    // the reasoning is simply not visible through the typed API.
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .reasoning("First, think it through.")
        .text("Answer.")
        .into()]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("why", &[], false))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(content_of(&chunks), "Answer.");
    assert_eq!(finish_of(&chunks), Some(FinishReason::Stop));
}

#[tokio::test]
async fn error_status_surfaces_as_api_error_with_the_message() {
    let provider = ScriptedProvider::start(Script::new([ErrorReply::new(
        400,
        "This model's maximum context length is 8192 tokens.",
    )
    .code("context_length_exceeded")
    .into()]))
    .await
    .unwrap();
    let error = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .err()
        .unwrap();
    let OpenAIError::ApiError(response) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(response.status_code.as_u16(), 400);
    assert_eq!(
        response.api_error.message,
        "This model's maximum context length is 8192 tokens."
    );
    assert_eq!(
        response.api_error.r#type.as_deref(),
        Some("invalid_request_error")
    );
    assert_eq!(
        response.api_error.code.as_deref(),
        Some("context_length_exceeded")
    );
    assert_eq!(
        provider.chat_requests().len(),
        1,
        "4xx other than 429 is not retried"
    );
}

#[tokio::test]
async fn rate_limit_retry_after_is_sent_and_honoured_by_the_client() {
    let provider = ScriptedProvider::start(Script::new([
        Turn::rate_limited(1),
        Turn::text("after the wait"),
    ]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(content_of(&chunks), "after the wait");

    let requests = provider.chat_requests();
    assert_eq!(requests.len(), 2, "the client retried the 429 itself");
    assert_eq!(requests[0].status, 429);
    let waited = requests[1].received_ms - requests[0].received_ms;
    assert!(
        waited >= 1000,
        "the retry came {waited} ms later, not after Retry-After: 1"
    );
    provider.verify().unwrap();
}

#[tokio::test]
async fn persistent_rate_limit_ends_as_a_429_api_error_after_three_retries() {
    let limited = || ErrorReply::rate_limited(0).error_type("requests");
    let provider = ScriptedProvider::start(Script::new((0..4).map(|_| limited().into())))
        .await
        .unwrap();
    let error = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .err()
        .unwrap();
    let OpenAIError::ApiError(response) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(response.status_code.as_u16(), 429);
    assert_eq!(
        response.api_error.message,
        "Rate limit reached for requests (scripted)"
    );
    assert_eq!(
        response.api_error.code.as_deref(),
        Some("rate_limit_exceeded")
    );
    assert_eq!(provider.chat_requests().len(), 4);
    provider.verify().unwrap();
}

#[tokio::test]
async fn server_error_message_is_the_raw_body_after_retries() {
    let provider = ScriptedProvider::start(Script::new(
        (0..4).map(|_| Turn::error(503, "The engine is currently overloaded")),
    ))
    .await
    .unwrap();
    let error = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .err()
        .unwrap();
    let OpenAIError::ApiError(response) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(response.status_code.as_u16(), 503);
    // For 5xx async-openai does not parse the body: the whole JSON text is the message.
    let body: Value = serde_json::from_str(&response.api_error.message).unwrap();
    assert_eq!(
        body["error"]["message"],
        "The engine is currently overloaded"
    );
    assert_eq!(response.api_error.r#type, None);
    assert_eq!(provider.chat_requests().len(), 4);
}

#[tokio::test]
async fn cut_stream_yields_a_stream_error_then_ends() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("one two three four five")
        .cut_after(2)
        .into()]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], true))
        .await
        .unwrap();
    let items = drain(stream).await;
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(items[0].is_ok() && items[1].is_ok());
    match &items[2] {
        Err(OpenAIError::StreamError(error)) => {
            assert!(matches!(**error, StreamError::EventStream(_)), "{error:?}");
        }
        other => panic!("expected a stream error, got {other:?}"),
    }
    provider
        .wait_until(WAIT, "the cut to be recorded", |r| {
            r[0].delivery == Delivery::Cut
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn clean_eof_without_done_just_ends_the_stream() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("one two three")
        .eof_after(2)
        .into()]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .unwrap();
    let items = drain(stream).await;
    // No error and no finish_reason: the caller must notice the missing finish itself.
    assert_eq!(items.len(), 2);
    let chunks: Vec<_> = items.into_iter().map(Result::unwrap).collect();
    assert_eq!(finish_of(&chunks), None);
}

#[tokio::test]
async fn malformed_chunk_yields_a_deserialize_error_and_the_stream_goes_on() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("before after")
        .malformed_after(1, "{\"id\": not json")
        .into()]))
    .await
    .unwrap();
    let stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .unwrap();
    let items = drain(stream).await;
    assert!(items[0].is_ok());
    match &items[1] {
        Err(OpenAIError::JSONDeserialize(_, content)) => {
            assert_eq!(content, "{\"id\": not json");
        }
        other => panic!("expected a deserialize error, got {other:?}"),
    }
    let rest: Vec<_> = items[2..]
        .iter()
        .map(|i| i.as_ref().unwrap().clone())
        .collect();
    let mut all = vec![items[0].as_ref().unwrap().clone()];
    all.extend(rest);
    assert_eq!(content_of(&all), "before after");
    assert_eq!(finish_of(&all), Some(FinishReason::Stop));
}

#[tokio::test]
async fn non_streamed_completion_carries_text_tool_calls_and_usage() {
    let provider = ScriptedProvider::start(Script::new([Completion::new()
        .text("Reading it now.")
        .tool_calls(vec![ToolCall::new(
            "call_1",
            "read_file",
            json!({"path": "a.txt"}),
        )])
        .usage(30, 5)
        .into()]))
    .await
    .unwrap();
    let response = client(&provider)
        .chat()
        .create(request("read a.txt", &["read_file"], false))
        .await
        .unwrap();
    assert_eq!(response.object, "chat.completion");
    let choice = &response.choices[0];
    assert_eq!(choice.message.content.as_deref(), Some("Reading it now."));
    assert_eq!(choice.finish_reason, Some(FinishReason::ToolCalls));
    let calls = choice.message.tool_calls.as_ref().unwrap();
    let ChatCompletionMessageToolCalls::Function(call) = &calls[0] else {
        panic!("expected a function call, got {calls:?}");
    };
    assert_eq!(
        (call.id.as_str(), call.function.name.as_str()),
        ("call_1", "read_file")
    );
    assert_eq!(call.function.arguments, r#"{"path":"a.txt"}"#);
    let usage = response.usage.unwrap();
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (30, 5));
    let body = provider.chat_requests()[0].body.clone().unwrap();
    assert_eq!(body.get("stream"), None, "create() leaves stream unset");
}

#[tokio::test]
async fn hang_keeps_the_stream_open_until_the_client_drops_it() {
    let provider = ScriptedProvider::start(Script::new([Turn::hang()]))
        .await
        .unwrap();
    let mut stream = client(&provider)
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(300), stream.next()).await;
    assert!(waited.is_err(), "a hanging stream yields nothing");
    assert_eq!(provider.chat_requests()[0].delivery, Delivery::Pending);

    drop(stream); // what cancelling a turn does
    provider
        .wait_until(WAIT, "the provider to see the client go", |r| {
            r[0].delivery == Delivery::ClientClosed
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn failed_expectation_is_a_500_naming_the_mismatch_and_keeps_the_turn() {
    let provider = ScriptedProvider::start(Script::new([
        Turn::text("hello back").expect(Expect::new().last_contains("hello"))
    ]))
    .await
    .unwrap();
    let error = client(&provider)
        .chat()
        .create_stream(request("goodbye", &[], false))
        .await
        .err()
        .unwrap();
    let OpenAIError::ApiError(response) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(response.status_code.as_u16(), 500);
    assert!(
        response
            .api_error
            .message
            .contains(r#"last message does not contain \"hello\""#),
        "{}",
        response.api_error.message
    );
    // The client retried three times; each retry failed the same way; the turn is still there.
    let failures = provider.failures();
    assert_eq!(failures.len(), 4);
    assert!(failures[0].message.contains("does not match turn 0"));
    assert_eq!(provider.remaining_turns(), 1);
    assert!(provider.verify().is_err());

    let stream = client(&provider)
        .chat()
        .create_stream(request("hello again", &[], false))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(content_of(&chunks), "hello back");
}

#[tokio::test]
async fn exhausted_script_is_a_500_that_says_so() {
    let provider = ScriptedProvider::start(Script::new([Turn::text("only one")]))
        .await
        .unwrap();
    let client = client(&provider);
    let stream = client
        .chat()
        .create_stream(request("first", &[], false))
        .await
        .unwrap();
    drain(stream).await;
    let error = client
        .chat()
        .create_stream(request("second", &[], false))
        .await
        .err()
        .unwrap();
    let OpenAIError::ApiError(response) = error else {
        panic!("expected an API error, got {error:?}");
    };
    assert_eq!(response.status_code.as_u16(), 500);
    assert!(response.api_error.message.contains("script exhausted"));
    assert!(response.api_error.message.contains(r#"user \"second\""#));
    let requests = provider.chat_requests();
    assert_eq!(requests[1].turn, None);
    assert!(
        requests[1]
            .failure
            .as_ref()
            .unwrap()
            .contains("all 1 turns")
    );
}

#[tokio::test]
async fn turns_pushed_while_running_are_played_next() {
    let provider = ScriptedProvider::start(Script::default()).await.unwrap();
    let client = client(&provider);
    provider.push_turn(Turn::text("pushed later")).unwrap();
    let stream = client
        .chat()
        .create_stream(request("hi", &[], false))
        .await
        .unwrap();
    let chunks: Vec<_> = drain(stream)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(content_of(&chunks), "pushed later");
    assert!(
        provider
            .push_turn(Turn::error(200, "not an error"))
            .is_err()
    );
}

#[tokio::test]
async fn model_list_comes_from_the_script() {
    let provider = ScriptedProvider::start(Script::default().models(["gpt-test", "deepseek-test"]))
        .await
        .unwrap();
    let client = client(&provider);
    let models = client.models().list().await.unwrap();
    let ids: Vec<&str> = models.data.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["gpt-test", "deepseek-test"]);
    assert_eq!(models.object, "list");
    let model = client.models().retrieve("gpt-test").await.unwrap();
    assert_eq!(model.owned_by, "gantry-scripted");
    provider.set_models(["other"]);
    let models = client.models().list().await.unwrap();
    assert_eq!(models.data[0].id, "other");
}
