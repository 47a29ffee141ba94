//! Questions from the model to the user (the ask_user tool), answered by whoever is present:
//! the terminal in the CLI, a dialog in the desktop app.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// A question for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UserQuestion {
    /// The ask_user call asking (the model's `tool_call_id`): links the dialog to its card.
    pub call_id: String,
    /// The session whose turn asks, when it is stored: a front end with several sessions shows
    /// the dialog with that session (its tab).
    #[serde(default)]
    pub session_id: Option<String>,
    /// The question, as the model wrote it.
    pub question: String,
    /// Suggested answers; the user may also answer freely.
    pub options: Vec<String>,
}

/// Why a question got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PromptError {
    /// Nobody can answer (no terminal, no window).
    #[error("no user is available to answer")]
    Unavailable,
    /// The user closed the question without answering.
    #[error("the user dismissed the question without answering")]
    Dismissed,
    /// Nobody answered in time.
    #[error("the user did not answer in time")]
    TimedOut,
}

/// Answers questions from the model.
#[async_trait]
pub trait UserPrompter: Send + Sync {
    /// Asks one question and waits for the answer.
    async fn ask(&self, question: UserQuestion) -> Result<String, PromptError>;
}
