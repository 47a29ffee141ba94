//! Searching what was said in a project's sessions (the store's FTS5 index), for the sidebar's
//! search box.

use gantry_store::{HIT_END, HIT_START, ProjectId, Role, Store};
use serde::{Deserialize, Serialize};

use crate::error::CommandError;

/// The most hits a search returns.
pub const MAX_HITS: u32 = 50;
/// The longest search text accepted, in characters.
const MAX_QUERY_CHARS: usize = 500;

/// What to find in the project's sessions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchSessionsRequest {
    /// The words to find (all of them, as words or word beginnings).
    pub text: String,
}

/// One message found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchHitView {
    /// The session it is in.
    pub session_id: String,
    /// That session's title.
    pub session_title: String,
    /// The message's position in its session (its ordinal: `ChatView.messages` starts at its
    /// `first_ordinal`).
    pub ordinal: u32,
    /// Who spoke: `user`, `assistant` (text or tool calls) or `tool` (a result).
    pub role: String,
    /// The matched part of the message, plain and highlighted pieces in order.
    pub snippet: Vec<SnippetPart>,
}

/// A piece of a snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it is a matched word.
    pub hit: bool,
}

/// Splits a store snippet at its hit markers.
pub fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut hit = false;
    let mut text = String::new();
    for char in snippet.chars() {
        if char == HIT_START || char == HIT_END {
            if !text.is_empty() {
                parts.push(SnippetPart {
                    text: std::mem::take(&mut text),
                    hit,
                });
            }
            hit = char == HIT_START;
        } else {
            text.push(if char == '\n' { ' ' } else { char });
        }
    }
    if !text.is_empty() {
        parts.push(SnippetPart { text, hit });
    }
    parts
}

/// The messages of `project`'s sessions that contain `text`, best first.
pub async fn find(
    store: &Store,
    project: ProjectId,
    text: &str,
) -> Result<Vec<SearchHitView>, CommandError> {
    if text.chars().count() > MAX_QUERY_CHARS {
        return Err(CommandError::invalid(format!(
            "a search is at most {MAX_QUERY_CHARS} characters"
        )));
    }
    let hits = store.sessions().search(project, text, MAX_HITS).await?;
    Ok(hits
        .into_iter()
        .map(|hit| SearchHitView {
            session_id: hit.session_id.to_string(),
            session_title: hit.session_title,
            ordinal: hit.ordinal,
            role: match hit.role {
                Role::System => "system",
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
            }
            .to_owned(),
            snippet: snippet_parts(&hit.snippet),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_split_at_their_markers() {
        let parts = snippet_parts("a \u{2}fix\u{3} for\n\u{2}it\u{3}");
        let flat: Vec<(&str, bool)> = parts.iter().map(|p| (p.text.as_str(), p.hit)).collect();
        assert_eq!(
            flat,
            [("a ", false), ("fix", true), (" for ", false), ("it", true)]
        );
    }
}
