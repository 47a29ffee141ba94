//! The current session's file changes and its rewinds, for the Changes panel and the chat.
//!
//! - The Changes panel shows [`ProjectChat::changes`] and acts through
//!   [`ProjectChat::revert`] and [`ProjectChat::accept`].
//! - "Edit and resend from here" ([`ProjectChat::resend`]) takes the files back to how they were
//!   before the chosen user message (refusing over changes made since, unless the user chose
//!   otherwise), sets the rest of the conversation aside as a version the user can return to
//!   ([`ProjectChat::return_to_branch`]), and sends the edited message. "Retry"
//!   ([`ProjectChat::retry`]) does the same with the last message as it was.
//!
//! None of this runs beside a turn of the same session: the agent's writes and a restore would
//! race. (A turn of another session may run meanwhile; its writes to the same files meet the
//! file ledger.)

use std::sync::Arc;

use gantry_agent::Provider;
use gantry_store::{BranchId, Role, SessionId};
use gantry_tools::text::excerpt;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::runtime::{Hold, Runtime};
use super::{ChatView, ProjectChat, SessionActivities};
use crate::checkpoints::{ChangesView, OnConflict, RestoreReport, RevertRequest};
use crate::error::CommandError;

/// Characters of a message kept as a version's title.
const TITLE_CHARS: usize = 80;

/// A user message to send again, edited, in place of the one sent.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ResendRequest {
    /// Which user message to resend from: its index among the session's user messages, from 0.
    pub user_index: u32,
    /// The message to send in its place.
    pub text: String,
    /// What to do with files changed since the agent changed them.
    pub on_conflict: OnConflict,
    /// The original message's attachments the user removed while editing (their positions,
    /// from 0); the others go with the new message as they were sent.
    #[serde(default)]
    #[ts(optional, as = "Option<Vec<u32>>")]
    pub dropped_attachments: Vec<u32>,
}

/// "Retry": undo the session's last turn and send its message again.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RetryRequest {
    /// What to do with files changed since the agent changed them.
    pub on_conflict: OnConflict,
}

/// A version of the conversation to return to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SwitchBranchRequest {
    /// The version to return to.
    pub branch_id: String,
    /// What to do with files changed since the agent changed them.
    pub on_conflict: OnConflict,
}

/// The agent's changes to accept: one file's, or all.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AcceptChangesRequest {
    /// The file to accept; every file when absent.
    #[ts(optional)]
    pub path: Option<String>,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ResendOutcome {
    /// The files taken back (`applied: false` with conflicts: nothing happened).
    pub report: RestoreReport,
    /// The session the message was sent in, when it was.
    pub session_id: Option<String>,
}

/// What a revert did, and the panel afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RevertOutcome {
    /// What was written.
    pub report: RestoreReport,
    /// The Changes panel now.
    pub changes: ChangesView,
}

/// What a return to another version did, and the chat afterwards.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SwitchBranchOutcome {
    /// The files restored (`applied: false` with conflicts: nothing happened).
    pub report: RestoreReport,
    /// The chat now.
    pub chat: ChatView,
}

/// A set-aside version of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct BranchView {
    /// Its id.
    pub id: String,
    /// The user message it replaces: its index among the live user messages, from 0.
    pub user_index: u32,
    /// Its first message's first line.
    pub title: String,
    /// How many messages it holds.
    pub message_count: u32,
    /// When it was set aside, in milliseconds since the epoch.
    pub created_at: i64,
}

impl ProjectChat {
    fn current_store_id(&self) -> Option<SessionId> {
        self.current_id().and_then(|id| id.parse().ok())
    }

    fn require_session(&self) -> Result<SessionId, CommandError> {
        self.current_store_id()
            .ok_or_else(|| CommandError::invalid("this chat has no messages yet"))
    }

    /// Holds session `session`'s turn slot while files are restored, so no turn of that session
    /// starts meanwhile; [`crate::ErrorKind::Busy`] while one runs.
    fn reserve(&self, session: SessionId) -> Result<Reserved, CommandError> {
        let runtime = self.runtime(&session.to_string());
        runtime.claim(&self.activities, Hold::Restore, CancellationToken::new())?;
        Ok(Reserved {
            runtime,
            activities: Arc::clone(&self.activities),
        })
    }

    /// The current session's changes (empty for a fresh chat).
    pub async fn changes(&self) -> Result<ChangesView, CommandError> {
        match self.current_store_id() {
            Some(session) => Ok(self.checkpoints.view(session).await?),
            None => Ok(ChangesView::empty()),
        }
    }

    /// Reverts part of the current session's changes (see [`RevertRequest`]).
    pub async fn revert(&self, request: &RevertRequest) -> Result<RevertOutcome, CommandError> {
        let session = self.require_session()?;
        let report = {
            let _reserved = self.reserve(session)?;
            self.checkpoints
                .revert(session, &request.target, request.on_conflict)
                .await?
        };
        Ok(RevertOutcome {
            report,
            changes: self.checkpoints.view(session).await?,
        })
    }

    /// Forgets the current session's checkpoints of `path` (or of every file): the user keeps
    /// the changes.
    pub async fn accept(&self, path: Option<&str>) -> Result<ChangesView, CommandError> {
        let session = self.require_session()?;
        self.store.checkpoints().accept(session, path).await?;
        self.checkpoints.collect_in_background();
        Ok(self.checkpoints.view(session).await?)
    }

    /// The ordinals of the current session's user messages, oldest first, with their text.
    async fn user_messages(&self, session: SessionId) -> Result<Vec<(u32, String)>, CommandError> {
        Ok(self
            .stored_user_messages(session)
            .await?
            .into_iter()
            .map(|message| (message.ordinal, message.message.content.unwrap_or_default()))
            .collect())
    }

    /// The current session's user messages as stored, oldest first.
    async fn stored_user_messages(
        &self,
        session: SessionId,
    ) -> Result<Vec<gantry_store::Message>, CommandError> {
        Ok(self
            .store
            .sessions()
            .messages(session)
            .await?
            .into_iter()
            .filter(|message| message.message.role == Role::User)
            .collect())
    }

    /// "Edit and resend from here": see the module docs.
    pub async fn resend(
        &self,
        request: &ResendRequest,
        provider: Provider,
    ) -> Result<ResendOutcome, CommandError> {
        super::check_message(&request.text)?;
        let session = self.require_session()?;
        let users = self.stored_user_messages(session).await?;
        let index = usize::try_from(request.user_index).unwrap_or(usize::MAX);
        let Some(original) = users.into_iter().nth(index) else {
            return Err(CommandError::not_found(format!(
                "the session has no message {}",
                request.user_index + 1
            )));
        };
        let ordinal = original.ordinal;
        let old = original.message.content.clone().unwrap_or_default();
        let attachments: Vec<_> = crate::sessions::transcripts::from_stored(original.message)
            .map(|message| message.attachments)
            .unwrap_or_default()
            .into_iter()
            .zip(0u32..)
            .filter(|(_, position)| !request.dropped_attachments.contains(position))
            .map(|(attachment, _)| attachment)
            .collect();
        let message = gantry_agent::Message::user(&request.text).with_attachments(attachments);
        let report = {
            let reserved = self.reserve(session)?;
            let plan = self.checkpoints.rewind_plan(session, ordinal).await?;
            let report = self
                .checkpoints
                .apply(session, plan, request.on_conflict)
                .await?;
            if !report.applied {
                return Ok(ResendOutcome {
                    report,
                    session_id: None,
                });
            }
            let restore = report.restore_id.as_deref().and_then(|id| id.parse().ok());
            self.store
                .branches()
                .set_aside(session, ordinal, &title(&old), restore)
                .await?;
            // The loaded session holds the old transcript: the next turn loads it again.
            *reserved.runtime.engine.lock().await = None;
            report
        };
        let session_id = self.send_with(message, provider).await?;
        Ok(ResendOutcome {
            report,
            session_id: Some(session_id),
        })
    }

    /// "Retry": the last user message, sent again after its turn was undone.
    pub async fn retry(
        &self,
        on_conflict: OnConflict,
        provider: Provider,
    ) -> Result<ResendOutcome, CommandError> {
        let session = self.require_session()?;
        let users = self.user_messages(session).await?;
        let Some(last) = users.len().checked_sub(1) else {
            return Err(CommandError::invalid("there is no message to retry"));
        };
        let text = users[last].1.clone();
        let request = ResendRequest {
            user_index: u32::try_from(last).unwrap_or(u32::MAX),
            text,
            on_conflict,
            dropped_attachments: Vec::new(),
        };
        self.resend(&request, provider).await
    }

    /// The current session's set-aside versions.
    pub async fn branches(&self) -> Result<Vec<BranchView>, CommandError> {
        let Some(session) = self.current_store_id() else {
            return Ok(Vec::new());
        };
        let users = self.user_messages(session).await?;
        let branches = self.store.branches().list(session).await?;
        Ok(branches
            .into_iter()
            .map(|branch| BranchView {
                id: branch.id.to_string(),
                user_index: u32::try_from(
                    users
                        .iter()
                        .filter(|(ordinal, _)| *ordinal < branch.from_ordinal)
                        .count(),
                )
                .unwrap_or(u32::MAX),
                title: branch.title,
                message_count: branch.message_count,
                created_at: branch.created_at.as_millis(),
            })
            .collect())
    }

    /// Returns to a set-aside version: its files and messages become the live ones, and what
    /// was live from there on is set aside in its turn.
    pub async fn return_to_branch(
        &self,
        request: &SwitchBranchRequest,
    ) -> Result<SwitchBranchOutcome, CommandError> {
        let session = self.require_session()?;
        let branch: BranchId = request
            .branch_id
            .parse()
            .map_err(|_| CommandError::not_found(format!("no version {}", request.branch_id)))?;
        let found = self.store.branches().get(session, branch).await?;
        let report = {
            let reserved = self.reserve(session)?;
            let plan = self
                .checkpoints
                .branch_plan(session, branch, found.from_ordinal, found.restore_id)
                .await?;
            let report = self
                .checkpoints
                .apply(session, plan, request.on_conflict)
                .await?;
            if report.applied {
                let live = self
                    .user_messages(session)
                    .await?
                    .into_iter()
                    .find(|(ordinal, _)| *ordinal >= found.from_ordinal)
                    .map(|(_, text)| title(&text))
                    .unwrap_or_default();
                let restore = report.restore_id.as_deref().and_then(|id| id.parse().ok());
                self.store
                    .branches()
                    .bring_back(session, branch, &live, restore)
                    .await?;
                *reserved.runtime.engine.lock().await = None;
            }
            report
        };
        Ok(SwitchBranchOutcome {
            report,
            chat: self.view().await?,
        })
    }
}

/// A session's turn slot held for a restore, freed when dropped.
struct Reserved {
    runtime: Arc<Runtime>,
    activities: Arc<SessionActivities>,
}

impl Drop for Reserved {
    fn drop(&mut self) {
        self.runtime.release(&self.activities);
    }
}

/// A version's title: the first non-empty line of its first message.
fn title(text: &str) -> String {
    let first = text
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("");
    excerpt(first.trim(), TITLE_CHARS)
}
