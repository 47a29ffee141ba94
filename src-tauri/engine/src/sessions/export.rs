//! A session written out: Markdown for people, JSON for programs. The same text for the app's
//! "Export…" (through the native save dialog) and `gantry-cli sessions export`.
//!
//! - **Markdown**: the title, then each turn under a heading (`### User`, `### Assistant`); each
//!   tool call is a collapsible `<details>` block with the call's outcome in its summary, its
//!   arguments (pretty JSON), its result and, for a call that changed a file, its diff. Code
//!   fences are longer than any run of backticks inside them, so no content can close them.
//! - **JSON**: the session and its stored messages exactly as kept (tool calls, usage, each tool
//!   message's outcome), so nothing is lost.

use std::collections::HashMap;
use std::path::Path;

use gantry_store::{Message, ProjectId, Role, SessionId, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chat::SessionSummary;
use crate::error::{CommandError, ErrorKind};

/// How to write a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Readable Markdown.
    Markdown,
    /// The stored messages with their metadata.
    Json,
}

impl ExportFormat {
    /// The file extension.
    pub const fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Json => "json",
        }
    }
}

/// A session to export, and how.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportSessionRequest {
    /// The session's id.
    pub id: String,
    /// How to write it.
    pub format: ExportFormat,
}

/// What exporting a session wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionExport {
    /// The file.
    pub path: String,
    /// How many messages it holds.
    pub messages: u32,
}

/// Session `id` of `project` as text in `format`, with how many messages it holds;
/// [`ErrorKind::NotFound`] when it is not one of the project's sessions.
pub async fn render(
    store: &Store,
    project: ProjectId,
    id: &str,
    format: ExportFormat,
) -> Result<(String, u32), CommandError> {
    let not_found = || CommandError::new(ErrorKind::NotFound, format!("no session {id}"));
    let parsed: SessionId = id.parse().map_err(|_| not_found())?;
    let session = match store.sessions().get(parsed).await? {
        Some(session) if session.project_id == project => session,
        _ => return Err(not_found()),
    };
    let messages = store.sessions().messages(parsed).await?;
    let count = u32::try_from(messages.len()).unwrap_or(u32::MAX);
    let summary = SessionSummary::from(session);
    let text = match format {
        ExportFormat::Markdown => markdown(&summary, &messages),
        ExportFormat::Json => json(&summary, &messages)?,
    };
    Ok((text, count))
}

/// Writes `text` to `path` atomically (blocking).
pub fn write_export(path: &Path, text: &str) -> Result<(), CommandError> {
    gantry_tools::write_atomic(path, text.as_bytes())
        .map_err(|error| CommandError::cannot_write(path, &error))
}

/// The session and its messages as pretty JSON.
pub fn json(session: &SessionSummary, messages: &[Message]) -> Result<String, CommandError> {
    let value = serde_json::json!({
        "format": "gantry-session",
        "version": 1,
        "session": session,
        "messages": messages,
    });
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|error| CommandError::internal(format!("cannot serialise a session: {error}")))?;
    text.push('\n');
    Ok(text)
}

/// A fence of backticks longer than any run of them in `text` (three at least).
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for char in text.chars() {
        if char == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

fn code_block(out: &mut String, language: &str, text: &str) {
    let fence = fence(text);
    out.push_str(&fence);
    out.push_str(language);
    out.push('\n');
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push_str("\n\n");
}

/// Escapes text shown inside HTML (the `<summary>` line).
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn pretty_arguments(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// "ok, 12 ms, allowed by rule 4" from a tool message's outcome.
fn outcome_words(outcome: Option<&Value>) -> Option<String> {
    let outcome = outcome?;
    let mut words = vec![outcome.get("kind")?.as_str()?.replace('_', " ")];
    if let Some(ms) = outcome.get("durationMs").and_then(Value::as_u64) {
        words.push(format!("{ms} ms"));
    }
    if let Some(decision) = outcome.get("decision") {
        let kind = decision.get("kind").and_then(Value::as_str).unwrap_or("");
        let by = decision.get("by").and_then(Value::as_str).unwrap_or("");
        let rule = decision.get("rule").and_then(Value::as_i64);
        let said = match (kind, rule) {
            ("allowed_by_rule", Some(rule)) => format!("allowed by rule {rule}"),
            ("not_evaluated", _) => String::new(),
            (kind, _) => format!("{} ({})", kind.replace('_', " "), by.replace('_', " ")),
        };
        if !said.is_empty() {
            words.push(said);
        }
    }
    Some(words.join(", "))
}

/// The session as readable Markdown.
pub fn markdown(session: &SessionSummary, messages: &[Message]) -> String {
    let results: HashMap<&str, &Message> = messages
        .iter()
        .filter(|message| message.message.role == Role::Tool)
        .filter_map(|message| Some((message.message.tool_call_id.as_deref()?, message)))
        .collect();
    let mut out = format!("# {}\n\n", session.title.trim());
    let model = session
        .model
        .as_deref()
        .unwrap_or("the active provider's model");
    out.push_str(&format!(
        "_Gantry session {} · {} · {} messages_\n\n",
        session.id, model, session.message_count
    ));
    for stored in messages {
        let message = &stored.message;
        match message.role {
            Role::System | Role::Tool => {}
            Role::User => {
                out.push_str("### User\n\n");
                out.push_str(message.content.as_deref().unwrap_or("").trim_end());
                out.push_str("\n\n");
            }
            Role::Assistant => {
                out.push_str("### Assistant\n\n");
                let text = message.content.as_deref().unwrap_or("").trim_end();
                if !text.is_empty() {
                    out.push_str(text);
                    out.push_str("\n\n");
                }
                let calls = message
                    .tool_calls
                    .as_ref()
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                for call in &calls {
                    tool_call(&mut out, call, &results);
                }
            }
        }
    }
    out
}

fn tool_call(out: &mut String, call: &Value, results: &HashMap<&str, &Message>) {
    let text = |pointer: &str| call.pointer(pointer).and_then(Value::as_str).unwrap_or("");
    let id = text("/id");
    let name = text("/function/name");
    let result = results.get(id);
    let words = result
        .and_then(|result| outcome_words(result.message.outcome.as_ref()))
        .or_else(|| result.map(|_| "done".to_owned()))
        .unwrap_or_else(|| "no result".to_owned());
    out.push_str(&format!(
        "<details>\n<summary>Tool call <code>{}</code>: {}</summary>\n\n",
        html_text(name),
        html_text(&words)
    ));
    out.push_str("Arguments:\n\n");
    code_block(out, "json", &pretty_arguments(text("/function/arguments")));
    if let Some(result) = result {
        out.push_str("Result:\n\n");
        code_block(out, "text", result.message.content.as_deref().unwrap_or(""));
        let diff = result
            .message
            .outcome
            .as_ref()
            .and_then(|outcome| outcome.get("diff"))
            .and_then(Value::as_str);
        if let Some(diff) = diff {
            out.push_str("Changes:\n\n");
            code_block(out, "diff", diff);
        }
    }
    out.push_str("</details>\n\n");
}

#[cfg(test)]
mod tests {
    use gantry_store::{MessageId, MessageStatus, NewMessage, Timestamp};
    use serde_json::json;

    use super::*;

    fn stored(ordinal: u32, message: NewMessage) -> Message {
        Message {
            id: MessageId(i64::from(ordinal) + 1),
            session_id: SessionId(3),
            ordinal,
            message,
            created_at: Timestamp(1_700_000_000_000),
        }
    }

    fn session() -> SessionSummary {
        SessionSummary {
            id: "3".into(),
            title: "Write a.txt".into(),
            model: Some("m".into()),
            provider: None,
            message_count: 4,
            created_at: 1,
            updated_at: 2,
            activity: crate::chat::ActivityState::Idle,
        }
    }

    fn transcript() -> Vec<Message> {
        vec![
            stored(0, NewMessage::text(Role::User, "Write a.txt please")),
            stored(
                1,
                NewMessage {
                    role: Role::Assistant,
                    content: Some("Writing it.".into()),
                    tool_calls: Some(json!([{"id": "c1", "type": "function",
                        "function": {"name": "write_file", "arguments": "{\"path\":\"a.txt\",\"content\":\"```\"}"}}])),
                    tool_call_id: None,
                    reasoning: None,
                    prompt_tokens: None,
                    completion_tokens: None,
                    status: MessageStatus::Complete,
                    outcome: None,
                    kind: gantry_store::MessageKind::Normal,
                    attachments: None,
                },
            ),
            stored(
                2,
                NewMessage {
                    tool_call_id: Some("c1".into()),
                    outcome: Some(json!({"kind": "ok", "durationMs": 12,
                        "decision": {"kind": "allowed_by_rule", "by": "rule", "detail": null, "rule": 4},
                        "diff": "--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+```\n"})),
                    ..NewMessage::text(Role::Tool, "wrote a.txt")
                },
            ),
            stored(3, NewMessage::text(Role::Assistant, "Done.")),
        ]
    }

    #[test]
    fn markdown_reads_as_turns_with_tool_calls_folded() {
        let text = markdown(&session(), &transcript());
        assert!(text.starts_with("# Write a.txt\n\n"), "{text}");
        assert!(
            text.contains("### User\n\nWrite a.txt please\n\n"),
            "{text}"
        );
        assert!(text.contains("### Assistant\n\nWriting it.\n\n<details>\n<summary>Tool call <code>write_file</code>: ok, 12 ms, allowed by rule 4</summary>"), "{text}");
        // Arguments pretty-printed; a backtick run in the content gets a longer fence.
        assert!(
            text.contains("````json\n{\n  \"path\": \"a.txt\",\n  \"content\": \"```\"\n}\n````"),
            "{text}"
        );
        assert!(
            text.contains("Result:\n\n```text\nwrote a.txt\n```"),
            "{text}"
        );
        assert!(text.contains("Changes:\n\n````diff\n--- a/a.txt"), "{text}");
        assert!(
            text.trim_end().ends_with("### Assistant\n\nDone."),
            "{text}"
        );
        assert_eq!(
            text.matches("<details>").count(),
            text.matches("</details>").count()
        );
    }

    #[test]
    fn json_keeps_the_stored_messages_with_their_outcomes() {
        let text = json(&session(), &transcript()).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["format"], "gantry-session");
        assert_eq!(value["session"]["title"], "Write a.txt");
        assert_eq!(value["messages"].as_array().unwrap().len(), 4);
        assert_eq!(value["messages"][2]["outcome"]["durationMs"], 12);
        assert_eq!(
            value["messages"][1]["toolCalls"][0]["function"]["name"],
            "write_file"
        );
    }

    #[test]
    fn fences_outgrow_the_backticks_inside() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }
}
