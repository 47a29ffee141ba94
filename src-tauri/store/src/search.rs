//! Finding what was said: full-text search (SQLite FTS5) over the live messages of a project's
//! sessions — their text, and the names and arguments of the tool calls they made.
//!
//! The index (`messages_fts`) is kept by triggers on `messages` (migration 0008), so no writer
//! can forget it. The user's words are never FTS syntax: each becomes a quoted prefix term
//! (`"word"*`), all of which a message must contain, so `fix build` finds "fixing the build" and
//! a stray quote or `OR` is just text.

use serde::Serialize;
use sqlx::Row;

use crate::codec::{parse_name, to_u32};
use crate::error::Result;
use crate::ids::{MessageId, ProjectId, SessionId};
use crate::messages::Role;
use crate::sessions::Sessions;

/// Marks the start of a matched word in a [`SearchHit::snippet`].
pub const HIT_START: char = '\u{2}';
/// Marks the end of a matched word in a [`SearchHit::snippet`].
pub const HIT_END: char = '\u{3}';

/// Words of context a snippet shows around the matches.
const SNIPPET_WORDS: u32 = 16;

/// One message that matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    /// The message.
    pub message_id: MessageId,
    /// Its session.
    pub session_id: SessionId,
    /// The session's title.
    pub session_title: String,
    /// The message's position in its session, from 0.
    pub ordinal: u32,
    /// Who spoke.
    pub role: Role,
    /// The matched part of the message, matched words between [`HIT_START`] and [`HIT_END`].
    pub snippet: String,
}

/// The FTS5 query for what the user typed: every word, quoted, as a prefix; `None` when there is
/// no word.
pub fn match_query(text: &str) -> Option<String> {
    let terms: Vec<String> = text
        .split_whitespace()
        .map(|word| format!("\"{}\"*", word.replace('"', "\"\"")))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

impl Sessions<'_> {
    /// The messages of `project`'s sessions that contain every word of `text` (as words or word
    /// prefixes), best first, at most `limit`.
    pub async fn search(
        &self,
        project: ProjectId,
        text: &str,
        limit: u32,
    ) -> Result<Vec<SearchHit>> {
        let Some(query) = match_query(text) else {
            return Ok(Vec::new());
        };
        let rows = sqlx::query(
            "SELECT m.id, m.session_id, m.ordinal, m.role, s.title,
                    snippet(messages_fts, 0, char(2), char(3), '…', ?3) AS snippet
             FROM messages_fts
             JOIN messages AS m ON m.id = messages_fts.rowid
             JOIN sessions AS s ON s.id = m.session_id
             WHERE messages_fts MATCH ?1 AND s.project_id = ?2
             ORDER BY rank, m.id DESC
             LIMIT ?4",
        )
        .bind(query)
        .bind(project.0)
        .bind(SNIPPET_WORDS)
        .bind(limit)
        .fetch_all(self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(SearchHit {
                    message_id: MessageId(row.try_get("id")?),
                    session_id: SessionId(row.try_get("session_id")?),
                    session_title: row.try_get("title")?,
                    ordinal: to_u32("message ordinal", row.try_get("ordinal")?)?,
                    role: parse_name("message role", row.try_get("role")?)?,
                    snippet: row.try_get("snippet")?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_words_are_quoted_prefix_terms() {
        assert_eq!(match_query("  "), None);
        assert_eq!(
            match_query("fix build"),
            Some("\"fix\"* \"build\"*".to_owned())
        );
        assert_eq!(
            match_query("say \"hi\" OR"),
            Some("\"say\"* \"\"\"hi\"\"\"* \"OR\"*".to_owned())
        );
    }
}
