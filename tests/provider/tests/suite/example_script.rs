//! The script shown in the crate docs (`example-script.json`), played through async-openai.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestUserMessage, ChatCompletionTool, ChatCompletionTools,
    CreateChatCompletionRequest, CreateChatCompletionRequestArgs, FinishReason, FunctionObject,
};
use futures::StreamExt;
use gantry_scripted_provider::{Delivery, Script, ScriptedProvider};
use serde_json::{Value, json};

use super::WAIT;

const EXAMPLE: &str = include_str!("../../example-script.json");

fn request(text: &str) -> CreateChatCompletionRequest {
    let tool = |name: &str| {
        ChatCompletionTools::Function(ChatCompletionTool {
            function: FunctionObject {
                name: name.to_owned(),
                description: None,
                parameters: Some(json!({"type": "object"})),
                strict: None,
            },
        })
    };
    CreateChatCompletionRequestArgs::default()
        .model("scripted-model")
        .messages(vec![ChatCompletionRequestUserMessage::from(text).into()])
        .tools(vec![tool("list_files"), tool("read_file")])
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_documented_example_plays_as_described() {
    let provider = ScriptedProvider::start(Script::from_json(EXAMPLE).unwrap())
        .await
        .unwrap();
    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(provider.base_url())
            .with_api_key("test"),
    );

    // Turn 0: reasoning, text and two interleaved tool calls.
    let mut stream = client
        .chat()
        .create_stream(request("please list the files"))
        .await
        .unwrap();
    let (mut text, mut arguments, mut finish) =
        (String::new(), [String::new(), String::new()], None);
    while let Some(chunk) = stream.next().await {
        for choice in chunk.unwrap().choices {
            text.push_str(choice.delta.content.as_deref().unwrap_or_default());
            for call in choice.delta.tool_calls.unwrap_or_default() {
                let piece = call.function.and_then(|f| f.arguments).unwrap_or_default();
                arguments[call.index as usize].push_str(&piece);
            }
            finish = finish.or(choice.finish_reason);
        }
    }
    assert_eq!(text, "Let me look.");
    assert_eq!(
        serde_json::from_str::<Value>(&arguments[0]).unwrap(),
        json!({"dir": "."})
    );
    assert_eq!(
        serde_json::from_str::<Value>(&arguments[1]).unwrap(),
        json!({"path": "README.md"})
    );
    assert_eq!(finish, Some(FinishReason::ToolCalls));

    // Turn 1 answers 429 with Retry-After: 1; the client's retry plays turn 2, a slow stream.
    let mut stream = client.chat().create_stream(request("go on")).await.unwrap();
    let mut text = String::new();
    while let Some(chunk) = stream.next().await {
        for choice in chunk.unwrap().choices {
            text.push_str(choice.delta.content.as_deref().unwrap_or_default());
        }
    }
    assert_eq!(text, "Two files. Done.");

    // Turn 3 is cut after its first chunk.
    let mut stream = client.chat().create_stream(request("more")).await.unwrap();
    assert!(stream.next().await.unwrap().is_ok());
    assert!(matches!(
        stream.next().await,
        Some(Err(OpenAIError::StreamError(_)))
    ));

    // Turn 4 hangs until the client gives up.
    let mut stream = client.chat().create_stream(request("last")).await.unwrap();
    assert!(
        tokio::time::timeout(Duration::from_millis(200), stream.next())
            .await
            .is_err()
    );
    drop(stream);
    provider
        .wait_until(WAIT, "the hang to be abandoned", |requests| {
            requests.last().map(|r| r.delivery) == Some(Delivery::ClientClosed)
        })
        .await
        .unwrap();

    let statuses: Vec<u16> = provider.chat_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 429, 200, 200, 200]);
    provider.verify().unwrap();
}
