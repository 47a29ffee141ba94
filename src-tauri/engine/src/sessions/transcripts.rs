//! Sessions kept in Gantry's database: the [`TranscriptStore`] of the app and the CLI.
//!
//! The agent's [`Message`] and the store's [`NewMessage`] stay two types on purpose: the agent's
//! is what the loop and the webview work with (typed tool calls, usage, the TypeScript
//! contract), the store's is a row (a role column that also knows `system`, tool calls and usage
//! as JSON text). [`to_stored`] and [`from_stored`] are the one conversion each way.

use std::path::Path;

use async_trait::async_trait;
use gantry_agent::{
    Message, MessageKind, MessageStatus, PersistError, Role, TokenUsage, ToolCall, ToolOutcome,
    TranscriptStore,
};
use gantry_store::{NewMessage, SessionId, Store, StoreError};
use gantry_tools::text::excerpt;
use serde_json::{Value, json};

/// The title a session gets until its first message names it.
pub const NEW_SESSION_TITLE: &str = "New session";

/// Characters of the first user message used as a session's title.
const TITLE_CHARS: usize = 80;

/// Sessions in Gantry's database. Cheap to clone.
#[derive(Debug, Clone)]
pub struct StoreTranscripts {
    store: Store,
}

impl StoreTranscripts {
    /// Sessions in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

fn backend(error: StoreError) -> PersistError {
    PersistError::Backend(error.to_string())
}

fn session_id(id: &str) -> Result<SessionId, PersistError> {
    id.parse()
        .map_err(|_| PersistError::NotFound(id.to_owned()))
}

#[async_trait]
impl TranscriptStore for StoreTranscripts {
    async fn create_session(
        &self,
        project_root: &Path,
        model: Option<&str>,
    ) -> Result<String, PersistError> {
        let project = self
            .store
            .projects()
            .open(project_root)
            .await
            .map_err(backend)?;
        let session = self
            .store
            .sessions()
            .create(project.id, NEW_SESSION_TITLE, model)
            .await
            .map_err(backend)?;
        Ok(session.id.to_string())
    }

    async fn load_messages(
        &self,
        session_id_text: &str,
        project_root: &Path,
    ) -> Result<Vec<Message>, PersistError> {
        let id = session_id(session_id_text)?;
        let sessions = self.store.sessions();
        let session = sessions
            .get(id)
            .await
            .map_err(backend)?
            .ok_or_else(|| PersistError::NotFound(session_id_text.to_owned()))?;
        let project = self
            .store
            .projects()
            .get(session.project_id)
            .await
            .map_err(backend)?;
        let canonical =
            std::fs::canonicalize(project_root).unwrap_or_else(|_| project_root.to_owned());
        if let Some(project) = project.filter(|project| project.root != canonical) {
            return Err(PersistError::OtherProject {
                session: session_id_text.to_owned(),
                root: project.root,
            });
        }
        let stored = sessions.messages(id).await.map_err(backend)?;
        Ok(stored
            .into_iter()
            .filter_map(|stored| from_stored(stored.message))
            .collect())
    }

    async fn append_message(
        &self,
        session_id_text: &str,
        ordinal: usize,
        message: &Message,
    ) -> Result<(), PersistError> {
        let id = session_id(session_id_text)?;
        let sessions = self.store.sessions();
        let saved = sessions
            .append_message(id, &to_stored(message))
            .await
            .map_err(backend)?;
        if usize::try_from(saved.ordinal).ok() != Some(ordinal) {
            tracing::warn!(
                session = session_id_text,
                expected = ordinal,
                saved = saved.ordinal,
                "a message was saved at another position than the transcript's"
            );
        }
        if ordinal == 0 && message.role == Role::User {
            let title = message.content.lines().find(|line| !line.trim().is_empty());
            if let Some(title) = title {
                sessions
                    .rename(id, &excerpt(title.trim(), TITLE_CHARS))
                    .await
                    .map_err(backend)?;
            }
        }
        Ok(())
    }
}

/// A transcript message in the store's shape (tool calls as the OpenAI `tool_calls` array).
pub fn to_stored(message: &Message) -> NewMessage {
    let role = match message.role {
        Role::User => gantry_store::Role::User,
        Role::Assistant => gantry_store::Role::Assistant,
        Role::Tool => gantry_store::Role::Tool,
    };
    let tool_calls = (!message.tool_calls.is_empty()).then(|| {
        Value::Array(
            message
                .tool_calls
                .iter()
                .map(|call| {
                    let mut stored = json!({
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    });
                    // The provider's own fields of the call (Gemini's thought signature) are
                    // kept beside the standard ones, as the provider sent them.
                    if let (Value::Object(object), Some(extra)) = (&mut stored, &call.extra) {
                        for (key, value) in extra {
                            object.entry(key.clone()).or_insert_with(|| value.clone());
                        }
                    }
                    stored
                })
                .collect(),
        )
    });
    let content = (!message.content.is_empty() || message.tool_calls.is_empty())
        .then(|| message.content.clone());
    NewMessage {
        role,
        content,
        tool_calls,
        tool_call_id: message.tool_call_id.clone(),
        reasoning: message.reasoning.clone(),
        prompt_tokens: message.usage.map(|usage| usage.prompt_tokens),
        completion_tokens: message.usage.map(|usage| usage.completion_tokens),
        status: match message.status {
            MessageStatus::Complete => gantry_store::MessageStatus::Complete,
            MessageStatus::Cancelled => gantry_store::MessageStatus::Cancelled,
            MessageStatus::Error => gantry_store::MessageStatus::Error,
        },
        outcome: message
            .outcome
            .as_ref()
            .and_then(|outcome| serde_json::to_value(outcome).ok()),
        kind: match message.kind {
            MessageKind::Normal => gantry_store::MessageKind::Normal,
            MessageKind::Summary => gantry_store::MessageKind::Summary,
        },
        attachments: (!message.attachments.is_empty())
            .then(|| serde_json::to_value(&message.attachments).ok())
            .flatten(),
    }
}

/// A stored message as a transcript message; `None` for system messages, which transcripts
/// don't hold (the system prompt is rebuilt for every request).
pub fn from_stored(stored: NewMessage) -> Option<Message> {
    let role = match stored.role {
        gantry_store::Role::User => Role::User,
        gantry_store::Role::Assistant => Role::Assistant,
        gantry_store::Role::Tool => Role::Tool,
        gantry_store::Role::System => return None,
    };
    let tool_calls = stored
        .tool_calls
        .as_ref()
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    let text = |pointer: &str| {
                        call.pointer(pointer)
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned()
                    };
                    let extra: serde_json::Map<String, Value> = call
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(key, _)| !matches!(key.as_str(), "id" | "type" | "function"))
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect();
                    ToolCall {
                        id: text("/id"),
                        name: text("/function/name"),
                        arguments: text("/function/arguments"),
                        extra: (!extra.is_empty()).then_some(extra),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let usage = match (stored.prompt_tokens, stored.completion_tokens) {
        (None, None) => None,
        (prompt, completion) => {
            let prompt_tokens = prompt.unwrap_or(0);
            let completion_tokens = completion.unwrap_or(0);
            Some(TokenUsage {
                prompt_tokens,
                completion_tokens,
                total_tokens: prompt_tokens.saturating_add(completion_tokens),
            })
        }
    };
    Some(Message {
        role,
        content: stored.content.unwrap_or_default(),
        reasoning: stored.reasoning,
        tool_calls,
        tool_call_id: stored.tool_call_id,
        status: match stored.status {
            gantry_store::MessageStatus::Complete => MessageStatus::Complete,
            gantry_store::MessageStatus::Cancelled => MessageStatus::Cancelled,
            gantry_store::MessageStatus::Error => MessageStatus::Error,
        },
        usage,
        // An outcome this version cannot read restores from the text, as an old row does.
        outcome: stored
            .outcome
            .and_then(|outcome| serde_json::from_value::<ToolOutcome>(outcome).ok()),
        kind: match stored.kind {
            gantry_store::MessageKind::Normal => MessageKind::Normal,
            gantry_store::MessageKind::Summary => MessageKind::Summary,
        },
        // Attachments that no longer read as any kind Gantry knows are left out, not fatal.
        attachments: stored
            .attachments
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_convert_to_the_store_shape_and_back() {
        let messages = [
            Message::user("hi"),
            Message::summary("notes so far"),
            Message::assistant(
                "",
                vec![ToolCall::new("c1", "read_file", r#"{"path":"a"}"#)],
            )
            .with_reasoning("look first")
            .with_usage(Some(TokenUsage {
                prompt_tokens: 10,
                completion_tokens: 3,
                total_tokens: 13,
            })),
            Message::tool("c1", "contents").with_status(MessageStatus::Cancelled),
            Message::tool("c2", "wrote a.txt").with_outcome(ToolOutcome {
                kind: gantry_tools::ObservationKind::Ok,
                decision: gantry_tools::Decision {
                    kind: gantry_tools::DecisionKind::AllowedByRule,
                    by: gantry_tools::Decider::Rule,
                    detail: Some("write under src".into()),
                    rule: Some(4),
                    source: None,
                },
                duration_ms: 31,
                truncated: false,
                diff: Some("--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+v1\n".into()),
                sandbox: None,
                level: Some(gantry_tools::PermissionLevel::Sensitive),
            }),
            Message::assistant("partial", vec![]).with_status(MessageStatus::Error),
        ];
        for message in messages {
            let stored = to_stored(&message);
            assert_eq!(from_stored(stored.clone()), Some(message.clone()));
            if !message.tool_calls.is_empty() {
                assert_eq!(stored.content, None);
                assert_eq!(
                    stored.tool_calls.unwrap(),
                    json!([{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"a\"}"}}])
                );
            }
        }
        // A call's provider fields are kept with it, beside the standard ones.
        let mut signed = ToolCall::new("c2", "read_file", "{}");
        signed.extra = json!({"extra_content": {"google": {"thought_signature": "s"}}})
            .as_object()
            .cloned();
        let message = Message::assistant("", vec![signed]);
        let stored = to_stored(&message);
        assert_eq!(
            stored.tool_calls.as_ref().unwrap()[0]["extra_content"]["google"]["thought_signature"],
            "s"
        );
        assert_eq!(from_stored(stored), Some(message));
        let system = NewMessage::text(gantry_store::Role::System, "x");
        assert_eq!(from_stored(system), None);
    }

    #[tokio::test]
    async fn the_database_keeps_sessions_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let database = dir.path().join("gantry.db");
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        let store = StoreTranscripts::new(Store::open(&database).await.unwrap());
        let id = store.create_session(&project, Some("m")).await.unwrap();
        let first = Message::user("Fix the build\nplease");
        store.append_message(&id, 0, &first).await.unwrap();
        store
            .append_message(&id, 1, &Message::assistant("ok", vec![]))
            .await
            .unwrap();
        store.store().close().await;

        let reopened = StoreTranscripts::new(Store::open(&database).await.unwrap());
        let messages = reopened.load_messages(&id, &project).await.unwrap();
        assert_eq!(messages, vec![first, Message::assistant("ok", vec![])]);
        let session = reopened
            .store()
            .sessions()
            .get(id.parse().unwrap())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(session.title, "Fix the build");
        assert_eq!(session.model.as_deref(), Some("m"));
        let elsewhere = dir.path().join("other");
        std::fs::create_dir(&elsewhere).unwrap();
        assert!(matches!(
            reopened.load_messages(&id, &elsewhere).await,
            Err(PersistError::OtherProject { .. })
        ));
        assert!(matches!(
            reopened.load_messages("999", &project).await,
            Err(PersistError::NotFound(_))
        ));
        assert!(matches!(
            reopened.load_messages("not-a-number", &project).await,
            Err(PersistError::NotFound(_))
        ));
    }
}
