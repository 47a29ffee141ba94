//! Long sessions, a page at a time.
//!
//! Opening a session reads its tail only ([`TAIL_MESSAGES`] messages, enough to fill the view
//! many times over); the webview asks for older pages as the user scrolls up
//! ([`ProjectChat::messages_before`]). A page never starts on a tool result, so a reply and its
//! results arrive together. Each page says how many user messages come before it, so the
//! webview numbers user messages among the whole session's (edit and resend, retry, versions)
//! without holding them all.
//!
//! A tool result longer than [`CLIP_BYTES`] is sent shortened to its first [`HEAD_BYTES`] (what
//! a folded card shows) and listed in the page's `clipped`; the card asks for the whole text
//! when the user opens it ([`ProjectChat::message_text`]). So a session of many large results
//! does not keep them all in the page.

use gantry_agent::{Message, Role, TurnEvent};
use gantry_store::SessionId;
use serde::{Deserialize, Serialize};

use super::ProjectChat;
use crate::error::CommandError;
use crate::sessions::transcripts::from_stored;

/// How many messages (about: a page ends on a reply with its results) opening a session reads.
pub const TAIL_MESSAGES: u32 = 160;
/// The most messages one page of earlier messages holds.
pub const MAX_PAGE_MESSAGES: u32 = 20_000;
/// A tool result longer than this (bytes) is sent shortened.
pub const CLIP_BYTES: usize = 8 * 1024;
/// What is kept of a shortened result: its first bytes (cut at a character's boundary).
pub const HEAD_BYTES: usize = 4 * 1024;

/// Some consecutive messages of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// The ordinal (position in the session, from 0) of the first message.
    pub first_ordinal: u32,
    /// How many user messages of the session come before the first message.
    pub users_before: u32,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    /// The ordinals of the tool results sent shortened (their whole text is read on demand).
    pub clipped: Vec<u32>,
}

/// A page of a session's messages to read: those before an ordinal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MessagesBeforeRequest {
    /// The session.
    pub session_id: String,
    /// The ordinal the page ends before (the first one the webview has).
    pub before: u32,
    /// About how many messages (at most [`MAX_PAGE_MESSAGES`]).
    pub count: u32,
}

/// A message whose whole text to read: a message by its ordinal, or a tool result by its
/// call's id (a live card's, which knows no ordinal; the latest result of that id).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageTextRequest {
    /// The session.
    pub session_id: String,
    /// The message's ordinal.
    #[serde(default)]
    #[ts(optional)]
    pub ordinal: Option<u32>,
    /// The tool call the result answers.
    #[serde(default)]
    #[ts(optional)]
    pub tool_call_id: Option<String>,
}

/// `event` with a tool result longer than [`CLIP_BYTES`] shortened to its head, and the whole
/// result's length when it was.
pub(super) fn clip_event(event: TurnEvent) -> (TurnEvent, Option<u64>) {
    match event {
        TurnEvent::ToolResult {
            id,
            name,
            mut observation,
        } if observation.text.len() > CLIP_BYTES => {
            let whole = u64::try_from(observation.text.len()).unwrap_or(u64::MAX);
            let kept = head(&observation.text, HEAD_BYTES).len();
            observation.text.truncate(kept);
            (
                TurnEvent::ToolResult {
                    id,
                    name,
                    observation,
                },
                Some(whole),
            )
        }
        event => (event, None),
    }
}

/// `text` cut to at most `bytes` bytes, at a character's boundary.
fn head(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

impl ProjectChat {
    /// The messages of session `session` from ordinal `from` on, before `to`.
    pub(super) async fn page(
        &self,
        session: SessionId,
        from: u32,
        to: Option<u32>,
    ) -> Result<MessagePage, CommandError> {
        let sessions = self.store.sessions();
        let users_before = sessions.users_before(session, from).await?;
        let stored = sessions.messages_between(session, from, to).await?;
        let mut clipped = Vec::new();
        let mut messages = Vec::with_capacity(stored.len());
        for stored in stored {
            let ordinal = stored.ordinal;
            let Some(mut message) = from_stored(stored.message) else {
                continue;
            };
            if message.role == Role::Tool && message.content.len() > CLIP_BYTES {
                let kept = head(&message.content, HEAD_BYTES).len();
                message.content.truncate(kept);
                clipped.push(ordinal);
            }
            messages.push(message);
        }
        Ok(MessagePage {
            first_ordinal: from,
            users_before,
            messages,
            clipped,
        })
    }

    /// The tail of session `session`: its last [`TAIL_MESSAGES`] messages or so, from
    /// `at_least` on when given (a running turn's first message).
    pub(super) async fn tail(
        &self,
        session: SessionId,
        at_least: Option<u32>,
    ) -> Result<MessagePage, CommandError> {
        let start = self
            .store
            .sessions()
            .page_start(session, None, TAIL_MESSAGES)
            .await?;
        let start = at_least.map_or(start, |first| start.min(first));
        self.page(session, start, None).await
    }

    /// About `count` messages of session `id` before ordinal `before` (the webview scrolled up
    /// to the first one it has).
    pub async fn messages_before(
        &self,
        id: &str,
        before: u32,
        count: u32,
    ) -> Result<MessagePage, CommandError> {
        let session = self.own_session(id).await?.id;
        let count = count.clamp(1, MAX_PAGE_MESSAGES);
        let start = self
            .store
            .sessions()
            .page_start(session, Some(before), count)
            .await?;
        self.page(session, start, Some(before)).await
    }

    /// The whole text of the message at `ordinal` of session `id`, or of the latest result of
    /// tool call `call` (a shortened tool result).
    pub async fn message_text(
        &self,
        id: &str,
        ordinal: Option<u32>,
        call: Option<&str>,
    ) -> Result<String, CommandError> {
        let session = self.own_session(id).await?.id;
        let sessions = self.store.sessions();
        let message = match (ordinal, call) {
            (Some(ordinal), _) => sessions.message_at(session, ordinal).await?,
            (None, Some(call)) => sessions.tool_result(session, call).await?,
            (None, None) => return Err(CommandError::invalid("which message?")),
        };
        message
            .map(|message| message.message.content.unwrap_or_default())
            .ok_or_else(|| CommandError::not_found(format!("no such message in session {id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::head;

    #[test]
    fn a_head_is_cut_at_a_character_boundary() {
        assert_eq!(head("héllo", 2), "h");
        assert_eq!(head("héllo", 3), "hé");
        assert_eq!(head("abc", 10), "abc");
    }
}
