//! A session's transcript, in the OpenAI chat shape the agent loop sends and receives.
//!
//! Messages are numbered from 0 within their session; the store picks the number inside the
//! write transaction, so concurrent appends can't collide, and `append_message` returns only
//! after the commit.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::codec::{parse_json, parse_name, to_u32};
use crate::error::{Result, StoreError};
use crate::ids::{MessageId, SessionId};
use crate::sessions::Sessions;
use crate::store::begin_write;
use crate::time::Timestamp;

/// Who speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions for the model.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl Role {
    /// The name used in the database and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

/// How a message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Finished normally.
    #[default]
    Complete,
    /// The user stopped the turn while it was being written.
    Cancelled,
    /// The provider or a tool failed while it was being written.
    Error,
}

impl MessageStatus {
    /// The name used in the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Cancelled => "cancelled",
            Self::Error => "error",
        }
    }
}

/// What a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// A message of the conversation.
    #[default]
    Normal,
    /// The model's summary of everything before it (compaction).
    Summary,
}

impl MessageKind {
    /// The name used in the database.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Summary => "summary",
        }
    }
}

/// A message to append.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewMessage {
    /// Who speaks.
    pub role: Role,
    /// The text (absent for an assistant message that only calls tools).
    pub content: Option<String>,
    /// The assistant's tool calls, as the OpenAI `tool_calls` array.
    pub tool_calls: Option<Value>,
    /// For a tool message, the id of the call it answers.
    pub tool_call_id: Option<String>,
    /// The model's reasoning text, when the provider returns one.
    pub reasoning: Option<String>,
    /// Prompt tokens the provider reported for the turn.
    pub prompt_tokens: Option<u32>,
    /// Completion tokens the provider reported for the turn.
    pub completion_tokens: Option<u32>,
    /// How it ended.
    pub status: MessageStatus,
    /// For a tool message, its call's outcome as the front end showed it (JSON); `None` for
    /// other messages and for rows saved before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Value>,
    /// What it is for.
    #[serde(default)]
    pub kind: MessageKind,
    /// What a user message carries beyond its text, as a JSON array (`None`: nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Value>,
}

impl NewMessage {
    /// A complete message with text and nothing else.
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: Some(content.into()),
            tool_calls: None,
            tool_call_id: None,
            reasoning: None,
            prompt_tokens: None,
            completion_tokens: None,
            status: MessageStatus::Complete,
            outcome: None,
            kind: MessageKind::Normal,
            attachments: None,
        }
    }
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Its id.
    pub id: MessageId,
    /// Its session.
    pub session_id: SessionId,
    /// Its position in the session, from 0.
    pub ordinal: u32,
    /// What was appended.
    #[serde(flatten)]
    pub message: NewMessage,
    /// When it was appended.
    pub created_at: Timestamp,
}

const COLUMNS: &str = "id, session_id, ordinal, role, content, tool_calls, tool_call_id, \
                       reasoning, prompt_tokens, completion_tokens, status, outcome, kind, \
                       created_at, attachments";

fn from_row(row: &SqliteRow) -> Result<Message> {
    let tool_calls: Option<String> = row.try_get("tool_calls")?;
    let outcome: Option<String> = row.try_get("outcome")?;
    let attachments: Option<String> = row.try_get("attachments")?;
    let tokens = |column: &str| -> Result<Option<u32>> {
        let value: Option<i64> = row.try_get(column)?;
        value.map(|n| to_u32("token count", n)).transpose()
    };
    Ok(Message {
        id: MessageId(row.try_get("id")?),
        session_id: SessionId(row.try_get("session_id")?),
        ordinal: to_u32("message ordinal", row.try_get("ordinal")?)?,
        message: NewMessage {
            role: parse_name("message role", row.try_get("role")?)?,
            content: row.try_get("content")?,
            tool_calls: tool_calls
                .map(|text| parse_json("tool calls", &text))
                .transpose()?,
            tool_call_id: row.try_get("tool_call_id")?,
            reasoning: row.try_get("reasoning")?,
            prompt_tokens: tokens("prompt_tokens")?,
            completion_tokens: tokens("completion_tokens")?,
            status: parse_name("message status", row.try_get("status")?)?,
            outcome: outcome
                .map(|text| parse_json("tool outcome", &text))
                .transpose()?,
            kind: parse_name("message kind", row.try_get("kind")?)?,
            attachments: attachments
                .map(|text| parse_json("attachments", &text))
                .transpose()?,
        },
        created_at: Timestamp(row.try_get("created_at")?),
    })
}

/// Inserts `message` after the session's last one.
async fn insert(
    conn: &mut SqliteConnection,
    session: SessionId,
    message: &NewMessage,
    now: i64,
) -> Result<Message> {
    let tool_calls = message.tool_calls.as_ref().map(Value::to_string);
    let outcome = message.outcome.as_ref().map(Value::to_string);
    let attachments = message.attachments.as_ref().map(Value::to_string);
    let row = sqlx::query(&format!(
        "INSERT INTO messages (session_id, ordinal, role, content, tool_calls, tool_call_id,
                               reasoning, prompt_tokens, completion_tokens, status, outcome,
                               kind, created_at, attachments)
         SELECT ?1, COALESCE(MAX(ordinal) + 1, 0), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12, ?11,
                ?13
         FROM messages WHERE session_id = ?1
         RETURNING {COLUMNS}"
    ))
    .bind(session.0)
    .bind(message.role.as_str())
    .bind(&message.content)
    .bind(tool_calls)
    .bind(&message.tool_call_id)
    .bind(&message.reasoning)
    .bind(message.prompt_tokens)
    .bind(message.completion_tokens)
    .bind(message.status.as_str())
    .bind(outcome)
    .bind(now)
    .bind(message.kind.as_str())
    .bind(attachments)
    .fetch_one(&mut *conn)
    .await
    .map_err(|error| StoreError::missing_parent(error, "session", session))?;
    from_row(&row)
}

/// Makes the session the most recently updated.
async fn touch(conn: &mut SqliteConnection, session: SessionId, now: i64) -> Result<()> {
    sqlx::query("UPDATE sessions SET updated_at = MAX(updated_at, ?2) WHERE id = ?1")
        .bind(session.0)
        .bind(now)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

impl Sessions<'_> {
    /// Appends a message to a session (which becomes the most recently updated) and returns it
    /// once committed.
    pub async fn append_message(
        &self,
        session: SessionId,
        message: &NewMessage,
    ) -> Result<Message> {
        let now = Timestamp::now().as_millis();
        let mut tx = begin_write(self.pool).await?;
        let stored = insert(&mut tx, session, message, now).await?;
        touch(&mut tx, session, now).await?;
        tx.commit().await?;
        Ok(stored)
    }

    /// Appends `messages` to a session in one transaction (an import, a generated test
    /// session); returns how many were appended.
    pub async fn append_messages(
        &self,
        session: SessionId,
        messages: &[NewMessage],
    ) -> Result<usize> {
        let now = Timestamp::now().as_millis();
        let mut tx = begin_write(self.pool).await?;
        for message in messages {
            insert(&mut tx, session, message, now).await?;
        }
        touch(&mut tx, session, now).await?;
        tx.commit().await?;
        Ok(messages.len())
    }

    /// Replaces the text of the summary at `ordinal` (the user edited it). Only a summary can be
    /// edited: what was said stays as it was said.
    pub async fn replace_summary(
        &self,
        session: SessionId,
        ordinal: u32,
        content: &str,
    ) -> Result<()> {
        let changed = sqlx::query(
            "UPDATE messages SET content = ?3
             WHERE session_id = ?1 AND ordinal = ?2 AND kind = 'summary'",
        )
        .bind(session.0)
        .bind(ordinal)
        .bind(content)
        .execute(self.pool)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(StoreError::invalid(
                "summary",
                format!("message {ordinal} of session {session} is not a summary"),
            ));
        }
        Ok(())
    }

    /// A session's messages from ordinal `from` on, before `to` (to the end for `None`), in
    /// order: one page of a long session.
    pub async fn messages_between(
        &self,
        session: SessionId,
        from: u32,
        to: Option<u32>,
    ) -> Result<Vec<Message>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM messages
             WHERE session_id = ?1 AND ordinal >= ?2 AND (?3 IS NULL OR ordinal < ?3)
             ORDER BY ordinal"
        ))
        .bind(session.0)
        .bind(from)
        .bind(to)
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }

    /// The message at `ordinal` of a session, if there is one.
    pub async fn message_at(&self, session: SessionId, ordinal: u32) -> Result<Option<Message>> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND ordinal = ?2"
        ))
        .bind(session.0)
        .bind(ordinal)
        .fetch_optional(self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// The latest result of tool call `call` in a session, if there is one.
    pub async fn tool_result(&self, session: SessionId, call: &str) -> Result<Option<Message>> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM messages
             WHERE session_id = ?1 AND role = 'tool' AND tool_call_id = ?2
             ORDER BY ordinal DESC LIMIT 1"
        ))
        .bind(session.0)
        .bind(call)
        .fetch_optional(self.pool)
        .await?;
        row.as_ref().map(from_row).transpose()
    }

    /// Where a page of about `count` messages that ends before `before` starts: `count` back,
    /// then further back to the nearest message that is not a tool result, so that a reply and
    /// its tool results are in one page. `before` `None`: the page at the end of the session.
    pub async fn page_start(
        &self,
        session: SessionId,
        before: Option<u32>,
        count: u32,
    ) -> Result<u32> {
        let end: i64 = match before {
            Some(before) => i64::from(before),
            None => {
                sqlx::query_scalar(
                    "SELECT COALESCE(MAX(ordinal) + 1, 0) FROM messages WHERE session_id = ?1",
                )
                .bind(session.0)
                .fetch_one(self.pool)
                .await?
            }
        };
        let candidate = (end - i64::from(count)).max(0);
        if candidate == 0 {
            return Ok(0);
        }
        let start: i64 = sqlx::query_scalar(
            "SELECT COALESCE(MAX(ordinal), 0) FROM messages
             WHERE session_id = ?1 AND ordinal <= ?2 AND role <> 'tool'",
        )
        .bind(session.0)
        .bind(candidate)
        .fetch_one(self.pool)
        .await?;
        to_u32("message ordinal", start)
    }

    /// How many user messages of a session come before `ordinal`.
    pub async fn users_before(&self, session: SessionId, ordinal: u32) -> Result<u32> {
        let count: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM messages WHERE session_id = ?1 AND ordinal < ?2 AND role = 'user'",
        )
        .bind(session.0)
        .bind(ordinal)
        .fetch_one(self.pool)
        .await?;
        to_u32("message count", count)
    }

    /// A session's messages in order.
    pub async fn messages(&self, session: SessionId) -> Result<Vec<Message>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 ORDER BY ordinal"
        ))
        .bind(session.0)
        .fetch_all(self.pool)
        .await?;
        rows.iter().map(from_row).collect()
    }
}
