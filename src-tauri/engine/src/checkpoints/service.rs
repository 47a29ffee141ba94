//! The changes room's commands: what the current session changed in the project's files (the
//! Changes panel), reverting and accepting those changes, and rewinding the conversation (edit
//! and resend, retry, the set-aside versions).

use std::sync::Arc;

use crate::app::{App, Service, Window, check_path};
use crate::chat::{
    AcceptChangesRequest, BranchView, ResendOutcome, ResendRequest, RetryRequest, RevertOutcome,
    SwitchBranchOutcome, SwitchBranchRequest,
};
use crate::checkpoints::{ChangesView, RevertRequest};
use crate::error::CommandError;
use crate::project::OpenProject;
use crate::providers::settings::active_provider;

/// The changes room: the app and the project a window shows.
pub struct ChangesService {
    app: Arc<App>,
    project: Arc<OpenProject>,
}

impl Service for ChangesService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self {
            app: Arc::clone(window.app()),
            project: window.current()?,
        })
    }
}

impl ChangesService {
    /// What the current session changed in the project's files, as the Changes panel shows it.
    pub async fn changes_view(&self) -> Result<ChangesView, CommandError> {
        self.project.chat().changes().await
    }

    /// Reverts a file, a hunk, a turn, the session, or undoes a restore.
    pub async fn revert_changes(
        &self,
        request: RevertRequest,
    ) -> Result<RevertOutcome, CommandError> {
        self.project.chat().revert(&request).await
    }

    /// Keeps the changes of a file (or of every file) and forgets their checkpoints.
    pub async fn accept_changes(
        &self,
        request: AcceptChangesRequest,
    ) -> Result<ChangesView, CommandError> {
        if let Some(path) = &request.path {
            check_path(path)?;
        }
        self.project.chat().accept(request.path.as_deref()).await
    }

    /// "Edit and resend from here": rewinds the files and the conversation, then sends with
    /// the active provider.
    pub async fn resend_message(
        &self,
        request: ResendRequest,
    ) -> Result<ResendOutcome, CommandError> {
        let provider = active_provider(self.app.store()).await?;
        self.project.chat().resend(&request, provider).await
    }

    /// "Retry": undoes the last turn and sends its message again, with the active provider.
    pub async fn retry_turn(&self, request: RetryRequest) -> Result<ResendOutcome, CommandError> {
        let provider = active_provider(self.app.store()).await?;
        self.project
            .chat()
            .retry(request.on_conflict, provider)
            .await
    }

    /// The current session's set-aside versions.
    pub async fn chat_branches(&self) -> Result<Vec<BranchView>, CommandError> {
        self.project.chat().branches().await
    }

    /// Returns to a set-aside version of the conversation (its files and messages).
    pub async fn switch_branch(
        &self,
        request: SwitchBranchRequest,
    ) -> Result<SwitchBranchOutcome, CommandError> {
        self.project.chat().return_to_branch(&request).await
    }
}
