//! What a running tool can reach: the project, the user, the turn's cancellation.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::prompt::UserPrompter;

/// Everything a tool function receives besides its arguments. Cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    root: Arc<Path>,
    cancel: CancellationToken,
    prompter: Option<Arc<dyn UserPrompter>>,
}

impl ToolContext {
    /// A context for the project at `root` (already canonical), with no user attached.
    pub fn new(root: Arc<Path>) -> Self {
        Self {
            root,
            cancel: CancellationToken::new(),
            prompter: None,
        }
    }

    /// The same context with `cancel` as the call's cancellation token.
    #[must_use]
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// The same context with a user who can answer questions.
    #[must_use]
    pub fn with_prompter(mut self, prompter: Option<Arc<dyn UserPrompter>>) -> Self {
        self.prompter = prompter;
        self
    }

    /// The project's root folder (canonical). Tools must resolve every path through the
    /// confinement rules, never join to this directly.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Cancelled when the turn is cancelled; long-running tools should watch it.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Who answers questions, if anyone.
    pub fn prompter(&self) -> Option<&Arc<dyn UserPrompter>> {
        self.prompter.as_ref()
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("root", &self.root)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("prompter", &self.prompter.is_some())
            .finish()
    }
}
