//! A model request as it goes on the wire.
//!
//! The request is built from async-openai's typed request and messages, then kept as JSON,
//! because some providers need fields those types do not have: DeepSeek's thinking mode wants
//! the reasoning back (`reasoning_content`) on assistant messages that carry tool calls, and
//! Gemini wants each call's `extra_content` (its thought signature) back exactly as it sent it.
//! [`wire_messages`] adds those, and [`ChatRequest`] is what the provider sends: the body, with
//! `stream` and `stream_options` set per attempt (a provider that refuses `stream_options` is
//! asked again without it), and the names of the tools offered (which tool calls written as text
//! may name).

use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls,
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestAssistantMessageContent,
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestSystemMessageContent, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContent, ChatCompletionTools, CreateChatCompletionRequest,
    FunctionCall,
};
use serde_json::{Map, Value, json};

use crate::attachment::user_content;
use crate::presets::ProviderFlags;
use crate::transcript::{Message, MessageStatus, Role};

/// A request ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    body: Map<String, Value>,
    tool_names: Vec<String>,
}

impl ChatRequest {
    /// A request asking `model` to continue `messages` (as [`wire_messages`] makes them),
    /// offering `tools`.
    pub fn new(
        model: &str,
        messages: Vec<Value>,
        tools: Vec<ChatCompletionTools>,
    ) -> Result<Self, serde_json::Error> {
        let tool_names = tools
            .iter()
            .filter_map(|tool| match tool {
                ChatCompletionTools::Function(tool) => Some(tool.function.name.clone()),
                ChatCompletionTools::Custom(_) => None,
            })
            .collect();
        let typed = CreateChatCompletionRequest {
            model: model.to_owned(),
            tools: (!tools.is_empty()).then_some(tools),
            ..CreateChatCompletionRequest::default()
        };
        let mut body = match serde_json::to_value(typed)? {
            Value::Object(body) => body,
            _ => Map::new(),
        };
        body.insert("messages".to_owned(), Value::Array(messages));
        Ok(Self { body, tool_names })
    }

    /// The same request with the reply capped at `limit` tokens (`max_tokens`), when given. Gantry caps replies
    /// from local servers at the room it keeps for one: llama.cpp and others otherwise generate
    /// until their window is full, and a small model that never writes its stop token would
    /// fill it with its own chat template.
    pub fn with_reply_limit(mut self, limit: Option<u32>) -> Self {
        if let Some(tokens) = limit {
            self.body
                .insert("max_tokens".to_owned(), Value::from(tokens));
        }
        self
    }

    /// The reply's cap in tokens, when one is set.
    pub fn reply_limit(&self) -> Option<u32> {
        self.body
            .get("max_tokens")
            .and_then(Value::as_u64)
            .and_then(|tokens| u32::try_from(tokens).ok())
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> &[String] {
        &self.tool_names
    }

    /// The JSON body as it would be sent without streaming options.
    pub fn body(&self) -> &Map<String, Value> {
        &self.body
    }

    /// The bytes to send: streamed, asking for usage in the stream when `usage` is set.
    pub fn streamed_bytes(&self, usage: bool) -> Result<Vec<u8>, serde_json::Error> {
        let mut body = self.body.clone();
        body.insert("stream".to_owned(), Value::Bool(true));
        if usage {
            body.insert(
                "stream_options".to_owned(),
                json!({ "include_usage": true }),
            );
        } else {
            body.remove("stream_options");
        }
        serde_json::to_vec(&body)
    }
}

/// Chat Completions messages for `system` and `messages` (already made valid), with what
/// `flags` ask beyond OpenAI's shapes, and each user message's attachments (files and folders
/// after its text, images as `image_url` parts: [`crate::attachment`]); every call's provider fields (`extra_content`) as it
/// came, and, with [`ProviderFlags::replay_reasoning`], the reasoning of each assistant message
/// that carries tool calls as `reasoning_content` (empty when none was streamed).
pub fn wire_messages(system: &str, messages: &[Message], flags: &ProviderFlags) -> Vec<Value> {
    let typed = typed_messages(system, messages);
    // The system message has no transcript message; the others are one to one.
    let originals = std::iter::once(None).chain(messages.iter().map(Some));
    typed
        .into_iter()
        .zip(originals)
        .map(|(typed, original)| {
            let mut value = serde_json::to_value(typed).unwrap_or(Value::Null);
            if let (Some(message), Value::Object(object)) = (original, &mut value) {
                add_provider_fields(object, message, flags);
            }
            value
        })
        .collect()
}

fn add_provider_fields(object: &mut Map<String, Value>, message: &Message, flags: &ProviderFlags) {
    if message.role == Role::User && !message.attachments.is_empty() {
        object.insert(
            "content".to_owned(),
            user_content(&message.content, &message.attachments),
        );
        return;
    }
    if message.role != Role::Assistant || message.tool_calls.is_empty() {
        return;
    }
    if let Some(Value::Array(calls)) = object.get_mut("tool_calls") {
        for (wire, call) in calls.iter_mut().zip(&message.tool_calls) {
            let (Value::Object(wire), Some(extra)) = (wire, &call.extra) else {
                continue;
            };
            for (key, value) in extra {
                // The standard fields are Gantry's; only the provider's own come back as sent.
                if !matches!(key.as_str(), "id" | "type" | "function" | "index") {
                    wire.insert(key.clone(), value.clone());
                }
            }
        }
    }
    if flags.replay_reasoning {
        object.insert(
            "reasoning_content".to_owned(),
            Value::String(message.reasoning.clone().unwrap_or_default()),
        );
    }
}

/// Chat Completions messages for `system` and `messages` (already made valid), as async-openai's
/// typed messages.
fn typed_messages(system: &str, messages: &[Message]) -> Vec<ChatCompletionRequestMessage> {
    let mut wire = Vec::with_capacity(messages.len() + 1);
    wire.push(ChatCompletionRequestMessage::System(
        ChatCompletionRequestSystemMessage {
            content: ChatCompletionRequestSystemMessageContent::Text(system.to_owned()),
            name: None,
        },
    ));
    for message in messages {
        wire.push(match message.role {
            Role::User => ChatCompletionRequestMessage::User(ChatCompletionRequestUserMessage {
                content: ChatCompletionRequestUserMessageContent::Text(message.content.clone()),
                name: None,
            }),
            Role::Tool => ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
                content: ChatCompletionRequestToolMessageContent::Text(message.content.clone()),
                tool_call_id: message.tool_call_id.clone().unwrap_or_default(),
            }),
            Role::Assistant => {
                let mut text = message.content.clone();
                match message.status {
                    MessageStatus::Complete => {}
                    MessageStatus::Cancelled => {
                        text.push_str("\n\n[reply interrupted: the user cancelled the turn]")
                    }
                    MessageStatus::Error => {
                        text.push_str("\n\n[reply interrupted by a provider error]")
                    }
                }
                let calls: Vec<ChatCompletionMessageToolCalls> = message
                    .tool_calls
                    .iter()
                    .map(|call| {
                        ChatCompletionMessageToolCalls::Function(ChatCompletionMessageToolCall {
                            id: call.id.clone(),
                            function: FunctionCall {
                                name: call.name.clone(),
                                arguments: call.arguments.clone(),
                            },
                        })
                    })
                    .collect();
                let content = (!text.is_empty() || calls.is_empty())
                    .then_some(ChatCompletionRequestAssistantMessageContent::Text(text));
                ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
                    content,
                    tool_calls: (!calls.is_empty()).then_some(calls),
                    ..ChatCompletionRequestAssistantMessage::default()
                })
            }
        });
    }
    wire
}

#[cfg(test)]
mod tests {
    use async_openai::types::chat::{ChatCompletionTool, FunctionObject};

    use super::*;
    use crate::transcript::ToolCall;

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall::new(id, name, "{}")
    }

    #[test]
    fn wire_messages_use_the_chat_completions_shapes() {
        let messages = vec![
            Message::user("hi"),
            Message::assistant("", vec![call("a", "read")]).with_reasoning("think"),
            Message::tool("a", "result"),
            Message::assistant("partial", vec![]).with_status(MessageStatus::Cancelled),
        ];
        let wire = Value::Array(wire_messages("sys", &messages, &ProviderFlags::default()));
        assert_eq!(
            wire,
            json!([
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [
                    {"type": "function", "id": "a", "function": {"name": "read", "arguments": "{}"}}
                ]},
                {"role": "tool", "content": "result", "tool_call_id": "a"},
                {"role": "assistant", "content": "partial\n\n[reply interrupted: the user cancelled the turn]"},
            ])
        );
        assert!(wire[2].get("content").is_none_or(Value::is_null));
    }

    #[test]
    fn a_user_message_with_an_image_is_sent_as_content_parts() {
        use crate::attachment::Attachment;
        let message = Message::user("what is this?").with_attachments(vec![
            Attachment::File {
                path: "a.txt".into(),
                text: "1\thello".into(),
            },
            Attachment::Image {
                name: "shot.png".into(),
                mime: "image/png".into(),
                data: "iVBO".into(),
                width: 2,
                height: 2,
            },
        ]);
        let wire = wire_messages("sys", &[message], &ProviderFlags::default());
        assert_eq!(wire[1]["role"], "user");
        let parts = wire[1]["content"].as_array().unwrap();
        assert_eq!(parts[0]["type"], "text");
        assert!(parts[0]["text"].as_str().unwrap().contains("1\thello"));
        assert_eq!(
            parts[1],
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}})
        );
    }

    #[test]
    fn reasoning_and_provider_fields_go_back_where_asked() {
        let mut signed = call("a", "read");
        signed.extra = Some(
            json!({"extra_content": {"google": {"thought_signature": "sig"}}, "id": "forged"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let messages = vec![
            Message::user("hi"),
            Message::assistant("", vec![signed]).with_reasoning("think"),
            Message::tool("a", "result"),
            Message::assistant("", vec![call("b", "read")]),
            Message::tool("b", "result"),
            Message::assistant("done", vec![]).with_reasoning("no calls, not sent"),
        ];
        let flags = ProviderFlags {
            replay_reasoning: true,
            ..ProviderFlags::default()
        };
        let wire = wire_messages("sys", &messages, &flags);
        assert_eq!(wire[2]["reasoning_content"], "think");
        assert_eq!(
            wire[2]["tool_calls"][0]["extra_content"]["google"]["thought_signature"],
            "sig"
        );
        assert_eq!(
            wire[2]["tool_calls"][0]["id"], "a",
            "standard fields stay Gantry's"
        );
        assert_eq!(
            wire[4]["reasoning_content"], "",
            "present even when none was streamed"
        );
        assert!(wire[6].get("reasoning_content").is_none());
        // Without the flag, no reasoning goes back; the call's fields still do.
        let plain = wire_messages("sys", &messages, &ProviderFlags::default());
        assert!(plain[2].get("reasoning_content").is_none());
        assert!(plain[2]["tool_calls"][0].get("extra_content").is_some());
    }

    #[test]
    fn a_request_sets_streaming_per_attempt_and_knows_its_tools() {
        let tool = ChatCompletionTools::Function(ChatCompletionTool {
            function: FunctionObject {
                name: "read_file".into(),
                description: None,
                parameters: Some(json!({"type": "object"})),
                strict: None,
            },
        });
        let request = ChatRequest::new(
            "m",
            vec![json!({"role": "user", "content": "x"})],
            vec![tool],
        )
        .unwrap();
        assert_eq!(request.tool_names(), ["read_file"]);
        let with: Value = serde_json::from_slice(&request.streamed_bytes(true).unwrap()).unwrap();
        assert_eq!(with["stream"], true);
        assert_eq!(with["stream_options"]["include_usage"], true);
        assert_eq!(with["messages"][0]["content"], "x");
        let without: Value =
            serde_json::from_slice(&request.streamed_bytes(false).unwrap()).unwrap();
        assert!(without.get("stream_options").is_none());
        assert_eq!(without["model"], "m");
        assert!(without.get("max_tokens").is_none());
        assert_eq!(request.reply_limit(), None);
        let capped = request.with_reply_limit(Some(512));
        assert_eq!(capped.reply_limit(), Some(512));
        let capped: Value = serde_json::from_slice(&capped.streamed_bytes(false).unwrap()).unwrap();
        assert_eq!(capped["max_tokens"], 512);
    }
}
